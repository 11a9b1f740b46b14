"""Saving and loading breaker trees, and converting them to nested dicts.

A tree file is JSON: the format name and version, the game, the fitness summary
(checked on load) and the tree as nested nodes ``{"guess": "1122", "children": {"1B 0W":
{...}}}`` with codes and feedbacks printed as people read them (feedbacks as
:meth:`~evo.core.game.Game.format_feedback` writes them; the bare counts of older files,
``"1,0"`` or ``"1 0"``, are read too, and a feedback given twice under a node, in any
spelling, is refused). A file named ``.json.gz`` (or ``.gz``) is the same JSON
gzip-compressed (the big shipped breakers are). A JSON document is checked from its
start before it is parsed whole: beyond :data:`MAX_META_BYTES`, it must name its game
before its nodes, and is decompressed and parsed only as far as a tree of that game can
go (a small gzip of ``[[],[],…]`` would take gigabytes to parse). A file named ``.npz``
is the compact form of the same, for trees of big games (hundreds of thousands of
nodes): a NumPy archive of the nodes' ``guess``, ``parent`` and ``label`` arrays in
preorder and the same document without its nodes, read only as far as a tree of its
game can go (:mod:`evo.core.archive`). A file is read by what it holds, whatever its
name; every tree is checked on every code when loaded, and its summary against it. Its
document may say how the tree was made (``provenance``, text: :func:`provenance`).
"""

from __future__ import annotations

import codecs
import errno
import io
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.archive import Archive, ArchiveError
from evo.core.files import (
    MAX_READ_BYTES,
    FileWriteError,
    atomic_write_bytes,
    atomic_write_json,
    check_target,
    decode_text,
    gunzip,
    is_json_number,
    json_head,
    parse_json,
    read_bytes,
)
from evo.core.game import Game, UnknownGameError, game_from_spec, spec_key, spec_text
from evo.core.growth import Template, build_exact
from evo.core.tree import InvalidTreeError, Tree

FORMAT = "evo-breaker"
VERSION = 1

#: The optional key of a tree file's document that says how its tree was made (the chain
#: of commands, as text): ``evo table FILE --provenance`` prints it (:func:`provenance`).
PROVENANCE = "provenance"


class TreeFileError(ValueError):
    """A tree file cannot be read: it says which file and what is wrong."""


#: The names of tree files, by the form they are written in (a name ending otherwise is
#: written as JSON, unless it names another compression, :data:`COMPRESSED_SUFFIXES`):
#: the one definition of a tree file's suffix.
TREE_SUFFIXES = {".json.gz": "json.gz", ".gz": "json.gz", ".npz": "npz", ".json": "json"}

#: Suffixes of compressions a tree file is not written in: a name ending so is refused
#: (written as plain JSON, it would look compressed).
COMPRESSED_SUFFIXES = (".bz2", ".xz", ".lzma", ".zst", ".lz4", ".lz", ".z", ".br", ".zip",
                       ".7z", ".tgz", ".tbz2", ".txz")  # fmt: skip


def tree_suffix(path: str | os.PathLike) -> str:
    """The tree file suffix ``path``'s name ends in (any case), or "" for none of
    :data:`TREE_SUFFIXES`."""
    name = Path(path).name.lower()
    return next((s for s in TREE_SUFFIXES if name.endswith(s)), "")


def is_tree_name(path: str | os.PathLike) -> bool:
    """Whether ``path`` is named as a tree file (``.json``, ``.json.gz``, ``.gz`` or
    ``.npz``)."""
    return tree_suffix(path) != ""


def tree_form(path: str | os.PathLike) -> str:
    """The form :func:`save_tree` writes a tree file named ``path`` in (``json``,
    ``json.gz`` or ``npz``, by :data:`TREE_SUFFIXES`); :class:`FileWriteError` naming it
    when its name ends in a compression it is not written in."""
    name = Path(path).name.lower()
    if tree_suffix(name) == "" and name.endswith(COMPRESSED_SUFFIXES):
        raise FileWriteError(
            errno.EINVAL,
            f"cannot write {path}: a tree file is written as JSON (.json), gzip-compressed "
            f"JSON (.json.gz or .gz) or the compact form (.npz), not {Path(name).suffix}",
        )
    return TREE_SUFFIXES.get(tree_suffix(name), "json")


