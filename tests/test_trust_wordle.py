"""Issue 63's items on Wordle and every game evo can name: a bound's certificate of any
built-in game checks and goes on (item 4), compact when big (each class's parts as
arrays) or asked (``.gz``), the old layout still read and every edit of the new one
refused or proving no more; ``--floors`` on a game they cannot bound is one line (item
8); a polish band holding the root gives the optimum's estimate and refusal (item 12)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.forgery import proves_no_more

from evo.baselines.limits import BaselineRefused
from evo.cli import main
from evo.core.game import make_game, spec_key
from evo.core.growth import random_breaker
from evo.core.treeio import save_tree
from evo.ea.polish import Band, polish
from evo.proofs.bound import (
    BUDGET,
    COLUMNS_FORMAT,
    FORMAT,
    CertificateError,
    certificate_classes,
    certificate_document,
    certificate_game,
    certificate_sealed,
    check_certificate,
    read_certificate,
    write_certificate,
)
from evo.proofs.refine import lower_bound

ROOT = Path(__file__).resolve().parent.parent
OPTIMUM_3_4 = 206  # Goddard, "Mastermind revisited"


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


def _one_line_error(res, *words: str) -> None:
    """A user error: exit status 2, one line on stderr holding ``words``, no traceback."""
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), res.stderr


# ---------------------------------------------------------------- 4: every game's certificate
@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "wordle"},
        {"kind": "wordle-hard"},
        {"pegs": 4, "colors": 6, "variant": "mastermind"},
        {"pegs": 3, "colors": 4, "variant": "black-peg"},
        {"pegs": 4, "colors": 10, "variant": "bulls-cows"},
    ],
)
def test_a_certificate_names_every_built_in_game(spec):
    assert certificate_game({"game": spec}) == spec_key(spec)


@pytest.mark.parametrize(
    "game, message",
    [({"kind": "scrabble"}, "game"), ({"pegs": "4", "colors": 6}, "game.pegs"), ([], "game")],
)
def test_a_certificate_of_no_game_is_one_line(game, message):
    with pytest.raises(CertificateError, match=message):
        certificate_game({"game": game})


def test_a_wordle_hard_certificate_is_checked_as_wordle_hard(tmp_path):
    """The game is made from the file (not refused for its missing pegs), then its entries
    checked: an empty one is refused for what it lacks."""
    path = tmp_path / "h.json"
    doc = {"format": FORMAT, "game": {"kind": "wordle-hard"}, "codes": 2315, "exact_below": 20}
    path.write_text(json.dumps({**doc, "classes": [], "lower_bound": 1}))
    _one_line_error(_run("bound", "--check", str(path)), "h.json", "is missing")
    _one_line_error(
        _run("bound", "--check", str(path), "--game", "wordle"),
        "the certificate's variant is wordle-hard, not wordle",
    )
    _one_line_error(_run("bound", "--check", str(path), "-n", "5"), "--pegs", "Wordle")


@pytest.fixture(scope="module")
def gap_bound(tmp_path_factory):
    """A (3,4) bound of the gap-directed search: parts exact, by the perfect split and by
    the exact search's budget, with levels, uppers and a gap (every key a part can have)."""
    import evo
    from evo.proofs.bound import lookahead_uppers, tree_uppers

    game = make_game(3, 4)
    with pytest.MonkeyPatch.context() as m:  # the knuth tree cached aside, not in ~/.cache
        m.setenv("EVO_CACHE", str(tmp_path_factory.mktemp("cache")))
        up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
        bound = lower_bound(game, seconds=30, uppers=up)
    depths = {p.depth for c in bound.classes for p in c.parts}
    assert BUDGET in depths and None in depths
    return bound


def test_the_columns_hold_what_the_objects_do(gap_bound, tmp_path):
    path = write_certificate(gap_bound, tmp_path / "c.json", columns=True)
    raw = json.loads(path.read_text())
    assert raw["format"] == COLUMNS_FORMAT
    objects = gap_bound.to_json()
    for c, d in zip(raw["classes"], objects["classes"]):
        cols = c["parts"]
        assert isinstance(cols, dict) and {"feedback", "size", "bound", "depth"} <= set(cols)
        rows = [
            {k: v[i] for k, v in cols.items() if v[i] is not None}
            for i in range(len(cols["feedback"]))
        ]
        assert rows == d["parts"] and {k: v for k, v in c.items() if k != "parts"} == {
            k: v for k, v in d.items() if k != "parts"
        }
    data = read_certificate(path)
    assert certificate_sealed(data)
    assert check_certificate(data).lower_bound == gap_bound.lower_bound
    back = certificate_classes(data, gap_bound.game)
    assert [
        (c.guess, [(p.feedback, p.bound, p.depth, p.level) for p in c.parts]) for c in back
    ] == [
        (c.guess, [(p.feedback, p.bound, p.depth, p.level) for p in c.parts])
        for c in gap_bound.classes
    ]


