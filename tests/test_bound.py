"""Proved lower bounds (evo/proofs/bound.py): never above the optimum at any depth, equal
to it without limits, checked against a plain recursive minimum on tiny games; the
certificate proves again and refuses a tampered one; a search goes on from its
certificate; the options each change what they say they change; breakers/bounds.json
holds what it claims."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.forgery import consistent_totals

import evo
import evo.proofs.bound as bound_module
import evo.proofs.refine as refine_module
from evo.baselines.known import KNOWN_OPTIMA
from evo.cli import main
from evo.core.game import make_game
from evo.core.seal import seal
from evo.core.treeio import is_tree_name
from evo.proofs.bound import (
    BUDGET,
    Bounder,
    CertificateError,
    ClassBound,
    PartBound,
    Uppers,
    against_uppers,
    check_certificate,
    class_guess,
    first_guess_classes,
    first_guess_part,
    lookahead_uppers,
    part_bound,
    perfect_split,
    read_certificate,
    set_bound,
    tree_uppers,
    write_certificate,
)
from evo.proofs.refine import lower_bound
from evo.search.build import Node

ROOT = Path(__file__).resolve().parent.parent

#: The games evo solves exactly that the tests bound at every depth.
EXACT_GAMES = [
    (4, 5, "mastermind"),
    (3, 6, "mastermind"),
    (4, 6, "mastermind"),
    (3, 6, "bulls-cows"),
]


# ------------------------------------------------------------------ brute force
def brute_force(game):
    """``cost(S)``: the plain recursive minimum over every guess that helps, memoised per
    set; the definition with nothing left out (no bound, no symmetry)."""
    table = np.asarray(game.table)

    @cache
    def cost(codes: tuple[int, ...]) -> int:
        n = len(codes)
        if n == 1:
            return 1
        arr = np.array(codes)
        best = None
        for g in range(game.num_codes):
            fb = table[g, arr]
            parts = [tuple(arr[fb == f].tolist()) for f in np.unique(fb) if f != game.win]
            if len(parts) == 1 and len(parts[0]) == n:
                continue  # tells nothing
            total = n + sum(cost(p) for p in parts)
            best = total if best is None else min(best, total)
        assert best is not None
        return best

    return cost


def sets_below(game, levels: int):
    """``(codes, history)`` of every set that one guess, or two guesses (the second under
    each class of first guesses), leave."""
    table = np.asarray(game.table)
    out = []

    def parts(codes, guess):
        fb = table[guess, codes]
        return [codes[fb == f] for f in np.unique(fb) if f != game.win]

    everything = np.arange(game.num_codes)
    firsts = [g for g, _ in first_guess_classes(game)]
    for g in range(game.num_codes):
        for p in parts(everything, g):
            out.append((p, (g,)))
            if levels > 1 and g in firsts and len(p) > 2:
                for g2 in range(game.num_codes):
                    for q in parts(p, g2):
                        out.append((q, (g, g2)))
    unique = {}
    for codes, history in out:
        unique.setdefault(tuple(codes.tolist()), history)
    return [(np.array(k), h) for k, h in unique.items() if len(k) > 2]


@pytest.mark.parametrize("pegs,colors", [(2, 3), (3, 3), (2, 4)])
def test_every_set_bound_is_below_the_brute_force_and_exact_without_limit(pegs, colors):
    game = make_game(pegs, colors)
    cost = brute_force(game)
    assert cost(tuple(range(game.num_codes))) == KNOWN_OPTIMA[(pegs, colors, "mastermind")]
    sets = sets_below(game, 2)
    assert len(sets) >= 10
    for exact_below in (0, 2):
        bounder = Bounder(game, exact_below=exact_below)
        for codes, history in sets:
            truth = cost(tuple(codes.tolist()))
            node = Node.after(game, history)
            values = [bounder.bound(codes, node, depth=d) for d in range(4)]
            assert all(v <= truth for v in values), (codes, history, values, truth)
            assert values == sorted(values), (codes, values)  # deeper: never lower
            # Deep enough, every path of helpful guesses ends: the bound is the cost.
            assert bounder.bound(codes, node, depth=len(codes)) == truth
            assert bounder.exact(codes, node) == truth
    # The one-call form, with and without a history (the same set either way).
    codes, history = sets[len(sets) // 2]
    truth = cost(tuple(codes.tolist()))
    assert set_bound(game, codes, history=history) == truth
    assert set_bound(game, codes) == truth
    assert set_bound(game, codes, history=history, depth=0, exact_below=0) <= truth


@pytest.mark.parametrize("pegs,colors", [(2, 3), (3, 3), (2, 4)])
def test_root_bounds_of_tiny_games_against_the_brute_force(pegs, colors):
    game = make_game(pegs, colors)
    truth = brute_force(game)(tuple(range(game.num_codes)))
    previous = 0
    for depth in range(5):
        b = lower_bound(game, depth=depth, exact_below=0)
        assert previous <= b.lower_bound <= truth
        previous = b.lower_bound
    whole = lower_bound(game, exact_below=0)
    assert whole.optimal and whole.lower_bound == truth


@pytest.mark.parametrize("pegs,colors,variant", EXACT_GAMES)
def test_every_depth_is_below_the_optimum_and_no_limit_is_the_optimum(pegs, colors, variant):
    game = make_game(pegs, colors, variant)
    optimum = KNOWN_OPTIMA[(pegs, colors, variant)]
    values = []
    depth = 0
    while True:
        b = lower_bound(game, depth=depth)
        assert b.lower_bound <= optimum
        assert b.depth is None or b.depth == depth  # the least class went that deep
        values.append(b.lower_bound)
        if b.lower_bound == optimum or depth == 6:
            break
        depth += 1
    assert values == sorted(values)
    assert values[0] < optimum  # depth 0 is a bound, not the search
    assert values[-1] == optimum  # a few levels reach it on these games
    whole = lower_bound(game)
    assert whole.optimal and whole.depth is None and whole.lower_bound == optimum
    # The bound follows from the classes by the certificate's rule.
    assert whole.lower_bound == min(c.total for c in whole.classes)
    assert sum(c.orbit for c in whole.classes) == game.num_codes


@pytest.mark.parametrize(
    "pegs,colors,variant",
    [
        (3, 3, "mastermind"),
        # The brute force over every set two guesses leave: about 10 s each.
        pytest.param(3, 4, "mastermind", marks=pytest.mark.slow),
        pytest.param(3, 5, "bulls-cows", marks=pytest.mark.slow),
    ],
)
def test_a_parts_floor_is_between_its_perfect_split_and_its_least_total(pegs, colors, variant):
    """``part_floor`` (the depth-0 estimate's bound of a part) against the brute force on
    every set one or two guesses leave: never above the set's least total, never below
    its perfect split, and above it on some sets (else it would bound nothing more)."""
    from evo.proofs.bound_kernel import part_floor

    game = make_game(pegs, colors, variant)
    cost = brute_force(game)
    bounder = Bounder(game)
    lb, most = np.asarray(bounder.lb), bounder.parts
    count = np.zeros(game.num_feedbacks, dtype=np.int64)
    touched = np.empty(game.num_feedbacks, dtype=np.int64)
    above = 0
    for codes, _ in sets_below(game, 2):
        floor = part_floor(
            codes, bounder._source, count, touched, lb, most,
            bounder._kinds, bounder._common, bounder._pegs,
        )  # fmt: skip
        truth = cost(tuple(codes.tolist()))
        assert lb[len(codes)] <= floor <= truth, (codes, floor, truth)
        assert not count.any()  # the scratch is left clean for the next part
        above += floor > lb[len(codes)]
    assert above >= 5


@pytest.mark.parametrize(
    "pegs,colors,variant",
    [pytest.param(4, 6, "mastermind", marks=pytest.mark.slow), (3, 5, "bulls-cows")],
)
def test_kind_parts_is_the_most_its_definition_allows_and_bounds_every_guess(pegs, colors, variant):
    """``kind_parts`` against its definition written plainly (per guess, codes that share
    ``t`` colors with it answer in at most ``t + 1`` non-win ways, ``pegs - 1`` for
    ``t = pegs``) on random sets and caps, and never below the parts a guess makes."""
    from collections import Counter

    from evo.proofs.bound_kernel import kind_parts

    game = make_game(pegs, colors, variant)
    bounder = Bounder(game)
    digits = [Counter(game.format_code(int(c))) for c in game.all_codes()]
    rng = np.random.default_rng(5)
    for _ in range(60):
        codes = np.sort(rng.choice(game.num_codes, int(rng.integers(1, 40)), replace=False))
        best = 0
        for guess in digits:
            per_t = Counter(sum((guess & digits[c]).values()) for c in codes.tolist())
            best = max(best, sum(min(k, t + 1 if t < pegs else pegs - 1) for t, k in per_t.items()))
        cap = int(rng.integers(1, 25))
        got = kind_parts(codes, bounder._kinds, bounder._common, bounder._pegs, cap)
        assert got == min(best, cap), (codes, cap)
        parts = max(
            len(set(game.feedback_row(int(g), codes).tolist()) - {game.win})
            for g in game.all_codes()
        )
        assert parts <= kind_parts(codes, bounder._kinds, bounder._common, bounder._pegs, 99)


def test_refine_upto_bounds_parts_above_the_perfect_split_in_the_estimate():
    """``Bounder(refine_upto=)``: parts of at most that many codes get their floor in a
    depth-0 estimate; with 0 none do, and the bound of a set a guess leaves is lower."""
    game = make_game(4, 6)
    guess = game.parse_code("1122")
    sizes = np.bincount(game.feedback_row(guess), minlength=game.num_feedbacks)
    sizes[game.win] = 0
    part = first_guess_part(game, guess, int(sizes.argmax()))  # 256 codes
    node = Node.after(game, (guess,))
    plain = Bounder(game, refine_upto=0, exact_below=0).bound(part, node, depth=1)
    refined = Bounder(game, exact_below=0).bound(part, node, depth=1)
    truth = Bounder(game).exact(part, node)
    assert plain < refined <= truth
    # floors=False: the cheaper rule, between the two, and below the floors somewhere.
    cheaper = []
    for f in np.flatnonzero(sizes > 2):
        part = first_guess_part(game, guess, int(f))
        values = [
            Bounder(game, exact_below=0, **kw).bound(part, node, depth=1)
            for kw in ({"refine_upto": 0}, {"floors": False}, {})
        ]
        assert values == sorted(values), values
        cheaper.append(values[1] < values[2])
    assert any(cheaper)


def test_the_gap_directed_search_keeps_the_cheaper_leaves(monkeypatch):
    """``lower_bound``: its levels with ``depth`` use the parts' floors; the search with
    uppers and seconds (its tasks turn about with the exact search) the cheaper rule."""
    seen: list[tuple[int | None, bool]] = []
    real = refine_module.part_bound

    def spy(game, guess, feedback, depth, **kw):
        seen.append((depth, kw["floors"]))
        return real(game, guess, feedback, depth, **kw)

    monkeypatch.setattr(refine_module, "part_bound", spy)
    game = make_game(4, 5)
    lower_bound(game, depth=2)
    assert seen and all(floors for _, floors in seen)
    seen.clear()
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    lower_bound(game, seconds=30, uppers=up)
    assert seen and not any(floors for _, floors in seen)


def test_depth_zero_is_the_first_guess_with_perfect_split_parts():
    from evo.search.exact import Solver

    game = make_game(4, 6)
    lb = Solver(game).lb
    totals = [
        game.num_codes + sum(int(lb[s]) for s in np.bincount(game.feedback_row(g))[1:] if s)
        for g in range(game.num_codes)
    ]
    assert lower_bound(game, depth=0).lower_bound == min(totals) == 5196


def test_exact_below_and_the_feedback_source_change_only_what_they_should():
    game = make_game(4, 6)
    searched = lower_bound(game, depth=1, exact_below=0).lower_bound
    solved = lower_bound(game, depth=1, exact_below=40).lower_bound
    assert searched < solved <= 5625  # small parts solved exactly: a tighter bound
    # Without a table (feedbacks computed from packed codes): the same bounds.
    computing = game.computing()
    assert computing.table is None
    assert lower_bound(computing, depth=2).lower_bound == lower_bound(game, depth=2).lower_bound


def test_seconds_stop_the_refinement():
    game = make_game(4, 7)
    start = time.monotonic()
    b = lower_bound(game, seconds=0.5)
    assert time.monotonic() - start < 20
    assert not b.optimal and b.lower_bound < KNOWN_OPTIMA[(4, 7, "mastermind")]
    assert b.history and b.history[0][1] <= b.lower_bound


def test_seconds_reach_the_optimum_where_the_plain_bound_does():
    # Issue 50 item 10: --seconds deepened each part a level at a time, never calling one
    # solved ("depth 141" after 10 s on (4,4)); a depth that used no estimate is exact.
    game = make_game(4, 4)
    b = lower_bound(game, seconds=60)
    assert b.optimal and b.lower_bound == lower_bound(game).lower_bound == 905
    assert b.seconds < 30


@pytest.mark.parametrize("depth", [0, 1, 2, 4])
def test_a_part_is_called_exact_only_when_its_bound_is_its_least_total(depth):
    game = make_game(4, 5)
    guess = first_guess_classes(game)[1][0]
    sizes = np.bincount(game.feedback_row(guess), minlength=game.num_feedbacks)
    called = 0
    for f in np.flatnonzero(sizes > 8).tolist():
        if f == game.win:
            continue
        got = part_bound(game, guess, f, depth, exact_below=0)
        exact = part_bound(game, guess, f, None).bound
        assert got.bound <= exact
        if got.depth is None:
            called += 1
            assert got.bound == exact
        else:
            assert got.depth == depth
    if depth == 0:
        assert called == 0  # the perfect splits of its parts: an estimate
    if depth == 4:
        assert called > 0


@pytest.mark.slow
def test_seconds_hold_however_long_a_round_of_tasks():
    # A round's tasks were all run past the deadline (a task checked it after 16 sets, and
    # one given none left started anyway): (5,7) --seconds 20 took 53.7 s.
    game = make_game(5, 7)
    b = lower_bound(game, seconds=2)
    assert b.seconds < 3.5 and b.history[0][0] < 1  # set up before the clock
    assert b.tasks > 0 and b.lower_bound > b.history[0][1]  # the time went to the tasks


@pytest.mark.slow
def test_workers_are_warm_before_the_clock():
    # Issue 50 item 10: on 2 workers, --seconds 2 spent its time starting the workers and
    # gave 5,203 on (4,6) where --depth 1 gives 5,581 in less time.
    game = make_game(4, 6)
    timed = lower_bound(game, seconds=2, workers=2)
    assert timed.lower_bound >= lower_bound(game, depth=1).lower_bound
    from evo.search.tasks import task_mapper

    # Every worker ran the warm-up (here: a umask of its own) before any task.
    with task_mapper(workers=2, warm=(os.umask, (0o027,))) as mapper:
        assert list(mapper(os.umask, [(0o027,)] * 4)) == [0o027] * 4


@pytest.mark.slow
def test_local_processes_and_a_dask_cluster_give_the_same_bound():
    from dask.distributed import LocalCluster

    game = make_game(4, 6)
    serial = lower_bound(game, depth=2)
    spread = lower_bound(game, depth=2, workers=2)
    with LocalCluster(
        n_workers=1, processes=False, threads_per_worker=2, dashboard_address=":0"
    ) as cluster:
        on_dask = lower_bound(game, depth=2, scheduler=cluster.scheduler_address)
    totals = [c.total for c in serial.classes]
    for b in (spread, on_dask):
        assert b.lower_bound == serial.lower_bound
        assert [c.total for c in b.classes] == totals
        assert b.tasks == serial.tasks


# ------------------------------------------------------------------ certificates
@pytest.fixture(scope="module")
def certificate_46(tmp_path_factory):
    game = make_game(4, 6)
    b = lower_bound(game, depth=1)
    path = tmp_path_factory.mktemp("cert") / "c.json"
    write_certificate(b, path)
    return b, json.loads(path.read_text())


def test_a_certificate_checks_and_each_part_alone(certificate_46):
    b, data = certificate_46
    assert data["lower_bound"] == b.lower_bound < 5625 and not data["optimal"]
    assert data["lower_bound"] == min(
        data["codes"] + sum(p["bound"] for p in c["parts"]) for c in data["classes"]
    )
    result = check_certificate(data)
    assert result.lower_bound == b.lower_bound and result.proved == tuple(range(result.parts))
    assert check_certificate(data, part=3).proved == (3,)


def _raise_a_part(data, k=0):
    """A searched part's bound raised by one, its class's total with it (consistent)."""
    bad = copy.deepcopy(data)
    flat = [p for c in bad["classes"] for p in c["parts"] if p["size"] > 2]
    flat[k]["bound"] += 1
    return consistent_totals(bad)


def test_a_tampered_certificate_is_refused(certificate_46):
    _, data = certificate_46
    with pytest.raises(CertificateError, match="proved"):
        check_certificate(_raise_a_part(data))
    raised = copy.deepcopy(data)
    raised["lower_bound"] += 1
    with pytest.raises(CertificateError, match="least class total"):
        check_certificate(raised, prove=False)
    fewer = copy.deepcopy(data)
    fewer["classes"].pop()
    fewer["lower_bound"] = min(c["total"] for c in fewer["classes"])
    with pytest.raises(CertificateError, match="missing"):
        check_certificate(fewer, prove=False)
    wrong_total = copy.deepcopy(data)
    wrong_total["classes"][0]["total"] += 5
    with pytest.raises(CertificateError, match="total"):
        check_certificate(wrong_total, prove=False)
    resized = copy.deepcopy(data)
    resized["classes"][0]["parts"][0]["size"] += 1
    with pytest.raises(CertificateError, match="parts are not"):
        check_certificate(resized, prove=False)


@pytest.mark.slow
def test_cli_bound_json_certificate_and_check(tmp_path):
    cert = tmp_path / "c.json"
    res = CliRunner().invoke(
        main, ["bound", "--pegs", "3", "--colors", "3", "--json", "--certificate", str(cert)]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["lower_bound"] == 73 and out["optimal"] is True
    assert json.loads(cert.read_text())["lower_bound"] == 73
    ok = CliRunner().invoke(main, ["bound", "--check", str(cert), "--part", "2", "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout) == {"lower_bound": 73, "checked": True, "parts": 16, "proved": [2]}
    # A depth-limited bound with exact_below 0 leaves parts to re-prove by search.
    res = CliRunner().invoke(
        main,
        ["bound", "-n", "3", "-c", "4", "--depth", "1", "--exact-below", "0", "--certificate",
         str(cert.with_name("c2.json"))],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "lower bound" in res.stdout and "first guess" in res.stdout
    data = json.loads(cert.with_name("c2.json").read_text())
    assert data["exact_below"] == 0 and data["lower_bound"] <= 206
    tampered = tmp_path / "t.json"
    tampered.write_text(json.dumps(_raise_a_part(data)))
    bad = CliRunner().invoke(main, ["bound", "--check", str(tampered)])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("Error: ") and len(bad.stderr.strip().splitlines()) == 1
    assert "proved" in bad.stderr


def test_cli_without_depth_or_seconds_estimates_the_optimum_and_refuses_as_baselines_do():
    # Issue 51 item 4: the same estimate and refusal as evo baselines --only optimal.
    game = ["-n", "5", "-c", "7"]
    mine = CliRunner().invoke(main, ["bound", *game])
    theirs = CliRunner().invoke(main, ["baselines", *game, "--only", "optimal"])
    assert mine.exit_code == theirs.exit_code == 2, mine.output
    said = theirs.stderr.split("optimal: ", 1)[1].strip()
    assert "years" in said and said in mine.stderr and "--seconds" in mine.stderr
    # A limit beyond the estimate lets it run; a small game says its estimate.
    res = CliRunner().invoke(main, ["bound", "-n", "2", "-c", "3", "--time-limit", "30"])
    assert res.exit_code == 0 and "searched exactly: about" in res.stderr
    res = CliRunner().invoke(main, ["bound", "-n", "4", "-c", "5", "--time-limit", "0.001"])
    assert res.exit_code == 2 and "more than the 0.0 s allowed (--time-limit)" in res.stderr
    res = CliRunner().invoke(main, ["bound", *game, "--depth", "0", "--time-limit", "9"])
    assert res.exit_code == 2 and "--time-limit is for the exact optimum" in res.stderr


def test_cli_says_depths_in_words_and_seconds_reach_the_optimum():
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "-n", "4", "-c", "6", "--depth", "0", "--verbose"]
    )
    assert res.exit_code == 0, res.output
    assert "(depth -1" not in res.stdout and "(depth 0)" in res.stdout
    assert "depth 0: the first guess's parts by their perfect split alone" in res.stdout
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "-n", "4", "-c", "4", "--seconds", "20"]
    )
    assert res.exit_code == 0, res.output
    assert "the optimum is 905" in res.stdout and "depth 1" not in res.stdout.splitlines()[1]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--part", "1"], "--part needs --check"),
        (["--check", "c.json", "--depth", "1"], "--check takes none of --depth"),
        (["--check", "missing.json"], "missing.json"),
        (["--check", "bad.json"], "not valid JSON"),
        (["--check", "other.json"], "not a bound certificate"),
        (["--depth", "-1"], "--depth"),
        (["--seconds", "0"], "--seconds"),
        (["--scheduler", "udp://127.0.0.1:1"], "scheme 'udp' is not supported"),
        (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "--workers is for local"),
    ],
)
def test_cli_user_errors_are_one_line_with_status_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.json").write_text("{}")
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "other.json").write_text('{"format": "x"}')
    res = CliRunner().invoke(main, ["bound", "-n", "2", "-c", "3", *args])
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and message in res.stderr


# ------------------------------------------------------------------ breakers/bounds.json
def _bounds_file():
    return json.loads((ROOT / "breakers" / "bounds.json").read_text())


def _shipped_totals() -> dict[str, int]:
    """File -> total, from breakers/README.md's table (tests/test_breakers.py replays
    every file listed there and checks that total)."""
    found = {}
    for line in (ROOT / "breakers" / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and is_tree_name(cells[0]):
            found[f"breakers/{cells[0]}"] = int(cells[2])
    return found


@pytest.mark.slow
def test_bounds_file_entries_hold_what_they_claim():
    entries = _bounds_file()["bounds"]
    games = {(e["pegs"], e["colors"]) for e in entries}
    assert {(5, 7), (5, 8), (6, 8)} <= games
    keys = {
        "game", "pegs", "colors", "variant", "lower_bound", "best_total", "gap_percent",
        "best", "command", "seconds", "threads", "peak_memory_mib", "machine",
    }  # fmt: skip
    shipped = _shipped_totals()
    for e in entries:
        assert keys <= set(e), e
        assert e["game"] == make_game(e["pegs"], e["colors"], e["variant"]).name
        assert 0 < e["lower_bound"] <= e["best_total"]
        gap = 100 * (e["best_total"] - e["lower_bound"]) / e["best_total"]
        assert abs(gap - e["gap_percent"]) < 0.01
        assert e["command"].startswith("evo bound ")
        assert f"--pegs {e['pegs']} --colors {e['colors']}" in e["command"]
        assert e["best_total"] == shipped[e["best"]]  # the best breaker shipped
        optimum = KNOWN_OPTIMA.get((e["pegs"], e["colors"], e["variant"]))
        if optimum is not None:
            assert e["best_total"] == optimum
        assert [v for _, v in e["history"]] == sorted(v for _, v in e["history"])
        assert e["history"][-1][1] == e["lower_bound"]
        if "certificate" in e:  # its classes, parts and rule (the parts: --check --part K)
            data = json.loads((ROOT / e["certificate"]).read_text())
            assert check_certificate(data, prove=False).lower_bound == e["lower_bound"]


@pytest.mark.slow
def test_bounds_file_small_entries_are_proved_again():
    for e in _bounds_file()["bounds"]:
        if e["seconds"] > 20 or "--depth" not in e["command"]:
            continue  # a long one: its certificate, not this test, proves it again
        words = e["command"].split()
        depth = int(words[words.index("--depth") + 1])
        game = make_game(e["pegs"], e["colors"], e["variant"])
        assert lower_bound(game, depth=depth).lower_bound >= e["lower_bound"], e


def test_cli_passes_each_option_to_the_bound(monkeypatch):
    seen = {}
    real = refine_module.lower_bound

    def spy(game, **kw):
        seen.update(kw, game=game.key)
        return real(game, depth=0)

    monkeypatch.setattr(refine_module, "lower_bound", spy)
    monkeypatch.setattr("evo.core.engine.THREADS", None)  # --threads sets it: restored after
    monkeypatch.setattr("evo.ea.cluster.check_scheduler", lambda address: None)
    args = ["bound", "-n", "3", "-c", "4", "--variant", "mastermind", "--depth", "2"]
    res = CliRunner().invoke(
        main, [*args, "--seconds", "7", "--exact-below", "9", "--threads", "3"]
    )
    assert res.exit_code == 0, res.output
    assert seen["game"] == (3, 4, "mastermind")
    assert (seen["depth"], seen["seconds"], seen["exact_below"]) == (2, 7.0, 9)
    assert seen["workers"] == 3 and seen["scheduler"] is None
    res = CliRunner().invoke(main, [*args, "--workers", "2"])
    assert res.exit_code == 0 and seen["workers"] == 2 and seen["seconds"] is None
    res = CliRunner().invoke(main, [*args, "--scheduler", "tcp://somewhere:8786"])
    assert res.exit_code == 0 and seen["scheduler"] == "tcp://somewhere:8786"
    assert seen["resume"] is None


def test_a_signal_inside_compiled_code_stops_the_bound_as_any_other(monkeypatch, tmp_path):
    """A stop signal that falls while a compiled kernel calls back into Python surfaces
    as a ``SystemError`` caused by the ``KeyboardInterrupt`` (seen on (6,8)): the same
    one line and status as a signal anywhere else; a ``SystemError`` of its own is a bug
    and is raised."""

    def wrapped(game, **kw):
        kw["progress"](refine_module.lower_bound_real(game, depth=0))
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise SystemError("returned a result with an exception set") from e

    monkeypatch.setattr(refine_module, "lower_bound_real", refine_module.lower_bound, raising=False)
    monkeypatch.setattr(refine_module, "lower_bound", wrapped)
    cert = tmp_path / "c.json"
    args = ["bound", "-n", "3", "-c", "4", "--depth", "1", "--certificate", str(cert)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 128 + signal.SIGINT, res.output
    last = res.stderr.strip().splitlines()[-1]  # after the progress lines
    assert "Traceback" not in res.stderr and "SystemError" not in res.stderr
    assert "stopped by SIGINT: " in last and "is proved (a lower bound)" in last

    def broken(game, **kw):
        raise SystemError("a bug")

    monkeypatch.setattr(refine_module, "lower_bound", broken)
    res = CliRunner().invoke(main, args[:-2])
    assert isinstance(res.exception, SystemError)


def test_no_more_worker_processes_than_a_round_has_tasks(monkeypatch):
    """A round refines the parts of one first guess, one per feedback but the win: (2,2)
    asks for 256 workers and starts 5 (256 started each an interpreter with numba, a load
    of 150 on 2 cores for a 2-second bound)."""
    from evo.search.tasks import task_mapper

    asked = []

    def spy(**kw):
        asked.append(kw["workers"])
        return task_mapper(**{**kw, "workers": 1})

    monkeypatch.setattr(refine_module, "task_mapper", spy)
    game = make_game(2, 2, "mastermind")
    assert refine_module.lower_bound(game, workers=256).lower_bound == 8
    assert asked == [game.num_feedbacks - 1] == [5]


# ------------------------------------------------------------------ going on from a certificate
def test_the_bound_is_told_after_every_task():
    told = []
    b = lower_bound(make_game(4, 6), depth=2, progress=lambda t: told.append(t.to_json()))
    assert len(told) == b.tasks + 1  # the start, then each task as it ends
    assert [t["lower_bound"] for t in told] == sorted(t["lower_bound"] for t in told)
    for t in told:  # each one a certificate that holds then
        check_certificate(t, prove=False)


def test_a_search_goes_on_from_its_certificate():
    game = make_game(4, 6)
    shallow = lower_bound(game, depth=1)
    direct = lower_bound(game, depth=2)
    told = []
    resumed = lower_bound(game, depth=2, resume=shallow.to_json(), progress=told.append)
    assert resumed.lower_bound == direct.lower_bound == 5625
    assert [c.total for c in resumed.classes] == [c.total for c in direct.classes]
    # Only the second level's tasks ran; the first level's count and history carried on.
    assert len(told) - 1 == direct.tasks - shallow.tasks > 0
    assert resumed.tasks == direct.tasks
    assert resumed.history[: len(shallow.history)] == [
        (round(t, 3), v, u) for t, v, u in shallow.history
    ]
    # Asked no deeper than the certificate went: nothing to do.
    again = lower_bound(game, depth=1, resume=shallow.to_json(), progress=told.append)
    assert again.lower_bound == shallow.lower_bound and again.tasks == shallow.tasks


def test_a_resume_with_no_limit_solves_the_parts_the_budget_proved():
    # A gap-directed run leaves parts proved by the exact search's budget alone; a resume
    # with neither a depth nor a time limit must reach the optimum, not stop on them.
    game = make_game(4, 6)
    solved = lower_bound(game)
    for c in solved.classes:  # each part proved only to its perfect split, by the budget
        for p in c.parts:
            if p.size > 2:
                p.bound, p.depth, p.level = perfect_split(game, p.size), BUDGET, 0
    least = min(c.total for c in solved.classes)
    data = dataclasses.replace(solved, lower_bound=least, optimal=False).to_json()
    resumed = lower_bound(game, resume=data)
    assert resumed.optimal and resumed.lower_bound == 5625


def test_seconds_count_the_time_of_the_search_going_on_only():
    game = make_game(4, 6)
    data = lower_bound(game, depth=1).to_json()
    data["seconds"] = 10_000.0  # long past any --seconds asked now
    data["seal"] = seal({k: v for k, v in data.items() if k != "seal"})  # as written here
    b = lower_bound(game, depth=2, seconds=120, resume=data)
    assert b.lower_bound == 5625 and b.seconds >= 10_000


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: d, "not of (4, 7"),
        (lambda d: d.update(exact_below=10), "proved with 10, not 20"),
        (lambda d: d["classes"][0].update(total=1), "total 1 is not"),
        (lambda d: d.update(seconds="soon"), "seconds"),
        (lambda d: d.update(history=[[1, 2, 3, 4]]), "history"),
        (lambda d: d.update(history=[[1, 5, 3]]), "history"),
        (lambda d: d["classes"][0]["parts"][0].update(depth="deep"), "depth 'deep'"),
    ],
)
def test_going_on_from_a_wrong_certificate_is_refused(change, message):
    game = make_game(4, 6)
    data = copy.deepcopy(lower_bound(game, depth=1).to_json())
    change(data)
    other = make_game(4, 7) if message.startswith("not of") else game
    with pytest.raises(CertificateError, match=message.replace("(", r"\(")):
        lower_bound(other, depth=2, resume=data)


def test_cli_resume_goes_on_from_the_certificate(tmp_path):
    cert = tmp_path / "c.json"
    args = ["bound", "-n", "4", "-c", "6", "--workers", "1", "--certificate", str(cert)]
    fresh = CliRunner().invoke(main, [*args, "--depth", "1", "--resume", "--json"])
    assert fresh.exit_code == 0, fresh.output
    assert "going on" not in fresh.stderr  # no certificate yet: a new search
    assert json.loads(fresh.stdout)["lower_bound"] == 5581
    first = read_certificate(cert)
    res = CliRunner().invoke(main, [*args, "--depth", "2", "--resume", "--json"])
    assert res.exit_code == 0, res.output
    assert f"going on from {cert}: 5,581 proved in" in res.stderr
    out = json.loads(res.stdout)
    assert out["lower_bound"] == 5625 and out["tasks"] > first["tasks"]
    assert out["history"][: len(first["history"])] == first["history"]
    assert out["seconds"] >= first["seconds"]
    # Without --resume an existing certificate is left as it is.
    kept = cert.read_bytes()
    res = CliRunner().invoke(main, [*args, "--depth", "1", "--json"])
    assert res.exit_code == 2 and "exists: --resume goes on from it" in res.stderr
    assert cert.read_bytes() == kept
    bad = CliRunner().invoke(main, [*args, "--depth", "2", "--resume", "--exact-below", "5"])
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert f"{cert}: cannot go on from it: exact_below" in bad.stderr
    alone = CliRunner().invoke(main, ["bound", "-n", "4", "-c", "6", "--resume"])
    assert alone.exit_code == 2 and "--resume needs --certificate" in alone.stderr
    check = CliRunner().invoke(main, ["bound", "--check", str(cert), "--resume"])
    assert check.exit_code == 2 and "--check takes none of --resume" in check.stderr


@pytest.mark.slow
def test_a_bound_killed_goes_on_from_its_certificate(tmp_path):
    """SIGKILL in the middle of the (4,7) depth-2 bound: the certificate holds what the
    finished tasks proved, and the search started again with --resume ends at the bound
    of the uninterrupted search."""
    whole = lower_bound(make_game(4, 7), depth=2).lower_bound
    cert = tmp_path / "c.json"
    evo = [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')"]
    cmd = [*evo, "bound", "-n", "4", "-c", "7", "--depth", "2", "--workers", "1",
           "--certificate", str(cert)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if cert.exists() and read_certificate(cert)["history"][-1][1] > 10_800:
                break  # past the first level, well before the end
            time.sleep(0.05)
        assert proc.poll() is None, "the search ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    killed = read_certificate(cert)
    assert killed["lower_bound"] < whole
    check_certificate(killed, prove=False)
    res = subprocess.run([*cmd, "--resume", "--json"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "going on from" in res.stderr
    out = json.loads(res.stdout)
    assert out["lower_bound"] == whole
    assert out["history"][: len(killed["history"])] == killed["history"]


@pytest.mark.slow
def test_one_worker_takes_the_smallest_parts_first_several_the_largest(monkeypatch):
    """Alone, the smallest parts go first (the certificate fills soonest); with several
    workers the largest (they end together). The bound is the same either way."""
    game = make_game(4, 6)
    table = np.asarray(game.table)
    seen: list[list[int]] = []

    def size(guess: int, feedback: int) -> int:
        return int(np.count_nonzero(table[guess] == feedback))

    class Spy(refine_module.task_mapper):  # notes each round's parts' sizes in the order given
        def __enter__(self):
            inner = super().__enter__()

            def mapped(fn, args_list):
                seen.append([size(a[1], a[2]) for a in args_list])
                return inner(fn, args_list)

            return mapped

    monkeypatch.setattr(refine_module, "task_mapper", Spy)
    alone = lower_bound(game, depth=1)
    first = [s for s in seen if s][0]
    seen.clear()
    many = lower_bound(game, depth=1, workers=2)
    second = [s for s in seen if s][0]
    assert len(first) > 2 and first == sorted(first) and first != sorted(first, reverse=True)
    assert second == sorted(second, reverse=True)
    assert alone.lower_bound == many.lower_bound


def test_a_first_guess_that_is_not_a_code_is_a_class_of_its_own():
    """Five secrets that only a guess outside them tells apart: the optimum opens with it
    (5 + 5 = 10), every code first costs at least 13; the bound must not exceed 10 (it said
    13 when only codes were first guesses), unlimited it is 10, and --check agrees."""
    from evo.games.custom import custom_game

    codes = list("abcde")

    def answer(guess: str, secret: str) -> str:
        if guess == secret:
            return "win"
        return f"is {secret}" if guess == "x" else "no"

    game = custom_game(codes, answer, guesses=codes + ["x"], name="one-outside")
    assert evo.baseline(game, "optimal").total == 10
    for depth in (0, 1, None):
        b = lower_bound(game, depth=depth)
        assert b.lower_bound <= 10, depth
    exact = lower_bound(game, depth=None)
    assert exact.lower_bound == 10
    check = check_certificate(exact.to_json(), game=game)
    assert check.lower_bound == 10


# ------------------------------------------------------------------ --against: the gap
def _opened_with(game, first: str):
    """A breaker that opens with ``first`` (any code, not only its class's lowest), the
    one-step entropy look-ahead below."""
    from evo.search.build import build_tree
    from evo.search.lookahead import lookahead_player

    player = lookahead_player(game, "entropy")
    g = game.parse_code(first)
    return build_tree(game, lambda codes, node: g if not node.history else player(codes, node))


@pytest.mark.parametrize("pegs,colors,first", [(3, 3, "231"), (3, 3, "122"), (2, 4, "21")])
def test_a_breakers_part_uppers_hold_the_brute_force_least_totals(pegs, colors, first):
    """Per part of the breaker's first guess (filed under its class's lowest code, the
    feedbacks kept): upper >= the part's least total (brute force) >= every bound proved
    of it, equal where the part is solved exactly; the class's upper is the breaker's
    total."""
    game = make_game(pegs, colors)
    tree = _opened_with(game, first)
    up = tree_uppers(tree)
    assert up.total == tree.total
    (guess,) = up.parts
    assert guess in dict(first_guess_classes(game)) and guess <= game.parse_code(first)
    cost = brute_force(game)
    truth = {f: cost(tuple(first_guess_part(game, guess, f).tolist())) for f in up.parts[guess]}
    assert game.num_codes + sum(up.parts[guess].values()) == tree.total
    assert all(up.parts[guess][f] >= truth[f] for f in truth)
    for depth in (0, 1, 2, None):
        b = lower_bound(game, depth=depth, exact_below=0, uppers=up)
        (cls,) = [c for c in b.classes if c.guess == guess]
        # Exact parts lower their uppers to their bounds: a class's upper can only fall.
        assert b.upper <= cls.upper <= tree.total
        for p in cls.parts:
            assert p.bound <= truth[p.feedback] <= p.upper
            if p.exact:
                assert p.bound == truth[p.feedback] == p.upper
        assert b.lower_bound <= cost(tuple(range(game.num_codes))) <= b.upper


def test_one_step_uppers_are_whole_breakers_per_class():
    """``lookahead_uppers``: per class, a breaker opening with its guess: its total is at
    least the class's exact least total, the best of them at least the optimum."""
    game = make_game(3, 3)
    cheap = lookahead_uppers(game)
    cost = brute_force(game)
    for guess, _ in first_guess_classes(game):
        if guess not in cheap.parts:
            continue
        for f, u in cheap.parts[guess].items():
            assert u >= cost(tuple(first_guess_part(game, guess, f).tolist()))
    assert cheap.total is not None and cheap.total >= 73


