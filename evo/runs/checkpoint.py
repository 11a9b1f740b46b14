"""Checkpoints: what a run needs to go on after a stop, on disk.

A checkpoint is data only, so that a run directory from anywhere cannot run code: one
NumPy ``.npz`` archive (each array checked before it is read, :mod:`evo.core.archive`)
holding the trees as flat arrays and a JSON document with the rest (fitness values, hall
of fame, logbook, Python's
random state, elapsed time, the config), versioned and sealed by a SHA-256 of the whole
content. Loading rebuilds every tree with :func:`evo.core.growth.build_exact`, which checks it
on every code. It is written atomically, so a kill leaves the previous one intact. An
island run keeps one checkpoint per island in an epoch folder, and a pointer to the last
whole epoch (:func:`save_islands`).
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from evo.config import EXTENDABLE, Config, config_differences
from evo.core.archive import Archive, ArchiveError
from evo.core.files import atomic_write_bytes, atomic_write_json, read_bytes
from evo.core.game import Game
from evo.core.tree import InvalidTreeError, Tree
from evo.core.treeio import tree_from_arrays
from evo.ea.individuals import as_individual, individual_class
from evo.ea.islands import Epochs, pack, unpack
from evo.ea.state import State, hall_of_fame
from evo.ea.stats import new_logbook

CHECKPOINT_FORMAT = "evo-checkpoint"
CHECKPOINT_VERSION = 2

#: The arrays of a checkpoint: every tree's ``guess``, ``parent`` and ``label`` one after
#: the other, ``offsets`` where each tree starts, ``meta`` the JSON document (UTF-8) and
#: ``sha256`` the hex digest of all of them.
_ARRAYS = ("guess", "parent", "label", "offsets", "meta")


class CheckpointError(ValueError):
    """A checkpoint cannot be read or does not belong to the run."""


class CheckpointWriteError(CheckpointError):
    """A checkpoint (or a file beside it) could not be written: the previous one stands."""


# ------------------------------------------------------------------ writing
def checkpoint_bytes(state: State, config: Config) -> bytes:
    """The checkpoint of ``state`` as the bytes of an ``.npz`` archive."""
    trees: dict[int, int] = {}  # id(individual) -> index among the stored trees
    stored: list[Tree] = []

    def entry(ind) -> list:
        if id(ind) not in trees:
            trees[id(ind)] = len(stored)
            stored.append(ind)
        crowding = getattr(ind.fitness, "crowding_dist", None)
        return [trees[id(ind)], list(ind.fitness.values), crowding]

    doc = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "config": config.model_dump(mode="json"),
        "generation": state.generation,
        "population": [entry(i) for i in state.population],
        "halloffame": [entry(i) for i in state.halloffame],
        "logbook": [dict(r) for r in state.logbook],
        "random_state": _random_state_to_json(state.random_state),
        "elapsed": state.elapsed,
        "evaluations": state.evaluations,
    }
    sizes = [len(t) for t in stored]
    arrays: dict[str, np.ndarray] = {
        "guess": np.concatenate([t.guess for t in stored]).astype(np.int32),
        "parent": np.concatenate([t.parent for t in stored]).astype(np.int32),
        "label": np.concatenate([t.label for t in stored]).astype(np.int16),
        "offsets": np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
        "meta": np.frombuffer(json.dumps(doc).encode("utf-8"), dtype=np.uint8),
    }
    arrays["sha256"] = np.frombuffer(_digest(arrays).encode("ascii"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def save_checkpoint(path: Path, state: State, config: Config) -> None:
    """Write the state atomically (raises :class:`evo.core.files.FileWriteError`)."""
    atomic_write_bytes(path, checkpoint_bytes(state, config))


def _digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the named arrays: names, types, shapes and bytes, in a fixed order."""
    h = hashlib.sha256()
    for name in _ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}\n".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _random_state_to_json(state: Any) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


