"""evo's compiled kernels made ready before any clock starts: compiled once per machine,
in fresh processes side by side, only what the work at hand calls, and said in one line
with an estimate.

numba compiles a kernel the first time it is called with a kind of argument and keeps
the machine code in a cache folder that it picks by where the kernel's file lies
(``$NUMBA_CACHE_DIR/<folder>_<digest of its path>``, else ``__pycache__`` beside it, else
the user's cache), keyed by the file, numba's version and the CPU. evo compiles its
kernels by *family* (what a kind of work calls: :data:`FAMILIES`) and *profile* (feedbacks
from a table or from packed codes; look-ahead trees whole or node by node), running
them on tiny games (:mod:`evo.runs.compiled`). A marker in numba's cache folder of the
kernels, named by a digest of those same keys, says that a family of a profile is there;
it lists numba's index files, which must still be there. Compiling happens in fresh
processes, never in a run's workers: first one process per family side by side (numba's
index files written under a lock), then one that loads them all, compiles anything
still missing, and writes the markers. A Dask worker does the same before its first
task (:func:`prepare_workers`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from evo.core.game import Game

#: Families of kernels, as the work calls them: random growth and the build of a big
#: feedback table; the one-step look-ahead (trees, forests, threaded scoring); the exact
#: search (the optimum, spread over threads, lower bounds); the exact search within a
#: depth limit (a worst case kept); the mutations (which call them all).
Family = Literal["growth", "lookahead", "search", "within", "operators"]
FAMILIES: tuple[Family, ...] = get_args(Family)

#: A kind of run, as the kernels see it: (where feedbacks come from: a table
#: (``table``: the pair of the table and the table read by secret, one numba type for
#: every game that keeps a table: the Mastermind family's, Wordle's, a custom game's) or
#: packed codes (``packed``: a big game of the Mastermind family); look-ahead trees built
#: node by node, not in one call).
Profile = tuple[str, bool]

#: The sources of feedbacks the kernels read (one table type: a first run of Mastermind
#: compiles what Wordle and custom games call too).
SOURCES: tuple[str, ...] = ("table", "packed")

#: Every profile.
PROFILES: tuple[Profile, ...] = tuple((s, big) for s in SOURCES for big in (False, True))

#: What ``make setup`` compiles: every profile, so that no game evo ships (the Mastermind
#: family with its table and without, Wordle, custom games) compiles on its first use,
#: nor any test (a fresh clone's suite spent minutes compiling in its tests, two workers
#: at once).
SETUP_PROFILES: tuple[Profile, ...] = PROFILES

#: Seconds one process takes to compile a family for a source of feedbacks, whole trees
#: then node by node, when nothing is compiled yet (the mutations: once the others are),
#: for the estimate said before compiling (2 cores, 2026-12: CPU time, which a quiet
#: machine gives as wall time; :func:`_busy_factor` scales it to the load).
COMPILE_SECONDS: dict[Family, tuple[float, float]] = {
    "growth": (6.0, 0.0),
    "lookahead": (27.0, 11.0),
    "search": (35.0, 2.0),
    "within": (10.0, 1.0),
    "operators": (3.0, 2.0),
}

#: The families one process compiles one after the other (the depth-limited search
#: calls the exact search's kernels: compiled side by side, they would be compiled twice).
_AFTER: dict[Family, Family] = {"within": "search"}

#: Set in the processes that compile: the work they run compiles where it is (it is the
#: compiling), instead of asking for the kernels again.
_COMPILING = False

_EVO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Kernels:
    """What a piece of work calls compiled: ``families`` of kernels for ``profiles``."""

    profiles: tuple[Profile, ...]
    families: tuple[Family, ...] = FAMILIES

    def jobs(self) -> list[tuple[Profile, Family]]:
        """Every (profile, family) pair."""
        return [(k, f) for k in self.profiles for f in self.families]


def profile(game: Game) -> Profile:
    """The kernels a run of ``game`` uses: (its source of feedbacks, it is built node by
    node)."""
    from evo.search.lookahead import WHOLE_TREE_CODES

    source = "table" if game.use_table else "packed"
    return (source, game.num_codes > WHOLE_TREE_CODES)


def kernels_for(game: Game, families: Iterable[Family] = FAMILIES) -> Kernels:
    """The ``families`` of kernels work on ``game`` calls (growth too: every family runs
    on a game whose big table may be built)."""
    wanted = set(families)
    if wanted:
        wanted.add("growth")
    return Kernels((profile(game),), tuple(f for f in FAMILIES if f in wanted))


#: The logger evo's compiling is announced on (a Python program sees it without a
#: ``say``: a warning, which Python prints on standard error unless logging is set up).
LOG = logging.getLogger("evo")


def tell(line: str) -> None:
    """Say a line about the kernels on standard error, as evo's own (``evo: ...``)."""
    print(f"evo: {line}", file=sys.stderr, flush=True)


