"""The exact search spread over threads and Dask workers (evo.search.spread): the same
trees as the compiled search alone, whatever runs the leaves; results files that a
search started again reuses; memos within their memory budget."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
import types
from pathlib import Path

import numpy as np
import pytest

from evo.baselines.optimal import OptimalRefused, Where, optimal
from evo.core import engine
from evo.core.game import make_game
from evo.core.treeio import load_tree
from evo.proofs.bound import first_guess_classes
from evo.proofs.refine import first_guess_floors
from evo.search import exact_kernel, spread
from evo.search import memo_kernel as mk
from evo.search.exact import UNBOUNDED, Solver
from evo.search.palette import palette

optmod = importlib.import_module("evo.baselines.optimal")


def _arrays(tree) -> tuple:
    return tuple(a.tolist() for a in (tree.guess, tree.label, tree.parent, tree.codes))


def _spread_tree(
    game, *, threads, split, inline=8, pool="all", impossible=0, policy="symmetry", **kw
):
    """The tree of a spread search of the whole game (sets of ``split`` codes or more split
    into their candidates' parts, those of fewer than ``inline`` searched at once), and
    its statistics."""
    engine.set_threads(threads)
    try:
        solver = Solver(game, policy=policy, pool=pool, impossible=impossible)
        symmetric = policy == "symmetry"
        group = palette(game, (), symmetries=True) if symmetric else solver._identity
        codes = game.all_codes().astype(np.int64)
        solver.spread(codes, UNBOUNDED, group, symmetric, split=split, inline=inline, **kw)
        return solver.subtree(codes), solver.last_spread.stats
    finally:
        engine.set_threads(None)


@pytest.mark.parametrize(
    "pegs, colors, variant, pool, impossible, policy",
    [
        (4, 4, "mastermind", "all", 0, "symmetry"),
        (3, 5, "mastermind", "all", 0, "path-independent"),
        (4, 4, "mastermind", "consistent", 0, "symmetry"),
        (3, 5, "mastermind", "consistent", 2, "path-independent"),
        (3, 6, "bulls-cows", "all", 0, "symmetry"),
    ],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_spread_search_builds_the_compiled_searchs_tree(
    pegs, colors, variant, pool, impossible, policy, threads
):
    """Sets split down to 20 codes, parts of 6 codes or more as leaves: every set's
    choice is still the compiled search's, on one thread and two (which write the memo
    they share as they go)."""
    game = make_game(pegs, colors, variant)
    alone = Solver(game, policy=policy, pool=pool, impossible=impossible).subtree(game.all_codes())
    tree, stats = _spread_tree(
        game,
        threads=threads,
        split=20,
        inline=6,
        pool=pool,
        impossible=impossible,
        policy=policy,
    )
    assert stats.split > 1 and stats.leaves > 0
    assert tree.total == alone.total
    assert _arrays(tree) == _arrays(alone)


def test_a_solver_takes_the_guesses_of_the_memo_it_reads_besides_its_own():
    """What a spread search's threads gathered (the memo the solver reads besides its
    own) gives the tree's guesses: nothing searched again."""
    game = make_game(4, 4)
    codes = game.all_codes()
    first = Solver(game, policy="symmetry")
    tree = first.subtree(codes)
    second = Solver(game, policy="symmetry")
    second._base = first.memo  # as Solver.gather leaves it
    assert _arrays(second.subtree(codes)) == _arrays(tree)
    assert second.nodes == 0


def _sets(memo) -> list[np.ndarray]:
    """The code sets of 3 codes or more a memo holds."""
    entries, arena, offsets = memo[2], memo[3], memo[5]
    return [
        arena[offsets[e] : offsets[e] + entries[e, mk.SIZE]].astype(np.int64)
        for e in range(int(memo[4][mk.ENTRIES]))
        if entries[e, mk.SIZE] >= 3
    ]


