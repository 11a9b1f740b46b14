"""Lower bounds of games with a rule on guesses: each bound at or below the least total a
brute force over the legal guesses finds (tests/support/brute.py), and called the optimum
only when it is it. A bound that scored every guess, legal or not, once called a search
that used no estimate exact: 8,009 "the optimum" of hard-mode Wordle with SALET first
(8,116), 454 of a (3,5) game of consistent guesses (455)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.brute import least
from support.definitions import hard, marks

import evo
from evo.games.custom import custom_game
from evo.proofs.bound import Bounder, part_bound, tree_uppers
from evo.proofs.refine import lower_bound
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, Solver

Feedback = Callable[[Hashable, Hashable], Hashable]
Rule = Callable[[Hashable, Hashable, Hashable], bool]


def pegs(guess: str, secret: str) -> tuple[int, int]:
    """Mastermind's (black, white) pegs, by the definition."""
    black = sum(a == b for a, b in zip(guess, secret))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


def check(game, secrets, feedback: Feedback, guesses, legal: Rule, *, exact_below: int) -> None:
    """Every kind of bound of ``game`` at or below the brute force's least total, and
    optimal only at it: depths 0 to 3, a time limit, a breaker's uppers, no limit."""
    best = least(secrets, feedback, guesses=guesses, legal=legal)
    bounds = [lower_bound(game, depth=d, exact_below=exact_below) for d in range(4)]
    bounds.append(lower_bound(game, seconds=0.5, exact_below=exact_below))
    uppers = tree_uppers(evo.random_breaker(game, seed=len(secrets)))
    bounds.append(lower_bound(game, seconds=0.5, uppers=uppers, exact_below=exact_below))
    for b in bounds:
        assert b.lower_bound <= best, (b.lower_bound, best, b.depth)
        assert not b.optimal or b.lower_bound == best, (b.lower_bound, best, b.depth)
    whole = lower_bound(game, exact_below=exact_below)  # no limit: the optimum itself
    assert whole.optimal and whole.lower_bound == best


_made = itertools.count()


@st.composite
def tabled(draw):
    """A game of a few codes, a few more guesses, and feedback drawn at random (the win
    apart): ``(secrets, guesses, feedback)``, feedback defined between any two guesses."""
    n = draw(st.integers(3, 8))
    extra = draw(st.integers(0, 3))
    k = draw(st.integers(2, 4))
    every = [f"c{i}" for i in range(n)] + [f"x{i}" for i in range(extra)]
    values = draw(
        st.lists(st.integers(0, k - 1), min_size=len(every) ** 2, max_size=len(every) ** 2)
    )
    table = {
        (g, s): values[i * len(every) + j] for i, g in enumerate(every) for j, s in enumerate(every)
    }

    def feedback(g: Hashable, s: Hashable) -> Hashable:
        return "win" if g == s else table[g, s]

    return every[:n], every, feedback


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=tabled(), exact_below=st.sampled_from([0, 2, 20]))
def test_consistent_guesses_only(game, exact_below):
    secrets, guesses, feedback = game

    def legal(g, e, a):
        return feedback(e, g) == a

    made = custom_game(
        secrets, feedback, guesses=guesses, legal=legal, name=f"rules-c{next(_made)}"
    )
    check(made, secrets, feedback, guesses, legal, exact_below=exact_below)


@pytest.mark.slow
@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=tabled(), bits=st.randoms(use_true_random=False), exact_below=st.sampled_from([0, 2, 20])
)
def test_a_rule_drawn_at_random(game, bits, exact_below):
    secrets, guesses, feedback = game
    # Consistent guesses always allowed (the rule's contract), the others at random.
    extra = {(g, e, a): bits.random() < 0.5 for g in guesses for e in guesses for a in range(4)}

    def legal(g, e, a):
        return feedback(e, g) == a or extra.get((g, e, a), False)

    made = custom_game(
        secrets, feedback, guesses=guesses, legal=legal, name=f"rules-r{next(_made)}"
    )
    check(made, secrets, feedback, guesses, legal, exact_below=exact_below)


WORDS = ["".join(w) for w in itertools.product("abcd", repeat=3)]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    picked=st.lists(st.sampled_from(WORDS), min_size=3, max_size=9, unique=True),
    more=st.lists(st.sampled_from(WORDS), max_size=4, unique=True),
    exact_below=st.sampled_from([0, 2, 20]),
)
def test_hard_mode_on_small_word_lists(picked, more, exact_below):
    guesses = picked + [w for w in more if w not in picked]
    made = custom_game(picked, marks, guesses=guesses, legal=hard, name=f"rules-h{next(_made)}")
    check(made, picked, marks, guesses, hard, exact_below=exact_below)


# ------------------------------------------------------------- the two games
@pytest.fixture(scope="module")
def consistent_3_5():
    """Mastermind (3,5) where every guess must fit the answers so far: the exact search
    and the brute force both say 455."""
    codes = ["".join(c) for c in itertools.product("abcde", repeat=3)]
    return custom_game(
        codes, pegs, legal=lambda g, e, a: pegs(e, g) == a, name="rules-consistent-3-5"
    )


def test_the_exact_search_of_the_consistent_3_5_game_is_455(consistent_3_5):
    assert Solver(consistent_3_5).total(consistent_3_5.all_codes()) == 455


@pytest.mark.parametrize("depth", [2, 3])
def test_a_level_search_under_a_rule_is_exact_only_at_the_optimum(consistent_3_5, depth):
    # Scored over every guess, depths 2 and 3 returned 454 "optimal".
    b = lower_bound(consistent_3_5, depth=depth)
    assert b.lower_bound <= 455
    assert not b.optimal or b.lower_bound == 455


def test_a_time_limited_bound_under_a_rule_is_the_optimum_or_below(consistent_3_5):
    b = lower_bound(consistent_3_5, seconds=5)
    assert b.lower_bound <= 455 and (not b.optimal or b.lower_bound == 455)


def test_a_part_searched_over_its_legal_guesses_is_its_least_total(consistent_3_5):
    # A part's level search that used no estimate is its least total under the rule: the
    # exact search's, with the same history.
    game = consistent_3_5
    guess = game.parse_code("abc")
    fb = game.feedback_row(guess)
    for f in set(fb.tolist()) - {game.win}:
        got = part_bound(game, guess, f, 3, exact_below=0)
        codes = (fb == f).nonzero()[0]
        exact = Solver(game).solve(codes, Node.after(game, (guess,)), UNBOUNDED)
        assert got.bound is not None and got.bound <= exact
        if got.depth is None:
            assert got.bound == exact


def test_a_set_of_unknown_history_under_a_rule_is_refused(consistent_3_5):
    with pytest.raises(ValueError, match="rule on guesses"):
        Bounder(consistent_3_5).bound(consistent_3_5.all_codes(), None, depth=1)