def _refined_parts(game, **kwargs):
    """The (class guess, feedback, depth) of each part as each task ends."""
    told: list[list[tuple[int, int, int | None]]] = []

    def note(b):
        told.append([(c.guess, p.feedback, p.depth) for c in b.classes for p in c.parts])

    b = lower_bound(game, progress=note, **kwargs)
    return b, told


@pytest.mark.parametrize("pegs,colors,exact_below", [(4, 6, 20), (3, 5, 0), (4, 5, 4)])
def test_the_bound_with_uppers_never_exceeds_the_optimum_and_unlimited_reaches_it(
    pegs, colors, exact_below
):
    """At every depth and at a few time budgets, with uppers, the bound is at most the
    optimum and the upper at least; with no limit it is the optimum."""
    game = make_game(pegs, colors)
    opt = (
        KNOWN_OPTIMA[game.key]
        if game.key in KNOWN_OPTIMA
        else brute_force(game)(tuple(range(game.num_codes)))
    )
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    for kw in [{"depth": d} for d in range(4)] + [{"seconds": s} for s in (0.05, 0.3, 2)]:
        b = lower_bound(game, exact_below=exact_below, uppers=up, **kw)
        assert b.lower_bound <= opt <= b.upper, kw
        for c in b.classes:
            for p in c.parts:
                assert p.upper is None or p.bound <= p.upper, (kw, c.guess, p)
    full = lower_bound(game, exact_below=exact_below, uppers=up)
    assert full.lower_bound == opt and full.optimal and full.gap == 0


