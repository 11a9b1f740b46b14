"""Every first guess decided (``evo rank``, issue 65): each least total stated equal to a
brute force's over every guess at every node (tests/support/brute.py), each floor at or
below it, the optimum over every first guess the brute force's, normal and hard mode of a
small word game; the list's file sealed, read back, refused when edited or another game's."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner
from support.brute import least
from support.definitions import hard, marks

from evo.cli import main
from evo.games.custom import custom_game
from evo.proofs.firsts import (
    RankingError,
    decide,
    new_ranking,
    rank_first_guesses,
    read_ranking,
    write_ranking,
)

WORDS = ["".join(w) for w in itertools.product("abcde", repeat=3)]
SECRETS = WORDS[::6]  # 21 secrets
GUESSES = SECRETS + WORDS[1::6]  # and 21 more guesses


def brute(first: str, legal=None) -> int:
    return least(SECRETS, marks, guesses=GUESSES, legal=legal, first=first)


@pytest.fixture(scope="module")
def game():
    return custom_game(SECRETS, marks, guesses=GUESSES, name="rank-words")


@pytest.fixture(scope="module")
def hard_game():
    return custom_game(SECRETS, marks, guesses=GUESSES, legal=hard, name="rank-words-hard")


@pytest.fixture(scope="module")
def truth():
    return {g: brute(g) for g in GUESSES}


def test_every_first_guess_solved_is_the_brute_forces(game, truth):
    ranking = rank_first_guesses(game, best=len(GUESSES))
    assert ranking.complete
    got = {game.format_code(e.guess): e.low for e in ranking.solved}
    assert got == truth
    # The opening matters here (else a search ignoring it would pass).
    assert len(set(truth.values())) > 3


def test_the_optimum_over_every_first_guess(game, truth):
    ranking = rank_first_guesses(game)
    best = ranking.optimum
    assert best is not None and best.exact
    assert best.low == min(truth.values()) == least(SECRETS, marks, guesses=GUESSES)
    # Every other first guess: solved at its total, or ruled out at or below its total.
    for e in ranking.entries.values():
        word = game.format_code(e.guess)
        assert e.low == truth[word] if e.exact else e.low <= truth[word]
        assert e.exact or e.low >= ranking.cut
    # The cut ruled some out without solving them.
    assert sum(e.exact for e in ranking.entries.values()) < len(GUESSES)


def test_the_best_five_are_the_brute_forces_five(game, truth):
    ranking = rank_first_guesses(game, best=5)
    top = sorted(truth.values())[:5]
    assert [e.low for e in ranking.solved[:5]] == top
    for e in ranking.entries.values():
        if not e.exact:
            assert top[-1] <= e.low <= truth[game.format_code(e.guess)]


def test_a_wrong_upper_costs_time_not_the_result(game, truth):
    low = min(truth.values())
    for upper in (low - 40, low, low + 40):
        ranking = rank_first_guesses(game, upper=upper)
        assert ranking.optimum is not None and ranking.optimum.low == low


def test_hard_mode_each_first_guess(hard_game):
    ranking = rank_first_guesses(hard_game, best=8)
    want = {g: brute(g, hard) for g in GUESSES}
    for e in ranking.entries.values():
        word = hard_game.format_code(e.guess)
        assert e.low == want[word] if e.exact else e.low <= want[word]
    assert [e.low for e in ranking.solved[:8]] == sorted(want.values())[:8]
    # The rule matters here: some first guesses cost more in hard mode.
    assert any(want[g] > brute(g) for g in GUESSES)


@pytest.mark.slow
def test_within_a_number_of_guesses(hard_game):
    normal = {g: brute(g, hard) for g in GUESSES}
    wants = {}
    for limit in (3, 4):
        want = wants[limit] = {
            g: least(SECRETS, marks, guesses=GUESSES, legal=hard, first=g, within=limit)
            for g in GUESSES
        }
        ranking = rank_first_guesses(
            hard_game, best=4, ranking=new_ranking(hard_game, max_guesses=limit)
        )
        for e in ranking.entries.values():
            word = hard_game.format_code(e.guess)
            assert e.low == want[word] if e.exact else e.low <= want[word]
        assert [e.low for e in ranking.solved[:4]] == sorted(want.values())[:4]
    # The limit bites here: some first guesses cost more within three guesses (the brute
    # force's figures above, not computed twice).
    assert any(wants[3][g] > normal[g] for g in GUESSES)


def test_decide_against_a_cut(game, truth):
    word = min(truth, key=truth.get)
    g = game.parse_code(word)
    assert decide(game, g).low == truth[word]  # no cut: solved
    ruled = decide(game, g, cut=truth[word])
    assert not ruled.exact and ruled.low >= truth[word] - 0 and ruled.low <= truth[word]


def test_the_list_is_written_sealed_and_read_back(game, tmp_path):
    ranking = rank_first_guesses(game, best=3)
    path = tmp_path / "ranked.json"
    write_ranking(ranking, path)
    back = read_ranking(path, game=game)
    assert [(e.guess, e.low, e.exact) for e in back.ranked()] == [
        (e.guess, e.low, e.exact) for e in ranking.ranked()
    ]
    # Gone on from, it decides nothing again.
    again = rank_first_guesses(game, best=3, ranking=back)
    assert again.tasks == ranking.tasks


def test_an_edited_list_is_not_gone_on_from(game, tmp_path):
    ranking = rank_first_guesses(game)
    path = tmp_path / "ranked.json"
    write_ranking(ranking, path)
    data = json.loads(path.read_text())
    data["ranked"][1][1] -= 30  # a floor lowered: this guess would look the best
    path.write_text(json.dumps(data))
    with pytest.raises(RankingError, match="not sealed by this machine"):
        read_ranking(path, game=game)
    # Shown, it still reads (each line can be proved again alone).
    assert read_ranking(path, game=game, sealed=False).entries


def test_another_games_list_is_refused(game, hard_game, tmp_path):
    path = tmp_path / "ranked.json"
    write_ranking(new_ranking(game), path)
    with pytest.raises(RankingError, match="not of rank-words-hard"):
        read_ranking(path, game=hard_game)


def pegs(guess: tuple, secret: tuple) -> tuple[int, int]:
    """Mastermind's (black, white) pegs, by the definition."""
    black = sum(a == b for a, b in zip(guess, secret))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