# ------------------------------------------------------------------ reading
def load_checkpoint(path: Path, config: Config, game: Game) -> State:
    """Read a checkpoint written by :func:`save_checkpoint` for this config (its ``stop``
    keys may differ: a resumed run may be extended). Nothing in the file is executed.
    Raises :class:`CheckpointError` saying what is wrong."""
    path = Path(path)
    arrays, doc = _open(path)
    differ = config_differences(doc.get("config"), config.model_dump(mode="json"))
    differ = [k for k in differ if k.split(".")[0] not in EXTENDABLE]
    if differ:
        raise CheckpointError(
            f"{path} was written under another config than the run's config.yaml: "
            f"{', '.join(differ)} differ"
        )
    try:
        return _state(doc, arrays, config, game)
    except InvalidTreeError as e:
        raise CheckpointError(f"checkpoint {path}: a tree is not valid ({e})") from None
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise CheckpointError(
            f"checkpoint {path} is not laid out as an evo checkpoint ({type(e).__name__}: {e})"
        ) from None


def read_document(path: Path) -> dict:
    """The JSON document of a checkpoint (generation, logbook, config…), once its arrays
    and content hash are checked; its trees are not rebuilt."""
    return _open(Path(path))[1]


def _open(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    """A checkpoint's arrays and JSON document, read without executing anything (a pickle
    is refused unread) and checked against its content hash."""
    data = read_bytes(path, what="checkpoint", error=CheckpointError, max_bytes=None)
    if data[:1] == b"\x80" or path.suffix == ".pkl":
        raise CheckpointError(pickle_refusal(path))
    arrays = _read_arrays(path, data)
    return arrays, _document(path, arrays)


def _document(path: Path, arrays: dict[str, np.ndarray]) -> dict:
    try:
        doc = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (ValueError, RecursionError):
        raise CheckpointError(f"checkpoint {path}: its document is not valid JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not an evo checkpoint")
    if doc.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {doc.get('version')!r} is not supported "
            f"(this evo reads {CHECKPOINT_VERSION})"
        )
    return doc


def pickle_refusal(path: Path) -> str:
    return (
        f"{path} is a pickle checkpoint of an older evo; it is not loaded, since a pickle "
        "can run any code: start the run again"
    )


def _read_arrays(path: Path, data: bytes) -> dict[str, np.ndarray]:
    """The archive's arrays, once they are the expected ones with a matching digest. Its
    entries are stored uncompressed (as :func:`checkpoint_bytes` writes them), so no array
    holds more than the file; each is checked before it is read
    (:class:`~evo.core.archive.Archive`)."""
    most = len(data)
    try:
        with Archive(data, (*_ARRAYS, "sha256"), kind="evo checkpoint", stored_only=True) as a:
            arrays = {name: a.array(name, max_items=most) for name in _ARRAYS if name != "meta"}
            arrays["meta"] = a.array("meta", max_items=most, kinds="u", itemsize=1)
            arrays["sha256"] = a.array("sha256", max_items=64, kinds="u", itemsize=1)
    except ArchiveError as e:
        raise CheckpointError(
            f"checkpoint {path}: {e}; the run cannot be resumed from it"
        ) from None
    if arrays["sha256"].tobytes().decode("ascii", "replace") != _digest(arrays):
        raise CheckpointError(
            f"checkpoint {path} does not match its content hash (corrupted or edited); "
            "the run cannot be resumed from it"
        )
    return arrays