def test_a_big_certificate_is_written_as_columns_a_small_one_as_objects(monkeypatch, tmp_path):
    from evo.proofs import bound as bound_module

    b = lower_bound(make_game(3, 3), depth=1)
    parts = sum(len(c.parts) for c in b.classes)
    write_certificate(b, tmp_path / "small.json")
    assert json.loads((tmp_path / "small.json").read_text())["format"] == FORMAT
    monkeypatch.setattr(bound_module, "COLUMNS_ABOVE", parts - 1)
    write_certificate(b, tmp_path / "big.json")
    assert json.loads((tmp_path / "big.json").read_text())["format"] == COLUMNS_FORMAT


@pytest.mark.parametrize("name", ["c.json.gz", "c.gz"])
def test_a_gz_certificate_is_gzip_and_checks_and_goes_on(tmp_path, name):
    path = tmp_path / name
    args = ["bound", "--workers", "1", "-n", "3", "-c", "4", "--certificate", str(path)]
    res = _run(*args, "--depth", "1")
    assert res.exit_code == 0, res.output
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    data = json.loads(gzip.decompress(raw))
    assert data["format"] == FORMAT and certificate_sealed(read_certificate(path))
    res = _run("bound", "--check", str(path))
    assert res.exit_code == 0 and "every part proved again" in res.stdout, res.output
    res = _run(*args, "--depth", "2", "--resume")
    assert res.exit_code == 0 and "going on from" in res.stderr, res.output
    assert read_certificate(path)["lower_bound"] >= data["lower_bound"]


def test_a_truncated_gz_certificate_is_one_line(tmp_path):
    path = tmp_path / "c.json.gz"
    write_certificate(lower_bound(make_game(3, 3), depth=1), path)
    path.write_bytes(path.read_bytes()[:-9])
    _one_line_error(_run("bound", "--check", str(path)), "c.json.gz", "gzip")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c["parts"]["bound"].pop(), "of one length"),
        (lambda c: c["parts"].update(colour=[1] * len(c["parts"]["size"])), "colour"),
        (lambda c: c["parts"].pop("depth"), "depth"),
        (lambda c: c.update(parts=[1, 2]), "parts"),
        (lambda c: c["parts"].update(size=7), "size"),
    ],
)
def test_malformed_columns_are_one_line(gap_bound, edit, message):
    doc = certificate_document(gap_bound, columns=True)
    edit(doc["classes"][0])
    with pytest.raises(CertificateError, match=message):
        check_certificate(doc, prove=False)


def test_a_raised_bound_in_the_columns_is_proved_again_and_refused():
    doc = certificate_document(lower_bound(make_game(3, 4), depth=1), columns=True)
    c = min(doc["classes"], key=lambda c: c["total"])
    i = int(np.argmax(c["parts"]["size"]))
    c["parts"]["bound"][i] += 5
    c["total"] += 5
    doc["lower_bound"] = min(c["total"] for c in doc["classes"])
    assert not certificate_sealed(doc)
    with pytest.raises(CertificateError, match="claimed"):
        check_certificate(doc)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_edit_of_the_columns_is_refused_or_proves_no_more(gap_bound, data):
    doc = json.loads(json.dumps(certificate_document(gap_bound, columns=True)))
    for _ in range(data.draw(st.integers(1, 3))):
        c = data.draw(st.sampled_from(doc["classes"]))
        cols = c["parts"]
        key = data.draw(st.sampled_from(sorted(cols)))
        i = data.draw(st.integers(0, len(cols[key]) - 1))
        value = cols[key][i]
        cols[key][i] = data.draw(
            st.sampled_from([None, True, 1.5, "x", [], -1, "exact", "budget", 0, 3])
            | (
                st.integers(-3, 30).map(lambda d, v=value: v + d)
                if isinstance(value, int)
                else st.none()
            )
        )
        if data.draw(st.booleans()):  # a forger keeps the sums consistent
            try:
                for k in doc["classes"]:
                    k["total"] = doc["codes"] + sum(k["parts"]["bound"])
                doc["lower_bound"] = min(k["total"] for k in doc["classes"])
            except TypeError:
                pass
    proves_no_more(gap_bound.game, doc, OPTIMUM_3_4)


def test_a_shipped_certificate_of_the_old_layout_still_reads(tmp_path):
    path = ROOT / "breakers" / "bounds" / "mastermind-4-10-against.json"
    data = read_certificate(path)
    assert data["format"] == FORMAT and isinstance(data["classes"][0]["parts"], list)
    assert check_certificate(data, prove=False).lower_bound == data["lower_bound"]


def test_a_custom_games_certificate_checks_from_python(tmp_path):
    """A game made in Python, its guesses beyond its codes: its certificate, compact and
    compressed, checks through the API (the command line cannot make its game)."""
    import itertools

    from evo.games.custom import custom_game

    secrets = ["".join(p) for p in itertools.permutations("abcd", 3)]
    guesses = secrets + ["".join(p) for p in itertools.product("abcd", repeat=3) if len(set(p)) < 3]

    def marks(guess: str, secret: str) -> str:
        return "".join(
            "G" if g == s else "Y" if g in secret else "." for g, s in zip(guess, secret)
        )

    words = custom_game(secrets, marks, guesses=guesses, name="trust-words")
    bound = lower_bound(words, depth=1)
    path = write_certificate(bound, tmp_path / "w.json.gz", columns=True)
    data = read_certificate(path)
    assert check_certificate(data, game=words).lower_bound == bound.lower_bound
    assert certificate_game(data) == words.key
    _one_line_error(_run("bound", "--check", str(path)), "custom game", "check_certificate")


