"""Big games: symmetry from a node's history changes an operator's cost, never its result;
the depth-limited exact search; time limits and lost workers stop a run cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from support.definitions import all_code_tuples
from support.reference_growth import brute_feedback

from evo.config import load_config
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.ea import mutation
from evo.ea.mutation import greedy_subtree
from evo.runs.driver import run_config
from evo.runs.rundir import create_run_dir, load_run
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, Solver

ROOT = Path(__file__).resolve().parent.parent

#: A run whose generations take ~100 s (each child is regrown 100000 times).
SLOW = {
    "name": "slow",
    "seed": 1,
    "game": {"pegs": 4, "colors": 6},
    "population": {"size": 6},
    "mutation": {"rate": 1.0, "repeat": 100000, "operators": [{"kind": "regrow"}]},
    "elitism": 0,
    "checkpoint_interval": 1,
}


def _nodes(tree, *, low: int, high: int, count: int, rng: np.random.Generator) -> list[int]:
    ok = np.flatnonzero((tree.count >= low) & (tree.count <= high))
    return sorted(rng.choice(ok, size=min(count, len(ok)), replace=False).tolist())


@pytest.mark.parametrize(
    ("pegs", "colors", "variant", "pool"),
    [
        (4, 5, "mastermind", "all"),
        (3, 6, "mastermind", "consistent"),
        (4, 6, "bulls-cows", "all"),
    ],
)
def test_symmetry_policy_chooses_as_the_path_independent_one(pegs, colors, variant, pool):
    """The exact search with candidates reduced by the node's history picks the same guess
    for every code set as the search over all candidates (so the memo can be shared by
    any path, and any number of workers get the same subtrees)."""
    game = make_game(pegs, colors, variant)
    game.prepare()
    rng = np.random.default_rng(7)
    fast = Solver(game, policy="symmetry", pool=pool)
    plain = Solver(game, policy="path-independent", pool=pool)
    checked = 0
    for seed in range(3):
        tree = random_breaker(game, rng=np.random.default_rng(seed), pool=pool)
        for node in _nodes(tree, low=3, high=120, count=25, rng=rng):
            codes = tree.code_set(node)
            here = Node.after(game, tree.used_guesses(node))
            assert fast.best_guess(codes, here) == plain.best_guess(codes)
            assert fast.total(codes, here) == plain.total(codes)
            checked += 1
    assert checked >= 30


def test_greedy_subtree_with_history_is_the_same_subtree():
    """Given the node's history, the look-ahead subtree (with exact completion) is the
    one built without it, guess for guess."""
    game = make_game(4, 6)
    game.prepare()
    tree = random_breaker(game, rng=np.random.default_rng(3))
    rng = np.random.default_rng(0)
    for node in [0, *_nodes(tree, low=20, high=600, count=6, rng=rng)]:
        codes = tree.code_set(node)
        history = tuple(tree.used_guesses(node))
        mutation.clear_greedy_cache()
        a = greedy_subtree(game, codes, exact_below=30, history=history)
        mutation.clear_greedy_cache()
        b = greedy_subtree(game, codes, exact_below=30)
        assert a is not b
        assert np.array_equal(a.guess, b.guess) and a.total == b.total


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.slow
def test_time_limit_cuts_a_long_generation(tmp_path, workers):
    """A generation that would take minutes is abandoned at ``stop.seconds``: the run
    stops within a few seconds of it, and keeps the whole generations before."""
    data = {**SLOW, "stop": {"seconds": 3, "generations": 100}, "workers": workers}
    cfg = load_config(data, [])
    start = time.perf_counter()
    run_dir = create_run_dir(cfg, root=tmp_path)
    result = run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    took = time.perf_counter() - start
    assert result.summary["stopped_by"] == "seconds"
    assert result.state.generation == 0  # one generation takes ~100 s: none is kept
    assert [r["gen"] for r in result.state.logbook] == [0]
    assert took < 3 + 8, f"the run overran its 3 s by {took - 3:.1f} s"
    saved = load_run(run_dir)
    assert [r["gen"] for r in saved.logbook] == [0]
    assert saved.summary is not None and saved.summary["status"] == "finished"


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.slow
def test_time_limit_cuts_a_long_island_epoch(tmp_path, workers):
    """The same for islands: an epoch under way at ``stop.seconds`` is abandoned (on a
    local Dask cluster, its tasks with it) and the run keeps the epoch before."""

    # The limit holds from the first task: 15 s leave room for the first populations (and
    # a local cluster's start), not for an epoch (~100 s).
    data = {
        **SLOW,
        "stop": {"seconds": 15, "generations": 100},
        "islands": {"count": 2, "migration": {"interval": 2}},
        "cluster": {"workers": workers},
    }
    cfg = load_config(data, [])
    run_dir = create_run_dir(cfg, root=tmp_path)
    start = time.perf_counter()
    result = run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    took = time.perf_counter() - start
    assert result.summary["stopped_by"] == "seconds"
    assert result.state.generation == 0
    assert took < 15 + 20, f"the run overran its 15 s by {took - 15:.1f} s"
    saved = load_run(run_dir)
    assert [r["gen"] for r in saved.logbook] == [0]
    assert saved.summary is not None and saved.summary["status"] == "finished"


def _brute_total(codes: frozenset, depth: int, guesses: list[tuple], memo: dict) -> float:
    """The least total of a strategy for ``codes`` within ``depth`` guesses, by trying
    every guess at every node (inf when none fits)."""
    if not codes:
        return 0
    if depth == 0:
        return float("inf")
    key = (codes, depth)
    if key not in memo:
        best = float("inf")
        for g in guesses:
            parts: dict[tuple, set] = {}
            for c in codes:
                if c != g:
                    parts.setdefault(brute_feedback(g, c), set()).add(c)
            if any(len(p) == len(codes) for p in parts.values()):
                continue  # tells nothing
            cost = len(codes) + sum(
                _brute_total(frozenset(p), depth - 1, guesses, memo) for p in parts.values()
            )
            best = min(best, cost)
        memo[key] = best
    return memo[key]


@pytest.mark.parametrize(("pegs", "colors"), [(2, 4), (3, 3)])
def test_depth_limited_search_against_brute_force(pegs, colors):
    """The least total within ``depth`` guesses, for every depth, equals an exhaustive
    search over every guess (none infeasible when the brute force finds a strategy)."""
    game = make_game(pegs, colors)
    game.prepare()
    codes = all_code_tuples(pegs, colors)
    memo: dict = {}
    for policy in ("symmetry", "path-independent"):
        solver = Solver(game, policy=policy)
        for depth in range(1, 7):
            want = _brute_total(frozenset(codes), depth, codes, memo)
            got = solver.total(game.all_codes(), depth=depth)
            assert (got if got < UNBOUNDED else float("inf")) == want, (policy, depth)
            if want < float("inf"):
                tree = solver.subtree(game.all_codes(), depth=depth)
                assert tree.total == want and tree.worst <= depth


def test_depth_limited_optimum_of_4_6_is_the_published_5626():
    """Koyama & Lai: the least total of (4,6) with worst case 5 is 5626 (5625 needs 6)."""
    game = make_game(4, 6)
    game.prepare()
    solver = Solver(game, policy="symmetry")
    assert solver.total(game.all_codes(), depth=6) == 5625
    assert solver.total(game.all_codes(), depth=5) == 5626
    tree = solver.subtree(game.all_codes(), depth=5)
    assert (tree.total, tree.worst) == (5626, 5)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:  # ended meanwhile
        return []


def _workers(pid: int) -> list[int]:
    """The pool's worker processes of run ``pid``: children of its fork server, itself a
    child of the run."""
    return [w for c in _children(pid) for w in _children(c)]


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux's /proc")
@pytest.mark.slow
def test_a_killed_worker_stops_the_run_with_a_checkpoint(tmp_path):
    """A worker process killed from outside (SIGKILL) takes its tasks with it: the run
    says so and stops, checkpointed after the last whole generation, instead of waiting
    for them for ever."""
    config = tmp_path / "slow.yaml"
    data = {**SLOW, "population": {"size": 8}, "stop": {"generations": 100}, "workers": 2}
    config.write_text(yaml.safe_dump(data))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')"]
    proc = subprocess.Popen(
        [*cmd, "run", str(config), "--runs", str(tmp_path), "-q", "--no-report"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # generation 0 written, generation 1 breeding
            logs = list(tmp_path.glob("slow-*/logbook.jsonl"))
            if logs and logs[0].read_text().strip() and len(_workers(proc.pid)) >= 2:
                break
            time.sleep(0.2)
        time.sleep(1.0)
        os.kill(_workers(proc.pid)[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode not in (0, None)
    assert "worker process died" in err and "evo resume" in err, err
    run = load_run(next(tmp_path.glob("slow-*")))
    assert run.summary is not None and run.summary["status"] == "interrupted"
    assert [r["gen"] for r in run.logbook] == [0]