def test_uppers_send_the_time_to_the_largest_gap_not_to_every_part_alike():
    """With uppers, one part goes deeper at a time, the largest gap first, whatever the
    depths of the others (a part two levels deeper than one of its class's); without,
    every part of the least class goes one level deeper in turn (today's order, the same
    bound at the same depth)."""
    game = make_game(4, 6)
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    plain, told_plain = _refined_parts(game, depth=3)
    directed, told = _refined_parts(game, depth=3, uppers=up)
    assert plain.upper is None and 5625 <= directed.upper <= up.total
    # The upper reported: the least breaker's; the first task refines the widest gap.
    start = lower_bound(game, depth=0, uppers=up)
    assert start.upper == up.total == min(5801, 5680)  # Knuth's, the entropy ones' best
    top = min(start.classes, key=lambda c: (c.total, c.guess))
    widest = max(top.parts, key=lambda p: (p.gap, -p.size))
    changed = [b for a, b in zip(told[0], told[1]) if a != b]
    assert changed == [(top.guess, widest.feedback, 0)]

    def uneven(states) -> bool:  # a class with a part at depth 1 or more and one unsearched
        by_class: dict[int, list] = {}
        for g, _, d in states:
            by_class.setdefault(g, []).append(d)
        return any(
            any(d is not None and d >= 1 for d in ds) and -1 in ds for ds in by_class.values()
        )

    assert any(uneven(s) for s in told)
    assert not any(uneven(s) for s in told_plain)
    assert directed.lower_bound <= 5625


