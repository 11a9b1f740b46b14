"""Cache of baseline trees: ``<the game's cache>/<game>/<name>.json`` (the command line's
games are cached under ``$EVO_CACHE``, default ``~/.cache/evo``; a game made without a
cache keeps nothing on disk).

Each file is a tree document (:func:`evo.core.treeio.tree_document`) that also holds the
baseline's result dict (with the seconds of the original computation), sealed by a
SHA-256 of its content. Files are written atomically. A file that cannot be read back,
whose content hash does not match, or whose tree is not valid, is treated as missing: the
baseline is recomputed and the file rewritten. The figures derived from the tree (total,
average, worst case, histogram, nodes, first guess) are always recomputed from the tree,
never taken from the file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from evo.core.files import atomic_write_json
from evo.core.game import Game
from evo.core.tree import Tree
from evo.core.treeio import tree_document, tree_from_document

#: The key of the content hash in a cache file.
HASH_KEY = "sha256"

#: Cache files larger than this are not read (recomputing is cheaper than trusting them).
MAX_CACHE_BYTES = 256 * 2**20


def cache_path(game: Game, key: str) -> Path | None:
    """The file of baseline ``key`` (its name, with ``-seed`` for seeded ones), or None
    for a game without a cache."""
    if game.cache is None:
        return None
    return Path(game.cache) / game.name / f"{key}.json"


def content_hash(doc: dict[str, Any]) -> str:
    """SHA-256 of a cache document without its hash (canonical JSON)."""
    body = {k: v for k, v in doc.items() if k != HASH_KEY}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def derived_figures(tree: Tree) -> dict[str, Any]:
    """What a result says that its tree decides: recomputed from the tree on every load."""
    return {**tree.summary(), "first_guess": tree.game.format_code(int(tree.guess[0]))}


def load(game: Game, key: str) -> tuple[Tree, dict] | None:
    """The cached tree and result, or None when missing, unreadable, edited (its content
    hash differs) or not a valid tree of the game."""
    path = cache_path(game, key)
    if path is None:
        return None
    try:
        if path.stat().st_size > MAX_CACHE_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get(HASH_KEY) != content_hash(doc):
            return None
        tree = tree_from_document(doc, game=game)
        result = dict(doc["result"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    result.update(derived_figures(tree))
    return tree, result


def store(game: Game, key: str, tree: Tree, result: dict) -> Path | None:
    """Write the tree and result with their content hash (nothing for a game without a
    cache); a cache that cannot be written is skipped silently (the result stands, it
    will be recomputed next time)."""
    path = cache_path(game, key)
    if path is None:
        return None
    doc = tree_document(tree, result=result)
    doc[HASH_KEY] = content_hash(doc)
    try:
        return atomic_write_json(path, doc, None)
    except OSError:
        return None
