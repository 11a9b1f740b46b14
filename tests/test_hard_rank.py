"""Every first guess under a rule that narrows (Wordle's hard mode, issue 65): the rule
says it narrows only when it does (checked by brute force on Wordle's hard mode); the
relaxed floor of a part (every guess below it any guess legal at its node) is the brute
force's least total with those guesses, at or below the hard-mode least total, per part
and per first guess, with and without a limit on guesses; and a rule that widens never
gets the relaxation (where it would state a wrong total)."""

from __future__ import annotations

import itertools
from collections.abc import Hashable

import numpy as np
import pytest
from support.brute import least
from support.definitions import hard, marks

from evo.core.game import GuessRule
from evo.games.custom import CustomGame, custom_game
from evo.games.words import wordle_game
from evo.proofs.bound import Bounder
from evo.proofs.firsts import decide, new_ranking, parts_of, rank_first_guesses
from evo.search.build import Node
from evo.search.exact import UNBOUNDED

WORDS = ["".join(w) for w in itertools.product("abcde", repeat=3)]
SECRETS = WORDS[::6]  # 21 secrets (tests/test_rank.py's game)
GUESSES = SECRETS + WORDS[1::6]  # and 21 more guesses
INF = float("inf")


#: A game of 25 secrets where hard mode binds below some part within four guesses (in
#: tests/test_rank.py's, the relaxation is always exact).
SECRETS5 = WORDS[::5]
GUESSES5 = SECRETS5 + WORDS[1::5]


@pytest.fixture(scope="module")
def hard_game():
    return custom_game(SECRETS, marks, guesses=GUESSES, legal=hard, name="hard-rank-words")


def words_game(secrets: list[str], guesses: list[str]) -> CustomGame:
    return custom_game(secrets, marks, guesses=guesses, legal=hard, name=f"hard-{len(secrets)}")


def _words(game, ids) -> list[str]:
    return [game.format_code(int(i)) for i in ids]


def test_hard_mode_narrows_over_random_histories():
    game = wordle_game(True)
    rule = game.rule
    assert rule is not None and rule.narrows
    rng = np.random.default_rng(65)
    for _ in range(40):
        secret = int(rng.integers(game.num_codes))
        state = rule.start()
        legal = np.asarray(rule.legal(state))
        for _ in range(4):
            guess = int(rng.choice(np.flatnonzero(legal)))
            state = rule.after(state, guess, game.feedback(guess, secret))
            below = np.asarray(rule.legal(state))
            assert not (below & ~legal).any()  # a subset of the prefix's legal guesses
            assert below[secret]  # the contract: a code still possible stays legal
            legal = below


def test_custom_step_rules_narrow_and_the_default_does_not(hard_game):
    assert hard_game.rule.narrows and not GuessRule.narrows


@pytest.mark.parametrize(
    "secrets, guesses, limit",
    [
        (SECRETS, GUESSES, None),
        (SECRETS, GUESSES, 3),
        (SECRETS, GUESSES, 4),
        (SECRETS5, GUESSES5, 4),
    ],
)
def test_relaxed_floors_are_the_brute_forces_and_below_hard_mode(secrets, guesses, limit):
    hard_game = words_game(secrets, guesses)
    bounder = Bounder(hard_game, exact_below=0)
    binds = settled = False
    for first in range(hard_game.num_guesses):
        word = hard_game.format_code(first)
        node = Node.after(hard_game, (first,))
        relaxed = truth = hard_game.num_codes
        for codes in parts_of(hard_game, first):
            answer = hard_game.format_feedback(hard_game.feedback(first, int(codes[0])))
            legal = [g for g in guesses if hard(g, word, answer)]
            words = _words(hard_game, codes)
            within = None if limit is None else limit - 1
            # The relaxation by an independent definition: the guesses legal at the part's
            # node, every one of them at every node below, no rule.
            want = least(words, marks, guesses=legal, within=within)
            exact = least(words, marks, guesses=legal, legal=hard, within=within)
            floor = bounder.relaxed(codes, node, max_guesses=within)
            got = floor.low
            if want < INF:
                assert got == want and got <= exact
            else:
                assert got == UNBOUNDED  # no subtree fits within the limit
            # Exact when it says so (a subtree the rule allows), never where the rule binds.
            assert not floor.exact or got == exact
            binds |= want < exact
            settled |= floor.exact and len(codes) > 2
            relaxed, truth = relaxed + got, truth + exact
        assert relaxed <= truth
        if truth < INF:
            # decide states the hard-mode total (the relaxation only rules out).
            assert decide(hard_game, first, max_guesses=limit).low == truth
    assert settled  # some part of three codes or more solved by the relaxation
    # The rule binds below some part (the relaxation is below and not exact there) in the
    # game of 25 secrets within four guesses, never in the other.
    assert binds == (secrets is SECRETS5)