def test_without_uppers_the_bound_is_unchanged():
    """An empty ``Uppers`` (no part has one) refines as with none: the same bounds."""
    game = make_game(4, 6)
    for depth in (1, 2):
        a = lower_bound(game, depth=depth)
        b = lower_bound(game, depth=depth, uppers=Uppers({}))
        assert [c.total for c in a.classes] == [c.total for c in b.classes]
        assert a.tasks == b.tasks and b.upper is None


# ------------------------------------------------------------------ the exact search's budget
@pytest.mark.parametrize(
    "pegs,colors", [(3, 3), (2, 4), pytest.param(3, 4, marks=pytest.mark.slow)]
)
def test_a_budget_gives_the_least_total_below_it_and_at_least_it_above(pegs, colors):
    """``part_bound`` by the exact search with a budget, on every part of every first
    guess, against the brute force: below the budget the least total (exact); at or
    above it a bound (depth BUDGET) from the budget up to the least total."""
    game = make_game(pegs, colors)
    cost = brute_force(game)
    for guess, _ in first_guess_classes(game):
        sizes = np.bincount(game.feedback_row(guess), minlength=game.num_feedbacks)
        for f in np.flatnonzero(sizes > 2).tolist():
            if f == game.win:
                continue
            truth = cost(tuple(first_guess_part(game, guess, f).tolist()))
            for budget in (truth + 1, truth, truth - 1, truth - 5, 1):
                got = part_bound(game, guess, f, None, budget=budget)
                if truth < budget:
                    assert (got.bound, got.depth) == (truth, None)
                else:
                    assert got.depth == BUDGET and budget <= got.bound <= truth, (f, budget)