def ensure_compiled(
    game: Game | Kernels | None = None,
    *,
    say: Callable[[str], None] | None = None,
) -> float:
    """Compile the kernels that work on ``game`` calls (a :class:`Kernels`: those; None:
    those of :data:`SETUP_PROFILES`), unless numba's cache has them. Before, one line
    with the estimate (under the machine's present load) goes to the ``evo`` logger (a
    warning without ``say``; ``say`` is told it too) and one after. Returns the seconds
    spent (0 when cached)."""
    if _COMPILING:
        return 0.0
    if game is None:
        want = Kernels(SETUP_PROFILES)
    elif isinstance(game, Kernels):
        want = game
    else:
        want = kernels_for(game)
    missing = [(k, f) for k, f in want.jobs() if not is_compiled(k, f)]
    if not missing:
        return 0.0
    plan = _plan(missing, os.cpu_count() or 1)
    what = ", ".join(f for f in FAMILIES if any(f == g for _, g in missing))
    on = f" on {len(plan.groups)} processes" if len(plan.groups) > 1 else ""
    busy = _busy_factor(max(1, len(plan.groups)))
    load = f" (the machine is busy: about {plan.seconds:.0f} s when quiet)" if busy > 1.2 else ""
    _announce(
        f"compiling evo's kernels ({what}), once per machine: about "
        f"{plan.seconds * busy:.0f} s{on}{load}",
        say,
    )
    start = time.perf_counter()
    if plan.groups:
        _run_children([["warm", *group] for group in plan.groups])
    _run_children([["finish", *(_job_name(k, f) for k, f in missing)]])
    seconds = time.perf_counter() - start
    _announce(f"evo's kernels compiled in {seconds:.0f} s", say)
    return seconds


def _announce(line: str, say: Callable[[str], None] | None) -> None:
    """``line`` to the ``evo`` logger (a warning when no ``say`` prints it) and ``say``."""
    if say is None:
        LOG.warning(line)
    else:
        LOG.info(line)
        say(line)


def _busy_factor(processes: int) -> float:
    """How much longer than on a quiet machine ``processes`` compiling processes take now,
    from the processes running beside them (:func:`_competitors`): Linux shares the cores
    equally between sessions (autogroups) that have work, whatever their ``nice`` (a
    niced job of another session competes as an equal), then between the processes of a
    session. 1 where that leaves them a core each; where it cannot be read, the load
    average taken as processes of other sessions."""
    cores = float(os.cpu_count() or 1)
    others = _competitors()
    if others is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # pragma: no cover - no load average (Windows)
            return 1.0
        whole = int(load)  # each process of the load average a session of its own
        others = {f"load-{i}": 1.0 for i in range(whole)} | {"load-rest": load - whole}
    mine = processes + others.pop(_MY_GROUP, 0.0)
    share = _fair_shares([mine, *others.values()], cores)[0]
    return max(1.0, mine / share) if share > 0 else 1.0


#: The key :func:`_competitors` gives the processes of this process's own session.
_MY_GROUP = "mine"


def _competitors(samples: int = 5, every: float = 0.04) -> dict[str, float] | None:
    """The processes running or ready to run beside this one, by the session (autogroup)
    the kernel schedules them in, averaged over ``samples`` looks ``every`` seconds apart
    (this process's own session under :data:`_MY_GROUP`; each process its own group where
    autogroups are off). None where ``/proc`` cannot be read (not Linux)."""
    try:
        grouped = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
        mine = Path("/proc/self/autogroup").read_text().split()[0] if grouped else None
    except (OSError, IndexError):
        grouped, mine = False, None
    me = os.getpid()
    counts: dict[str, float] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me]
    except OSError:
        return None
    for n in range(samples):
        if n:
            time.sleep(every)
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
                if state != b"R":
                    continue
                if grouped:
                    group = Path(f"/proc/{pid}/autogroup").read_text().split()[0]
                    key = _MY_GROUP if group == mine else group
                else:
                    key = str(pid)
            except (OSError, IndexError):
                continue  # ended meanwhile
            counts[key] = counts.get(key, 0.0) + 1.0 / samples
    return counts