def _state(doc: dict, arrays: dict[str, np.ndarray], config: Config, game: Game) -> State:
    """The state a checked document and its arrays describe."""
    offsets = arrays["offsets"]
    if offsets.ndim != 1 or len(offsets) < 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 1):
        raise ValueError("tree offsets are not increasing")
    if not len(arrays["guess"]) == len(arrays["parent"]) == len(arrays["label"]) == offsets[-1]:
        raise ValueError("tree arrays of different lengths")
    trees: dict[int, Tree] = {}

    def tree(k: Any) -> Tree:
        if not isinstance(k, int) or not 0 <= k < len(offsets) - 1:
            raise ValueError(f"tree index {k!r} out of range")
        if k not in trees:
            lo, hi = int(offsets[k]), int(offsets[k + 1])
            trees[k] = tree_from_arrays(
                game, arrays["guess"][lo:hi], arrays["parent"][lo:hi], arrays["label"][lo:hi]
            )
        return trees[k]

    pareto = config.selection.method == "nsga2"
    width = config.selection.objectives
    cls = individual_class(objectives=width)

    def inds(items: list) -> list:
        out = []
        for k, values, crowding in items:
            if len(values) != width or not all(isinstance(v, (int, float)) for v in values):
                raise ValueError(f"fitness values {values!r}")
            out.append(as_individual(cls, tree(k), tuple(values), crowding=crowding))
        return out

    population = inds(doc["population"])
    if len(population) != config.population.size:
        raise ValueError(f"{len(population)} breakers, not population.size")
    hof_items = inds(doc["halloffame"])
    hof = hall_of_fame(config)
    if pareto:
        hof.update(hof_items)
    else:
        for ind in hof_items:  # already sorted best first
            hof.keys.append(ind.fitness)
            hof.items.append(ind)
    logbook = new_logbook()
    for r in doc["logbook"]:
        logbook.record(**r)
    generation = doc["generation"]
    if not isinstance(generation, int) or len(logbook) != generation + 1:
        raise ValueError("the logbook does not hold one record per generation")
    return State(
        generation,
        population,
        hof,
        logbook,
        _random_state(doc["random_state"]),
        float(doc["elapsed"]),
        int(doc["evaluations"]),
    )


def _random_state(data: Any) -> tuple:
    """Python's random state from its JSON form, checked by ``random.setstate``."""
    version, internal, gauss = data
    state = (version, tuple(internal), gauss)
    random.Random().setstate(state)
    return state


# ------------------------------------------------------------------ islands
ISLANDS_DIR = "islands"
_POINTER = "current.json"
_ISLANDS_FORMAT = "evo-islands"


def islands_saved(run_dir: Path) -> bool:
    """Whether an island run has a checkpoint to resume from."""
    return (Path(run_dir) / ISLANDS_DIR / _POINTER).exists()


def save_islands(run_dir: Path, config: Config, state: Epochs, logbook: list[dict]) -> None:
    """Checkpoint the islands after an epoch: each island's state in a new epoch folder,
    then the pointer to it (written atomically, so a kill leaves the previous epoch)."""
    root = Path(run_dir) / ISLANDS_DIR
    folder = root / f"epoch-{state.epoch:06d}"
    folder.mkdir(parents=True, exist_ok=True)
    for i, p in enumerate(state.islands):
        island = config.island(i)
        save_checkpoint(folder / f"island-{i:03d}.ckpt", unpack(p, island), island)
    doc = {
        "format": _ISLANDS_FORMAT,
        "version": 1,
        "epoch": state.epoch,
        "folder": folder.name,
        "elapsed": state.elapsed,
        "logbook": logbook,
    }
    atomic_write_json(root / _POINTER, doc, indent=None)
    for old in root.glob("epoch-*"):
        if old.name != folder.name:
            shutil.rmtree(old, ignore_errors=True)


def load_islands(run_dir: Path, config: Config, game: Game) -> tuple[Epochs, list[dict]]:
    """The islands of the last checkpoint, and the run's logbook up to it."""
    root = Path(run_dir) / ISLANDS_DIR
    try:
        doc = json.loads((root / _POINTER).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CheckpointError(
            f"{root / _POINTER}: no island checkpoint to resume from ({e})"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != _ISLANDS_FORMAT:
        raise CheckpointError(f"{root / _POINTER} is not an evo island checkpoint")
    islands = []
    try:
        for i in range(config.islands.count):
            island = config.island(i)
            path = root / str(doc["folder"]) / f"island-{i:03d}.ckpt"
            islands.append(pack(load_checkpoint(path, island, game)))
        start = Epochs(islands, int(doc["epoch"]), float(doc["elapsed"]))
        records = [dict(r) for r in doc["logbook"]]
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError(f"{root / _POINTER} is not laid out as expected ({e})") from None
    return start, records
