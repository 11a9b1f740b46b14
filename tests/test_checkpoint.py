"""Checkpoints carry data only: an ``.npz`` of arrays and a JSON document, sealed by a
content hash, read with ``allow_pickle=False``; every tree is rebuilt and checked."""

from __future__ import annotations

import io
import json
import pickle
import random

import numpy as np
import pytest

from evo.config import load_config
from evo.core.game import make_game
from evo.runs.checkpoint import (
    CheckpointError,
    _digest,
    checkpoint_bytes,
    load_checkpoint,
    read_document,
)
from evo.runs.driver import run_config
from evo.runs.rundir import CHECKPOINT, create_run_dir

SMALL = {
    "name": "c",
    "seed": 2,
    "game": {"pegs": 3, "colors": 3},
    "population": {"size": 10},
    "stop": {"generations": 3},
    "mutation": {"rate": 0.8, "operators": [{"kind": "regrow"}]},
    "checkpoint_interval": 1,
}


def finished_run(tmp_path, data=SMALL, *overrides):
    cfg = load_config(data, list(overrides))
    run_dir = create_run_dir(cfg, root=tmp_path)
    result = run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    return cfg, run_dir, result


def arrays_of(path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def rewrite(path, arrays, *, reseal: bool) -> None:
    arrays = dict(arrays)
    if reseal:
        arrays["sha256"] = np.frombuffer(_digest(arrays).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def with_meta(arrays, change) -> dict[str, np.ndarray]:
    doc = json.loads(arrays["meta"].tobytes())
    change(doc)
    return {**arrays, "meta": np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)}


@pytest.mark.parametrize("method", ["tournament", "nsga2"])
def test_round_trip_gives_the_same_state(tmp_path, method):
    cfg, run_dir, result = finished_run(tmp_path, SMALL, f"selection.method={method}")
    game = make_game(3, 3)
    state = load_checkpoint(run_dir / CHECKPOINT, cfg, game)
    want = result.state
    assert state.generation == want.generation == 3
    assert [dict(r) for r in state.logbook] == [dict(r) for r in want.logbook]
    assert state.random_state == want.random_state
    random.setstate(state.random_state)  # a usable Python random state
    assert state.evaluations == want.evaluations
    assert state.elapsed == pytest.approx(want.elapsed)
    assert len(state.population) == len(want.population)
    for a, b in zip(state.population, want.population):
        for name in ("guess", "label", "parent", "depth", "terminal", "start", "count", "codes"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert a.fitness.values == b.fitness.values
        assert getattr(a.fitness, "crowding_dist", None) == getattr(
            b.fitness, "crowding_dist", None
        )
    assert [i.total for i in state.halloffame] == [i.total for i in want.halloffame]
    assert checkpoint_bytes(state, cfg) == (run_dir / CHECKPOINT).read_bytes()


def test_the_file_is_data_only(tmp_path):
    _, run_dir, _ = finished_run(tmp_path)
    arrays = arrays_of(run_dir / CHECKPOINT)  # allow_pickle=False: no object arrays
    assert set(arrays) == {"guess", "parent", "label", "offsets", "meta", "sha256"}
    doc = json.loads(arrays["meta"].tobytes())
    assert doc["format"] == "evo-checkpoint" and doc["version"] == 2
    assert read_document(run_dir / CHECKPOINT)["generation"] == 3


def test_an_edited_checkpoint_fails_its_content_hash(tmp_path):
    cfg, run_dir, _ = finished_run(tmp_path)
    path = run_dir / CHECKPOINT
    arrays = arrays_of(path)
    rewrite(path, with_meta(arrays, lambda d: d.update(evaluations=1)), reseal=False)
    with pytest.raises(CheckpointError, match="does not match its content hash"):
        load_checkpoint(path, cfg, make_game(3, 3))
    guess = arrays["guess"].copy()
    guess[0] = (guess[0] + 1) % 27
    rewrite(path, {**arrays, "guess": guess}, reseal=False)
    with pytest.raises(CheckpointError, match="content hash"):
        load_checkpoint(path, cfg, make_game(3, 3))


def test_a_forged_checkpoint_with_a_broken_tree_is_refused(tmp_path):
    """A hash proves no origin: every tree is still rebuilt and checked on every code."""
    cfg, run_dir, _ = finished_run(tmp_path)
    path = run_dir / CHECKPOINT
    arrays = arrays_of(path)
    guess = arrays["guess"].copy()
    guess[1] = guess[0]  # the root's guess repeated below it
    rewrite(path, {**arrays, "guess": guess}, reseal=True)
    with pytest.raises(CheckpointError, match="a tree is not valid"):
        load_checkpoint(path, cfg, make_game(3, 3))
    parent = arrays["parent"].copy()
    parent[3] = 7  # a parent after its child: not preorder
    rewrite(path, {**arrays, "parent": parent}, reseal=True)
    with pytest.raises(CheckpointError, match="preorder"):
        load_checkpoint(path, cfg, make_game(3, 3))
    rewrite(path, with_meta(arrays, lambda d: d["population"].pop()), reseal=True)
    with pytest.raises(CheckpointError, match="not laid out"):
        load_checkpoint(path, cfg, make_game(3, 3))
    rewrite(
        path, with_meta(arrays, lambda d: d.update(random_state=[3, [1, 2], None])), reseal=True
    )
    with pytest.raises(CheckpointError, match="not laid out"):
        load_checkpoint(path, cfg, make_game(3, 3))


def test_object_arrays_are_never_unpickled(tmp_path):
    cfg, run_dir, _ = finished_run(tmp_path)
    path = run_dir / CHECKPOINT
    marker = tmp_path / "pwned"
    arrays = arrays_of(path)
    arrays["meta"] = np.array([Payload(marker)], dtype=object)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # np.savez pickles object arrays
    path.write_bytes(buffer.getvalue())
    with pytest.raises(CheckpointError):
        load_checkpoint(path, cfg, make_game(3, 3))
    assert not marker.exists()


def test_a_pickle_named_checkpoint_npz_is_never_loaded(tmp_path):
    cfg, run_dir, _ = finished_run(tmp_path)
    marker = tmp_path / "pwned"
    (run_dir / CHECKPOINT).write_bytes(pickle.dumps(Payload(marker)))
    with pytest.raises(CheckpointError, match="pickle"):
        load_checkpoint(run_dir / CHECKPOINT, cfg, make_game(3, 3))
    assert not marker.exists()


def test_a_checkpoint_of_another_config_names_the_keys(tmp_path):
    cfg, run_dir, _ = finished_run(tmp_path)
    other = load_config(SMALL, ["population.size=12", "elitism=2"])
    with pytest.raises(CheckpointError, match=r"elitism, population\.size differ"):
        load_checkpoint(run_dir / CHECKPOINT, other, make_game(3, 3))
    longer = load_config(SMALL, ["stop.generations=9", "stop.seconds=5"])
    assert load_checkpoint(run_dir / CHECKPOINT, longer, make_game(3, 3)).generation == 3


class Payload:
    """Unpickling this creates ``path``: a file that a loaded pickle would leave behind."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))
