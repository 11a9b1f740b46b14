"""The exact optimum spread over threads and Dask workers (issue 35): whole processes of
``evo baselines --only optimal``, one after the other, the order turning between rounds;
medians, and the trees compared (the same file on every side).

    .venv/bin/python benchmarks/bench_spread.py                 # (4,8): 1 thread, 2, 2 workers
    .venv/bin/python benchmarks/bench_spread.py --game 4x7 --rounds 5
    .venv/bin/python benchmarks/bench_spread.py --mmstrat       # 1 thread against mmstrat
    .venv/bin/python benchmarks/bench_spread.py --sides 1,2     # threads only (no Dask)
    .venv/bin/python benchmarks/bench_spread.py --sides 1,2,1+1 # and the machine's ceiling
    .venv/bin/python benchmarks/bench_spread.py --sides 1,d2 --timeline  # where d2's time goes

Sides: ``1`` and ``2`` (threads of one process), ``w2`` (a local Dask cluster of two
worker processes, started and stopped by each run), ``d2`` (a ``dask scheduler`` and two
single-threaded ``dask worker`` processes started once before the rounds, their kernels
loaded by a first small search; each run is a client, ``--scheduler``), ``mmstrat``
(fancidev's ``mmstrat -s optimal``, Mastermind only), and pairs ``X+X`` (two runs of
``X`` started at once: how much faster two independent searches go on two cores than
one after the other, the most a search spread over the two cores could gain).
With ``--timeline``, each ``d2`` run also tells where its time went: per worker, the
seconds in tasks and between them (the scheduler's task stream), and the CPU seconds of
the scheduler, the workers (their nannies included) and the client.
Each evo process times itself whole (Python's start, the kernels' load and the table
included) and reports its peak memory (the largest process: with Dask, the workers are
processes of their own and are not counted).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402
from benchmarks.peers import PeersMissing, peers_dir  # noqa: E402

EVO = [sys.executable, "-c", "import sys; from evo.cli import main; sys.argv[0]='evo'; main()"]


def _timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak memory (GiB, of the process itself) and standard output of a
    whole process."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, cwd=HERE.parent, env=env)
        assert proc.stdout is not None
        out = proc.stdout.read().decode()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(cmd[3:])} failed: {err.read().decode()[-300:]}")
    return wall, usage.ru_maxrss / 2**20, out


def _tree_digest(path: Path) -> str:
    from evo.core.treeio import load_tree

    tree = load_tree(path)
    h = hashlib.sha256()
    for a in (tree.guess, tree.label, tree.parent, tree.codes):
        h.update(a.astype("int64").tobytes())
    return f"{tree.total} {h.hexdigest()[:12]}"


def _evo(
    pegs: int, colors: int, side: str, folder: Path, scheduler: str | None = None
) -> tuple[float, float, str]:
    out = folder / side
    args = ["baselines", "-n", str(pegs), "-c", str(colors), "--only", "optimal"]
    args += ["--no-cache", "--time-limit", "3600", "--save", str(out)]
    if side == "w2":
        args += ["--workers", "2"]
    elif side == "d2":
        args += ["--scheduler", str(scheduler)]
    else:
        args += ["--threads", side]
    env = dict(os.environ, EVO_CACHE=str(folder / "cache"))
    wall, peak, _ = _timed(EVO + args, env)
    return wall, peak, _tree_digest(out / "optimal.json")


def _cluster(folder: Path) -> tuple[str, list[subprocess.Popen]]:
    """A ``dask scheduler`` and two single-threaded ``dask worker`` processes on this
    machine, their kernels loaded: the scheduler's address and the processes."""
    dask = str(Path(sys.executable).with_name("dask"))
    info = folder / "scheduler.json"
    env = dict(os.environ, EVO_CACHE=str(folder / "cache"), EVO_THREADS="1")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    cmd = [dask, "scheduler", "--port", "0", "--dashboard-address", ":0"]
    procs = [subprocess.Popen([*cmd, "--scheduler-file", str(info)], **quiet)]  # type: ignore[call-overload]
    while not (info.exists() and info.stat().st_size):
        time.sleep(0.1)
    address = json.loads(info.read_text())["address"]
    for _ in range(2):
        procs.append(
            subprocess.Popen([dask, "worker", address, "--nthreads", "1"], **quiet)  # type: ignore[call-overload]
        )
    _evo(4, 4, "d2", folder, address)  # the workers load the kernels
    return address, procs