def tree_stem(path: str | os.PathLike) -> str:
    """The name of a tree file without its suffix (``mastermind-6-8`` of
    ``mastermind-6-8.json.gz``), to name what is made of it."""
    name = Path(path).name
    return name[: len(name) - len(tree_suffix(name))] or name


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
        given: dict[int, Any] = {}  # feedback -> its key, to refuse one given twice
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
            if f in given:
                raise InvalidTreeError(
                    f"{where}: node {path(parent, fb)} has two children for feedback "
                    f"{game.format_feedback(f)} ({given[f]!r} and {key!r})"
                )
            given[f] = key
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
            out[i] = _parse(game.parse_code, v, game.num_guesses)
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
    _check_provenance(extra, error=ValueError)
    g = tree.game
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "game": g.spec,
        "summary": tree.summary(),
    }
    doc.update(extra)
    if nodes:
        doc["root"] = to_nested(tree)
    return doc


def save_tree(tree: Tree, path: str | os.PathLike, **extra: Any) -> Path:
    """Write a tree atomically: JSON, gzip-compressed JSON when ``path`` ends in
    ``.json.gz`` (or ``.gz``), or the compact archive when it ends in ``.npz``
    (:func:`tree_form`: another compression's name is refused)."""
    check_target(path)  # before the work (the writer checks again)
    form = tree_form(path)
    if form == "npz":
        return atomic_write_bytes(path, _archive(tree, **extra))
    doc = tree_document(tree, **extra)
    head = json.dumps({k: v for k, v in doc.items() if k != "root"})[:-1] + ', "root":'
    _check_meta(head)  # what a reader reads before the nodes
    return atomic_write_json(path, doc, indent=None, compress=form == "json.gz")


def _check_meta(text: str) -> None:
    """ValueError when a tree file's document without its nodes (``text``) would be
    longer than a file is read with (:data:`MAX_META_BYTES`): it could not be read back."""
    if len(text.encode("utf-8")) > MAX_META_BYTES:
        raise ValueError(
            f"a tree file's document without its nodes holds at most {MAX_META_BYTES:,} "
            f"bytes, and the extra keys make it {len(text.encode('utf-8')):,}"
        )


#: The arrays of a compact tree file: ``meta`` is the document without its nodes (UTF-8).
_ARCHIVE = ("guess", "parent", "label", "meta")


def _archive(tree: Tree, **extra: Any) -> bytes:
    """The compact file of a tree: its arrays and its document without the nodes."""
    doc = tree_document(tree, nodes=False, **extra)
    meta = json.dumps(doc)
    _check_meta(meta)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        guess=tree.guess.astype(np.int32),
        parent=tree.parent.astype(np.int32),
        label=tree.label.astype(np.int16),
        meta=np.frombuffer(meta.encode("utf-8"), dtype=np.uint8),
    )
    return buffer.getvalue()


def tree_from_arrays(game: Game, guess: np.ndarray, parent: np.ndarray, label: np.ndarray) -> Tree:
    """A tree from its preorder arrays (as checkpoints and compact files store them),
    rebuilt and checked on every code."""
    n = len(guess)
    if n == 0 or not len(parent) == len(label) == n:
        raise InvalidTreeError("the node arrays are empty or of different lengths")
    if np.any((guess < 0) | (guess >= game.num_guesses)):
        raise InvalidTreeError("a guess is not a guess of the game")
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
        if data[:4] == _ZIP:  # the compact form
            return _from_archive(data, game=game, cache=cache)
        doc, game = _json_document(data, path=path, game=game, cache=cache)
        return tree_from_document(doc, game=game, cache=cache)
    except (InvalidTreeError, ValueError) as e:
        if isinstance(e, TreeFileError):
            raise
        raise TreeFileError(f"{path}: {e}") from None


#: The first bytes of a zip archive (a compact tree file) and of a gzip file.
_ZIP, _GZIP = b"PK\x03\x04", b"\x1f\x8b"


