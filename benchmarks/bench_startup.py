"""Start-up time of the command line, whole processes, against ``python -c "import numpy"``.

Target (issue: lazy subcommands): ``evo --help`` and ``evo play`` start within 3x the time of
``python -c "import numpy"`` on the same machine. The commands run interleaved (one of each
per round, after a warm-up round), so that a change of load hits them all alike; the table
gives the median wall time of each, its interquartile range, and the ratio of its median to
that of ``import numpy``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.machine import machine_line

ROUNDS = 21
TARGET = 3.0


def _evo() -> list[str]:
    """The installed ``evo`` script next to this Python, else the same entry point."""
    script = Path(sys.executable).parent / "evo"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from evo.cli import main; main()"]


def _wall(cmd: list[str], cwd: str, env: dict[str, str]) -> float:
    """Seconds from start to end of one process, stdin closed, output discarded."""
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - t0
    if res.returncode not in (0, 1):  # evo play ends with 1 when its input ends
        raise RuntimeError(f"{' '.join(cmd)} failed with exit code {res.returncode}")
    return seconds


def measure(rounds: int = ROUNDS) -> tuple[list[tuple[str, list[float]]], str]:
    """Wall times of each command over ``rounds`` interleaved rounds, and the command
    that wrote the tree file."""
    evo = _evo()
    with tempfile.TemporaryDirectory(prefix="evo-bench-startup-") as tmp:
        env = dict(os.environ, EVO_CACHE=str(Path(tmp) / "cache"))
        save = [*evo, "population", "--pegs", "4", "--colors", "6", "--size", "1"]
        save += ["--seed", "1", "--save", tmp]
        subprocess.run(save, cwd=tmp, env=env, check=True, stdout=subprocess.DEVNULL)
        tree = str(Path(tmp) / "best.json")
        cases = [
            ('python -c "import numpy"', [sys.executable, "-c", "import numpy"]),
            ("evo --help", [*evo, "--help"]),
            ("evo play --secret 5512 best.json", [*evo, "play", "--secret", "5512", tree]),
            ("evo play best.json (stdin closed)", [*evo, "play", tree]),
        ]
        for _, cmd in cases:  # warm-up: the file cache, compiled bytecode
            _wall(cmd, tmp, env)
        times: list[list[float]] = [[] for _ in cases]
        for _ in range(rounds):
            for k, (_, cmd) in enumerate(cases):
                times[k].append(_wall(cmd, tmp, env))
    how = " ".join(save[len(evo) :]).replace(tmp, "DIR")
    return [(name, t) for (name, _), t in zip(cases, times)], how


def main() -> None:
    machine = machine_line()
    results, how = measure()
    base = statistics.median(results[0][1])
    print("## Command-line start-up (lazy subcommands)\n")
    print(
        f"Machine: {machine}. Command: `.venv/bin/python benchmarks/run_all.py startup` "
        f"(part of `make bench`). Whole processes, {ROUNDS} interleaved rounds after a "
        f"warm-up round; `best.json` is the (4,6) breaker of `evo {how}`; "
        "`EVO_CACHE` in a temporary directory.\n"
    )
    print("| command | median (ms) | interquartile range (ms) | ratio to import numpy | target |")
    print("|---|---|---|---|---|")
    for name, t in results:
        q1, _, q3 = statistics.quantiles(t, n=4)
        ratio = statistics.median(t) / base
        target = "-" if name.startswith("python") else f"<= {TARGET:g}x"
        print(
            f"| `{name}` | {statistics.median(t) * 1000:.0f} | {q1 * 1000:.0f} to "
            f"{q3 * 1000:.0f} | {ratio:.2f} | {target} |"
        )


if __name__ == "__main__":
    main()
