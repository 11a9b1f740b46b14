"""Where independent searches run (``evo.search.tasks``): in order or as they end, and no
worker process outlives the search that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evo.search.tasks import task_mapper

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_results_in_order_or_as_they_end():
    args = [(0.6,), (0.0,), (0.3,)]
    with task_mapper(workers=1) as run:
        assert list(run(time.sleep, args)) == [None] * 3
    with task_mapper(workers=1, ordered=False) as run:
        assert sorted(i for i, _ in run(time.sleep, args)) == [0, 1, 2]
    with task_mapper(workers=2, ordered=False) as run:
        ended = [i for i, _ in run(time.sleep, [(8.0,), (0.0,)])]
    assert ended == [1, 0]  # the short task first, not held back by the long one
    with task_mapper(workers=3) as run:
        assert list(run(abs, [(-2,), (3,), (-1,)])) == [2, 3, 1]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _gone(pids: set[int], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(Path(f"/proc/{p}").exists() for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl: Linux")
@pytest.mark.slow
def test_workers_end_when_their_parent_is_killed(tmp_path):
    script = (
        "import time\n"
        "from evo.search.tasks import task_mapper\n"
        "with task_mapper(workers=2, ordered=False) as run:\n"
        "    list(run(time.sleep, [(300,), (300,)]))\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = {
                p
                for p in _children(parent.pid)
                if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
            }
        assert len(workers) == 2, "the workers did not start"
        time.sleep(1.0)  # their tasks running
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert _gone(workers, 20), "a worker outlived its parent"
    finally:
        parent.kill()


@pytest.mark.slow
def test_an_error_in_the_caller_ends_the_workers_at_once():
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with task_mapper(workers=2, ordered=False) as run:
            results = run(time.sleep, [(300,), (300,)])
            time.sleep(2.0)
            raise KeyboardInterrupt
    assert time.monotonic() - start < 60  # not the 300 s of the tasks
    del results
