"""The exact search's memo kept beside a bound's certificate (evo/proofs/memo_file.py): a
bound stopped and gone on from with it ends where one run ends, searching less; a line
not sealed here is never trusted, and said; a file that is not a memo file is set aside
in one line (it is only a cache)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from click.testing import CliRunner

import evo.proofs.bound as bound_module
from evo.baselines.known import KNOWN_OPTIMA
from evo.cli import main
from evo.core.files import atomic_write_json
from evo.core.game import make_game
from evo.proofs.bound import EXACT_BELOW, first_guess_part
from evo.proofs.memo_file import memo_path, open_memo, plant, read_memo
from evo.proofs.refine import lower_bound
from evo.search import memo_kernel
from evo.search.exact import Solver

#: (4,6): its optimum, and the tasks the first run does before it is stopped.
OPTIMUM = KNOWN_OPTIMA[(4, 6, "mastermind")]
TASKS = 8

#: The least codes of a set kept, in these tests: (4,6)'s sets are small.
LEAST = 3


class Stop(Exception):
    """The first run stopped after :data:`TASKS` tasks."""


def searched(game, **options):
    """A bound in a fresh process's state (no memo kept from a run before) and the exact
    search's nodes in it."""
    bound_module._kept_bounder.cache_clear()
    b = lower_bound(game, workers=1, **options)
    return b, bound_module._kept_bounder(game, EXACT_BELOW).solver.nodes


@pytest.fixture
def stopped(tmp_path):
    """The (4,6) optimum's search stopped after a few tasks: its certificate (written) and
    its memo file, as a stopped ``evo bound --certificate`` leaves them."""
    game = make_game(4, 6)
    cert = tmp_path / "c.json"
    told = []

    def progress(b) -> None:
        told.append(b.to_json())
        if len(told) > TASKS:
            raise Stop

    bound_module._kept_bounder.cache_clear()
    with pytest.raises(Stop):
        lower_bound(
            game, workers=1, progress=progress, memo=open_memo(memo_path(cert), game, least=LEAST)
        )
    atomic_write_json(cert, told[-1])
    return game, cert


def test_going_on_with_the_memo_ends_at_the_optimum_searching_less(stopped):
    game, cert = stopped
    data = json.loads(cert.read_text())
    assert not data["optimal"]
    memo = open_memo(memo_path(cert), game, least=LEAST)
    assert memo.read.facts and memo.read.unsealed == 0
    with_memo, nodes_with = searched(game, resume=data, memo=memo)
    without, nodes_without = searched(game, resume=data)
    once, _ = searched(game)
    assert with_memo.lower_bound == without.lower_bound == once.lower_bound == OPTIMUM
    assert with_memo.optimal and without.optimal
    assert memo.planted == len(memo.read.facts) > 0
    assert nodes_with < nodes_without  # the sets the stopped run solved are not searched again
    # Written again at the end: what it read and what the search found since.
    assert len(read_memo(memo_path(cert), game).facts) > len(memo.read.facts)


def test_the_file_keeps_only_sets_of_the_least_size_sealed(stopped, tmp_path):
    game, cert = stopped
    facts = read_memo(memo_path(cert), game).facts
    assert min(len(f.codes) for f in facts) >= LEAST
    bound_module._kept_bounder.cache_clear()
    big = open_memo(tmp_path / "big.memo", game, least=40)
    b = lower_bound(game, workers=1, resume=json.loads(cert.read_text()), memo=big)
    kept = read_memo(big.path, game).facts
    assert b.lower_bound == OPTIMUM and all(len(f.codes) >= 40 for f in kept)
    # Each a fact: an exact cost is the set's least total, as a search of it alone says.
    solver = Solver(game)  # no symmetry: the sets are met below first guesses
    for f in [f for f in kept if f.guess >= 0][:5]:
        assert solver.total(f.codes) == f.cost


def forge(path, change) -> int:
    """Rewrite lines of a memo file by ``change``, their seals kept; how many it changed."""
    lines = path.read_text().splitlines()
    out = [lines[0]]
    for text in lines[1:]:
        line = json.loads(text)
        change(line)
        out.append(json.dumps(line))
    path.write_text("\n".join(out) + "\n")
    return sum(a != b for a, b in zip(lines, out))


def raised(line) -> None:
    """A forgery: every cost and lower bound far above the truth."""
    if line["guess"] >= 0:
        line["cost"] += 1000
    else:
        line["lower"] += 1000


def fewer_codes(line) -> None:
    """A forgery: the set changed (its last code dropped), its cost kept."""
    codes = np.frombuffer(base64.b64decode(line["codes"]), dtype="<u2")
    line["codes"] = base64.b64encode(codes[:-1].tobytes()).decode("ascii")


def moved(game, cert):
    """A forgery: the first line's set made the largest part the run going on solves of
    the first guess 1123 (the only optimal one of (4,6)), its cost far above the truth."""
    data = json.loads(cert.read_text())
    top = next(c for c in data["classes"] if c["guess"] == "1123")
    part = max((p for p in top["parts"] if p["depth"] != "exact"), key=lambda p: p["size"])
    codes = first_guess_part(
        game, game.parse_code(top["guess"]), game.parse_feedback(part["feedback"])
    )
    done = []

    def change(line) -> None:
        if not done:
            line["codes"] = base64.b64encode(codes.astype("<u2").tobytes()).decode("ascii")
            line["cost"], line["guess"], line["lower"] = part["bound"] + 1000, int(codes[0]), 0
            done.append(line)

    return change