def _json_document(
    data: bytes, *, path: Path, game: Game | None, cache: str | os.PathLike | None
) -> tuple[Any, Game | None]:
    """The JSON document of a tree file's bytes (gzip-compressed or not), and the game
    it was read as (``game``, or the one its start states; None: read whole, unchecked).

    A document of at most :data:`MAX_META_BYTES` is read whole. A longer one is read
    only as far as a tree of the game it states can go: its members before its nodes
    (``"root"``) are read first, from its first :data:`MAX_META_BYTES`, and must name
    the game; then no more than :func:`max_json_bytes` of it is decompressed, and it is
    parsed only when it holds no more separators than :func:`max_json_separators` (each
    ``,``, ``:`` or ``[`` can make a value, and parsing a value costs tens of bytes: a
    small file of ``[[],[],…]`` would take gigabytes)."""
    gzipped = data[:2] == _GZIP
    if gzipped:
        start = gunzip(data, path=path, what="tree file", error=TreeFileError,
                       max_bytes=MAX_META_BYTES + 1, head=True)  # fmt: skip
    else:
        start = data[: MAX_META_BYTES + 1]
    if len(start) <= MAX_META_BYTES:
        text = decode_text(start, path=path, what="tree file", error=TreeFileError)
        return parse_json(text, where=str(path), error=TreeFileError), game
    game = _stated_game(start[:MAX_META_BYTES], path=path, game=game, cache=cache)
    what, most = f"tree file of {game.name}", max_json_bytes(game)
    if gzipped:
        data = gunzip(data, path=path, what=what, error=TreeFileError, max_bytes=most)
    elif len(data) > most:
        raise TreeFileError(
            f"{path} is too big for a {what} ({len(data):,} bytes; the limit is {most:,})"
        )
    separators = data.count(b",") + data.count(b":") + data.count(b"[")
    if separators > (limit := max_json_separators(game)):
        raise TreeFileError(
            f"{path} holds more JSON values than a {what} can ({separators:,} commas, colons "
            f"and brackets; the limit is {limit:,}): it is not a tree file, or not of that game"
        )
    text = decode_text(data, path=path, what="tree file", error=TreeFileError)
    return parse_json(text, where=str(path), error=TreeFileError), game


def _stated_game(
    start: bytes, *, path: Path, game: Game | None, cache: str | os.PathLike | None
) -> Game:
    """The game a long JSON tree document states before its nodes, in ``start`` (its
    first bytes), checked against ``game`` when given."""
    try:  # a character cut in two at the end is left out
        text = codecs.getincrementaldecoder("utf-8")().decode(start, final=False)
    except UnicodeDecodeError:
        decode_text(start, path=path, what="tree file", error=TreeFileError)  # says where
        raise
    within = f" within its first {MAX_META_BYTES:,} bytes, where it should name its game"
    members, came = json_head(
        text, stop="root", where=str(path), error=TreeFileError, within=within
    )
    if members is None:
        raise InvalidTreeError(f'not an evo breaker file (no "format": "{FORMAT}")')
    if came and "game" not in members:
        raise InvalidTreeError(
            f'its "game" should come before its nodes ("root"), as evo writes it: a tree '
            f"file of more than {MAX_META_BYTES:,} bytes is read only as far as a tree of "
            "its game can go"
        )
    if came:  # a writer that sorts keys puts "version" after "root": checked with the whole
        members = {"version": VERSION, **members}
    return _document_game(members, game=game, cache=cache)


def tree_file_document(path: str | os.PathLike) -> dict[str, Any]:
    """A tree file's document without its nodes: its game, summary and what its writer
    added (``save_tree``'s extra keys), read without building the tree. Raises
    :class:`TreeFileError` that names the file and what is wrong."""
    path = Path(path)
    data = read_bytes(path, what="tree file", error=TreeFileError)
    try:
        if data[:4] == _ZIP:
            with Archive(data, _ARCHIVE, kind="evo breaker archive") as archive:
                meta = archive.array("meta", max_items=MAX_META_BYTES, kinds="u", itemsize=1)
                text = meta.tobytes().decode("utf-8")
            doc = parse_json(text, where=str(path), error=TreeFileError)
        else:
            doc, _ = _json_document(data, path=path, game=None, cache=None)
    except (ArchiveError, UnicodeDecodeError, InvalidTreeError) as e:
        raise TreeFileError(f"{path}: {e}") from None
    if not isinstance(doc, dict):
        raise TreeFileError(f"{path}: not a tree document")
    doc.pop("root", None)
    _check_provenance(doc, error=TreeFileError, where=f"{path}: ")
    return doc