def test_a_budget_gives_a_floor_of_at_least_it(hard_game):
    bounder = Bounder(hard_game, exact_below=0)
    first = hard_game.parse_code(SECRETS[0])
    node = Node.after(hard_game, (first,))
    codes = parts_of(hard_game, first)[0]
    full = bounder.relaxed(codes, node).low
    assert bounder.relaxed(codes, node, budget=full + 1).low == full
    below = bounder.relaxed(codes, node, budget=full - 1)
    assert below.low >= full - 1 and not below.exact


class Widening(GuessRule):
    """After the first guess, only the secrets still possible; from the second on, every
    guess: what is legal grows (``narrows`` as the game is made)."""

    def __init__(self, game: CustomGame, narrows: bool):
        self.game, self.narrows = game, narrows

    def start(self) -> Hashable:
        return ()

    def after(self, state: Hashable, guess: int, feedback: int) -> Hashable:
        assert isinstance(state, tuple)
        return (*state, (int(guess), int(feedback)))

    def legal(self, state: Hashable) -> np.ndarray:
        assert isinstance(state, tuple)
        ok = np.ones(self.game.num_guesses, dtype=bool)
        if len(state) == 1:
            (g, f), m = state[0], self.game.num_codes
            ok[:] = False
            ok[:m] = self.game.feedback_row(g)[:m] == f
        return ok


class WideGame(CustomGame):
    """The small word game under :class:`Widening` (a key of its own per ``narrows``)."""

    @property
    def rule(self):  # type: ignore[override]
        return self._wide

    @property
    def key(self) -> tuple:
        return ("custom", self.name, self.digest, self._wide.narrows)


#: Five secrets alike but for a letter, which a guess of others tells apart (no secret
#: does): where guessing only secrets costs more.
WIDE_SECRETS = ["aab", "aac", "aad", "aae", "aaf"]
WIDE_GUESSES = [*WIDE_SECRETS, "aaa", "cde", "bcd"]


def wide_game(narrows: bool) -> WideGame:
    base = custom_game(WIDE_SECRETS, marks, guesses=WIDE_GUESSES, name="hard-rank-wide")
    game = WideGame(base.name, base.codes, base.guesses, base.feedbacks, base._table)
    game._wide = Widening(game, narrows)
    return game


def widening_truth(game: CustomGame, first: int) -> int:
    """The least total opening with ``first`` under :class:`Widening`, by brute force: the
    second guess one of its part's secrets, every guess after it."""
    total = game.num_codes
    for codes in parts_of(game, first):
        secrets = _words(game, codes)
        best = INF
        for h in secrets:
            split: dict[str, list[str]] = {}
            for s in secrets:
                if s != h:
                    split.setdefault(marks(h, s), []).append(s)
            here = len(secrets) + sum(least(p, marks, guesses=WIDE_GUESSES) for p in split.values())
            best = min(best, here)
        total += best
    return total


def test_a_rule_that_widens_never_gets_the_relaxation():
    game, liar = wide_game(False), wide_game(True)
    node = Node.after(game, (0,))
    with pytest.raises(ValueError, match="no rule on guesses that narrows"):
        Bounder(game, exact_below=0).relaxed(parts_of(game, 0)[0], node)
    truth = {g: widening_truth(game, g) for g in range(game.num_guesses)}
    assert all(decide(game, g).low == truth[g] for g in truth)
    # Where the relaxation is wrong: a rule that said it narrows would be stated more.
    assert any(decide(liar, g).low > truth[g] for g in truth)


def test_no_cut_is_taken_from_a_first_guess_with_no_breaker_within_the_limit(hard_game):
    want = {
        g: least(SECRETS, marks, guesses=GUESSES, legal=hard, first=g, within=3) for g in GUESSES
    }
    none = [g for g in GUESSES if want[g] == INF]
    assert none and len(none) < len(GUESSES)
    ranking = new_ranking(hard_game, max_guesses=3)
    # A floor of 0 (true of any first guess) puts it first: solved outright, it has none.
    ranking.entries[hard_game.parse_code(none[0])].low = 0
    cuts: list[int] = []
    rank_first_guesses(hard_game, ranking=ranking, progress=lambda r: cuts.append(r.cut))
    assert ranking.optimum is not None and ranking.optimum.low == min(want.values())
    # Two first guesses solved with no cut (that one, then the next), then a cut.
    assert sum(c >= UNBOUNDED for c in cuts) == 2 and cuts[-1] < UNBOUNDED
