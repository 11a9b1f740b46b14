"""The compiled one-step look-ahead chooses exactly what the NumPy ranking chooses: the
same guess on random code sets, the same trees for every one-step baseline."""

from __future__ import annotations

import numpy as np
import pytest

from evo.baselines import LOOKAHEAD, build
from evo.core import engine
from evo.core.game import make_game
from evo.core.kinds import HEURISTICS
from evo.search import lookahead
from evo.search.build import build_tree
from evo.search.lookahead import _compiled_choice, lookahead_player, ranked_guesses
from evo.search.partition import perfect_consistent


def _same_tree(a, b) -> bool:
    fields = ("guess", "label", "parent", "depth", "terminal", "start", "count", "codes")
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_compiled_choice_is_the_first_of_the_ranking(heuristic, pool):
    game = make_game(4, 6)
    rng = np.random.default_rng(7)
    for size in [3, 5, 9, 15, 16, 40, 130, 400, 1296]:
        for _ in range(3):
            codes = np.sort(rng.choice(game.num_codes, size, replace=False)).astype(np.int64)
            want = perfect_consistent(game, codes)
            if want is None:
                want = int(ranked_guesses(game, codes, heuristic=heuristic, pool=pool)[0][0])
            assert _compiled_choice(game, codes, heuristic, pool, None) == want


def test_entropy_ties_are_broken_as_the_ranking_breaks_them():
    """Parts {4} and {2, 2} have equal n log n sums only up to rounding; both orders must
    agree on such near-ties, which the rounded score makes exact ties."""
    game = make_game(3, 4)
    rng = np.random.default_rng(3)
    for _ in range(40):
        codes = np.sort(rng.choice(game.num_codes, 12, replace=False)).astype(np.int64)
        want = perfect_consistent(game, codes)
        if want is None:
            want = int(ranked_guesses(game, codes, heuristic="entropy")[0][0])
        assert _compiled_choice(game, codes, "entropy", "all", None) == want


@pytest.mark.parametrize(
    "pegs,colors,variant",
    [(3, 4, "mastermind"), (4, 4, "mastermind"), (3, 6, "bulls-cows"), (4, 6, "mastermind")],
)
def test_compiled_and_numpy_players_build_the_same_trees(monkeypatch, pegs, colors, variant):
    """Three ways to the same tree: the whole tree in one compiled call (what the
    baselines use), the player choosing node by node with the kernel (what operators
    use), and the NumPy ranking."""
    game = make_game(pegs, colors, variant)
    for name in LOOKAHEAD:
        heuristic, _, rest = name.partition("-")
        pool = "consistent" if rest else "all"
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lookahead, "ranked_guesses", _numpy_ranking_called)
            mp.setattr(engine, "DEFAULT", "compiled")
            whole = build(game, name)
            player = build_tree(game, lookahead_player(game, heuristic, pool=pool))
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lookahead, "_compiled_choice", _compiled_called)
            mp.setattr(engine, "DEFAULT", "numpy")
            numpy_ = build(game, name)
        assert _same_tree(whole, numpy_), name
        assert _same_tree(player, numpy_), name
        whole.validate()


def _compiled_called(*args, **kwargs):
    raise AssertionError("the compiled kernel chose where the NumPy ranking should")


def _numpy_ranking_called(*args, **kwargs):
    raise AssertionError("the NumPy ranking chose where the compiled kernel should")


def test_whole_tree_kernel_only_up_to_its_size(monkeypatch):
    """(4,6) is built in one compiled call; above WHOLE_TREE_CODES node by node (same tree;
    here without the one-call subtrees of small sets, tested on their own)."""
    from evo.search import lookahead_kernel

    game = make_game(4, 6)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lookahead, "build_tree", _numpy_ranking_called)
        whole = lookahead.lookahead_tree(game, "irving", engine="compiled")
    monkeypatch.setattr(lookahead, "WHOLE_TREE_CODES", game.num_codes - 1)
    monkeypatch.setattr(lookahead, "SUBTREE_CODES", 0)
    monkeypatch.setattr(lookahead_kernel, "lookahead_tree", _numpy_ranking_called)
    by_node = lookahead.lookahead_tree(game, "irving", engine="compiled")
    assert _same_tree(whole, by_node) and whole.total == 5696
