"""Saving and loading breaker trees as JSON, and converting them to nested dicts.

A file holds the format name and version, the game, the fitness summary (checked on
load) and the tree as nested nodes ``{"guess": "1122", "children": {"1,0": {...}}}``
with codes and feedbacks printed as people read them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import atomic_write_json, parse_json, read_text
from evo.core.game import Game, make_game
from evo.core.growth import Template, build_exact
from evo.core.tree import InvalidTreeError, Tree

FORMAT = "evo-breaker"
VERSION = 1


class TreeFileError(ValueError):
    """A tree file cannot be read: it says which file and what is wrong."""


def to_nested(tree: Tree, *, node: int = 0) -> dict[str, Any]:
    """The subtree under ``node`` as nested dicts with printed codes and feedbacks."""
    game, child = tree.game, tree.child_table
    out: dict[str, Any] = {"guess": game.format_code(int(tree.guess[node]))}
    stack = [(node, out)]
    while stack:
        i, d = stack.pop()
        kids = {}
        for f, c in enumerate(child[i]):
            if c >= 0:
                kd: dict[str, Any] = {"guess": game.format_code(int(tree.guess[c]))}
                kids[game.format_feedback(f)] = kd
                stack.append((int(c), kd))
        if kids:
            d["children"] = kids
    return out


def from_nested(game: Game, nested: dict[str, Any], *, where: str = "tree") -> Tree:
    """Build (and check) the tree that a nested dict describes; codes and feedbacks may be
    printed strings or integers. Raises :class:`InvalidTreeError` saying what is wrong."""
    guesses: list[int] = []
    children: list[dict[int, int]] = []
    stack: list[tuple[Any, str, int, int]] = [(nested, "root", -1, -1)]
    while stack:
        d, path, parent, fb = stack.pop()
        if not isinstance(d, dict) or "guess" not in d:
            raise InvalidTreeError(f"{where}: node {path} should be an object with a 'guess'")
        unknown = set(d) - {"guess", "children"}
        if unknown:
            raise InvalidTreeError(f"{where}: node {path} has unknown key(s) {sorted(unknown)}")
        try:
            g = _parse(game.parse_code, d["guess"], game.num_codes)
        except ValueError as e:
            raise InvalidTreeError(f"{where}: node {path}: {e}") from None
        me = len(guesses)
        guesses.append(g)
        children.append({})
        if parent >= 0:
            children[parent][fb] = me
        kids = d.get("children", {})
        if not isinstance(kids, dict):
            raise InvalidTreeError(f"{where}: node {path}: 'children' should be an object")
        for key, sub in kids.items():
            try:
                f = _parse(game.parse_feedback, key, game.num_feedbacks)
            except ValueError as e:
                raise InvalidTreeError(f"{where}: node {path}: {e}") from None
            if f == game.win:
                raise InvalidTreeError(f"{where}: node {path} has a child for the win")
            stack.append((sub, f"{path} > {game.format_feedback(f)}", me, f))
    child = np.full((len(guesses), game.num_feedbacks), -1, dtype=np.int32)
    for i, kids in enumerate(children):
        for f, c in kids.items():
            child[i, f] = c
    return build_exact(game, Template(np.array(guesses, dtype=np.int32), child))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _parse(parse, value: Any, limit: int) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= int(value) < limit:
            raise ValueError(f"{value} is out of range 0..{limit - 1}")
        return int(value)
    return parse(str(value))


def tree_document(tree: Tree, **extra: Any) -> dict[str, Any]:
    """The JSON document of a tree (``extra`` keys, e.g. a name or a run, are kept)."""
    g = tree.game
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "game": {"pegs": g.pegs, "colors": g.colors, "variant": g.variant},
        "summary": tree.summary(),
    }
    doc.update(extra)
    doc["root"] = to_nested(tree)
    return doc


def save_tree(tree: Tree, path: str | os.PathLike, **extra: Any) -> Path:
    """Write a tree as JSON, atomically."""
    return atomic_write_json(path, tree_document(tree, **extra), indent=None)


def load_tree(
    path: str | os.PathLike, *, game: Game | None = None, cache: str | os.PathLike | None = None
) -> Tree:
    """Read and check a tree file; with ``game``, refuse a tree of another game (without
    it, the file's game is made with ``cache``, see :func:`~evo.core.game.make_game`).
    Raises :class:`TreeFileError` that names the file and what is wrong."""
    path = Path(path)
    text = read_text(path, what="tree file", error=TreeFileError)
    doc = parse_json(text, where=str(path), error=TreeFileError)
    try:
        return tree_from_document(doc, game=game, cache=cache)
    except (InvalidTreeError, ValueError) as e:
        raise TreeFileError(f"{path}: {e}") from None


def tree_from_document(
    doc: Any, *, game: Game | None = None, cache: str | os.PathLike | None = None
) -> Tree:
    """The tree of a JSON document made by :func:`tree_document`, fully checked (of
    ``game``, else of the document's game made with ``cache``)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InvalidTreeError(f'not an evo breaker file (no "format": "{FORMAT}")')
    if doc.get("version") != VERSION:
        raise InvalidTreeError(
            f"format version {doc.get('version')!r} is not supported (this evo reads {VERSION})"
        )
    for key in ("game", "root"):
        if key not in doc:
            raise InvalidTreeError(f"missing key {key!r}")
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
    else:
        game = make_game(gd["pegs"], gd["colors"], variant, cache=cache)
    tree = from_nested(game, doc["root"])
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
    return tree
