"""Wordle's optimum searched first guess by first guess (``evo baselines --only optimal
--game wordle``, issue 65): the tree is the brute force's optimum on lists of our own, an
upper bound at the optimum is "none below" and one above it gives the optimum, and the
route is taken only where it applies."""

from __future__ import annotations

import pytest
from test_word_lists import NORMAL, small_lists

from evo.baselines.optimal import NoneBelow, Where, by_first_guesses, optimal
from evo.core.game import make_game
from evo.games.words import wordle_game


@pytest.fixture(scope="module")
def game():
    answers, guesses = small_lists()
    return wordle_game(answers=answers, guesses=guesses)


def test_the_optimum_tree_is_the_brute_forces(game):
    assert by_first_guesses(game, Where())
    tree = optimal(game, time_limit=None)
    assert tree.total == NORMAL and tree.is_valid()


def test_an_upper_bound_at_the_optimum_finds_none_below(game):
    with pytest.raises(NoneBelow, match=f"the optimum is at least {NORMAL}"):
        optimal(game, time_limit=None, where=Where(upper=NORMAL))
    assert optimal(game, time_limit=None, where=Where(upper=NORMAL + 1)).total == NORMAL


def test_the_route_is_for_wordle_in_normal_mode_only(game):
    answers, guesses = small_lists()
    assert not by_first_guesses(wordle_game(True, answers=answers, guesses=guesses), Where())
    assert not by_first_guesses(make_game(4, 6), Where())
    assert not by_first_guesses(game, Where(workers=2))  # a local Dask cluster: the old route