def _budget_run(game, seconds: float = 30.0):
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    return lower_bound(game, seconds=seconds, uppers=up), up


@pytest.mark.parametrize("pegs,colors", [(3, 4), (4, 4), (4, 5)])
def test_with_uppers_and_time_the_exact_search_closes_the_gap(pegs, colors):
    """With uppers and a time limit the least class's parts try the exact search, its
    budget what lifts the class to the upper: the bound reaches the optimum (brute force
    or published) with parts proved by the budget, whose certificate checks again."""
    game = make_game(pegs, colors)
    opt = KNOWN_OPTIMA.get(game.key) or brute_force(game)(tuple(range(game.num_codes)))
    b, _ = _budget_run(game)
    assert b.lower_bound == opt == b.upper and b.optimal and b.gap == 0
    assert any(p.depth == BUDGET for c in b.classes for p in c.parts)
    assert all(p.depth is None or p.depth < 0 for c in b.classes for p in c.parts)
    data = b.to_json()
    assert "budget" in {p["depth"] for c in data["classes"] for p in c["parts"]}
    assert check_certificate(data, game=game).lower_bound == opt


def test_an_exact_search_that_runs_out_gives_its_turn_to_a_level_deeper(monkeypatch):
    """Given almost no time, a part's exact search runs out: the part goes a level deeper
    next, then tries the exact search again with twice the time, until one ends; the
    bound still reaches the optimum, with parts searched by levels on the way."""
    monkeypatch.setattr(refine_module, "EXACT_SECONDS", 1e-4)
    game = make_game(4, 5)
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    b, told = _refined_parts(game, seconds=60, uppers=up)
    assert b.optimal and b.lower_bound == KNOWN_OPTIMA[game.key]
    levels = {d for states in told for _, _, d in states if d is not None and d >= 0}
    assert levels, "no part went a level deeper"  # with 1 s, none does (the test above)