def test_after_a_spread_search_the_shared_memo_holds_what_every_thread_found():
    """The threads publish what they learn as they go (but for what the shared memo drops
    while full), and what the solver's own memo got besides (``plant``) is merged at the
    end: later searches find it all in the memo the threads share."""
    game = make_game(4, 5)
    engine.set_threads(2)
    try:
        solver = Solver(game, policy="symmetry")
        group = palette(game, (), symmetries=True)
        codes = game.all_codes().astype(np.int64)
        solver.spread(codes, UNBOUNDED, group, True, split=60, inline=8)
    finally:
        engine.set_threads(None)
    shared = solver._shared
    assert shared is not None and solver._base is shared

    def known(memo, s) -> bool:
        _, guess, lower = mk.lookup(memo, s)
        got = mk.lookup(shared, s)
        return got[1] >= 0 if guess >= 0 else got[1] >= 0 or got[2] >= lower

    own = _sets(solver._memo)
    assert own and all(known(solver._memo, s) for s in own)
    found = [known(box[0], s) for box in solver._boxes for s in _sets(box[0])]
    assert len(found) > 100 and sum(found) >= 0.95 * len(found)


def test_spread_optimum_of_four_five_on_threads_is_goddards():
    tree, stats = _spread_tree(make_game(4, 5), threads=2, split=60)
    assert tree.total == 2463 and stats.leaves > 10


def test_the_thread_whose_leaf_ends_starts_the_next_leaf(monkeypatch):
    """On threads, no coordinator is woken between two leaves: the thread whose leaf ends
    takes the coordinator's turn and starts the next one; the caller's thread starts the
    first leaves only."""
    by_caller: list[bool] = []
    start = spread.Threads.start

    def spy(self, leaf, bound, place=0):
        by_caller.append(threading.current_thread() is threading.main_thread())
        start(self, leaf, bound, place)

    monkeypatch.setattr(spread.Threads, "start", spy)
    tree, stats = _spread_tree(make_game(4, 5), threads=2, split=40)
    assert tree.total == 2463
    assert len(by_caller) >= stats.leaves > 10
    assert 1 <= sum(by_caller) <= 2


def test_a_leaf_that_fails_stops_the_spread_search_with_its_error(monkeypatch):
    """An error in a leaf's search, raised in its thread, is raised by the spread search,
    whose threads all end."""
    calls = []
    leaf = Solver.leaf

    def failing(self, x, box, gate, *, symmetric):
        calls.append(1)
        if len(calls) == 5:
            raise ZeroDivisionError("a leaf's search failed")
        return leaf(self, x, box, gate, symmetric=symmetric)

    monkeypatch.setattr(Solver, "leaf", failing)
    before = threading.active_count()
    with pytest.raises(ZeroDivisionError, match="a leaf's search failed"):
        _spread_tree(make_game(4, 5), threads=2, split=40)
    assert threading.active_count() == before


def test_threads_refuse_a_leaf_while_no_one_takes_its_outcome():
    """A leaf started on threads whose outcome nobody takes would be lost, its error
    with it: refused before it starts."""
    runner = spread.Threads(1, [[None]], lambda leaf, box, gate: None)
    try:
        with pytest.raises(RuntimeError, match="on_done is not set"):
            runner.start(types.SimpleNamespace(), 10)  # type: ignore[arg-type]
    finally:
        runner.close()


@pytest.mark.parametrize("threads", [1, 2])
def test_the_reported_bounds_always_hold_the_optimum(threads):
    """Every report of a spread search bounds the optimum from both sides (once a first
    guess's cost is known), the bounds close in, and at the end both are the optimum;
    while the first guess is searched, what it costs at least rises toward its cost."""
    seen: list[spread.Stats] = []
    tree, stats = _spread_tree(
        make_game(4, 5),
        threads=threads,
        split=40,
        report=lambda st: seen.append(dataclasses.replace(st)),
        every=0.0,
    )
    assert tree.total == 2463
    assert len(seen) > 3
    for st in seen:
        assert 0 < st.lower <= 2463 and (st.upper == -1 or st.upper >= 2463)
        assert st.candidates > 1 and 0 <= st.decided <= st.candidates
    assert any(st.upper >= 0 and st.decided < st.candidates for st in seen)
    assert [st.decided for st in seen] == sorted(st.decided for st in seen)
    assert (stats.lower, stats.upper, stats.decided) == (2463, 2463, stats.candidates)
    rising = [st.opened for st in seen if st.decided == 0]
    assert rising == sorted(rising) and len(set(rising)) > 3
    assert rising[-1] <= next(st.upper for st in seen if st.decided == 1)
    early = [st for st in seen if st.upper < 0]
    assert early
    first = early[0]
    assert optmod.progress_text(first) == (
        f"the optimum at least {first.lower:,} (0 of {first.candidates} first guesses "
        f"decided; the first under search costs at least {first.opened:,})"
    )
    assert (
        optmod.progress_text(stats)
        == "the optimum between 2,463 and 2,463 (5 of 5 first guesses decided)"
    )