class _Timeline:
    """Where the time of each run on the started cluster went: the scheduler's task
    stream and the CPU seconds of every process of the cluster and of the client."""

    def __init__(self, address: str, procs: list[subprocess.Popen]):
        from distributed import Client

        self._client = Client(address)
        self._client.get_task_stream(start=time.time())  # the scheduler starts to record
        self._procs = procs
        self.rows: list[str] = []

    def _cpu(self) -> list[float]:
        import psutil

        out = []
        for p in self._procs:
            top = psutil.Process(p.pid)
            out.append(sum(sum(q.cpu_times()[:2]) for q in [top, *top.children(recursive=True)]))
        mine = resource.getrusage(resource.RUSAGE_CHILDREN)
        return [*out, mine.ru_utime + mine.ru_stime]

    def start(self) -> None:
        self._t0, self._cpu0 = time.time(), self._cpu()

    def stop(self, wall: float) -> None:
        cpu = [b - a for a, b in zip(self._cpu0, self._cpu())]
        stream = self._client.get_task_stream(start=self._t0)
        spans: dict[str, list[tuple[float, float]]] = {}
        for task in stream:
            for s in task["startstops"]:
                if s["action"] == "compute":
                    spans.setdefault(task["worker"], []).append((s["start"], s["stop"]))
        workers = []
        for got in spans.values():
            got.sort()
            busy = sum(b - a for a, b in got)
            gaps = sum(got[i + 1][0] - got[i][1] for i in range(len(got) - 1))
            workers.append(f"{len(got)} tasks, {busy:.1f} s in them, {gaps:.1f} s between")
        self.rows.append(
            f"| {wall:.2f} s | {'; '.join(workers)} | {cpu[0]:.1f} s | "
            f"{' + '.join(f'{c:.1f}' for c in cpu[1:-1])} s | {cpu[-1]:.1f} s |"
        )

    def close(self) -> None:
        self._client.close()
        if self.rows:
            print("\n`d2` runs, where the time went (CPU seconds of each process):\n")
            print("| wall | per worker | scheduler | workers | client |")
            print("|---|---|---|---|---|")
            print("\n".join(self.rows))


def _mmstrat(pegs: int, colors: int) -> tuple[float, float, str]:
    binary = peers_dir() / "mmstrat"
    rules = f"p{pegs}c{colors}r"
    wall, peak, out = _timed([str(binary), "-r", rules, "-s", "optimal", "-S", "-q"])
    return wall, peak, out.strip().split(":")[0]


def _side(pegs, colors, side, folder, address) -> tuple[float, float, str]:
    if side == "mmstrat":
        return _mmstrat(pegs, colors)
    return _evo(pegs, colors, side, folder, address)


def _pair(pegs, colors, side, folder, address) -> tuple[float, float, str]:
    """Two runs of ``side`` started at once, each in a folder of its own: the later end
    (what two independent searches take when they share the machine)."""
    folders = [folder / "a", folder / "b"]
    for f in folders:
        f.mkdir(exist_ok=True)
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda f: _side(pegs, colors, side, f, address), folders))
    return max(g[0] for g in got), max(g[1] for g in got), " / ".join(sorted({g[2] for g in got}))


def _rounds(pegs, colors, sides, rounds, folder, address, walls, peaks, trees, timeline) -> None:
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        for side in order:
            if "+" in side:
                wall, peak, tree = _pair(pegs, colors, side.split("+")[0], folder, address)
            elif side == "d2" and timeline is not None:
                timeline.start()
                wall, peak, tree = _side(pegs, colors, side, folder, address)
                timeline.stop(wall)
            else:
                wall, peak, tree = _side(pegs, colors, side, folder, address)
            walls[side].append(wall)
            peaks[side].append(peak)
            trees[side].add(tree)
            print(f"  round {r + 1}: {side}: {wall:.2f} s, {tree}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    game = args[args.index("--game") + 1] if "--game" in args else "4x8"
    pegs, colors = (int(x) for x in game.split("x"))
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    default = ["1", "2", "d2"]
    sides = args[args.index("--sides") + 1].split(",") if "--sides" in args else default
    if "--mmstrat" in args:
        sides = ["1", "mmstrat"]
    if "mmstrat" in sides:
        try:
            peers_dir()
        except PeersMissing as e:
            print(f"skipped: {e}")
            return
    walls: dict[str, list[float]] = {s: [] for s in sides}
    peaks: dict[str, list[float]] = {s: [] for s in sides}
    trees: dict[str, set[str]] = {s: set() for s in sides}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        address, procs = _cluster(folder) if "d2" in sides else (None, [])
        timeline = _Timeline(address, procs) if address and "--timeline" in args else None
        try:
            _rounds(pegs, colors, sides, rounds, folder, address, walls, peaks, trees, timeline)
        finally:
            if timeline is not None:
                timeline.close()
            for p in procs[::-1]:
                p.terminate()
                p.wait()
    print(f"## The optimum of ({pegs},{colors}) spread (issue 35)\n")
    print(f"Machine: {machine_line()}. Whole processes, the order turning; medians of {rounds}.\n")
    print("| side | wall (median) | all runs | against the first side | peak | total, tree |")
    print("|---|---|---|---|---|---|")
    base = statistics.median(walls[sides[0]])
    for side in sides:
        w = statistics.median(walls[side])
        runs = ", ".join(f"{x:.1f}" for x in walls[side])
        peak = f"{statistics.median(peaks[side]):.2f} GiB"
        tree = " / ".join(sorted(trees[side]))
        # A pair does twice the work: its throughput against one run of its kind alone.
        alone = side.split("+")[0]
        ratio = base / w
        if "+" in side and alone in walls:
            ratio = 2 * statistics.median(walls[alone]) / w
        print(f"| {side} | {w:.2f} s | {runs} | {ratio:.2f}x | {peak} | {tree} |")
    if any("+" in side for side in sides):
        print("\nA pair `X+X`: two runs of `X` at once; its ratio is twice the time of one `X`")
        print("alone over the pair's: what the second core gives two independent searches.")


if __name__ == "__main__":
    main()
