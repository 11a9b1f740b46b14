"""A polish on several processes, and a polish stopped then resumed (``evo polish
--workers``, ``--resume``): the same tree as one uninterrupted polish on one process, the
nodes done not searched again."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from evo.cli import main
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import load_tree, save_tree, tree_file_document
from evo.ea import polish as polish_module
from evo.ea.nodes import outermost_nodes
from evo.ea.polish import Band, Checkpoint, polish

BANDS = [Band(8, 60, "all"), Band(3, 7, "all")]


@pytest.fixture(scope="module")
def tree():
    return random_breaker(make_game(4, 6).prepare(), rng=np.random.default_rng(11))


@pytest.fixture(scope="module")
def whole(tree):
    """The uninterrupted polish on one process, and the tree after each node."""
    seen = []
    polished, _ = polish(tree, BANDS, on_node=lambda at, of, t: seen.append((at, of, t)))
    return polished, seen


def command(tmp_path, tree) -> list[str]:
    """``evo polish`` of ``tree`` (saved in ``tmp_path``) with one exact band."""
    save_tree(tree, tmp_path / "t.json")
    return [
        "polish",
        str(tmp_path / "t.json"),
        "--band",
        "8:60:all",
        "-o",
        str(tmp_path / "p.json"),
    ]


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("guess", "parent", "label"))


@pytest.mark.slow
def test_two_processes_give_the_tree_of_one(tree, whole):
    polished, _ = whole
    two, done = polish(tree, BANDS, workers=2)
    assert same(two, polished)
    assert [d.processes for d in done] == [2, 2]  # the searches did run on two processes
    within, _ = polish(tree, [Band(8, 60, "mixed")], max_guesses=6, fewest_last=True)
    within2, _ = polish(tree, [Band(8, 60, "mixed")], max_guesses=6, fewest_last=True, workers=2)
    assert same(within, within2)


def test_a_polish_started_from_a_checkpoint_skips_what_was_done(tree, whole, monkeypatch):
    polished, seen = whole
    nodes = len(outermost_nodes(tree, min_codes=8, max_codes=60))
    assert nodes > 3
    at, _, so_far = seen[2]  # three nodes of the first band done
    assert at == Checkpoint(0, (0, 1, 2)) and so_far.total < tree.total
    searched, real = [], polish_module.search_rebuild

    def count(game, job, **kw):
        searched.append(len(job.codes))
        return real(game, job, **kw)

    monkeypatch.setattr(polish_module, "search_rebuild", count)
    told = []
    again, _ = polish(so_far, BANDS, start=at, on_node=lambda at, of, t: told.append(at))
    assert same(again, polished)
    assert told[0] == Checkpoint(0, (0, 1, 2, 3)) and told[nodes - 3] == Checkpoint(1, (0,))
    band_two = len(outermost_nodes(again, min_codes=3, max_codes=7))
    assert len(searched) <= nodes - 3 + band_two
    # From the start: every node searched.
    searched.clear()
    polish(tree, BANDS[:1])
    assert len(searched) > nodes - 3


class backwards:
    """A task mapper whose results come last task first: as worker processes may end."""

    def __init__(self, **kw):
        pass

    def __enter__(self):
        return lambda fn, args: ((i, fn(*a)) for i, a in reversed(list(enumerate(args))))

    def __exit__(self, *exc):
        pass


def test_results_used_in_any_order_give_the_same_tree(tree, whole, monkeypatch):
    polished, _ = whole
    monkeypatch.setattr(polish_module, "task_mapper", backwards)
    seen = []
    again, _ = polish(tree, BANDS, on_node=lambda at, of, t: seen.append((at, of, t)))
    assert same(again, polished)
    nodes = seen[0][1]
    assert seen[0][0] == Checkpoint(0, (nodes - 1,))  # the first node in preorder came first
    # From a checkpoint whose nodes done are not the last ones, in the usual order.
    at, _, so_far = seen[2]
    assert at.done == (nodes - 1, nodes - 2, nodes - 3)
    monkeypatch.undo()
    resumed, _ = polish(so_far, BANDS, start=at)
    assert same(resumed, polished)


def _stopped_after_two_writes(args: list[str], monkeypatch):
    """``evo ARGS`` with a write each time it can, stopped (as Ctrl-C would) right after
    its second write of the tree so far: its result, and the trees written."""
    import evo.core.treeio as treeio
    from evo.cli import polish as command

    real, writes = treeio.save_tree, []

    def save(t, path, **extra):
        real(t, path, **extra)
        writes.append(t)
        if len(writes) == 2:
            raise KeyboardInterrupt
        return path

    with monkeypatch.context() as m:
        m.setattr(command, "PROGRESS_SECONDS", 0.0)
        m.setattr(treeio, "save_tree", save)
        return CliRunner().invoke(main, args), writes


def test_the_command_goes_on_from_where_it_was_stopped(tmp_path, tree, whole, monkeypatch):
    polished, _ = whole
    save_tree(tree, tmp_path / "t.json")
    out = tmp_path / "p.json.gz"
    args = ["polish", str(tmp_path / "t.json"), "--band", "8:60:all", "--band", "3:7:all"]
    args += ["-o", str(out)]
    stopped, writes = _stopped_after_two_writes(args, monkeypatch)
    assert stopped.exit_code != 0
    doc = tree_file_document(out)
    assert doc["partial"] and doc["checkpoint"] == {"band": 0, "done": [0, 1]}

    searched, search = [], polish_module.search_rebuild
    monkeypatch.setattr(
        polish_module,
        "search_rebuild",
        lambda game, job, **kw: searched.append(1) or search(game, job, **kw),
    )
    resumed = CliRunner().invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "going on from band 8:60:all after 2 of its nodes" in resumed.output
    assert same(load_tree(out), polished)
    assert "partial" not in tree_file_document(out)
    nodes = len(outermost_nodes(tree, min_codes=8, max_codes=60))
    first = len(searched)
    assert first == nodes - 2 + len(outermost_nodes(polished, min_codes=3, max_codes=7))
    # A finished polish is kept as it is: nothing searched.
    finished = CliRunner().invoke(main, [*args, "--resume"])
    assert finished.exit_code == 0 and "finished already" in finished.output
    assert len(searched) == first
    # Without --resume, the same command starts again from TREE: more nodes searched.
    searched.clear()
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and len(searched) == first + 2


def test_resume_refuses_an_output_of_other_options(tmp_path, tree):
    save_tree(tree, tmp_path / "t.json")
    out = tmp_path / "p.json"
    base = ["polish", str(tmp_path / "t.json"), "-o", str(out)]
    assert CliRunner().invoke(main, [*base, "--band", "8:60:all"]).exit_code == 0
    other = CliRunner().invoke(main, [*base, "--band", "8:60:mixed", "--resume"])
    assert other.exit_code == 2
    assert "bands ['8:60:all'], not ['8:60:mixed']" in other.output and str(out) in other.output
    # A checkpoint that is not one (a hand edit, a file of another version).
    doc = json.loads(out.read_text())
    doc.update(partial=True, checkpoint={"band": 0, "done": [1, 1]})
    out.write_text(json.dumps(doc))
    bad = CliRunner().invoke(main, [*base, "--band", "8:60:all", "--resume"])
    assert bad.exit_code == 2 and "is not one" in bad.output
    save_tree(tree, tmp_path / "plain.json")
    plain = CliRunner().invoke(
        main, ["polish", str(tmp_path / "t.json"), "-o", str(tmp_path / "plain.json"),
               "--band", "8:60:all", "--resume"],
    )  # fmt: skip
    assert plain.exit_code == 2 and "not written by evo polish" in plain.output
    # No output yet: --resume starts from TREE.
    fresh = CliRunner().invoke(main, [*base[:3], str(tmp_path / "new.json"), "--band", "8:60:all",
                                      "--resume"])  # fmt: skip
    assert fresh.exit_code == 0 and load_tree(tmp_path / "new.json").total < tree.total


def test_the_command_searches_on_the_workers_it_is_given(tmp_path, tree):
    args = command(tmp_path, tree)
    one = CliRunner().invoke(main, args)
    two = CliRunner().invoke(main, [*args, "--workers", "2"])
    assert one.exit_code == two.exit_code == 0
    assert "on 2 processes" in two.output and "processes" not in one.output


@pytest.mark.slow
def test_a_dask_cluster_gives_the_tree_of_one(tree, whole, monkeypatch):
    from dask.distributed import LocalCluster

    polished, _ = whole

    def not_here(*a, **kw):
        raise AssertionError("a node was searched in this process, not on the cluster")

    monkeypatch.setattr(polish_module, "search_rebuild", not_here)
    with LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as cluster:
        on_dask, done = polish(tree, BANDS[:1], scheduler=cluster.scheduler_address)
    monkeypatch.undo()
    alone, _ = polish(tree, BANDS[:1])
    assert same(on_dask, alone) and done[0].processes >= 1


def test_the_command_passes_the_scheduler_and_checks_it(tmp_path, tree, monkeypatch):
    import evo.ea.polish as module

    seen = {}
    real = module.polish

    def spy(*a, **kw):
        seen.update(kw)
        return real(*a, **{**kw, "scheduler": None})

    monkeypatch.setattr(module, "polish", spy)
    monkeypatch.setattr("evo.ea.cluster.check_scheduler", lambda address: None)
    args = command(tmp_path, tree)
    res = CliRunner().invoke(main, [*args, "--scheduler", "tcp://somewhere:8786"])
    assert res.exit_code == 0, res.output
    assert seen["scheduler"] == "tcp://somewhere:8786"
    both = CliRunner().invoke(main, [*args, "--scheduler", "tcp://x:1", "--workers", "2"])
    assert both.exit_code == 2 and "--workers is for local processes" in both.output


STOPPED_MID_NODE = """
import sys, time
from pathlib import Path
import evo.cli.polish as command
import evo.ea.polish as polish_module
from evo.cli import main

