"""Records with guarantees: the operators rebuild within the worst case a run asks for
(``max_guesses``), so that a run at a worst-case limit improves inside it."""

from __future__ import annotations

import numpy as np

from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.ea.mutation import depth_budget, exhaustive_mutation
from evo.ea.toolbox import build_toolbox


def _tree():
    return random_breaker(make_game(4, 6), rng=np.random.default_rng(3))  # total 7111, worst 9


def test_the_depth_budget_is_what_the_limit_leaves_below_the_guesses_above():
    tree = _tree()
    for node in (0, 1, int(np.argmax(tree.depth))):
        above = int(tree.depth[node]) - 1
        assert depth_budget(tree, node, max_guesses=6) == 6 - above
        height = tree.height(node)
        assert depth_budget(tree, node, keep_depth=True) == height
        assert depth_budget(tree, node, keep_depth=True, max_guesses=6) == min(height, 6 - above)
    assert depth_budget(tree, 0) is None


def test_exhaustive_rebuilds_within_the_runs_worst_case():
    """A sweep of exact rebuilds of the nodes of up to 60 codes: optimal subtrees put a
    code at 7 guesses; within max_guesses 6, the same total at worst case 6."""
    tree = _tree()
    free = exhaustive_mutation(tree, rng=np.random.default_rng(0), max_codes=60, sweep=True)
    held = exhaustive_mutation(
        tree, rng=np.random.default_rng(0), max_codes=60, sweep=True, max_guesses=6
    )
    assert free.worst == 7 and held.worst == 6
    assert held.total == free.total == 5879
    held.validate()


def test_the_toolbox_gives_the_operators_the_runs_limit():
    from evo.config import load_config

    cfg = load_config(
        {
            "game": {"pegs": 4, "colors": 6},
            "max_guesses": 6,
            "mutation": {"operators": [{"kind": "exhaustive", "max_codes": 60, "sweep": True}]},
        }
    )
    tb = build_toolbox(cfg, make_game(4, 6))
    mutated = tb.mutate(_tree(), rng=np.random.default_rng(0))
    assert mutated.worst == 6 and mutated.total == 5879