def provenance(path: str | os.PathLike) -> str | None:
    """How the tree file at ``path`` was made (its ``provenance`` text), or None if untold."""
    head = _document_head(Path(path))
    doc = head if head is not None and PROVENANCE in head else tree_file_document(path)
    _check_provenance(doc, error=TreeFileError, where=f"{path}: ")
    if doc.get("format") != FORMAT:
        raise TreeFileError(f'{path}: not an evo breaker file (no "format": "{FORMAT}")')
    return doc.get(PROVENANCE)


def _document_head(path: Path) -> dict[str, Any] | None:
    """The members a long JSON tree file gives before its nodes (read from its first
    :data:`MAX_META_BYTES`, the rest left unread), or None: not such a file, or not that far."""
    data = read_bytes(path, what="tree file", error=TreeFileError)
    if data[:2] == _GZIP:
        data = gunzip(data, path=path, what="tree file", error=TreeFileError,
                      max_bytes=MAX_META_BYTES + 1, head=True)  # fmt: skip
    if len(data) <= MAX_META_BYTES:
        return None  # read whole, as short as it is
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(data[:MAX_META_BYTES])
        members, came = json_head(text, stop="root", where=str(path), error=TreeFileError)
    except (UnicodeDecodeError, TreeFileError):
        return None  # the whole file is read, and says what is wrong
    return members if came else None


def _check_provenance(doc: dict, *, error: type[Exception], where: str = "") -> None:
    """``error`` (one line, after ``where``) when ``doc`` has a provenance that is not text."""
    value = doc.get(PROVENANCE, "")
    if not isinstance(value, str):
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        raise error(f"{where}'{PROVENANCE}' should be text (how the tree was made), not {shown}")


#: The longest document without its nodes a tree file may hold, in bytes: a compact
#: file's, and a JSON file's members before its nodes (evo writes a few hundred bytes).
MAX_META_BYTES = 2**20

#: The most bytes a node may take in a JSON tree file: its guess, its feedback, the keys
#: and punctuation (about 50 bytes as evo writes it) and the indentation of a file
#: printed with some.
NODE_BYTES = 256

#: The most separators (``,``, ``:`` or ``[``) a node takes in a JSON tree file: three
#: colons (its feedback, guess and children), a comma before its children, another
#: before its next sibling, and one inside a feedback written the older way (``"1,0"``).
NODE_SEPARATORS = 8

#: The most nodes a tree file is read with: more than a JSON file of the size read
#: (:data:`evo.core.files.MAX_READ_BYTES`, over 16 bytes a node) can hold.
MAX_TREE_NODES = 2**24


def max_tree_nodes(game: Game) -> int:
    """The most nodes a tree of ``game`` can have, as far as a file is read: every node
    holds a code, so a level holds at most ``M`` nodes, and no guess repeats on a path,
    so there are at most ``M`` levels (and no more than :data:`MAX_TREE_NODES`)."""
    return min(game.num_codes**2, MAX_TREE_NODES)


def max_json_bytes(game: Game) -> int:
    """The most bytes a JSON tree file of ``game`` may hold (decompressed): its document
    without its nodes, and :func:`max_tree_nodes` of :data:`NODE_BYTES` (no more than
    :data:`~evo.core.files.MAX_READ_BYTES`)."""
    return min(MAX_META_BYTES + NODE_BYTES * max_tree_nodes(game), MAX_READ_BYTES)


def max_json_separators(game: Game) -> int:
    """The most separators (``,``, ``:`` or ``[``) a JSON tree file of ``game`` may hold:
    as many as its document without its nodes can, and :data:`NODE_SEPARATORS` a node."""
    return MAX_META_BYTES // 2 + NODE_SEPARATORS * max_tree_nodes(game)


