"""Big feedback tables as memory-mapped files of the cache: built once per machine, shared
by every process, checked on load (size, header, CRC) and rebuilt when wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from support.definitions import all_code_tuples, design_feedback_number
from support.reference_growth import brute_feedback

import evo.games.pegs as game_module
from evo.baselines import lookahead
from evo.core import table_file
from evo.core.table_file import HEADER_BYTES
from evo.games.pegs import PegGame

REPO = Path(__file__).resolve().parent.parent


def definition_table(pegs: int, colors: int, variant: str = "mastermind") -> np.ndarray:
    codes = all_code_tuples(pegs, colors, variant)
    return np.array(
        [[design_feedback_number(*brute_feedback(g, s), pegs) for s in codes] for g in codes],
        dtype=np.uint8,
    )


def table_path(game: PegGame) -> Path:
    return Path(os.environ["EVO_CACHE"]) / game.name / "feedback-table.bin"


def cached(pegs: int, colors: int, variant: str = "mastermind") -> PegGame:
    """A game whose big tables are kept in the test's cache (``EVO_CACHE``)."""
    return PegGame(pegs, colors, variant, cache=os.environ["EVO_CACHE"])  # type: ignore[arg-type]


@pytest.fixture
def file_tables(monkeypatch):
    """Every table counts as big (kept as a file)."""
    monkeypatch.setattr(game_module, "TABLE_FILE_BYTES", 0)


def test_big_table_is_a_mapped_file_of_the_cache(file_tables):
    game = cached(3, 4)
    table = game.table
    path = table_path(game)
    assert path.stat().st_size == HEADER_BYTES + 64 * 64
    assert np.array_equal(table, definition_table(3, 4))
    assert not table.flags.writeable
    if Path("/proc/self/maps").exists():
        assert _mapped(path)


def test_small_table_stays_in_memory():
    """Below TABLE_FILE_BYTES no file is written."""
    game = cached(3, 4)
    assert np.array_equal(game.table, definition_table(3, 4))
    assert game.table.flags.writeable
    assert not table_path(game).exists()


def test_bulls_and_cows_table_file(file_tables):
    game = cached(3, 5, "bulls-cows")
    assert np.array_equal(game.table, definition_table(3, 5, "bulls-cows"))
    assert table_path(game).exists()


def _mapped(path: Path) -> bool:
    """This process maps ``path`` (Linux)."""
    maps = Path("/proc/self/maps")
    return maps.exists() and str(path.resolve()) in maps.read_text()


SECOND_PROCESS = textwrap.dedent(
    """
    import os
    import sys
    from pathlib import Path
    import numpy as np
    import evo.games.pegs as g
    from evo.core.game import make_game

    g.TABLE_FILE_BYTES = 0
    def no_build(self):
        raise AssertionError("the table was built a second time")
        yield
    g.PegGame._table_blocks = no_build
    game = make_game(3, 4, cache=os.environ["EVO_CACHE"])
    t = game.table
    every = np.arange(game.num_codes)
    assert np.array_equal(t, game.compute_feedback(every[:, None], every[None, :]))
    path = str(Path(sys.argv[1]).resolve())
    assert path in Path("/proc/self/maps").read_text(), "the table is not mapped from the file"
    print("mapped")
    """
)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
def test_a_second_process_maps_the_same_file_without_building(file_tables):
    game = cached(3, 4)
    _ = game.table
    path = table_path(game)
    before = path.stat()
    assert _mapped(path)
    done = subprocess.run(
        [sys.executable, "-c", SECOND_PROCESS, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "mapped"
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


CONCURRENT = textwrap.dedent(
    """
    import os
    import sys
    import evo.games.pegs as g
    from evo.core.game import make_game

    g.TABLE_FILE_BYTES = 0
    build = g.PegGame._table_blocks
    def counted(self):
        with open(sys.argv[1], "a") as log:
            log.write("built\\n")
        yield from build(self)
    g.PegGame._table_blocks = counted
    print(int(make_game(4, 6, cache=os.environ["EVO_CACHE"]).table.sum()))
    """
)


def test_processes_starting_together_build_the_table_once(tmp_path, file_tables):
    log = tmp_path / "builds.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    expected = int(
        PegGame(4, 6, use_table=False)
        .compute_feedback(np.arange(1296)[:, None], np.arange(1296)[None, :])
        .sum()
    )
    assert {int(o[0]) for o in outs} == {expected}
    assert log.read_text() == "built\n"


def _flip_a_table_byte(path: Path) -> None:
    with open(path, "r+b") as f:
        f.seek(HEADER_BYTES + 1000)
        b = f.read(1)
        f.seek(HEADER_BYTES + 1000)
        f.write(bytes([b[0] ^ 1]))


def _truncate(path: Path) -> None:
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - 1)


def _other_game_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    at = data.index(b"mastermind-3-4")
    data[at : at + 14] = b"mastermind-4-3"  # the same size, another game
    path.write_bytes(bytes(data))


def _older_version(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[8] = 0  # the format version
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage", [_flip_a_table_byte, _truncate, _other_game_header, _older_version]
)
def test_a_damaged_file_is_rebuilt(file_tables, damage):
    first = cached(3, 4)
    _ = first.table
    path = table_path(first)
    good = path.read_bytes()
    damage(path)
    assert path.read_bytes() != good
    again = cached(3, 4)  # a new process would do the same
    assert np.array_equal(again.table, definition_table(3, 4))
    assert path.read_bytes() == good