def _fair_shares(demands: Sequence[float], cores: float) -> list[float]:
    """The cores each group gets when ``cores`` are shared equally between groups that
    want ``demands`` of them (a group never gets more than it wants; what it leaves goes
    to the others)."""
    shares = [0.0] * len(demands)
    left, open_ = cores, [i for i, d in enumerate(demands) if d > 0]
    while open_ and left > 1e-9:
        level = left / len(open_)
        small = [i for i in open_ if demands[i] - shares[i] <= level]
        if not small:
            for i in open_:
                shares[i] += level
            break
        for i in small:
            left -= demands[i] - shares[i]
            shares[i] = demands[i]
        open_ = [i for i in open_ if i not in small]
    return shares


# ---------------------------------------------------------------------------- markers
def _kernel_sources() -> list[Path]:
    """The files the compiled kernels are made of: the core, search and proofs modules
    (the kernels and the types they take), those elsewhere that import numba, and the
    work that compiles them."""
    return sorted(
        p
        for p in _EVO.rglob("*.py")
        if "__pycache__" not in p.parts
        and (
            p.parent.name in ("core", "search", "proofs")
            or p == _EVO / "runs" / "compiled.py"
            or "from numba import" in p.read_text(encoding="utf-8")
        )
    )


def _kernel_modules() -> list[Any]:
    """evo's modules that define compiled kernels, imported (they compile nothing until
    called)."""
    names = [
        ".".join(p.relative_to(_EVO.parent).with_suffix("").parts)
        for p in _kernel_sources()
        if "@njit(" in p.read_text(encoding="utf-8")
    ]
    return [importlib.import_module(n) for n in names]


def _dispatchers(module: Any) -> list[Any]:
    """The compiled kernels a module defines (numba dispatchers with a cache)."""
    return [
        v
        for v in vars(module).values()
        if getattr(v, "py_func", None) is not None
        and getattr(v.py_func, "__module__", None) == module.__name__
        and getattr(v, "_cache", None) is not None
    ]


@functools.cache
def _cache_state() -> tuple[str, tuple[Path, ...], Path]:
    """This process's view of numba's cache of evo's kernels: the digest of what keys it
    (numba's version, the CPU numba compiles for, each kernel file's folder in the cache
    and numba's stamp of the file, and the sources), the cache folders, and the one the
    markers go in (the exact search's)."""
    import numba

    digest = hashlib.sha256(numba.__version__.encode())
    with contextlib.suppress(Exception):  # numba's key of the CPU, as its index holds it
        from numba.core.registry import cpu_target

        digest.update(repr(cpu_target.target_context.codegen().magic_tuple()).encode())
    folders: list[Path] = []
    home = None
    for module in _kernel_modules():
        kernels = _dispatchers(module)
        if not kernels:
            continue
        cache = kernels[0]._cache
        folder = Path(cache.cache_path)
        stamp = getattr(getattr(cache, "_impl", None), "locator", None)
        digest.update(module.__name__.encode() + str(folder).encode())
        if stamp is not None:
            digest.update(repr(stamp.get_source_stamp()).encode())
        if folder not in folders:
            folders.append(folder)
        if module.__name__.endswith("exact_kernel"):
            home = folder
    for path in _kernel_sources():
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16], tuple(folders), home or folders[0]


def _job_name(kind: Profile, family: Family) -> str:
    """``family:table|packed|pair:whole|nodes``: a job as the compiling processes are told
    it."""
    source, big = kind
    return f"{family}:{source}:{'nodes' if big else 'whole'}"


def parse_job(text: str) -> tuple[Profile, Family]:
    """The (profile, family) that :func:`_job_name` names; ValueError otherwise."""
    for kind in PROFILES:
        for family in FAMILIES:
            if _job_name(kind, family) == text:
                return kind, family
    raise ValueError(f"not a kernels job: {text!r}")


def marker(kind: Profile, family: Family) -> Path:
    """The file that says a family of kernels of a profile is compiled in numba's cache,
    for these sources, this numba, this CPU and where numba keeps their cache."""
    digest, _, home = _cache_state()
    return home / f"evo-kernels-{digest}-{_job_name(kind, family).replace(':', '-')}.compiled"