def test_a_part_whose_task_runs_out_waits_behind_the_cheaper_ones(monkeypatch):
    """The gap-directed search orders parts by the seconds of their last task per unit of
    gap: a task that ran out counts with the time it took, so the part waits behind the
    others (it came first again and again with the cost of its last cheap task)."""
    bound_module._kept_bounder.cache_clear()
    game = make_game(4, 5)
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    order: list[tuple[int, int]] = []
    real = refine_module._task

    def spy(game, guess, feedback, depth, *rest):
        order.append((guess, feedback))
        if len(order) == 1:
            return bound_module.PartResult(None, depth, 1000.0)  # ran out after 1,000 s
        return real(game, guess, feedback, depth, *rest)

    monkeypatch.setattr(refine_module, "_task", spy)
    b = lower_bound(game, seconds=60, uppers=up)
    assert b.lower_bound <= KNOWN_OPTIMA[game.key]
    assert len(order) > 2 and order[1] != order[0], order[:3]


def test_a_part_proved_by_the_budget_still_goes_a_level_deeper(monkeypatch):
    """A part that the exact search proved by its budget, whose next search runs out,
    takes its turn a level deeper than it had reached (its level kept in the
    certificate, read back to go on from); a level below the bound proved by the budget
    leaves the part so proved, and the certificate checks again. The second exact search
    of each part so proved is made to run out (as on a big part)."""
    bound_module._kept_bounder.cache_clear()
    game = make_game(4, 5)
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    by_budget: set[tuple[int, int]] = set()
    ran_out: set[tuple[int, int]] = set()
    deeper: list[tuple[tuple[int, int], int]] = []
    real = refine_module._task

    def spy(game, guess, feedback, depth, *rest):
        key = (guess, feedback)
        if depth is None and key in by_budget and key not in ran_out:
            ran_out.add(key)
            return bound_module.PartResult(None, None, 0.0)  # out of its allowance
        if depth is not None and key in ran_out:
            deeper.append((key, depth))
        got = real(game, guess, feedback, depth, *rest)
        if depth is None and got.depth == BUDGET:
            by_budget.add(key)
        # The same seconds for every task: the order of the parts (by seconds per unit of
        # gap) is then the gaps', not the clock's, and so is what the run does.
        return dataclasses.replace(got, seconds=0.01)

    monkeypatch.setattr(refine_module, "_task", spy)
    # Each task's first allowance ample on a loaded machine: the spy, not the clock, makes
    # the searches run out.
    monkeypatch.setattr(refine_module, "EXACT_SECONDS", 20.0)
    b = lower_bound(game, seconds=60, uppers=up)
    assert b.lower_bound <= KNOWN_OPTIMA[game.key]
    assert ran_out and deeper, (ran_out, deeper)
    assert {key for key, _ in deeper} <= ran_out
    assert any(p.depth == BUDGET and p.level >= 0 for c in b.classes for p in c.parts)
    data = b.to_json()
    check_certificate(data, game=game)
    entries = [p for c in data["classes"] for p in c["parts"] if p["depth"] == "budget"]
    assert entries and all("level" in p for p in entries)
    read = bound_module.certificate_classes(data, game)

    def levels(classes):  # a solved part needs none
        return [p.level for c in classes for p in c.parts if p.depth is not None]

    assert levels(read) == levels(b.classes)
    entries[0]["level"] = "deep"
    with pytest.raises(CertificateError, match="level 'deep' is not a depth from -1 up"):
        check_certificate(data, game=game, prove=False)