@pytest.mark.parametrize("forgery", ["raised", "fewer codes", "moved"])
def test_a_forged_memo_is_not_trusted(stopped, forgery):
    game, cert = stopped
    path = memo_path(cert)
    change = {"raised": raised, "fewer codes": fewer_codes, "moved": moved(game, cert)}[forgery]
    lines = forge(path, change)
    assert lines > 0 and read_memo(path, game).unsealed == lines
    bound_module._kept_bounder.cache_clear()
    res = CliRunner().invoke(
        main,
        ["bound", "-n", "4", "-c", "6", "--workers", "1", "--certificate", str(cert), "--resume",
         "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    said = [x for x in res.stderr.splitlines() if "ignored" in x]
    assert said == [f"{path}: {lines:,} lines ignored (their seal does not hold: edited, or not "
                    "written on this machine)"]  # fmt: skip
    out = json.loads(res.stdout)
    assert out["lower_bound"] == OPTIMUM and out["optimal"]


def test_a_forged_memo_would_raise_the_bound_if_trusted(stopped):
    """The forgery above matters: planted as if its seal held, the part moved to lifts the
    bound past the optimum (so the test above fails if the seals are not checked)."""
    game, cert = stopped
    path = memo_path(cert)
    forge(path, moved(game, cert))
    line = json.loads(path.read_text().splitlines()[1])
    codes = np.frombuffer(base64.b64decode(line["codes"]), dtype="<u2").astype(np.int64)
    bound_module._kept_bounder.cache_clear()
    bound_module._kept_bounder(game, EXACT_BELOW).solver.remember(
        codes, line["cost"], line["guess"]
    )
    b = lower_bound(game, workers=1, resume=json.loads(cert.read_text()))
    assert b.lower_bound > OPTIMUM


@pytest.mark.parametrize(
    "text,why",
    [
        ("garbage\n", "line 1: not JSON"),
        ('{"format": "evo-bound-memo/1", "game": {"pegs": 4, "colors": 7}}\n', "another game"),
        ('{"format": "other"}\n', "not a memo file"),
        (None, "line 2: not a memo line"),
    ],
)
def test_a_malformed_memo_file_is_set_aside_in_one_line(stopped, text, why):
    """Only a cache (issue 63): a memo file that is not one is set aside, said in one line
    naming it and why, and the certificate goes on without it."""
    game, cert = stopped
    path = memo_path(cert)
    if text is None:  # a line without its seal
        lines = path.read_text().splitlines()
        line = json.loads(lines[1])
        del line["seal"]
        text = "\n".join([lines[0], json.dumps(line), *lines[2:]]) + "\n"
    path.write_text(text)
    res = CliRunner().invoke(
        main,
        ["bound", "-n", "4", "-c", "6", "--workers", "1", "--certificate", str(cert), "--resume"],
    )
    assert res.exit_code == 0, res.output
    said = [x for x in res.stderr.splitlines() if f"{path}" in x and "set aside" in x]
    assert len(said) == 1 and why in said[0], res.stderr
    assert [p.read_text() for p in set_aside_from(path)] == [text]
    assert "Traceback" not in res.output


def set_aside_from(path):
    """The files set aside from ``path`` (``NAME.bad-<time>``)."""
    return sorted(path.parent.glob(f"{path.name}.bad-*"))


def test_a_memo_file_there_without_resume_is_kept(stopped):
    game, cert = stopped
    cert.unlink()
    path = memo_path(cert)
    kept = path.read_bytes()
    res = CliRunner().invoke(
        main,
        [
            "bound",
            "-n",
            "4",
            "-c",
            "6",
            "--workers",
            "1",
            "--depth",
            "1",
            "--certificate",
            str(cert),
        ],
    )
    assert res.exit_code == 2 and f"{path} exists: --resume goes on from it" in res.stderr
    assert path.read_bytes() == kept


def test_cli_keeps_the_memo_beside_the_certificate_and_reads_it(tmp_path):
    cert = tmp_path / "c.json"
    args = ["bound", "-n", "4", "-c", "6", "--workers", "1", "--certificate", str(cert)]
    bound_module._kept_bounder.cache_clear()
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    facts = read_memo(memo_path(cert), make_game(4, 6)).facts
    assert facts and min(len(f.codes) for f in facts) >= 40  # the default least size
    res = CliRunner().invoke(main, [*args, "--resume"])
    assert res.exit_code == 0, res.output
    assert f"{memo_path(cert)}: {len(facts):,} code sets solved or bounded" in res.stderr


def test_what_the_file_holds_outlives_a_memo_emptied_when_full(stopped, tmp_path):
    game, cert = stopped
    facts = read_memo(memo_path(cert), game).facts
    memo = open_memo(tmp_path / "new.memo", game, least=LEAST)  # nothing read
    solver = Solver(game, policy="symmetry")
    plant(solver, facts)  # as a search finds them
    memo.save(solver, now=True)
    memo_kernel.clear(solver.memo)  # as the memo does past its entries' limit
    memo.save(solver, now=True)
    assert len(read_memo(memo.path, game).facts) == len(facts) > 0
