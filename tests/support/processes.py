"""Running evo in a child process whose hang, if any, is shown: a test that times out
prints where every thread of the process group was, not only that it waited."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence


def run_or_dump(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout: float,
    cwd: str | os.PathLike | None = None,
) -> subprocess.CompletedProcess:
    """``subprocess.run(args)`` with its output captured, in a session of its own; past
    ``timeout`` seconds, every process of the session is sent SIGABRT (Python's fault
    handler then prints each thread's stack), and the test fails with what they printed."""
    proc = subprocess.Popen(
        list(args),
        env={**env, "PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=cwd,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # it may end meanwhile
            os.killpg(proc.pid, signal.SIGABRT)  # the main process and its workers
            time.sleep(2)
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(
            f"{' '.join(args)} still ran after {timeout} s; its stacks:\n{err[-20000:]}"
        ) from None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