def test_a_class_gap_is_shared_among_its_parts_by_their_gaps():
    """The first rise aimed at on a part: the class's gap to the least upper, shared by
    the open parts' gaps (rounded up, at least one); the part's own gap without one."""
    parts = [
        PartBound(0, 100, 300, 1, upper=330),  # gap 30
        PartBound(1, 50, 150, 1, upper=160),  # gap 10
        PartBound(2, 5, 9, None, upper=9),  # exact: closed, no share
    ]
    c = ClassBound(0, 1, 200, parts)  # total 659
    assert refine_module._share(c, parts[0], 679) == 15
    assert refine_module._share(c, parts[1], 679) == 5
    assert refine_module._share(c, parts[1], 660) == 1
    assert refine_module._share(c, parts[0], None) == 30
    assert refine_module._budget(c, parts[0], 679, step=15) == 315
    assert refine_module._budget(c, parts[0], 679) == 320  # lifts the class to 679


def _steps_run(monkeypatch, *, share: int, exact_seconds: float | None = None):
    """A (4,5) bound with uppers and time, each part's first rise forced to ``share``:
    the bound, and per part the rises its exact searches aimed at, in order (the exact
    search's kept memo emptied first: another test's facts would end searches at once)."""
    bound_module._kept_bounder.cache_clear()
    if exact_seconds is not None:
        monkeypatch.setattr(refine_module, "EXACT_SECONDS", exact_seconds)
    monkeypatch.setattr(refine_module, "_share", lambda c, p, upper: share)
    steps: dict[tuple[int, int], list[int]] = {}
    real = refine_module._budget

    def spy(c, p, upper, *, step=None):
        steps.setdefault((c.guess, p.feedback), []).append(step)
        return real(c, p, upper, step=step)

    monkeypatch.setattr(refine_module, "_budget", spy)
    game = make_game(4, 5)
    b, _ = _budget_run(game, seconds=60)
    assert b.optimal and b.lower_bound == KNOWN_OPTIMA[game.key]
    return b, steps


