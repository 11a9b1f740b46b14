"""``evo bound --first GUESS`` (issue 53 item 3): the bound, or the optimum, of the breakers
that open with one guess; and ``evo bound`` on Wordle, whose 12,972 first guesses are as
many classes. Checked against a brute force over every guess at every node
(``tests/support/brute.py``) and, for Wordle, against the published optimum, 7,920 with
SALET first (docs/WORDLE.md 4.1), and hard mode's 8,122 (4.3)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner
from support.brute import least

from evo.cli import main
from evo.core.game import make_game
from evo.proofs.bound import first_guess_class, first_guess_classes
from evo.proofs.refine import lower_bound


def pegs(guess: tuple, secret: tuple) -> tuple[int, int]:
    """Mastermind's answer by its definition: black pegs (right color, right place) and
    white pegs (the colors in common, counted with repeats, less the blacks)."""
    black = sum(g == s for g, s in zip(guess, secret, strict=True))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


CODES = list(itertools.product(range(3), repeat=3))  # Mastermind (3,3), ids in this order


def opened_with(first: tuple) -> int:
    """The least total of the breakers that open with ``first``, by brute force: every
    code pays the first guess, and each part its own least total from there."""
    parts: dict[int, list[tuple]] = {}
    for s in CODES:
        if s != first:
            parts.setdefault(pegs(first, s), []).append(s)
    return len(CODES) + sum(least(p, pegs, guesses=CODES) for p in parts.values())


def test_the_optimum_with_each_first_guess_is_the_brute_forces():
    game = make_game(3, 3)
    reps = [g for g, _ in first_guess_classes(game)]
    seen = {}
    for g in reps:
        got = lower_bound(game, first=g, workers=1)
        assert got.optimal and len(got.classes) == 1 and got.classes[0].guess == g
        seen[g] = got.lower_bound
        assert got.lower_bound == opened_with(CODES[g])
    # The opening matters here (else the option could be ignored unseen), and the least
    # of them is the whole game's optimum.
    assert len(set(seen.values())) > 1
    assert min(seen.values()) == least(CODES, pegs) == lower_bound(game, workers=1).lower_bound


def test_a_first_guess_is_taken_with_its_symmetry_class():
    game = make_game(3, 3)
    code = game.parse_code("332")  # the class of 112 (two alike, one other): its lowest
    low, orbit = first_guess_class(game, code)
    assert game.format_code(low) == "112" and orbit == 18
    assert lower_bound(game, first=code, workers=1).lower_bound == opened_with(CODES[code])
    with pytest.raises(ValueError, match="not one of the game's 27 guesses"):
        first_guess_class(game, 27)


def test_a_depth_bound_with_a_first_guess_is_below_its_optimum():
    game = make_game(4, 4)
    code = game.parse_code("1111")
    exact = lower_bound(game, first=code, workers=1)
    shallow = lower_bound(game, first=code, depth=1, exact_below=0, workers=1)
    whole = lower_bound(game, depth=1, exact_below=0, workers=1)
    assert exact.optimal and not shallow.optimal
    assert whole.lower_bound < shallow.lower_bound <= exact.lower_bound
    assert exact.lower_bound > 905  # (4,4)'s optimum opens otherwise


def test_cli_first_prints_the_optimum_with_that_guess():
    args = ["bound", "--workers", "1", "-n", "3", "-c", "3", "--first", "112"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    want = opened_with((0, 0, 1))
    assert f"mastermind-3-3 with 112 first: the optimum is {want}" in res.stdout
    assert "searched exactly: about" not in res.stderr  # no whole-game estimate asked
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert data["first"] == "112" and data["lower_bound"] == want and data["optimal"]
    assert [c["guess"] for c in data["classes"]] == ["112"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--first", "119"], "Invalid value for --first: code '119'"),
        (["--first", "111", "--certificate", "c.json"], "a certificate holds every first"),
        (["--check", "c.json", "--first", "111"], "--check takes none of --first"),
        (["--max-guesses", "4"], "--max-guesses needs --first GUESS"),
        (["--check", "c.json", "--max-guesses", "4"], "--check takes none of --max-guesses"),
        (["--first", "111", "--max-guesses", "4", "--depth", "1"], "takes none of --depth"),
        (["--first", "111", "--max-guesses", "0"], "Invalid value for '--max-guesses'"),
    ],
)
def test_cli_first_refusals_are_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["bound", "-n", "3", "-c", "3", *args])
    assert res.exit_code == 2 and message in res.output, res.output
    assert "Traceback" not in res.output


CODES_3_4 = list(itertools.product(range(4), repeat=3))  # Mastermind (3,4)


def test_max_guesses_gives_the_least_total_within_them_as_the_brute_force_does():
    """Within five guesses 111 opens breakers of 233; within four none (the option
    ignored, 233 would be printed); 112 within four: 206."""
    assert least(CODES_3_4, pegs, first=(0, 0, 0), within=4) == float("inf")
    args = ["bound", "-n", "3", "-c", "4", "--first"]
    none = CliRunner().invoke(main, [*args, "111", "--max-guesses", "4"])
    assert none.exit_code != 0 and none.stdout == "", none.output
    assert "no breaker that opens with 111 solves every code within 4 guesses" in none.stderr
    for first, code, within in (("111", (0, 0, 0), 5), ("112", (0, 0, 1), 4)):
        want = least(CODES_3_4, pegs, first=code, within=within)
        res = CliRunner().invoke(main, [*args, first, "--max-guesses", str(within)])
        assert res.exit_code == 0, res.output
        verdict = f"mastermind-3-4 with {first} first, within {within} guesses: the optimum"
        assert res.stdout.startswith(f"{verdict} is {want:,}\n"), res.output
    data = json.loads(
        CliRunner().invoke(main, [*args, "111", "--max-guesses", "5", "--json"]).stdout
    )
    assert data["least_total"] == 233 and data["max_guesses"] == 5 and data["first"] == "111"


# ---------------------------------------------------------------- Wordle


@pytest.mark.slow
def test_wordle_depth_zero_ends_and_is_below_the_optimum():
    game = make_game("wordle")
    args = ["bound", "--game", "wordle", "--depth", "0", "--threads", "1", "--verbose"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("wordle: the least total is at least ")
    value = int(lines[0].rsplit(" ", 1)[1].replace(",", ""))
    assert 2 * game.num_codes - 1 < value <= 7920
    # 12,972 classes: 20 lines and the rest summed up in one.
    assert sum(ln.startswith("  first guess") for ln in lines) == 20
    assert "... and 12,952 more first guesses" in res.stdout
    # SALET's class at depth 0: its parts' perfect splits, recomputed here from its
    # part sizes (a part of n codes costs at least 2n - 1, n when a guess splits it into
    # singletons with a win: at most 238 parts + 1 here).
    data = lower_bound(game, depth=0, workers=1, first=game.parse_code("salet"))
    sizes = np.bincount(game.table[game.parse_code("salet")], minlength=243)[1:]
    assert (
        7920
        >= data.lower_bound
        >= game.num_codes + sum(2 * n - 1 if n > 1 else 1 for n in sizes.tolist() if n)
    )


@pytest.mark.slow
def test_wordle_hard_with_salet_first_is_below_the_published_hard_optimum():
    res = CliRunner().invoke(
        main, ["bound", "--game", "wordle-hard", "--first", "salet", "--seconds", "10", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["first"] == "SALET" and data["lower_bound"] <= 8116 <= 8122
    assert not data["optimal"] or data["lower_bound"] == 8116


@pytest.mark.heavy
def test_wordle_hard_with_salet_first_is_proved_8116_over_the_legal_guesses_only():
    """Hard mode's least total with SALET first is 8,116 (Selby's; breakers/wordle-hard.json
    opens so). Scoring every guess, legal or not, 240 s once ended on "8,009 is the
    optimum"; over the legal guesses it ends on 8,116 exact, in about two minutes here."""
    args = ["bound", "--game", "wordle-hard", "--first", "salet", "--seconds", "240"]
    res = CliRunner().invoke(main, [*args, "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["lower_bound"] <= 8116
    assert not data["optimal"] or data["lower_bound"] == 8116


@pytest.mark.heavy
def test_wordle_salet_first_is_proved_7920_by_the_exact_search():
    """The optimum with SALET first, every later node searched over all 12,972 guesses:
    7,920, the published optimum (Selby; Bertsimas and Paskov). About a minute here."""
    res = CliRunner().invoke(main, ["bound", "--game", "wordle", "--first", "salet", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["lower_bound"] == 7920 and data["optimal"] is True
    assert all(p["depth"] == "exact" for p in data["classes"][0]["parts"])
