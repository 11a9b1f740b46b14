"""Trust, third round (issue 33), the outputs: a path that is not a regular file is refused,
never replaced (items 1), before the work; and a machine without Graphviz gets one line
from ``evo render`` and a report without the picture from ``evo run`` (item 9).

No test here touches the machine's ``/dev/null``: the character device is a node of our
own in the test's folder (the null device, so even a write to it is harmless)."""

from __future__ import annotations

import importlib
import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import evo.core.files as files_module
from evo.cli import main
from evo.config import load_config
from evo.core.files import FileWriteError, atomic_write_bytes, atomic_write_text
from evo.core.game import make_game
from evo.core.treeio import from_nested, save_tree
from evo.runs.driver import run_config
from evo.runs.rundir import create_run_dir
from evo.show.breaker import Breaker
from tests.conftest import HAND
from tests.test_trust import assert_one_line_error

#: A run of the (3,3) game that takes a fraction of a second.
TINY = {
    "name": "tiny",
    "seed": 1,
    "game": {"pegs": 3, "colors": 3},
    "population": {"size": 4},
    "stop": {"generations": 3},
}


def evo(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


@pytest.fixture
def tree_file(tmp_path) -> Path:
    path = tmp_path / "hand.json"
    save_tree(from_nested(make_game(2, 2), HAND), path)
    return path


@pytest.fixture
def run_dir(tmp_path) -> Path:
    cfg = load_config(TINY)
    folder = create_run_dir(cfg, root=tmp_path / "runs")
    run_config(cfg, run_dir=folder, progress=False, knuth=False)
    return folder


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def symlink(path: Path) -> Path:
    """A symbolic link at ``path`` to a file holding ``target``."""
    target = path.with_name(path.name + ".target")
    target.write_text("target")
    path.symlink_to(target)
    return path


def char_device(path: Path) -> Path:
    """A character device node of our own at ``path``: the null device (major 1, minor 3),
    so nothing is lost even if something writes to it."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as e:
        pytest.skip(f"cannot make a device node here ({e})")
    return path


MAKERS = {"fifo": fifo, "symlink": symlink, "device": char_device}


def unchanged(path: Path, kind: str) -> None:
    """``path`` is still what the test made there, and nothing was left beside it."""
    mode = os.lstat(path).st_mode
    if kind == "fifo":
        assert stat.S_ISFIFO(mode)
    elif kind == "symlink":
        assert stat.S_ISLNK(mode)
        assert path.with_name(path.name + ".target").read_text() == "target"
    else:
        assert stat.S_ISCHR(mode)
    assert not list(path.parent.glob(".*.tmp")), list(path.parent.iterdir())


def commands(tree_file: Path, run_dir: Path, out: Path) -> dict[str, list]:
    return {
        "render": ["render", tree_file, "-o", out],
        "explore": ["explore", tree_file, "-o", out],
        "polish": ["polish", tree_file, "--band", "3:100:all", "-o", out],
        "compare": ["compare", run_dir, "--baselines", "knuth", "-o", out],
    }


SUFFIX = {"render": ".svg", "explore": ".html", "polish": ".json", "compare": ".png"}


# ------------------------------------- 1. outputs that are not regular files are refused
@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("command", list(SUFFIX))
def test_1_an_output_that_is_not_a_regular_file_is_refused_not_replaced(
    tmp_path, tree_file, run_dir, command, kind
):
    out = MAKERS[kind](tmp_path / f"out{SUFFIX[command]}")
    res = evo(*commands(tree_file, run_dir, out)[command])
    assert_one_line_error(res, str(out), "not a regular file")
    unchanged(out, kind)


@pytest.mark.parametrize("command", list(SUFFIX))
def test_1_the_output_is_checked_before_the_work(
    tmp_path, tree_file, run_dir, command, monkeypatch
):
    """The checks come first: the tree is not even loaded (nor polished, nor compared)."""
    import evo.cli.common as common

    # The commands' modules imported before common's name is patched: one imported while
    # it is would keep the patch as its own name, and the tests after it would fail.
    for name in ("explore", "polish", "render"):
        importlib.import_module(f"evo.cli.{name}")

    def no_work(*args, **kwargs):
        raise AssertionError("the work began before the output was checked")

    monkeypatch.setattr(common, "load_breaker", no_work)
    monkeypatch.setattr("evo.cli.render.load_breaker", no_work)
    monkeypatch.setattr("evo.cli.explore.load_breaker", no_work)
    monkeypatch.setattr("evo.cli.polish.load_breaker", no_work)
    monkeypatch.setattr("evo.show.report.compare_runs", no_work)
    cases = {
        "": "empty",
        str(tmp_path / "nowhere" / f"x{SUFFIX[command]}"): "no folder",
        str(tree_file / f"x{SUFFIX[command]}"): "no folder",
        str(fifo(tmp_path / f"pipe{SUFFIX[command]}")): "not a regular file",
    }
    for out, needle in cases.items():
        res = evo(*commands(tree_file, run_dir, Path(out))[command][:-1], out)
        assert_one_line_error(res, needle)
    assert not (tmp_path / "nowhere").exists()


def test_1_polish_with_an_empty_output_name_is_refused_at_once(tree_file):
    res = evo("polish", tree_file, "--band", "3:100:all", "-o", "")
    assert_one_line_error(res, "--output", "empty")


def test_1_a_folder_or_a_name_ending_in_a_slash_is_refused(tmp_path, tree_file):
    assert_one_line_error(evo("render", tree_file, "-o", tmp_path), str(tmp_path))
    res = evo("render", tree_file, "-o", f"{tmp_path / 'pictures'}/")
    assert_one_line_error(res, "folder")
    assert not (tmp_path / "pictures").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_1_an_unwritable_folder_is_refused_before_the_work(tmp_path, tree_file):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    try:
        assert_one_line_error(evo("render", tree_file, "-o", folder / "x.svg"), "cannot write")
    finally:
        folder.chmod(0o700)


def test_1_a_default_output_name_is_checked_too(tmp_path, tree_file, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fifo(tmp_path / "hand.svg")
    assert_one_line_error(evo("render", tree_file), "hand.svg", "not a regular file")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "hand.svg").st_mode)
    fifo(tmp_path / "explore-hand.html")
    assert_one_line_error(evo("explore", tree_file), "explore-hand.html", "not a regular file")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "explore-hand.html").st_mode)


@pytest.mark.parametrize("kind", list(MAKERS))
def test_1_the_library_writers_refuse_too(tmp_path, kind):
    tree = Breaker.of(from_nested(make_game(2, 2), HAND))
    for name, write in {
        "t.json": lambda p: save_tree(tree, p),
        "t.npz": lambda p: save_tree(tree, p),
        "t.svg": lambda p: tree.render(p),
        "t.txt": lambda p: atomic_write_text(p, "text"),
    }.items():
        path = MAKERS[kind](tmp_path / name)
        with pytest.raises(FileWriteError, match="not a regular file"):
            write(path)
        unchanged(path, kind)


def test_1_a_path_that_becomes_a_fifo_while_written_is_not_replaced(tmp_path, monkeypatch):
    """The writer checks again just before its rename: what came there meanwhile stays."""
    target = tmp_path / "out.txt"
    target.write_text("old")
    real = files_module._write

    def write_then_swap(f, data):
        real(f, data)
        target.unlink()
        os.mkfifo(target)

    monkeypatch.setattr(files_module, "_write", write_then_swap)
    with pytest.raises(FileWriteError, match="not a regular file"):
        atomic_write_bytes(target, b"new")
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_1_a_regular_file_is_still_replaced_and_a_new_name_written(tmp_path, tree_file):
    out = tmp_path / "pic.svg"
    out.write_text("old")
    assert evo("render", tree_file, "-o", out).exit_code == 0
    assert out.read_text().lstrip().startswith("<?xml")
    assert evo("explore", tree_file, "-o", tmp_path / "new.html").exit_code == 0
    assert (tmp_path / "new.html").is_file()


def test_1_the_report_refuses_a_run_file_that_is_not_regular_before_writing(run_dir):
    os.mkfifo(run_dir / "report.md")
    res = evo("report", run_dir, "--baselines", "knuth")
    assert_one_line_error(res, "report.md", "not a regular file")
    assert stat.S_ISFIFO(os.lstat(run_dir / "report.md").st_mode)
    assert not (run_dir / "report.html").exists() and not (run_dir / "fitness.png").exists()


# ---------------------------------------------------------- 9. without Graphviz
@pytest.fixture
def no_dot(tmp_path, monkeypatch) -> None:
    """A PATH where Graphviz's ``dot`` cannot be found."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_9_render_without_graphviz_is_one_line_saying_how_to_get_it(tmp_path, tree_file, no_dot):
    out = tmp_path / "pic.svg"
    res = evo("render", tree_file, "-o", out)
    assert_one_line_error(res, "Graphviz", "dot", "install")
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_9_the_library_says_so_too(tmp_path, no_dot):
    from evo.show.render import GraphvizMissing

    tree = Breaker.of(from_nested(make_game(2, 2), HAND))
    with pytest.raises(GraphvizMissing, match="Graphviz"):
        tree.render(tmp_path / "t.svg")
    assert not (tmp_path / "t.svg").exists()


def test_9_a_run_without_graphviz_writes_the_report_but_the_picture(tmp_path, no_dot):
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps(TINY))
    res = evo("run", config, "--runs", tmp_path / "runs", "-q")
    assert res.exit_code == 0, (res.output, res.exception)
    (folder,) = (tmp_path / "runs").iterdir()
    for name in ("report.html", "report.md", "explore.html", "fitness.png", "depths.png"):
        assert (folder / name).is_file(), name
    assert not (folder / "best.svg").exists()
    notes = [line for line in res.stderr.splitlines() if "best.svg" in line]
    assert len(notes) == 1 and "Graphviz" in notes[0], res.stderr
    page = (folder / "report.html").read_text()
    assert 'src="best.svg"' not in page and 'href="best.svg"' not in page
    assert "Graphviz" in page
    assert "](best.svg)" not in (folder / "report.md").read_text()


def test_9_report_without_graphviz_says_what_it_left_out(run_dir, no_dot):
    res = evo("report", run_dir, "--baselines", "knuth")
    assert res.exit_code == 0, (res.output, res.exception)
    assert (run_dir / "report.html").is_file() and (run_dir / "explore.html").is_file()
    (note,) = [line for line in res.stderr.splitlines() if "best.svg" in line]
    assert "Graphviz" in note
