"""Exhaustive baselines: published figures, symmetry, simple and human players, cache, CLI."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.baselines import (
    LOOKAHEAD,
    NAMES,
    Baseline,
    KnownTotal,
    Refused,
    build,
    cached,
    estimate_rc,
    known_optimum,
    knuth_total,
    lookahead,
    optimal,
    parse_name,
    parse_names,
    random_consistent,
    run,
    run_all,
    with_opening,
)
from evo.baselines import cache as bcache
from evo.baselines.human import least_frequent, separating
from evo.cli import main
from evo.core.files import cache_dir
from evo.core.game import helpful_counts, make_game
from evo.core.kinds import HEURISTICS
from evo.core.treeio import tree_document
from evo.search.build import build_tree
from evo.search.partition import partition_counts
from evo.search.symmetry import Stabilizer

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def g46():
    return make_game(4, 6)


# ------------------------------------------------------------ published figures
def test_knuth_reference(g46):
    t = lookahead(g46, "knuth")
    t.validate()
    assert g46.format_code(int(t.guess[0])) == "1122"
    assert t.total == 5801
    assert round(t.average, 3) == 4.476
    assert t.worst == 5
    assert t.histogram == {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}


# Kooi (2005), "Yet another Mastermind strategy", compares the strategies with candidates
# from all codes and ties to a consistent guess, then the first in order: our rules.
# Totals and the number of codes needing 6 guesses.
@pytest.mark.parametrize(
    "name, first, total, six",
    [("irving", "1123", 5696, 3), ("kooi", "1123", 5668, 7), ("entropy", "1234", 5722, 12)],
)
def test_published_one_step_figures(g46, name, first, total, six):
    t = lookahead(g46, name)
    assert g46.format_code(int(t.guess[0])) == first
    assert t.total == total
    assert t.histogram.get(6, 0) == six and t.worst == 6


def test_lowest_consistent_is_shapiros_simple_strategy(g46):
    t = build(g46, "lc")
    assert (t.total, t.worst) == (7471, 9)


# ------------------------------------------------------------------- heuristics
def _plain_score(name, counts):
    """The four scores written from their definitions (lower is better)."""
    if name == "knuth":
        return [max(row) for row in counts]
    if name == "irving":
        return [sum(int(n) * int(n) for n in row) for row in counts]
    if name == "kooi":
        return [-sum(1 for n in row if n) for row in counts]
    return [round(sum(float(n) * np.log(float(n)) for n in sorted(row) if n), 9) for row in counts]


def _plain(game, name, consistent):
    """The same strategy without symmetry nor shortcuts: every helpful candidate scored,
    ties to a consistent guess, then to the lowest code."""

    def choose(codes, node):
        cands = codes if consistent else np.arange(game.num_codes)
        counts = partition_counts(game, codes, cands)
        helpful = helpful_counts(counts, game.win)
        scores = _plain_score(name, counts)
        keys = [
            (scores[i], not counts[i, game.win], int(cands[i]))
            for i in range(len(cands))
            if helpful[i]
        ]
        return min(keys)[2]

    return build_tree(game, choose)


@pytest.mark.parametrize("args", [(3, 4, "mastermind"), (3, 5, "bulls-cows"), (2, 5, "mastermind")])
def test_symmetry_and_shortcuts_change_no_choice(args):
    game = make_game(*args)
    for name in HEURISTICS:
        for consistent in (False, True):
            fast = lookahead(game, name, consistent=consistent)
            plain = _plain(game, name, consistent)
            assert np.array_equal(fast.guess, plain.guess), (name, consistent)
            assert np.array_equal(fast.label, plain.label)


games = st.sampled_from(
    [
        (2, 2, "mastermind"),
        (2, 3, "mastermind"),
        (3, 2, "mastermind"),
        (3, 3, "mastermind"),
        (2, 4, "mastermind"),
        (3, 4, "mastermind"),
        (2, 3, "bulls-cows"),
        (3, 4, "bulls-cows"),
        (2, 5, "bulls-cows"),
    ]
)


@settings(max_examples=25, deadline=None)
@given(games, st.sampled_from(LOOKAHEAD))
def test_every_heuristic_is_valid_and_consistent_forms_stay_consistent(args, name):
    game = make_game(*args)
    tree = build(game, name)
    tree.validate()
    assert tree.num_codes == game.num_codes
    if name.endswith("-consistent"):
        # A node's guess is in its code set exactly when the node is terminal.
        for i in range(len(tree)):
            assert int(tree.guess[i]) in set(tree.code_set(i).tolist())
        assert tree.terminal.all()


def _orbit_min(game, code, history):
    """Lowest image of ``code`` over every position and color permutation fixing each
    guess of ``history`` (brute force over the whole group)."""
    digits = [tuple(int(x) for x in game.digits[h]) for h in history]
    c = tuple(int(x) for x in game.digits[code])
    best = None
    for pi in itertools.permutations(range(game.pegs)):
        for sigma in itertools.permutations(range(game.colors)):
            if all(tuple(sigma[h[pi[i]]] for i in range(game.pegs)) == h for h in digits):
                image = game.code_of_digits([sigma[c[pi[i]]] for i in range(game.pegs)])
                best = image if best is None else min(best, image)
    return best


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from([(3, 3, "mastermind"), (2, 4, "mastermind"), (3, 4, "bulls-cows")]),
    st.lists(st.integers(0, 10**6), min_size=0, max_size=2),
)
def test_symmetry_representatives_are_orbit_minima(args, picks):
    game = make_game(*args)
    history = []
    for p in picks:
        g = p % game.num_codes
        if g not in history:
            history.append(g)
    stab = Stabilizer.root(game)
    for g in history:
        stab = stab.extend(g)
    canon = stab.canonical(game.all_codes())
    for code in range(game.num_codes):
        assert canon[code] == _orbit_min(game, code, history)


@pytest.mark.parametrize("use_table", [True, False])
def test_partition_counts_match_a_loop(use_table):
    game = make_game(3, 4, table=use_table)
    rng = np.random.default_rng(3)
    codes = np.sort(rng.choice(game.num_codes, 20, replace=False))
    for cands in (None, codes[:5], np.arange(game.num_codes)):
        counts = partition_counts(game, codes, cands)
        cand_list = range(game.num_codes) if cands is None else cands
        for row, g in zip(counts, cand_list):
            expect = np.bincount(game.compute_feedback(int(g), codes), minlength=10)
            assert np.array_equal(row, expect)


# --------------------------------------------------------------- simple players
def test_rc_is_seeded_consistent_and_reproducible(g46):
    a, b = random_consistent(g46, seed=7), random_consistent(g46, seed=7)
    c = random_consistent(g46, seed=8)
    a.validate()
    assert np.array_equal(a.guess, b.guess) and np.array_equal(a.label, b.label)
    assert not (len(a) == len(c) and np.array_equal(a.guess, c.guess))
    assert a.terminal.all()  # every guess is a consistent code


def test_rc_estimate_has_a_confidence_interval():
    game = make_game(3, 4)
    est = estimate_rc(game, seeds=30, seed=1)
    lo, hi = est["ci95"]
    assert est["min"] <= lo < est["mean"] < hi <= est["max"]
    assert est["seeds"] == 30
    assert est == estimate_rc(game, seeds=30, seed=1)


@pytest.mark.parametrize("then", ["lc", "rc"])
def test_openings_play_their_guesses_then_the_follower(g46, then):
    o1, o2 = g46.parse_code("1123"), g46.parse_code("2245")
    tree = with_opening(g46, [o1, o2], then, seed=3)
    tree.validate()
    assert tree.guess[0] == o1
    # As written: the second guess follows every answer but the win.
    assert all(tree.guess[node] == o2 for node in tree.children(0).values())
    skipping = with_opening(g46, [o1, o2], then, seed=3, skip=True)
    for node in skipping.children(0).values():
        s = skipping.code_set(node)
        if len(s) > 2:  # there the second opening guess helps whenever it can
            fb = g46.feedback_row(o2, s)
            if (fb == 0).any() or (fb != fb[0]).any():
                assert skipping.guess[node] == o2
    # Below the opening, every guess is consistent.
    depth_ok = tree.depth > 2
    assert tree.terminal[depth_ok].all()


def test_skipping_opening_lc_matches_a_game_by_game_simulation():
    game = make_game(3, 4)
    opening = [game.parse_code("123"), game.parse_code("344")]
    tree = with_opening(game, opening, "lc", skip=True)
    codes = game.all_codes()
    for secret in range(game.num_codes):
        s, history, moves = codes, [], 0
        while True:
            guess = None
            for o in opening:
                fb = game.feedback_row(o, s)
                helps = (fb == 0).any() or (fb != fb[0]).any()
                if o not in history and (len(s) > 2 or o in s) and helps:
                    guess = o
                    break
            guess = int(s[0]) if guess is None else guess
            history.append(guess)
            moves += 1
            f = int(game.feedback(guess, secret))
            if f == 0:
                break
            s = s[game.feedback_row(guess, s) == f]
        assert tree.depth[tree.node_of_code(secret)] == moves


# ---------------------------------------------------------------- human players
def test_human_players_on_bulls_and_cows():
    game = make_game(3, 5, "bulls-cows")
    for tree in (least_frequent(game), separating(game)):
        tree.validate()
        assert game.format_code(int(tree.guess[0])) == "012"
    sep = separating(game)
    # Where some code leaves every remaining code alone, the separating player uses one.
    for i in range(len(sep)):
        s = sep.code_set(i)
        if len(s) <= 1:
            continue
        fb = game.feedback(game.all_codes()[:, None], s[None, :])
        perfect = [g for g in range(game.num_codes) if len(set(fb[g].tolist())) == len(s)]
        if perfect:
            assert int(sep.guess[i]) in perfect
            if any(g in s for g in perfect):
                assert int(sep.guess[i]) == min(g for g in perfect if g in s)


def test_least_frequent_guesses_the_rarest_digits():
    game = make_game(4, 10, "bulls-cows")
    tree = least_frequent(game)
    assert game.format_code(int(tree.guess[0])) == "0123"
    # After 0123 answered <0,0>, digits 0-3 are gone and 4-9 equally frequent: 4567.
    child = tree.children(0)[game.parse_feedback("0,0")]
    assert game.format_code(int(tree.guess[child])) == "4567"


# ------------------------------------------------------------------ names, cache
def test_names(g46):
    assert parse_name(g46, "5463+LC") == "5463+lc"
    assert parse_names(g46, "knuth, irving,knuth") == ["knuth", "irving"]
    assert parse_name(g46, "1122+KNUTH") == "1122+knuth"
    for bad in ("nope", "1122+foo", "1122+1122+lc", "1172+lc"):
        with pytest.raises(ValueError):
            parse_name(g46, bad)


def test_cache_reuses_and_recovers_from_corruption():
    game = make_game(3, 4, cache=cache_dir())
    first = run(game, "knuth")
    assert not first.result["cached"]
    path = bcache.cache_path(game, "knuth")
    assert path.exists()
    again = run(game, "knuth")
    assert again.result["cached"] and again.tree.total == first.tree.total
    assert again.result["seconds"] == first.result["seconds"]
    path.write_text('{"format": "evo-breaker", "trunc')
    fixed = run(game, "knuth")
    assert not fixed.result["cached"] and fixed.tree.total == first.tree.total
    assert bcache.load(game, "knuth", name="knuth") is not None  # rewritten
    doc = json.loads(path.read_text())
    doc["result"]["total"] += 1
    path.write_text(json.dumps(doc))
    assert bcache.load(game, "knuth", name="knuth") is None


def test_rc_cache_is_per_seed():
    game = make_game(3, 4, cache=cache_dir())
    assert cached(game, "rc", seed=1) is None
    a = run(game, "rc", seed=1, rc_seeds=10)
    assert cached(game, "rc", seed=1).tree.total == a.tree.total
    assert cached(game, "rc", seed=3) is None
    b = run(game, "rc", seed=2, rc_seeds=10)
    assert bcache.cache_path(game, "rc-1").exists() and bcache.cache_path(game, "rc-2").exists()
    assert a.result["estimate"]["seeds"] == 10
    assert run(game, "rc", seed=1, rc_seeds=10).result["cached"]
    assert b.result["seed"] == 2


def test_a_cache_file_copied_under_another_name_is_recomputed():
    """optimal.json copied to knuth.json: Knuth's total is 74 on (3,3), not the optimum's 73."""
    r = CliRunner().invoke(main, ["baselines", "-n", "3", "-c", "3", "--only", "optimal"])
    assert r.exit_code == 0, r.output
    game = make_game(3, 3, cache=cache_dir())
    knuth = bcache.cache_path(game, "knuth")
    knuth.write_bytes(bcache.cache_path(game, "optimal").read_bytes())
    assert cached(game, "knuth") is None  # what `evo play knuth` asks first
    r = CliRunner().invoke(main, ["baselines", "-n", "3", "-c", "3", "--only", "knuth", "--json"])
    assert r.exit_code == 0, r.output
    [row] = json.loads(r.output)
    assert row["total"] == 74 and not row["cached"]
    assert cached(game, "knuth").tree.total == 74  # rewritten: the next run reads it


def test_a_cache_file_of_another_seed_is_recomputed():
    game = make_game(3, 4, cache=cache_dir())
    one = run(game, "rc", seed=1, rc_seeds=0)
    other = bcache.cache_path(game, "rc-2")
    other.write_bytes(bcache.cache_path(game, "rc-1").read_bytes())
    assert cached(game, "rc", seed=2) is None
    assert run(game, "rc", seed=2, rc_seeds=0).tree.total == random_consistent(game, seed=2).total
    assert cached(game, "rc", seed=1).tree.total == one.tree.total


def test_a_cache_file_that_does_not_say_what_it_holds_is_recomputed():
    """A file as older evo wrote it (a tree and a result, its hash right) counts as missing."""
    game = make_game(3, 3, cache=cache_dir())
    optimum = run(game, "optimal", rc_seeds=0)
    old = tree_document(optimum.tree, result=dict(optimum.result))
    old[bcache.HASH_KEY] = bcache.content_hash(old)
    path = bcache.cache_path(game, "knuth")
    path.write_text(json.dumps(old))
    assert cached(game, "knuth") is None
    assert run(game, "knuth", rc_seeds=0).tree.total == 74
    assert cached(game, "knuth") is not None  # rewritten, saying what it holds


def test_a_cache_file_of_older_builders_is_built_again():
    """A black-peg Knuth tree cached before the look-ahead's early stop was mended (its
    entry without ``builders``, its seal right) is not served: built again, then kept."""
    game = make_game(3, 4, "black-peg", cache=cache_dir())
    fresh = run(game, "knuth", rc_seeds=0)
    path = bcache.cache_path(game, "knuth")
    doc = json.loads(path.read_text())
    assert doc[bcache.ENTRY_KEY].pop("builders") == bcache.BUILDERS
    doc[bcache.HASH_KEY] = bcache.content_hash(doc)
    path.write_text(json.dumps(doc))
    assert cached(game, "knuth") is None
    assert run(game, "knuth", rc_seeds=0).tree.total == fresh.tree.total
    assert cached(game, "knuth") is not None


@pytest.mark.parametrize("name", ["knuth.json", "feedback-table.bin", "feedback-table.bin.lock"])
@pytest.mark.slow
def test_a_fifo_in_the_cache_is_skipped_without_blocking(tmp_path, name):
    """Opening a FIFO waits for the other end: a baseline or table file that is one counts
    as missing (and is replaced); a table's lock that is one, as a cache that cannot be
    written (the table is built in memory)."""
    folder = tmp_path / "cache" / "mastermind-3-3"
    folder.mkdir(parents=True)
    os.mkfifo(folder / name)
    script = "import evo.games.pegs as g; g.TABLE_FILE_BYTES = 0\nfrom evo.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", script, "baselines", "-n", "3", "-c", "3", "--only", "knuth"],
        capture_output=True,
        text=True,
        env={**os.environ, "EVO_CACHE": str(folder.parent), "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "74" in done.stdout
    if not name.endswith(".lock"):
        assert (folder / name).is_file()  # replaced by the computed file


# -------------------------------------------------------------------------- CLI
def test_cli_json_and_save(tmp_path):
    out = tmp_path / "trees"
    r = CliRunner().invoke(
        main,
        [
            "baselines",
            "-n",
            "3",
            "-c",
            "3",
            "--only",
            "knuth,lc,rc,123+lc,optimal",
            "--json",
            "--save",
            str(out),
            "--rc-seeds",
            "10",
        ],
    )
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["name"] for x in rows] == ["knuth", "lc", "rc", "123+lc", "optimal"]
    for x in rows:
        assert {"name", "total", "average", "worst", "histogram", "seconds"} <= set(x)
    assert rows[-1]["total"] == 73
    assert rows[2]["estimate"]["seeds"] == 10
    assert {p.name for p in out.iterdir()} == {
        "knuth.json",
        "lc.json",
        "rc-0.json",
        "123_lc.json",
        "optimal.json",
    }


def test_cli_table_and_refusal():
    r = CliRunner().invoke(
        main, ["baselines", "--only", "knuth,optimal", "--time-limit", "0.2", "--rc-seeds", "0"]
    )
    assert r.exit_code == 0, r.output
    assert "knuth" in r.output and "5801" in r.output
    assert "optimal" in r.output and "refused" in r.output
    assert "5625" in r.output  # the best-known optimum is shown beside it
    r = CliRunner().invoke(
        main, ["baselines", "--only", "knuth,optimal", "--json", "--time-limit", "0.2"]
    )
    rows = json.loads(r.output)
    assert rows[1]["name"] == "optimal" and rows[1]["total"] is None and rows[1]["refused"]


def test_cli_bad_name():
    r = CliRunner().invoke(main, ["baselines", "--only", "knuth,bogus"])
    assert r.exit_code == 2 and "bogus" in r.output


def test_bulls_and_cows_defaults_include_human_players():
    r = CliRunner().invoke(
        main,
        ["baselines", "--variant", "bulls-cows", "-n", "3", "-c", "4", "--json", "--rc-seeds", "5"],
    )
    assert r.exit_code == 0, r.output
    names = [x["name"] for x in json.loads(r.output)]
    assert "least-frequent" in names and "separating" in names and "optimal" in names


def test_fixed_interface():
    from evo.baselines import KNOWN_OPTIMA

    game = make_game(3, 3)
    assert {"knuth", "irving-consistent", "lc", "rc", "optimal", "separating"} <= set(NAMES)
    assert set(LOOKAHEAD) == {f"{h}{c}" for h in HEURISTICS for c in ("", "-consistent")}
    tree = run(game, "optimal").tree
    assert tree.total == KNOWN_OPTIMA[(3, 3, "mastermind")] == 73
    result = run(game, "knuth").result
    assert {"name", "total", "average", "worst", "histogram", "seconds"} <= set(result)
    assert result["total"] == run(game, "knuth").tree.total == lookahead(game, "knuth").total
    assert run(game, "rc", seed=4).tree.total == random_consistent(game, seed=4).total


def test_run_all_gives_a_refused_record_for_an_optimum_beyond_the_limit(g46):
    out = run_all(g46, ["knuth", "optimal"], time_limit=0.2, rc_seeds=0)
    assert [type(x) for x in out] == [Baseline, Refused]
    assert out[0].name == "knuth" and out[0].tree.total == 5801
    assert out[1].name == "optimal"
    assert "refused" in out[1].reason and out[1].estimate_seconds > 0.2


def test_known_optimum_names_its_source():
    assert known_optimum(make_game(4, 6)) == KnownTotal(5625, "Koyama & Lai 1993", proved=True)
    k = known_optimum(make_game(3, 3))
    assert (k.total, k.proved) == (73, True) and "Goddard" in k.source
    # Not recorded, but small enough (at most 64 codes) to be solved on the spot.
    tiny = make_game(2, 4, "bulls-cows")
    k = known_optimum(tiny)
    assert k is not None and k.total == optimal(tiny, time_limit=None).total
    assert "computed" in k.source
    assert known_optimum(make_game(4, 11)) is None  # 14641 codes: neither recorded nor tiny
    k = known_optimum(make_game(4, 10))  # computed by evo, published nowhere before
    assert (k.total, k.proved) == (55632, True) and "evo" in k.source
    k = known_optimum(make_game(5, 6))  # computed by evo, published nowhere before
    assert (k.total, k.proved) == (36721, True) and "evo" in k.source
    k = known_optimum(make_game(4, 8))  # reported optimal, and found by evo's search
    assert (k.total, k.proved) == (20471, True) and "reported" in k.source
    assert "evo" in k.source
    k = known_optimum(make_game(5, 7))  # computed by evo, published nowhere before
    assert (k.total, k.proved) == (85645, True) and "evo" in k.source
    k = known_optimum(make_game(5, 8))
    assert (k.total, k.proved) == (179274, False)


@pytest.mark.parametrize("pegs,colors", [(5, 8), (6, 8), (6, 9)])
def test_the_shipped_records_are_below_the_best_reported(pegs, colors):
    """Where no optimum is known, a run measures itself against the best total reported
    (the best one-step tree where nothing better is published); evo's shipped breaker of
    the game is below it (the README of breakers/ states its total, checked by replay in
    tests/test_breakers.py)."""
    from pathlib import Path

    k = known_optimum(make_game(pegs, colors))
    assert k is not None and not k.proved
    readme = Path(__file__).resolve().parent.parent / "breakers" / "README.md"
    name = f"| mastermind-{pegs}-{colors}.json"
    row = next(line for line in readme.read_text().splitlines() if line.startswith(name))
    assert int(row.split("|")[3]) < k.total


def test_knuth_total_is_knuths_tree():
    game = make_game(3, 4, cache=cache_dir())
    assert knuth_total(game) == lookahead(game, "knuth").total
    assert cached(game, "knuth") is not None  # and it went to the cache