def test_the_first_guesses_bounds_raise_the_reported_lower_bound():
    """Given what each first guess costs at least (the depth-1 lower bound's classes), the
    reports' lower bound starts there, not at the part-size bounds, and still holds the
    optimum; the search itself does not change."""
    game = make_game(4, 5)
    floors = first_guess_floors(game)
    assert set(floors) == {g for g, _ in first_guess_classes(game)}
    runs = {}
    for given in (None, floors):
        seen: list[spread.Stats] = []
        tree, stats = _spread_tree(
            game,
            threads=1,
            split=40,
            report=lambda st, seen=seen: seen.append(dataclasses.replace(st)),
            every=0.0,
            floors=given,
        )
        runs[given is not None] = (tree, stats, seen)
    (plain, plain_stats, before), (seeded, seeded_stats, after) = runs[False], runs[True]
    assert seeded.guess.tolist() == plain.guess.tolist() and seeded.total == 2463
    assert seeded_stats.nodes == plain_stats.nodes
    assert before[0].lower < min(floors.values()) == after[0].lower <= 2463
    for st in after:
        assert min(floors.values()) <= st.lower <= 2463
        if st.opened >= 0:
            assert st.opened >= min(floors.values())


def test_a_proof_keeps_the_best_tree_so_far(tmp_path):
    """Each time a first guess is decided at a new least cost, its whole tree is written:
    a tree that replays to that cost, with that first guess; the last one written is the
    optimum's (on (4,5), whose first guess in the search's order is optimal)."""
    game = make_game(4, 5)
    best = tmp_path / "proof.jsonl.best.json"
    said: list[str] = []
    tree = optimal(
        game,
        time_limit=None,
        where=Where(results=tmp_path / "proof.jsonl", best=best, report=said.append),
    )
    kept = load_tree(best)
    assert tree.total == 2463 and kept.total == 2463
    assert kept.codes.tolist() == tree.codes.tolist() and int(kept.guess[0]) == int(tree.guess[0])
    assert f"the best tree so far, total 2,463, is in {best}" in said


def test_the_best_tree_so_far_is_built_from_the_memos_alone():
    """The tree written while a proof goes on is the memos' choices under the first guess
    decided, its total that guess's cost; a choice missing from the memos leaves it
    unwritten rather than searched (the search still runs around it)."""
    game = make_game(4, 4)
    solver = Solver(game, policy="symmetry")
    codes = game.all_codes().astype(np.int64)
    written: list[int] = []
    solver.spread(
        codes,
        UNBOUNDED,
        palette(game, (), symmetries=True),
        True,
        split=20,
        inline=6,
        improved=lambda guess, cost: written.append(cost),
    )
    alone = Solver(game, policy="symmetry").subtree(codes)
    assert written and written == sorted(written, reverse=True) and written[-1] == alone.total
    fresh = Solver(game, policy="symmetry")
    with pytest.raises(LookupError):
        fresh.best_guess(codes[:40], search=False)
    assert fresh.nodes == 0