def test_an_unwritable_cache_builds_the_table_in_memory(file_tables, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    game = PegGame(3, 4, cache=str(blocker))
    assert np.array_equal(game.table, definition_table(3, 4))
    assert game.table.flags.writeable


def test_a_game_without_a_cache_keeps_its_table_in_memory(file_tables):
    """Library calls leave no trace: no cache, no file, whatever the table's size."""
    game = PegGame(3, 4)
    assert np.array_equal(game.table, definition_table(3, 4))
    assert game.table.flags.writeable
    assert not table_path(game).exists()


SLOW_BUILD = textwrap.dedent(
    """
    import os, sys, time
    import evo.games.pegs as g
    from evo.core.game import make_game

    g.TABLE_FILE_BYTES = 0
    build = g.PegGame._table_blocks
    def slow(self):
        for block in build(self):
            for row in block:
                print("building", flush=True)
                time.sleep(0.05)
                yield row[None, :]
    g.PegGame._table_blocks = slow
    make_game(3, 4, cache=os.environ["EVO_CACHE"]).table
    print("built", flush=True)
    """
)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_during_the_build_removes_the_temporary_file(sig):
    """The build dies of the signal as before, and leaves no temporary file behind (the
    signal's default action restored in the child: under ``nohup`` it would inherit an
    ignored SIGHUP, and rightly go on)."""
    folder = Path(os.environ["EVO_CACHE"]) / "mastermind-3-4"
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_BUILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL),
    )
    assert proc.stdout.readline() == "building\n", proc.stderr.read()
    [tmp] = folder.glob(".*.tmp")  # the build is under way
    assert tmp.name.startswith(f".feedback-table.bin.{proc.pid}.")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == -sig, err
    assert "built" not in out
    assert sorted(p.name for p in folder.iterdir()) == ["feedback-table.bin.lock"]


def test_temporary_files_of_dead_builders_are_removed_at_the_next_build(file_tables):
    """Only a dead process's file goes: a live one's may still be written."""
    folder = Path(os.environ["EVO_CACHE"]) / "mastermind-3-4"
    folder.mkdir(parents=True)
    dead = int(subprocess.check_output([sys.executable, "-c", "import os; print(os.getpid())"]))
    alive = os.getpid()
    stale = folder / f".feedback-table.bin.{dead}.k2j4x9.tmp"
    older = folder / ".feedback-table.bin.q8w_3ze1.tmp"  # before names had the PID
    live = folder / f".feedback-table.bin.{alive}.m3n5b7.tmp"
    for tmp in (stale, older, live):
        tmp.write_bytes(b"\0" * 5000)
    assert np.array_equal(cached(3, 4).table, definition_table(3, 4))
    assert not stale.exists() and not older.exists()
    assert live.exists()


def _forged(table: np.ndarray) -> np.ndarray:
    """Right-looking entries (the same feedbacks, each guess winning against itself) for
    the wrong secrets: every row but the diagonal shifted by one column."""
    forged = np.roll(table, 1, axis=1)
    np.fill_diagonal(forged, 0)
    return forged


def test_a_forged_table_with_a_valid_crc_is_rebuilt(file_tables):
    good = PegGame(3, 3, use_table=False)
    every = np.arange(good.num_codes)
    right = good.compute_feedback(every[:, None], every[None, :])
    path = table_path(good)
    table_file._write(path, good.name, good.num_codes, iter([_forged(right)]))
    game = cached(3, 3)  # a new process would do the same
    assert np.array_equal(game.table, right)
    assert lookahead(game, "knuth").total == 74
    assert np.array_equal(
        np.fromfile(path, dtype=np.uint8, offset=HEADER_BYTES).reshape(right.shape), right
    )


def test_the_spot_check_of_a_big_table_is_cheap_and_catches_a_forged_part(tmp_path):
    """On a table too big to check whole, sampled entries catch a forged block of rows."""
    game = PegGame(4, 6, use_table=False)
    m = game.num_codes
    every = np.arange(m)
    right = game.compute_feedback(every[:, None], every[None, :])
    path = tmp_path / "feedback-table.bin"
    forged = right.copy()
    forged[m // 4 : m // 2] = _forged(right)[m // 4 : m // 2]

    def rebuilt():
        yield right

    table_file._write(path, game.name, m, iter([forged]))
    table = table_file.mapped_table(
        path, name=game.name, rows=m, blocks=rebuilt, check=game.compute_feedback
    )
    assert np.array_equal(table, right)
    checked: list[int] = []

    def counted(guesses, secrets):
        checked.append(len(guesses))
        return game.compute_feedback(guesses, secrets)

    t0 = time.perf_counter()
    again = table_file.mapped_table(path, name=game.name, rows=m, blocks=None, check=counted)
    # The CRC of 1.7 MB and the sample: milliseconds (seconds on a loaded machine), and a
    # sample of the 1.68 million entries, not all of them.
    assert time.perf_counter() - t0 < 10
    assert sum(checked) <= table_file.SPOT_CHECKS + 4 < m * m // 100
    assert np.array_equal(again, right)