@pytest.mark.heavy  # Wordle's whole game: about a minute (CI runs it with make test-heavy)
def test_a_wordle_certificate_is_compact_checks_and_goes_on(tmp_path):
    """Wordle's 12,972 classes and 1.1 million parts: written as columns, gzip-compressed
    (4.4 MB where one object per part took 127 MB), checked (one part proved again: all
    of them take minutes) and gone on from."""
    path = tmp_path / "w.json.gz"
    args = ["bound", "--game", "wordle", "--depth", "0", "--workers", "1"]
    res = _run(*args, "--certificate", str(path))
    assert res.exit_code == 0, res.output
    assert path.stat().st_size < 8 * 2**20
    data = read_certificate(path)
    assert data["format"] == COLUMNS_FORMAT and len(data["classes"]) == 12972
    res = _run("bound", "--check", str(path), "--part", "7")
    assert res.exit_code == 0 and "part 7 proved again" in res.stdout, res.output
    res = _run(*args, "--certificate", str(path), "--resume")
    assert res.exit_code == 0 and "going on from" in res.stderr, res.output
    assert read_certificate(path)["lower_bound"] == data["lower_bound"]


# ---------------------------------------------------------------- 8: floors of Wordle
@pytest.mark.parametrize(
    "variant, floors", [("wordle", "2"), ("wordle", "FILE"), ("wordle-hard", "2")]
)
def test_floors_of_a_game_they_cannot_bound_are_one_line(tmp_path, variant, floors):
    if floors == "FILE":
        floors = str(tmp_path / "w.json")
        Path(floors).write_text("{}")
    res = _run(
        "baselines", "--game", variant, "--only", "optimal", "--floors", floors,
        "--time-limit", "1e9",
    )  # fmt: skip
    _one_line_error(res, "--floors", variant)


def test_floors_asked_of_wordle_for_another_baseline_are_not_an_error():
    res = _run("baselines", "--game", "wordle", "--only", "salet+lc", "--floors", "2")
    assert res.exit_code == 0, res.output


# ---------------------------------------------------------------- 12: polish of the root
@pytest.fixture(scope="module")
def tree_4_6():
    return random_breaker(make_game(4, 6).prepare(), rng=np.random.default_rng(63))


def test_a_band_holding_the_root_is_refused_beyond_the_time_limit(tree_4_6, tmp_path):
    save_tree(tree_4_6, tmp_path / "t.json")
    out = tmp_path / "p.json"
    res = _run(
        "polish", str(tmp_path / "t.json"), "--band", "3:1296:all", "--time-limit", "0.1",
        "-o", str(out), "--threads", "1",
    )  # fmt: skip
    _one_line_error(
        res, "band 3:1296:all", "the exact optimum of mastermind-4-6", "about", "--time-limit"
    )
    assert not out.exists()
    with pytest.raises(BaselineRefused, match="band 3:1296:all") as e:
        polish(tree_4_6, [Band(5, 20), Band(3, 1296)], time_limit=0.01)
    assert e.value.estimate_seconds is not None and e.value.estimate_seconds > 0.01


def test_a_band_holding_the_root_says_its_estimate_when_it_goes_ahead(tree_4_6, tmp_path):
    save_tree(tree_4_6, tmp_path / "t.json")
    res = _run("polish", str(tmp_path / "t.json"), "--band", "3:1296:all", "-o",
               str(tmp_path / "p.json"))  # fmt: skip
    assert res.exit_code == 0, res.output
    said = [ln for ln in res.stderr.splitlines() if "the whole game" in ln]
    assert len(said) == 1 and "about" in said[0] and "1,296 codes" in said[0], res.stderr
    told = []
    polished, _ = polish(
        tree_4_6, [Band(3, 1296)], on_root=lambda band, est: told.append((band, est))
    )
    assert told and told[0][0] == Band(3, 1296) and told[0][1] > 0
    assert polished.total == 5625  # the root rebuilt: the optimum


def test_a_band_below_the_root_has_no_estimate(tree_4_6):
    told = []
    polish(tree_4_6, [Band(5, 60)], time_limit=1e-6, on_root=lambda b, e: told.append(b))
    assert told == []


@pytest.mark.slow
def test_a_wordle_band_holding_the_root_is_refused_with_its_estimate(tmp_path):
    res = _run("polish", "salet+lc", "--game", "wordle", "--band", "3:2315:all", "-o",
               str(tmp_path / "p.json"))  # fmt: skip
    _one_line_error(res, "band 3:2315:all", "the exact optimum of wordle", "about", "--time-limit")