def test_the_cli_keeps_the_proofs_best_tree_beside_its_results_file(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main

    results = tmp_path / "proof.jsonl"
    args = ["baselines", "-n", "4", "-c", "5", "--only", "optimal", "--no-cache"]
    res = CliRunner().invoke(main, [*args, "--resume", str(results)])
    assert res.exit_code == 0, res.output
    assert load_tree(tmp_path / "proof.jsonl.best.json").total == 2463
    assert len(results.read_text().splitlines()) > 1
    # With --progress, the first guesses are bounded first: the reported bounds start there.
    again = tmp_path / "again.jsonl"
    res = CliRunner().invoke(main, [*args, "--resume", str(again), "--progress"])
    assert res.exit_code == 0, res.output
    least = min(first_guess_floors(make_game(4, 5)).values())
    assert least <= 2463
    assert f"the first guesses bounded one level deep: the optimum at least {least:,}" in (
        res.stderr
    )


def test_results_file_is_reused_and_a_cut_last_line_dropped(tmp_path):
    game = make_game(4, 5)
    path = tmp_path / "proof.jsonl"
    what = {"game": ["mastermind", 4, 5]}
    results = spread.Results(path, what)
    first, stats = _spread_tree(game, threads=1, split=60, results=results)
    results.close()
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["format"] == spread.RESULTS_FORMAT
    assert len(lines) - 1 == stats.leaves > 10
    # A crash in the middle of the last line: that line is dropped, the others kept.
    path.write_text("\n".join(lines) + "\n" + lines[-1][: len(lines[-1]) // 2])
    results = spread.Results(path, what)
    assert len(results) == len({json.loads(line)["set"] for line in lines[1:]})
    again, stats = _spread_tree(game, threads=1, split=60, results=results)
    results.close()
    assert stats.leaves == 0 and stats.reused > 0  # nothing searched again
    assert _arrays(again) == _arrays(first)
    assert path.read_text().endswith("\n")
    # On two threads the leaves met depend on what finishes first: nearly all are there.
    results = spread.Results(path, what)
    again, stats = _spread_tree(game, threads=2, split=60, results=results)
    results.close()
    assert stats.leaves <= stats.reused // 20
    assert _arrays(again) == _arrays(first)


def test_a_results_file_of_another_game_or_broken_is_refused(tmp_path):
    path = tmp_path / "proof.jsonl"
    spread.Results(path, {"game": ["mastermind", 4, 5]}).close()
    with pytest.raises(spread.ResultsError, match="another search"):
        spread.Results(path, {"game": ["mastermind", 4, 6]})
    with open(path, "a") as f:
        f.write("not json\n")
    with pytest.raises(spread.ResultsError, match="line 2"):
        spread.Results(path, {"game": ["mastermind", 4, 5]})
    other = tmp_path / "other.txt"
    other.write_text("hello\n")
    with pytest.raises(spread.ResultsError, match="not a results file"):
        spread.Results(other, {"game": ["mastermind", 4, 5]})


def test_recorded_guesses_that_are_not_a_subtree_are_searched_again(tmp_path):
    game = make_game(4, 5)
    path = tmp_path / "proof.jsonl"
    what = {"game": ["mastermind", 4, 5]}
    results = spread.Results(path, what)
    first, _ = _spread_tree(game, threads=1, split=60, results=results)
    results.close()
    lines = path.read_text().splitlines()
    broken = [lines[0]]
    for line in lines[1:]:
        rec = json.loads(line)
        if rec["exact"]:
            rec["guesses"] = [0] * len(rec["guesses"])  # guesses that do not help
        broken.append(json.dumps(rec))
    path.write_text("\n".join(broken) + "\n")
    results = spread.Results(path, what)
    again, stats = _spread_tree(game, threads=1, split=60, results=results)
    results.close()
    assert stats.leaves > 0  # the exact ones searched again
    assert _arrays(again) == _arrays(first)


def test_plant_stores_the_harvested_subtree_and_refuses_other_guesses():
    game = make_game(4, 4)
    solver = Solver(game, policy="path-independent")
    codes = game.all_codes().astype(np.int64)
    cost = solver.total(codes)
    out = np.empty(len(codes), dtype=np.int64)
    rows = solver.game_args[0]
    end = exact_kernel.harvest(codes, solver.memo, solver.base, rows, game.num_feedbacks, out, 0)
    assert end > 0
    other = Solver(game, policy="path-independent")
    assert other.plant(codes, out[:end], cost)
    assert other.subtree(codes).total == cost == 905  # Goddard's optimum of (4,4)
    assert other.nodes == 0  # every set known: nothing searched
    assert not Solver(game).plant(codes, out[: end - 1], cost)  # too few
    assert not Solver(game).plant(codes, out[:end], cost + 1)  # another total
    bad = out[:end].copy()
    bad[0] = game.num_codes
    assert not Solver(game).plant(codes, bad, cost)  # not a code


def test_a_deadline_stops_the_spread_search_and_the_file_resumes_it(tmp_path, monkeypatch):
    monkeypatch.setattr(optmod, "MEASURED_SECONDS", {})  # no estimate: the search starts
    monkeypatch.setattr(engine, "THREADS", 2)
    game = make_game(4, 6)
    path = tmp_path / "proof.jsonl"
    with pytest.raises(OptimalRefused, match=str(path)):
        optimal(game, time_limit=0.05, where=Where(results=path))
    kept = len(path.read_text().splitlines()) - 1
    tree = optimal(game, time_limit=None, where=Where(results=path))
    assert tree.total == 5625
    assert len(path.read_text().splitlines()) - 1 >= kept
    alone = optimal(game, time_limit=None)
    assert _arrays(tree) == _arrays(alone)


def test_keep_largest_forgets_the_small_sets_and_keeps_the_others_right():
    rng = np.random.default_rng(3)
    memo = mk.new_memo(64)
    memo[4][mk.FIXED] = 1
    sets = [np.sort(rng.choice(900, size=s, replace=False)) for s in rng.integers(3, 20, 400)]
    for i, s in enumerate(sets):
        assert mk.store(memo, s, 1000 + i, i, 0)  # makes room in place, never full
    assert memo[4][mk.KEPT] > 0 and len(memo[2]) == 64  # it never grew
    kept = [(i, s) for i, s in enumerate(sets) if mk.lookup(memo, s)[1] >= 0]
    assert 0 < len(kept) < len(sets)
    for i, s in kept:
        assert mk.lookup(memo, s)[:2] == (1000 + i, i)
    # The last one is kept; the ones forgotten before the last clean-up are small.
    assert mk.lookup(memo, sets[-1])[1] == len(sets) - 1


def _peak_bytes(fn) -> int:
    """The peak of memory NumPy and Python allocate while ``fn`` runs, beyond the start."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _memo_peak(solver, monkeypatch) -> list[int]:
    """Records, each time a memo of ``solver`` makes room, what its memos take then (a
    memo that grows is copied: the two side by side)."""
    peaks: list[int] = []
    real = mk.make_room

    def spy(memo, cap):
        out = real(memo, cap)
        peaks.append(solver.memo_bytes + (mk.nbytes(out) if out is not memo else 0))
        return out

    monkeypatch.setattr(mk, "make_room", spy)
    return peaks


BUDGET = 96 << 10  # the (4,6) optimum's memos take 352 KiB when free
ROOM = 512 << 10  # the search's other arrays besides its memos (about 400 KiB)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_memos_stay_within_the_memory_budget(monkeypatch, threads):
    """The memos of the (4,6) optimum within 96 KiB: at their peak (a memo copied as it
    grows), at the end, and (one thread) by the memory Python and NumPy allocate; they
    keep their largest sets only, and the tree is the same. The same measures with the
    budget ignored (memos that grow whatever the budget) pass it."""
    from evo.search import exact

    game = make_game(4, 6).prepare()
    codes = game.all_codes()
    monkeypatch.setattr(exact, "PARALLEL_CODES", 1000)
    monkeypatch.setattr(engine, "THREADS", threads)
    tree_free = Solver(game, policy="symmetry").subtree(codes)  # warms the game's caches

    settled: list[int] = []
    real_settle = mk.settle

    def settle(memo, cap):
        settled.append(mk.nbytes(memo))
        return real_settle(memo, cap)

    monkeypatch.setattr(mk, "settle", settle)

    def search(ignore: bool) -> tuple[list[int], int, Solver]:
        with monkeypatch.context() as m:
            solver = Solver(game, policy="symmetry", memory=BUDGET)
            if ignore:
                m.setattr(mk, "make_room", lambda memo, cap: mk.grown(memo))
            peaks = _memo_peak(solver, m)
            trees = []
            peak = _peak_bytes(lambda: trees.append(solver.subtree(codes)))
            assert _arrays(trees[0]) == _arrays(tree_free)
            return peaks, peak, solver

    peaks, peak, solver = search(ignore=False)
    assert peaks and max(peaks) <= BUDGET and solver.memo_bytes <= BUDGET
    assert any(m[4][mk.KEPT] > 0 for m in solver._memos())  # it had to forget
    if threads == 2:  # the memo the threads write at once made room while they waited
        assert settled and solver._shared is not None and solver._shared[4][mk.KEPT] > 0
    if threads == 1:
        assert peak <= BUDGET + ROOM  # and some room for the search's other arrays
    peaks, peak, solver = search(ignore=True)
    assert max(peaks) > BUDGET and solver.memo_bytes > BUDGET
    if threads == 1:
        assert peak > BUDGET + ROOM


def test_the_estimate_knows_the_threads_and_workers(monkeypatch):
    game = make_game(4, 8)
    one = optmod.estimate_seconds(game, processes=1)
    assert one == optmod.MEASURED_SECONDS[("mastermind", 4, 8)]
    assert optmod.estimate_seconds(game, processes=2) < one
    assert optmod.estimate_seconds(game, processes=16) < optmod.estimate_seconds(game, processes=2)
    assert Where(workers=3).processes == 3
    monkeypatch.setattr(engine, "THREADS", 2)
    assert Where().processes == 2


@pytest.mark.slow
def test_a_local_dask_cluster_gives_the_same_tree(tmp_path):
    game = make_game(4, 5)
    path = tmp_path / "proof.jsonl"
    tree = optimal(game, time_limit=None, where=Where(workers=2, results=path))
    assert tree.total == 2463
    assert _arrays(tree) == _arrays(optimal(game, time_limit=None))
    assert len(path.read_text().splitlines()) > 1  # the workers' leaves recorded


def test_a_dask_cluster_takes_bigger_leaves_than_threads():
    """A task costs a Dask cluster far more than a leaf costs a thread, so by default a
    cluster's leaves are the sets under a quarter of the codes, the threads' under a
    sixteenth: fewer sets split, fewer and bigger leaves, the same tree."""
    from functools import partial

    from dask.distributed import Client, LocalCluster

    from evo.search.exact import solve_leaf

    game = make_game(4, 6)
    codes = game.all_codes().astype(np.int64)
    group = palette(game, (), symmetries=True)
    with (
        LocalCluster(
            n_workers=1, processes=False, threads_per_worker=2, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        solver = Solver(game, policy="symmetry")
        task = partial(solve_leaf, game, ("share", "symmetry", "all", 0, None))
        solver.spread(codes, UNBOUNDED, group, True, runner=spread.Cluster(client, task))
        on_dask, dask_stats = solver.subtree(codes), solver.last_spread.stats
    on_threads, thread_stats = _spread_tree(game, threads=2, split=None)
    assert spread.Cluster.share > spread.Threads.share
    assert dask_stats.split < thread_stats.split and dask_stats.leaves < thread_stats.leaves
    assert on_dask.total == 5625 and _arrays(on_dask) == _arrays(on_threads)


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=open(log, "w"), env=dict(os.environ)
    )


@pytest.mark.slow
def test_a_dask_scheduler_and_workers_started_by_hand_give_the_same_tree(tmp_path):
    """``dask scheduler`` and two ``dask worker`` processes on this machine, as
    docs/CLUSTER.md starts them: the same tree as this process alone."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("no dask command in this environment")
    info = tmp_path / "scheduler.json"
    procs = [
        _start(
            [
                str(dask),
                "scheduler",
                "--port",
                "0",
                "--dashboard-address",
                ":0",
                "--scheduler-file",
                str(info),
            ],
            tmp_path / "scheduler.log",
        )
    ]
    try:
        for _ in range(600):
            if info.exists() and info.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        for i in range(2):
            procs.append(
                _start(
                    [
                        str(dask),
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--memory-limit",
                        "1GiB",
                    ],
                    tmp_path / f"worker{i}.log",
                )
            )
        game = make_game(4, 5)
        tree = optimal(game, time_limit=None, where=Where(scheduler=address))
        assert tree.total == 2463
        assert _arrays(tree) == _arrays(optimal(game, time_limit=None))
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