def _from_archive(data: bytes, *, game: Game | None, cache: str | os.PathLike | None) -> Tree:
    """The tree of a compact file: its document first (of at most :data:`MAX_META_BYTES`),
    then its arrays, each checked against what a tree of the document's game can hold
    before it is read (:class:`~evo.core.archive.Archive`; nothing unpickled)."""
    try:
        with Archive(data, _ARCHIVE, kind="evo breaker archive") as archive:
            meta = archive.array("meta", max_items=MAX_META_BYTES, kinds="u", itemsize=1)
            try:
                text = meta.tobytes().decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidTreeError("its document is not UTF-8 text") from None
            doc = parse_json(text, where="its document", error=InvalidTreeError)
            game = _document_game(doc, game=game, cache=cache)
            most = max_tree_nodes(game)
            limit = f"a tree of {game.name} has at most {most:,} nodes"
            arrays = {
                name: archive.array(name, max_items=most, limit=limit, kinds="i").astype(np.int64)
                for name in ("guess", "parent", "label")
            }
    except ArchiveError as e:
        raise InvalidTreeError(str(e)) from None
    tree = tree_from_arrays(game, arrays["guess"], arrays["parent"], arrays["label"])
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
    _check_provenance(doc, error=InvalidTreeError)
    gd = doc["game"]
    try:
        key = spec_key(gd)
    except ValueError as e:
        raise InvalidTreeError(str(e)) from None
    if game is not None:
        if key != game.key:
            theirs, ours = spec_text(gd), spec_text(game.spec)
            if theirs == ours:  # two custom games of one name: their digests differ
                theirs, ours = f"{theirs} of digest {key[2]}", f"the one of digest {game.key[2]}"
            raise InvalidTreeError(f"the tree is for {theirs}, not for {ours}")
        return game
    try:
        return game_from_spec(gd, cache=cache)
    except UnknownGameError as e:
        raise InvalidTreeError(str(e)) from None


def _check_summary(doc: dict, tree: Tree) -> None:
    """Every figure the document's summary states agrees with its tree (else the file was
    edited): the whole numbers exactly, the average to the six places a file writes."""
    if "summary" not in doc:
        return
    summary = doc["summary"]
    if not isinstance(summary, dict):
        raise InvalidTreeError(f"'summary' should be an object, not {summary!r}")
    figures = tree.summary()
    for key in ("total", "worst", "nodes"):
        if key in summary and not _is_int(summary[key]):
            raise InvalidTreeError(f"summary.{key} should be a whole number, not {summary[key]!r}")
        if key in summary and summary[key] != figures[key]:
            _disagrees(key, summary[key], figures[key])
    if "average" in summary:
        value = summary["average"]
        if not is_json_number(value):
            raise InvalidTreeError(f"summary.average should be a number, not {value!r}")
        try:
            off = abs(float(value) - tree.average)
        except OverflowError:  # a whole number too big for a float
            off = math.inf
        if not off <= 5.000001e-7:  # written to six places; NaN is no number either
            _disagrees("average", value, figures["average"])
    if "histogram" in summary:
        histogram = _histogram(summary["histogram"])
        if histogram != figures["histogram"]:
            _disagrees("histogram", summary["histogram"], figures["histogram"])


def _disagrees(key: str, said: Any, has: Any) -> None:
    raise InvalidTreeError(
        f"the file says {key} {said} but its tree has {has}: the file was edited or corrupted"
    )


def _histogram(value: Any) -> dict[int, int]:
    """A summary's histogram ``{"guesses": codes}`` with whole numbers as keys."""
    bad = InvalidTreeError(
        f'summary.histogram should map guesses to codes (such as {{"1": 1, "2": 6}}), not {value!r}'
    )
    if not isinstance(value, dict):
        raise bad
    out: dict[int, int] = {}
    for key, count in value.items():
        if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) < 20:
            key = int(key)
        if not _is_int(key) or not _is_int(count) or key in out:
            raise bad
        out[key] = count
    return out
