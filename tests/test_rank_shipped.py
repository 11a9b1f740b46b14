"""The ranked lists of Wordle's first guesses that evo ships (breakers/first-guesses/,
issue 65): the optimum they state is the published one, every total they state equals
Selby's published total for that first guess, no floor is above one, and five lines are
proved again from scratch by another search (``evo bound --first``'s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.published_first_guesses import NORMAL

from evo.core.game import make_game
from evo.proofs.firsts import read_ranking
from evo.proofs.refine import lower_bound

LISTS = Path(__file__).resolve().parents[1] / "breakers" / "first-guesses"


@pytest.fixture(scope="module")
def normal():
    game = make_game("wordle")
    return game, read_ranking(LISTS / "wordle.json.gz", game=game, sealed=False)


def test_the_optimum_is_the_published_one(normal):
    game, ranking = normal
    assert ranking.complete and len(ranking.entries) == game.num_guesses == 12_972
    best = ranking.optimum
    assert best is not None and game.format_code(best.guess).lower() == "salet" and best.low == 7920


def test_every_figure_agrees_with_the_published_totals(normal):
    game, ranking = normal
    compared = 0
    for e in ranking.entries.values():
        published = NORMAL.get(game.format_code(e.guess).lower())
        if published is None:
            continue
        compared += 1
        assert e.low == published if e.exact else e.low <= published, game.format_code(e.guess)
    assert compared == len(NORMAL)
    # The list's ranked ones are the published best, in order.
    ranked = [e.low for e in ranking.below_cut]
    best = sorted(NORMAL.items(), key=lambda kv: (kv[1], kv[0]))
    assert ranked == [t for _, t in best[: len(ranked)]]


@pytest.mark.heavy
@pytest.mark.parametrize("word", ["salet", "reast", "trace", "slate", "crane"])
def test_a_line_proved_again_alone(normal, word):
    game, ranking = normal
    e = ranking.entries[game.parse_code(word)]
    got = lower_bound(game, first=e.guess, workers=1)  # the exact optimum with that opening
    assert got.optimal
    assert got.lower_bound == e.low if e.exact else got.lower_bound >= e.low
    assert got.lower_bound == NORMAL[word]