command.PROGRESS_SECONDS = 1e9  # no write each minute: only the stop's
real, calls = polish_module.search_rebuild, []

def slow_third(game, job, **kw):
    calls.append(1)
    if len(calls) == 3:
        Path(sys.argv[1]).write_text("searching")
        time.sleep(300)  # a node of hours, under way when the signal comes
    return real(game, job, **kw)

polish_module.search_rebuild = slow_third
main(sys.argv[2:])
"""


@pytest.mark.parametrize("signame", [pytest.param("SIGTERM", marks=pytest.mark.slow), "SIGINT"])
def test_a_signal_keeps_the_nodes_done_and_stops_at_once(tmp_path, tree, whole, signame):
    import signal
    import subprocess
    import sys
    import time

    polished, _ = whole
    marker = tmp_path / "marker"
    args = [*command(tmp_path, tree), "--band", "3:7:all"]
    out = tmp_path / "p.json"
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPED_MID_NODE, str(marker), *args],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        end = time.monotonic() + 120
        while not marker.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.1)
        assert marker.exists(), proc.stderr.read() if proc.stderr else ""
        start = time.monotonic()
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - start < 30  # not the node's 300 s
    assert proc.returncode == 128 + getattr(signal, signame)
    lines = err.strip().splitlines()
    assert "Traceback" not in err and "leaked" not in err
    assert f"stopped by {signame} after 2 of the " in lines[-1] and "--resume" in lines[-1]
    doc = tree_file_document(out)
    assert doc["partial"] and doc["checkpoint"] == {"band": 0, "done": [0, 1]}
    resumed = CliRunner().invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert same(load_tree(out), polished)


@pytest.mark.parametrize("bands", [[Band(8, 60, "all")], []], ids=["then-a-band", "alone"])
def test_the_command_goes_on_bringing_codes_within_max_guesses(tmp_path, tree, monkeypatch, bands):
    """A polish stopped while it brings the codes within --max-guesses (a step of many
    fixes, each an exact search that can take an hour) keeps the fixes done: --resume
    goes on from the tree so far and makes only the fixes left, to the tree of one
    uninterrupted polish; with bands after it, or that step alone."""

    assert tree.worst > 6
    fixes: list[int] = []
    whole, _ = polish(tree, bands, max_guesses=6, on_fix=lambda t: fixes.append(1))
    assert len(fixes) >= 3 and whole.worst <= 6
    save_tree(tree, tmp_path / "t.json")
    out = tmp_path / "p.json"
    args = ["polish", str(tmp_path / "t.json"), "--max-guesses", "6", "-o", str(out)]
    for band in bands:
        args += ["--band", str(band)]
    stopped, writes = _stopped_after_two_writes(args, monkeypatch)
    assert stopped.exit_code == 130, stopped.output
    assert "deeper than 6 guesses left: the tree so far" in stopped.output
    doc = tree_file_document(out)
    assert doc["partial"] and doc["checkpoint"] == {"band": 0, "done": []}
    kept = load_tree(out)
    assert kept.worst > 6 and same(kept, writes[1]) and not same(kept, tree)

    real_within = polish_module.within_worst_case

    def stopped_at_once(t, m, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(polish_module, "within_worst_case", stopped_at_once)
    again = CliRunner().invoke(main, [*args, "--resume"])  # stopped before its first fix
    assert again.exit_code == 130, again.output
    assert f"{out} still holds the tree so far (total {kept.total})" in again.output
    assert same(load_tree(out), kept)

    fixed_again: list[int] = []

    def counted(t, m, **kw):
        told = kw.pop("on_fix")
        return real_within(t, m, on_fix=lambda x: fixed_again.append(1) or told(x), **kw)

    monkeypatch.setattr(polish_module, "within_worst_case", counted)
    resumed = CliRunner().invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "going on from bringing" in resumed.output
    assert same(load_tree(out), whole)
    assert len(fixed_again) == len(fixes) - 2  # the two fixes written were not made again