def is_compiled(kind: Profile, family: Family) -> bool:
    """Whether the marker is there and every numba index file it lists still is."""
    path = marker(kind, family)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        listed = data["index"]
        return isinstance(listed, dict) and all(
            isinstance(names, list)
            and all(
                isinstance(n, str) and os.sep not in n and (Path(folder) / n).is_file()
                for n in names
            )
            for folder, names in listed.items()
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False


def write_marker(kind: Profile, family: Family, seconds: float) -> None:
    """Say that the family of the profile is compiled: its marker, listing numba's index
    files of evo's kernels as they are now (a cache that cannot be written: compiled
    again next time)."""
    from evo.core.files import atomic_write_text

    _, folders, _ = _cache_state()
    prefixes = tuple(m.__name__.rsplit(".", 1)[-1] + "." for m in _kernel_modules())
    index = {
        str(folder): sorted(p.name for p in folder.glob("*.nbi") if p.name.startswith(prefixes))
        for folder in folders
    }
    text = json.dumps({"seconds": round(seconds, 1), "index": index}, indent=1) + "\n"
    with contextlib.suppress(OSError):
        atomic_write_text(marker(kind, family), text, replace_any=True)


# --------------------------------------------------------------------------- compiling
@dataclass
class _Plan:
    """The first step's groups of jobs (one process each; none: the last step compiles
    them all) and the seconds expected."""

    groups: list[list[str]] = field(default_factory=list)
    seconds: float = 0.0


#: What the families of one source of feedbacks share (numba's own helpers, the kernels
#: they call in common): compiled once in one process, once in each of several. So
#: processes side by side compile more in all (82 s of CPU against 64 for a run's
#: kernels), and pay where a core is free: 38 s against 65 with one here, about as long
#: as one when the other core is busy.
SHARED_SECONDS = 12.0


def _plan(missing: Sequence[tuple[Profile, Family]], processes: int) -> _Plan:
    """Jobs of one family and one source of feedbacks go to one process (whole trees
    first: node by node reuses most of them); the mutations only in the last step (they
    call the other families). Groups are spread over ``processes``, the longest first;
    with one, the last step compiles everything."""
    units: dict[tuple[Family, str], list[tuple[Profile, Family]]] = {}
    for kind, family in missing:
        if family != "operators":
            units.setdefault((_AFTER.get(family, family), kind[0]), []).append((kind, family))
    cost = {
        u: sum(_seconds(f, [k for k, g in jobs if g == f]) for f in {f for _, f in jobs})
        for u, jobs in units.items()
    }
    last = sum(_seconds("operators", [k]) for k, f in missing if f == "operators") + 3.0
    processes = min(processes, len(units))
    if processes <= 1 or not can_share_cache():
        sources = len({source for _, source in units})
        return _Plan([], sum(cost.values()) - SHARED_SECONDS * sources * (len(units) > 1) + last)
    bins: list[tuple[float, list[str]]] = [(0.0, []) for _ in range(processes)]
    for unit in sorted(units, key=lambda u: -cost[u]):
        i = min(range(processes), key=lambda j: bins[j][0])
        total, jobs = bins[i]
        # The search before the depth-limited one; whole trees, then node by node.
        ordered = sorted(units[unit], key=lambda j: (j[1] in _AFTER, j[0][1]))
        bins[i] = (total + cost[unit], jobs + [_job_name(k, f) for k, f in ordered])
    return _Plan([jobs for _, jobs in bins if jobs], max(t for t, _ in bins) + last)


def _seconds(family: Family, kinds: Sequence[Profile]) -> float:
    """The estimate of compiling ``family`` for ``kinds`` in one process."""
    whole, nodes = COMPILE_SECONDS[family]
    paths = {big for _, big in kinds}
    return whole + (nodes if True in paths else 0.0)


def _child_command(args: Sequence[str]) -> list[str]:
    """A fresh interpreter running :func:`evo.runs.compiled.main` with ``args``, that
    imports this very evo (its folder first on the path, then this process's path)."""
    from evo.core.where import package_folder

    root = str(package_folder().parent)
    path = [root] + [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
    code = (
        "import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
        "from evo.runs.compiled import main; main(sys.argv[2:])"
    )
    return [sys.executable, "-c", code, json.dumps(path), *args]


def _run_children(commands: Sequence[Sequence[str]]) -> None:
    """Run each command in a process of its own, side by side, and wait for them all; one
    that fails raises RuntimeError with the end of what it said (the others are ended)."""
    procs: list[tuple[subprocess.Popen, Any]] = []
    try:
        for args in commands:
            log = tempfile.TemporaryFile()
            proc = subprocess.Popen(
                _child_command(args), stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
            procs.append((proc, log))
        for proc, log in procs:
            if proc.wait() != 0:
                log.seek(0)
                said = log.read().decode("utf-8", "replace").strip().splitlines()
                tail = said[-1] if said else f"exit status {proc.returncode}"
                raise RuntimeError(f"compiling evo's kernels failed: {tail}")
    finally:
        for proc, log in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()


def can_share_cache() -> bool:
    """Whether processes may compile side by side: numba writes a kernel's index file by
    reading it, adding its entry and writing it back, so two processes compiling one
    kernel for two kinds of argument at once would lose an entry; :func:`locked_index`
    puts that under a lock, where this numba has it."""
    from numba.core import caching

    save = getattr(getattr(caching, "IndexDataCacheFile", None), "save", None)
    return callable(save) and sys.platform != "win32"


@contextlib.contextmanager
def locked_index() -> Iterator[None]:
    """Within the block, numba writes its index files under a lock of their folder (see
    :func:`can_share_cache`), so that processes compiling side by side lose nothing."""
    import fcntl

    from numba.core import caching

    cls = caching.IndexDataCacheFile
    save = cls.save

    def locked_save(self: Any, key: Any, data: Any) -> None:
        lock = os.path.join(self._cache_path, "evo-kernels.lock")
        with open(lock, "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                save(self, key, data)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    cls.save = locked_save  # type: ignore[method-assign]
    try:
        yield
    finally:
        cls.save = save  # type: ignore[method-assign]


# ----------------------------------------------------------------------- compile watch
@dataclass
class CompileWatch:
    """What numba compiled in this process while watched: the seconds of the outermost
    compilations and the kernels compiled (evo's only)."""

    seconds: float = 0.0
    kernels: list[str] = field(default_factory=list)
    _depth: int = 0
    _start: float = 0.0
    on_start: Callable[[str], None] | None = None

    def started(self, name: str) -> None:
        if self._depth == 0:
            self._start = time.perf_counter()
            if name.startswith("evo.") and name not in self.kernels:
                self.kernels.append(name)
                if self.on_start is not None:
                    self.on_start(name)
        self._depth += 1

    def ended(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._start


@contextlib.contextmanager
def watch_compiling(on_start: Callable[[str], None] | None = None) -> Iterator[CompileWatch]:
    """Within the block, count what numba compiles in this process (``on_start(kernel)``
    as each of evo's kernels starts compiling): work that should find its kernels
    compiled tells, if they were not, how long it spent compiling them."""
    from numba.core import event

    seen = CompileWatch(on_start=on_start)

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            name = f"{getattr(func, '__module__', '?')}.{getattr(func, '__name__', '?')}"
            seen.started(name)

        def on_end(self, ev: Any) -> None:
            seen.ended()

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        yield seen
    finally:
        event.unregister("numba:compile", listener)


# --------------------------------------------------------------------------- Dask
def prepare_workers(client: Any, kernels: Kernels, *, say: Callable[[str], None] | None) -> None:
    """Have every worker of a Dask ``client`` compile ``kernels`` on its machine before its
    first task (a worker plugin: those that join later do it as they join); ``say`` is
    told when some must, with the estimate."""
    from distributed.diagnostics.plugin import WorkerPlugin

    estimates = client.run(_missing_seconds, kernels)
    slowest = max(estimates.values(), default=0.0)
    if slowest > 0 and say is not None:
        say(
            f"the Dask workers compile evo's kernels before their first task, once per "
            f"machine: about {slowest:.0f} s"
        )

    class CompiledKernels(WorkerPlugin):
        """Compile evo's kernels on the worker's machine before it takes tasks."""

        name = "evo-kernels"

        def __init__(self, kernels: Kernels):
            self.kernels = kernels

        async def setup(self, worker: Any) -> None:
            import asyncio

            await asyncio.get_running_loop().run_in_executor(
                None, functools.partial(ensure_compiled, self.kernels, say=tell)
            )

    client.register_plugin(CompiledKernels(kernels))


def _missing_seconds(kernels: Kernels) -> float:
    """On a worker: the estimate of compiling what its machine lacks of ``kernels`` (0:
    nothing)."""
    missing = [(k, f) for k, f in kernels.jobs() if not is_compiled(k, f)]
    return _plan(missing, os.cpu_count() or 1).seconds if missing else 0.0
