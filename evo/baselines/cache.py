"""Cache of baseline trees: ``<the game's cache>/<game>/<key>.json``, the key being the
baseline's name (:func:`cache_key`) (the command line's
games are cached under ``$EVO_CACHE``, default ``~/.cache/evo``; a game made without a
cache keeps nothing on disk).

Each file is a tree document (:func:`evo.core.treeio.tree_document`) that also holds the
baseline's result dict (with the seconds of the original computation) and what the file
holds (the baseline, its key, its seed and the game), sealed by this machine's key
(:mod:`evo.core.seal`: an optimum edited in a cache file is not taken, whatever its
digest).
Files are written atomically. A file that is not a regular file, cannot be read back,
whose content hash does not match, that holds another baseline, seed or game than the one
asked for (copied or renamed; or written before files said what they hold), or whose tree
is not valid, is treated as missing: the baseline is recomputed and the file rewritten.
The figures derived from the tree (total, average, worst case, histogram, nodes, first
guess) are always recomputed from the tree, never taken from the file. A cached optimum
that contradicts the game's record is set aside, said in one line, and computed again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from evo.baselines.records import Baseline, BaselineResult
from evo.baselines.registry import parse_name, seeded
from evo.core.files import atomic_write_json, open_regular
from evo.core.game import Game
from evo.core.tree import Tree
from evo.core.treeio import tree_document, tree_from_document

#: The key of the content's seal in a cache file.
HASH_KEY = "seal"

#: The key of what a cache file holds (:func:`entry`), inside what the hash covers.
ENTRY_KEY = "entry"

#: Cache files larger than this are not read (recomputing is cheaper than trusting them).
MAX_CACHE_BYTES = 256 * 2**20


def cache_path(game: Game, key: str) -> Path | None:
    """The file of baseline ``key`` (its name, with ``-seed`` for seeded ones), or None
    for a game without a cache."""
    if game.cache is None:
        return None
    return Path(game.cache) / game.name / f"{key}.json"


def content_hash(doc: dict[str, Any]) -> str:
    """The seal of a cache document without its seal (:func:`evo.core.seal.seal`: a
    keyed digest, so that an edited file, its digest computed again, is still refused)."""
    from evo.core.seal import seal

    return seal({k: v for k, v in doc.items() if k != HASH_KEY})


def derived_figures(tree: Tree) -> dict[str, Any]:
    """What a result says that its tree decides: recomputed from the tree on every load."""
    return {**tree.summary(), "first_guess": tree.game.format_code(int(tree.guess[0]))}


#: The builders' generation, in every cache file: raised when a baseline builds another
#: tree under the same name, so that files of the older builders are built again. 2: the
#: one-step look-ahead's early stop, which had assumed one feedback never occurs, holds
#: for black-peg Mastermind and custom games (their Knuth, Irving and Kooi trees changed).
BUILDERS = 2


def entry(game: Game, key: str, name: str, seed: int | None) -> dict[str, Any]:
    """What the cache file of baseline ``name`` (``seed``: None unless seeded) says it
    holds, checked on load: a file copied under another name, or written by older
    builders (:data:`BUILDERS`), is not that baseline."""
    return {
        "builders": BUILDERS,
        "baseline": name,
        "key": key,
        "seed": seed,
        "game": game.name,
        **game.spec,
    }


def load(game: Game, key: str, *, name: str, seed: int | None = None) -> tuple[Tree, dict] | None:
    """The cached tree and result of baseline ``name`` (``seed``: None unless seeded), or
    None when missing, not a regular file, unreadable, edited (its content hash differs),
    holding another baseline, or not a valid tree of the game."""
    path = cache_path(game, key)
    if path is None:
        return None
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            if os.fstat(f.fileno()).st_size > MAX_CACHE_BYTES:
                return None
            data = f.read(MAX_CACHE_BYTES + 1)
        if len(data) > MAX_CACHE_BYTES:  # grown since
            return None
        doc = json.loads(data.decode("utf-8"))
        if not isinstance(doc, dict) or doc.get(HASH_KEY) != content_hash(doc):
            return None
        if doc.get(ENTRY_KEY) != entry(game, key, name, seed):
            return None
        tree = tree_from_document(doc, game=game)
        result = dict(doc["result"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    result.update(derived_figures(tree))
    return tree, result


def store(
    game: Game, key: str, tree: Tree, result: dict, *, name: str, seed: int | None = None
) -> Path | None:
    """Write the tree and result of baseline ``name`` with what the file holds and their
    content hash (nothing for a game without a cache); a cache that cannot be written is
    skipped silently (the result stands, it will be recomputed next time)."""
    path = cache_path(game, key)
    if path is None:
        return None
    doc = tree_document(tree, result=result)
    doc[ENTRY_KEY] = entry(game, key, name, seed)
    doc[HASH_KEY] = content_hash(doc)
    try:
        return atomic_write_json(path, doc, None, replace_any=True)  # evo's own folder
    except OSError:
        return None


def cache_key(game: Game, name: str, *, seed: int = 0) -> str:
    """The cache file name of a baseline: its name, with ``-seed`` for RC forms."""
    name = parse_name(game, name)
    if "+" in name:  # openings are played as written now; older files skipped guesses
        name = f"{name}-as-written"
    return f"{name}-{seed}" if seeded(name) else name


def cache_seed(name: str, seed: int) -> int | None:
    """The seed a cache file of canonical ``name`` records: None unless it is seeded."""
    return seed if seeded(name) else None


def cached(game: Game, name: str, *, seed: int = 0) -> Baseline | None:
    """A baseline from the cache only (None when it was never computed)."""
    name = parse_name(game, name)
    key = cache_key(game, name, seed=seed)
    hit = load(game, key, name=name, seed=cache_seed(name, seed))
    if hit is None:
        return None
    tree, result = hit
    if name == "optimal" and _contradicts_record(game, key, int(result["total"])):
        return None
    result["histogram"] = {int(k): int(v) for k, v in result["histogram"].items()}
    result["cached"] = True
    return Baseline(name, tree, BaselineResult(**result))


def _contradicts_record(game: Game, key: str, total: int) -> bool:
    """Whether a cached optimum of ``total`` contradicts the game's record
    (:func:`evo.baselines.known.known_optimum`): any other total than a proven optimum,
    or a total above a best total reported (a strategy of that total exists). The record
    is taken as right, the cache file as wrong (a key, floors or an edit may have made
    it): the file is set aside, in one line naming it and both totals, and the optimum
    is computed again. Below a total reported but not proved, an optimum may lie."""
    from evo.baselines.known import known_optimum
    from evo.core.files import set_aside

    known = known_optimum(game)
    if known is None or total == known.total or (total < known.total and not known.proved):
        return False
    path = cache_path(game, key)
    try:
        done = f"set aside as {set_aside(path).name}" if path is not None else "not used"
    except OSError:
        done = "not used"
    what = "the proven optimum" if known.proved else "the best total reported"
    print(
        f"evo: {path}: a cached optimal total of {total:,} contradicts {what}, "
        f"{known.total:,} ({known.source}): the cache file is wrong, {done}; computed again",
        file=sys.stderr,
        flush=True,
    )
    return True