def test_the_exact_search_aims_at_rises_doubled_each_time_one_is_reached(monkeypatch):
    """Each exact search on a part aims at a rise of its bound, doubled after a search
    that reaches it: from a first rise of one, a part's searches aim at 1, 2, 4 above
    its bound while they reach it (half after one that runs out, as a loaded machine may
    make it), and the bound still ends at the optimum."""
    _, steps = _steps_run(monkeypatch, share=1)
    for s in steps.values():
        assert s[0] == 1 and all(b in (a, 2 * a, max(1, a // 2)) for a, b in zip(s, s[1:])), s
    assert any(4 in s for s in steps.values()), steps


def test_an_exact_search_that_runs_out_aims_at_half_the_rise_next(monkeypatch):
    """A search that runs out of its allowance is tried again aiming at half the rise
    (after its turn a level deeper): 8, then 4."""
    _, steps = _steps_run(monkeypatch, share=8, exact_seconds=1e-4)
    assert any(s[:2] == [8, 4] for s in steps.values()), steps


def test_the_check_proves_a_level_by_the_cheaper_leaves_first(monkeypatch):
    """--check proves a part's level by the cheaper leaves (``floors=False``) first, by
    the floors only where that proves less than the claim: both ways on a certificate
    of --depth (its levels with the floors), and a part raised above what either proves
    is still refused."""
    game = make_game(4, 6)
    data = lower_bound(game, depth=2).to_json()
    calls: list[tuple[tuple[int, int], bool]] = []
    real = bound_module.part_bound

    def spy(game, guess, feedback, depth, **kw):
        if depth is not None and depth >= 0:  # a level
            calls.append(((guess, feedback), kw["floors"]))
        return real(game, guess, feedback, depth, **kw)

    monkeypatch.setattr(bound_module, "part_bound", spy)
    check_certificate(data, game=game)
    cheap = {part for part, floors in calls if not floors}
    dear = {part for part, floors in calls if floors}
    assert cheap and dear and dear < cheap  # the floors only after the cheaper leaves
    ci, pi = next(
        (ci, pi)
        for ci, c in enumerate(data["classes"])
        for pi, p in enumerate(c["parts"])
        if isinstance(p["depth"], int) and p["depth"] >= 0 and p["size"] > 2
    )
    forged = _claiming(data, ci, pi, data["classes"][ci]["parts"][pi]["bound"] + 1000)
    with pytest.raises(CertificateError, match="proved .*not the"):
        check_certificate(forged, game=game, part=_flat_index(forged, ci, pi))


@pytest.mark.parametrize("depth", ["budget", "exact"])
def test_a_searched_part_claimed_above_its_least_total_fails_the_check(depth):
    """A part proved by the exact search (by its budget, or solved), raised to one above
    its least total (the brute force), the class total kept consistent: --check proves
    it again and refuses it; the same part claimed at its least total is a true claim
    and passes (a part claimed solved is solved again, one claimed by the budget is
    searched with its claim as the budget)."""
    game = make_game(4, 4)
    b, _ = _budget_run(game)
    data = b.to_json()
    cost = brute_force(game)
    ci, pi = next(
        (ci, pi)
        for ci, c in enumerate(data["classes"])
        for pi, p in enumerate(c["parts"])
        if p["depth"] in ("budget", "exact") and p["size"] > 2
    )
    cls = data["classes"][ci]
    part = cls["parts"][pi]
    guess = game.parse_code(cls["guess"])
    truth = cost(
        tuple(first_guess_part(game, guess, game.parse_feedback(part["feedback"])).tolist())
    )
    for claim, holds in ((truth, True), (truth + 1, False)):
        forged = _claiming(data, ci, pi, claim, depth=depth)
        if holds:
            check = check_certificate(forged, game=game, part=_flat_index(forged, ci, pi))
            assert [r.depth for r in check.results] == [None if depth == "exact" else BUDGET]
        else:
            with pytest.raises(CertificateError, match=f"proved .*not the {claim} claimed"):
                check_certificate(forged, game=game, part=_flat_index(forged, ci, pi))


def _claiming(data, ci: int, pi: int, claim: int, *, depth: str | None = None) -> dict:
    """A copy of a certificate whose part ``pi`` of class ``ci`` claims ``claim`` (and
    ``depth`` when given), its class total and bound made consistent as a forger would,
    the uppers dropped (else refused for being below the bounds)."""
    forged = copy.deepcopy(data)
    c = forged["classes"][ci]
    part = c["parts"][pi]
    part["bound"] = claim
    if depth is not None:
        part["depth"] = depth
    part.pop("upper", None)
    c.pop("upper", None)
    forged["upper"] = forged["gap"] = None
    return consistent_totals(forged)


def _flat_index(data, ci: int, pi: int) -> int:
    return sum(len(c["parts"]) for c in data["classes"][:ci]) + pi


@pytest.mark.parametrize("where", ["top", "class", "part", "gap"])
def test_an_upper_below_its_bound_or_a_false_gap_is_refused(where):
    """The uppers are never trusted, but a certificate that says one below the bound
    proved under it (a gap that cannot be), or a gap that is not the bounds', fails."""
    game = make_game(3, 4)
    b, _ = _budget_run(game)
    data = b.to_json()
    check_certificate(data, game=game, prove=False)
    cls = data["classes"][0]
    if where == "top":
        data["upper"] = data["lower_bound"] - 1
    elif where == "class":
        cls["upper"] = cls["total"] - 1
    elif where == "part":
        cls["parts"][0]["upper"] = cls["parts"][0]["bound"] - 1
    else:
        data["gap"] = 0.5
    with pytest.raises(CertificateError, match="upper|gap"):
        check_certificate(data, game=game, prove=False)


def test_one_step_uppers_of_one_first_guess_build_only_its_tree():
    """``lookahead_uppers(first=)`` (``--first`` with ``--against``): that class's parts
    alone, the same as in the uppers of every class."""
    game = make_game(4, 5)
    every = lookahead_uppers(game)
    g = game.parse_code("3321")
    one = lookahead_uppers(game, first=g)
    assert list(one.parts) == [class_guess(game, g)]
    assert one.parts[class_guess(game, g)] == every.parts[class_guess(game, g)]


def test_against_uppers_skip_the_one_step_trees_of_a_game_above_the_limit(monkeypatch):
    """``against_uppers``: the breaker's subtrees and the one-step tree of every class
    bounded below the breaker's total at depth 0 (not 1111's, 2,583 > Knuth's 2,563);
    when one tree's work (guesses x codes) is above ``work``, the breaker's alone (no
    tree built)."""
    game = make_game(4, 5)
    knuth = evo.baseline(game, "knuth")
    both = against_uppers(knuth)
    below = [g for g, _ in first_guess_classes(game) if g != 0]
    assert both == tree_uppers(knuth).merged(lookahead_uppers(game, guesses=below))
    assert sorted(both.parts) == below and len(below) == len(first_guess_classes(game)) - 1
    monkeypatch.setattr(bound_module, "lookahead_uppers", None)  # called: a TypeError
    alone = against_uppers(knuth, work=game.num_guesses * game.num_codes - 1)
    assert alone == tree_uppers(knuth)
    assert list(alone.parts) == [class_guess(game, int(knuth.guess[0]))]


def test_the_help_says_up_to_how_much_work_the_one_step_trees_take():
    text = " ".join(CliRunner().invoke(main, ["bound", "--help"]).output.split())
    assert f"guesses x codes = {bound_module.LOOKAHEAD_WORK:,} summed" in text


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.slow
def test_cli_against_plot_json_and_check(tmp_path):
    """--against: the upper is the breaker's total, the gap said; --json's history holds
    [seconds, lower, upper]; --plot writes an 800 x 550 PNG; the certificate, its parts at
    several depths, checks part by part and goes on (--resume) with --against."""
    from evo.core.treeio import save_tree

    game = make_game(4, 6)
    breaker = tmp_path / "b.json"
    save_tree(evo.baseline(game, "knuth"), breaker)  # 5801, first guess 1122
    cert, plot = tmp_path / "c.json", tmp_path / "p.png"
    args = ["bound", "-n", "4", "-c", "6", "--depth", "2", "--workers", "1"]
    res = CliRunner().invoke(
        main, [*args, "--against", str(breaker), "--json", "--certificate", str(cert),
               "--plot", str(plot)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["upper"] <= 5801 and out["upper"] >= 5625
    assert out["gap"] == round(100 * (out["upper"] - out["lower_bound"]) / out["upper"], 4)
    assert all(len(h) == 3 and h[1] <= h[2] for h in out["history"])
    assert _png_size(plot) == (800, 550)
    depths = {p["depth"] for c in out["classes"] for p in c["parts"]}
    assert len(depths) > 1
    plain = CliRunner().invoke(main, [*args, "--json"])
    assert json.loads(plain.stdout)["upper"] is None
    assert all(len(h) == 2 for h in json.loads(plain.stdout)["history"])
    ok = CliRunner().invoke(main, ["bound", "--check", str(cert), "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["lower_bound"] == out["lower_bound"]
    one = CliRunner().invoke(main, ["bound", "--check", str(cert), "--part", "3"])
    assert one.exit_code == 0, one.output
    more = CliRunner().invoke(
        main, ["bound", "-n", "4", "-c", "6", "--depth", "3", "--workers", "1", "--against",
               str(breaker), "--certificate", str(cert), "--resume"],
    )  # fmt: skip
    assert more.exit_code == 0, more.output
    assert "going on from" in more.stderr and "gap" in more.stderr and "gap" in more.stdout
    again = json.loads(cert.read_text())
    assert again["lower_bound"] >= out["lower_bound"]
    assert again["history"][: len(out["history"])] == out["history"]
    assert again["tasks"] > out["tasks"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--against", "nowhere.json"], "--against"),
        (["--against", "breakers/mastermind-4-7.json"], "--against"),
        (["--plot", "x.bmpx"], "--plot"),
    ],
)
def test_cli_against_and_plot_errors_are_one_line(args, message):
    res = CliRunner().invoke(main, ["bound", "-n", "4", "-c", "6", "--depth", "1", *args])
    assert res.exit_code == 2, res.output
    assert message in res.stderr and len(res.stderr.strip().splitlines()) <= 3