def test_cli_ranks_keeps_and_resumes(tmp_path):
    out = tmp_path / "r.json"
    runner = CliRunner()
    game = ["-n", "3", "-c", "3"]
    want = least(list(itertools.product(range(3), repeat=3)), pegs)
    got = runner.invoke(main, ["rank", "--workers", "1", *game, "--best", "2", "--out", str(out)])
    assert got.exit_code == 0, got.output
    assert f"the optimum over all 3 first guesses is {want}" in got.output
    again = runner.invoke(main, ["rank", *game, "--out", str(out)])
    assert again.exit_code == 2 and "--resume goes on from it" in again.output
    resumed = runner.invoke(main, ["rank", "--workers", "1", *game, "--out", str(out), "--resume"])
    assert resumed.exit_code == 0 and f"is {want}" in resumed.output
    shown = runner.invoke(main, ["rank", *game, "--show", str(out), "--top", "1"])
    lines = shown.output.strip().splitlines()
    assert shown.exit_code == 0 and lines[1].split()[0] == "1." and len(lines) == 3
    assert lines[2] == f"  the other 2 first guesses: at least {want + 1} each (proved floors)"
    bad = runner.invoke(main, ["rank", *game, "--resume"])
    assert bad.exit_code == 2 and "--resume needs --out" in bad.output


@pytest.mark.slow
def test_local_processes_and_a_dask_cluster_give_the_same_list():
    from dask.distributed import LocalCluster

    from evo.core.game import make_game

    game = make_game(4, 6)

    def solved(r):
        return [(e.guess, e.low) for e in r.solved[:3]]

    serial = rank_first_guesses(game, best=3)
    spread = rank_first_guesses(game, best=3, workers=2)
    with LocalCluster(
        n_workers=1, processes=False, threads_per_worker=2, dashboard_address=":0"
    ) as cluster:
        on_dask = rank_first_guesses(game, best=3, scheduler=cluster.scheduler_address)
    assert solved(serial)[0] == (game.parse_code("1123"), 5625)
    assert solved(spread) == solved(on_dask) == solved(serial)
