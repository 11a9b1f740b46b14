"""Saving and loading breaker trees, and converting them to nested dicts.

A tree file is JSON: the format name and version, the game, the fitness summary
(checked on load) and the tree as nested nodes ``{"guess": "1122", "children": {"1,0":
{...}}}`` with codes and feedbacks printed as people read them. A file named ``.npz`` is
the compact form of the same, for trees of big games (hundreds of thousands of nodes): a
NumPy archive, read with ``allow_pickle=False``, of the nodes' ``guess``, ``parent`` and
``label`` arrays in preorder and the same document without its nodes. Either is checked
on every code when loaded.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import (
    atomic_write_bytes,
    atomic_write_json,
    decode_text,
    parse_json,
    read_bytes,
)
from evo.core.game import Game, make_game
from evo.core.growth import Template, build_exact
from evo.core.tree import InvalidTreeError, Tree

FORMAT = "evo-breaker"
VERSION = 1


class TreeFileError(ValueError):
    """A tree file cannot be read: it says which file and what is wrong."""


def to_nested(tree: Tree, *, node: int = 0) -> dict[str, Any]:
    """The subtree under ``node`` as nested dicts with printed codes and feedbacks."""
    game = tree.game
    end = node + int(tree.nsub[node])
    printed = game.format_codes(tree.guess[node:end])
    labels = [game.format_feedback(f) for f in range(game.num_feedbacks)]
    dicts: list[dict[str, Any]] = [{"guess": g} for g in printed]
    parent, label = tree.parent, tree.label
    for i in range(node + 1, end):  # preorder, children in feedback order
        d = dicts[parent[i] - node]
        kids = d.get("children")
        if kids is None:
            kids = d["children"] = {}
        kids[labels[label[i]]] = dicts[i - node]
    return dicts[0]


def from_nested(game: Game, nested: dict[str, Any], *, where: str = "tree") -> Tree:
    """Build (and check) the tree that a nested dict describes; codes and feedbacks may be
    printed strings or integers. Raises :class:`InvalidTreeError` saying what is wrong.
    Guesses are parsed all at once and feedbacks once per distinct key (trees of big
    games have hundreds of thousands of nodes); a node's path is spelled out only for an
    error."""
    raw: list[Any] = []  # each node's guess as written
    parents: list[int] = []
    labels: list[int] = []
    feedback: dict[Any, int] = {}
    stack: list[tuple[Any, int, int]] = [(nested, -1, -1)]

    def path(parent: int, fb: int) -> str:
        steps = []
        while parent >= 0:
            steps.append(game.format_feedback(fb))
            parent, fb = parents[parent], labels[parent]
        return " > ".join(["root", *reversed(steps)])

    while stack:
        d, parent, fb = stack.pop()
        if not isinstance(d, dict) or "guess" not in d:
            raise InvalidTreeError(
                f"{where}: node {path(parent, fb)} should be an object with a 'guess'"
            )
        if len(d) > 2 or (len(d) == 2 and "children" not in d):
            unknown = sorted(set(d) - {"guess", "children"})
            raise InvalidTreeError(f"{where}: node {path(parent, fb)} has unknown key(s) {unknown}")
        me = len(raw)
        raw.append(d["guess"])
        parents.append(parent)
        labels.append(fb)
        kids = d.get("children", {})
        if not isinstance(kids, dict):
            raise InvalidTreeError(
                f"{where}: node {path(parent, fb)}: 'children' should be an object"
            )
        for key, sub in kids.items():
            f = feedback.get(key) if isinstance(key, str) else None
            if f is None:
                try:
                    f = _parse(game.parse_feedback, key, game.num_feedbacks)
                except ValueError as e:
                    raise InvalidTreeError(f"{where}: node {path(parent, fb)}: {e}") from None
                if isinstance(key, str):
                    feedback[key] = f
            if f == game.win:
                raise InvalidTreeError(f"{where}: node {path(parent, fb)} has a child for the win")
            stack.append((sub, me, f))
    try:
        guesses = _parse_all(game, raw)
    except _BadGuess as e:
        raise InvalidTreeError(f"{where}: node {path(parents[e.at], labels[e.at])}: {e}") from None
    child = np.full((len(raw), game.num_feedbacks), -1, dtype=np.int32)
    nodes = np.arange(1, len(raw), dtype=np.int32)
    child[np.array(parents[1:], dtype=np.int64), np.array(labels[1:], dtype=np.int64)] = nodes
    return build_exact(game, Template(guesses, child))


class _BadGuess(ValueError):
    """A guess of node ``at`` that is not a code of the game."""

    def __init__(self, message: str, at: int):
        super().__init__(message)
        self.at = at


def _parse_all(game: Game, raw: list[Any]) -> np.ndarray:
    """The codes of written guesses (printed strings or integers), all at once."""
    if all(isinstance(v, str) for v in raw):
        codes = game.parse_codes(raw)
        if codes is not None:
            return codes
    out = np.empty(len(raw), dtype=np.int32)
    for i, v in enumerate(raw):
        try:
            out[i] = _parse(game.parse_code, v, game.num_codes)
        except ValueError as e:
            raise _BadGuess(str(e), i) from None
    return out


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _parse(parse, value: Any, limit: int) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= int(value) < limit:
            raise ValueError(f"{value} is out of range 0..{limit - 1}")
        return int(value)
    return parse(str(value))


def tree_document(tree: Tree, *, nodes: bool = True, **extra: Any) -> dict[str, Any]:
    """The JSON document of a tree (``extra`` keys, e.g. a name or a run, are kept);
    without its nested nodes when ``nodes`` is False (the compact file stores arrays)."""
    g = tree.game
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "game": {"pegs": g.pegs, "colors": g.colors, "variant": g.variant},
        "summary": tree.summary(),
    }
    doc.update(extra)
    if nodes:
        doc["root"] = to_nested(tree)
    return doc


def save_tree(tree: Tree, path: str | os.PathLike, **extra: Any) -> Path:
    """Write a tree atomically: JSON, or the compact archive when ``path`` ends in
    ``.npz``."""
    if Path(path).suffix.lower() == ".npz":
        return atomic_write_bytes(path, _archive(tree, **extra))
    return atomic_write_json(path, tree_document(tree, **extra), indent=None)


#: The arrays of a compact tree file: ``meta`` is the document without its nodes (UTF-8).
_ARCHIVE = ("guess", "parent", "label", "meta")


def _archive(tree: Tree, **extra: Any) -> bytes:
    """The compact file of a tree: its arrays and its document without the nodes."""
    doc = tree_document(tree, nodes=False, **extra)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        guess=tree.guess.astype(np.int32),
        parent=tree.parent.astype(np.int32),
        label=tree.label.astype(np.int16),
        meta=np.frombuffer(json.dumps(doc).encode("utf-8"), dtype=np.uint8),
    )
    return buffer.getvalue()


def tree_from_arrays(game: Game, guess: np.ndarray, parent: np.ndarray, label: np.ndarray) -> Tree:
    """A tree from its preorder arrays (as checkpoints and compact files store them),
    rebuilt and checked on every code."""
    n = len(guess)
    if n == 0 or not len(parent) == len(label) == n:
        raise InvalidTreeError("the node arrays are empty or of different lengths")
    if np.any((guess < 0) | (guess >= game.num_codes)):
        raise InvalidTreeError("a guess is not a code of the game")
    if parent[0] != -1 or np.any(parent[1:] < 0) or np.any(parent[1:] >= np.arange(1, n)):
        raise InvalidTreeError("parents are not in preorder")
    if np.any((label[1:] <= 0) | (label[1:] >= game.num_feedbacks)):
        raise InvalidTreeError("an edge has no feedback of the game")
    child = np.full((n, game.num_feedbacks), -1, dtype=np.int32)
    child[parent[1:], label[1:]] = np.arange(1, n, dtype=np.int32)
    if np.count_nonzero(child >= 0) != n - 1:
        raise InvalidTreeError("a node has two children for one feedback")
    return build_exact(game, Template(guess.astype(np.int32), child))


def load_tree(
    path: str | os.PathLike, *, game: Game | None = None, cache: str | os.PathLike | None = None
) -> Tree:
    """Read and check a tree file; with ``game``, refuse a tree of another game (without
    it, the file's game is made with ``cache``, see :func:`~evo.core.game.make_game`).
    Raises :class:`TreeFileError` that names the file and what is wrong."""
    path = Path(path)
    data = read_bytes(path, what="tree file", error=TreeFileError)
    try:
        if data[:4] == b"PK\x03\x04":  # a zip: the compact form
            return _from_archive(data, game=game, cache=cache)
        text = decode_text(data, path=path, what="tree file", error=TreeFileError)
        doc = parse_json(text, where=str(path), error=TreeFileError)
        return tree_from_document(doc, game=game, cache=cache)
    except (InvalidTreeError, ValueError) as e:
        if isinstance(e, TreeFileError):
            raise
        raise TreeFileError(f"{path}: {e}") from None


def _from_archive(data: bytes, *, game: Game | None, cache: str | os.PathLike | None) -> Tree:
    """The tree of a compact file (its arrays checked, nothing unpickled)."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            if sorted(npz.files) != sorted(_ARCHIVE):
                raise InvalidTreeError("not an evo breaker archive (its arrays differ)")
            arrays = {name: npz[name] for name in _ARCHIVE}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as e:
        if isinstance(e, InvalidTreeError):
            raise
        raise InvalidTreeError("a corrupted or truncated archive") from None
    if arrays["meta"].dtype != np.uint8 or any(
        arrays[k].ndim != 1 or arrays[k].dtype.kind != "i" for k in ("guess", "parent", "label")
    ):
        raise InvalidTreeError("not an evo breaker archive (its arrays are of other types)")
    try:
        doc = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (ValueError, RecursionError):
        raise InvalidTreeError("its document is not valid JSON") from None
    game = _document_game(doc, game=game, cache=cache)
    tree = tree_from_arrays(
        game,
        arrays["guess"].astype(np.int64),
        arrays["parent"].astype(np.int64),
        arrays["label"].astype(np.int64),
    )
    _check_summary(doc, tree)
    return tree


def tree_from_document(
    doc: Any, *, game: Game | None = None, cache: str | os.PathLike | None = None
) -> Tree:
    """The tree of a JSON document made by :func:`tree_document`, fully checked (of
    ``game``, else of the document's game made with ``cache``)."""
    game = _document_game(doc, game=game, cache=cache)
    if "root" not in doc:
        raise InvalidTreeError("missing key 'root'")
    tree = from_nested(game, doc["root"])
    _check_summary(doc, tree)
    return tree


def _document_game(doc: Any, *, game: Game | None, cache: str | os.PathLike | None) -> Game:
    """The game a tree document names (checked against ``game`` when given)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InvalidTreeError(f'not an evo breaker file (no "format": "{FORMAT}")')
    if doc.get("version") != VERSION:
        raise InvalidTreeError(
            f"format version {doc.get('version')!r} is not supported (this evo reads {VERSION})"
        )
    if "game" not in doc:
        raise InvalidTreeError("missing key 'game'")
    gd = doc["game"]
    if not isinstance(gd, dict) or not {"pegs", "colors"} <= set(gd):
        raise InvalidTreeError("'game' should be an object with 'pegs' and 'colors'")
    variant = gd.get("variant", "mastermind")
    for key in ("pegs", "colors"):
        if not _is_int(gd[key]):
            raise InvalidTreeError(f"game.{key} should be a whole number, not {gd[key]!r}")
    if not isinstance(variant, str):
        raise InvalidTreeError(f"game.variant should be a name, not {variant!r}")
    if game is not None:
        if (gd["pegs"], gd["colors"], variant) != game.key:
            raise InvalidTreeError(
                f"the tree is for {variant} with {gd['pegs']} pegs and {gd['colors']} colors, "
                f"not for {game.variant} with {game.pegs} pegs and {game.colors} colors"
            )
        return game
    return make_game(gd["pegs"], gd["colors"], variant, cache=cache)


def _check_summary(doc: dict, tree: Tree) -> None:
    """The figures a document states agree with its tree (else it was edited)."""
    summary = doc.get("summary")
    if isinstance(summary, dict):
        for key in ("total", "worst"):
            if key in summary and not _is_int(summary[key]):
                raise InvalidTreeError(
                    f"summary.{key} should be a whole number, not {summary[key]!r}"
                )
            if key in summary and summary[key] != getattr(tree, key):
                raise InvalidTreeError(
                    f"the file says {key} {summary[key]} but its tree has {getattr(tree, key)}: "
                    "the file was edited or corrupted"
                )
