"""Operators at big nodes: symmetry from a node's history changes the cost, never the
result."""

from __future__ import annotations

import time

import numpy as np
import pytest

from evo.config import load_config
from evo.ea import evolve, mutation
from evo.ea.mutation import greedy_subtree
from evo.game import make_game
from evo.growth import random_breaker
from evo.rundir import create_run_dir, load_run
from evo.search.build import Node
from evo.search.exact import Solver


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
        mutation._GREEDY_CACHE.clear()
        a = greedy_subtree(game, codes, exact_below=30, history=history)
        mutation._GREEDY_CACHE.clear()
        b = greedy_subtree(game, codes, exact_below=30)
        assert a is not b
        assert np.array_equal(a.guess, b.guess) and a.total == b.total


@pytest.mark.parametrize("workers", [1, 2])
def test_time_limit_cuts_a_long_generation(tmp_path, workers):
    """A generation that would take minutes is abandoned at ``stop.seconds``: the run
    stops within a few seconds of it, and keeps the whole generations before."""
    data = {
        "name": "cut",
        "seed": 1,
        "game": {"pegs": 4, "colors": 6},
        "population": {"size": 6},
        "stop": {"seconds": 3, "generations": 100},
        "mutation": {"rate": 1.0, "repeat": 100000, "operators": [{"kind": "regrow"}]},
        "elitism": 0,
        "workers": workers,
    }
    cfg = load_config(data, [])
    start = time.perf_counter()
    run_dir = create_run_dir(cfg, root=tmp_path)
    result = evolve(cfg, run_dir=run_dir, progress=False, knuth=False)
    took = time.perf_counter() - start
    assert result.summary["stopped_by"] == "seconds"
    assert result.state.generation == 0  # one generation takes ~100 s: none is kept
    assert [r["gen"] for r in result.state.logbook] == [0]
    assert took < 3 + 8, f"the run overran its 3 s by {took - 3:.1f} s"
    saved = load_run(run_dir)
    assert [r["gen"] for r in saved.logbook] == [0]
    assert saved.summary is not None and saved.summary["status"] == "finished"
