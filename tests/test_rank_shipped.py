"""The ranked lists of Wordle's first guesses that evo ships (breakers/first-guesses/,
issue 65): the optimum they state is the published one, every total they state equals
Selby's published total for that first guess, no floor is above one, and five lines are
proved again from scratch by another search (``evo bound --first``'s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from support.published_first_guesses import HARD_WITHIN_SIX, NORMAL

from evo.cli import main
from evo.core.game import make_game
from evo.proofs.firsts import read_ranking
from evo.proofs.refine import lower_bound

LISTS = Path(__file__).resolve().parents[1] / "breakers" / "first-guesses"


def shipped(kind: str, name: str):
    """The game ``kind`` and the shipped list ``name`` read as that game's."""
    game = make_game(kind)
    return game, read_ranking(LISTS / name, game=game, sealed=False)


@pytest.fixture(scope="module")
def normal():
    return shipped("wordle", "wordle.json.gz")


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
    # The list's ranked ones, the best 100 at least, are the published best, in order.
    ranked = [e.low for e in ranking.below_cut]
    assert len(ranked) >= 100 and all(e.exact for e in ranking.below_cut)
    best = sorted(NORMAL.items(), key=lambda kv: (kv[1], kv[0]))
    assert ranked == [t for _, t in best[: len(ranked)]]


@pytest.fixture(scope="module")
def hard():
    return shipped("wordle-hard", "wordle-hard-6.json.gz")


def test_hard_mode_within_six_is_the_published_optimum_and_agrees_with_each_total(hard):
    game, ranking = hard
    assert ranking.complete and ranking.max_guesses == 6
    assert len(ranking.entries) == game.num_guesses == 12_972
    best = ranking.optimum
    assert best is not None and game.format_code(best.guess).lower() == "salet" and best.low == 8122
    for e in ranking.entries.values():
        assert e.exact or e.low >= ranking.cut == 8123  # every other first guess ruled out
        published = HARD_WITHIN_SIX.get(game.format_code(e.guess).lower())
        if published is not None:
            assert e.low == published if e.exact else e.low <= published
    assert sum(e.exact for e in ranking.entries.values()) >= 1


def test_hard_mode_without_a_limit_is_salets_8116_and_below_each_total_within_six(hard):
    """Selby's program gives SALET 8,116 in hard mode with the limit lifted (``-H -g10``,
    docs/WORDLE.md 4.3), and TRACE 8,122 within eight guesses; a first guess never costs
    more without a limit than within six."""
    game, ranking = shipped("wordle-hard", "wordle-hard.json.gz")
    assert ranking.complete and ranking.max_guesses is None and ranking.cut == 8117
    assert len(ranking.entries) == game.num_guesses == 12_972
    best = ranking.optimum
    assert best is not None and game.format_code(best.guess).lower() == "salet" and best.low == 8116
    trace = ranking.entries[game.parse_code("trace")]
    assert trace.low == 8122 if trace.exact else 8117 <= trace.low <= 8122
    _, within_six = hard
    for g, e in ranking.entries.items():
        assert e.exact or e.low >= ranking.cut
        six = within_six.entries[g]
        assert e.low <= six.low or not six.exact, game.format_code(g)
        published = HARD_WITHIN_SIX.get(game.format_code(g).lower())
        assert published is None or e.low <= published


@pytest.mark.slow
def test_a_hard_line_within_six_is_proved_again_by_bound_first():
    """``evo bound --first WORD --max-guesses 6``: SALET's line of the hard-mode list."""
    game, ranking = shipped("wordle-hard", "wordle-hard-6.json.gz")
    e = ranking.entries[game.parse_code("salet")]
    args = ["bound", "--game", "wordle-hard", "--first", "salet", "--max-guesses", "6"]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    verdict = "wordle-hard with SALET first, within 6 guesses: the optimum is"
    assert out.stdout.startswith(f"{verdict} {e.low:,}\n") and e.low == 8122, out.output


@pytest.mark.parametrize(
    ("name", "first"),
    [
        ("wordle.json.gz", "the optimum over all"),
        ("wordle-hard-6.json.gz", "the optimum within 6"),
        ("wordle-hard.json.gz", "the optimum over all"),
    ],
)
def test_show_reads_the_game_from_the_list(name, first):
    out = CliRunner().invoke(main, ["rank", "--show", str(LISTS / name), "--top", "1"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith(first) and "SALET" in out.output
    other = "wordle-hard" if name == "wordle.json.gz" else "wordle"
    assert ("8,116" in out.output) == (name == "wordle-hard.json.gz")
    refused = CliRunner().invoke(main, ["rank", "--game", other, "--show", str(LISTS / name)])
    assert refused.exit_code != 0 and "a list of" in refused.output


@pytest.mark.heavy
@pytest.mark.parametrize("word", ["salet", "reast", "trace", "slate", "crane"])
def test_a_line_proved_again_alone(normal, word):
    game, ranking = normal
    e = ranking.entries[game.parse_code(word)]
    got = lower_bound(game, first=e.guess, workers=1)  # the exact optimum with that opening
    assert got.optimal
    assert got.lower_bound == e.low if e.exact else got.lower_bound >= e.low
    assert got.lower_bound == NORMAL[word]
