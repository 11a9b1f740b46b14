"""The README works as written: every shell block that runs ``evo`` is run, line for line,
in a fresh copy of the repository's configs, with ``evo`` found on the PATH as the README
says (``make install`` or ``. .venv/bin/activate``). ``make`` lines are the set-up, which
the test suite itself needs, so they are left out."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: Seconds all the README's commands may take together (a 10 s run and its report,
#: baselines, pictures) on the project's shared 2-core machine.
BUDGET = 400


def shell_blocks(text: str) -> list[list[str]]:
    """The command lines of each ```sh block (comments and blank lines dropped)."""
    blocks = []
    for body in re.findall(r"^```(?:sh|bash|console)\n(.*?)^```", text, re.S | re.M):
        lines = [ln.split("  #")[0].rstrip() for ln in body.splitlines()]
        blocks.append([ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")])
    return blocks


def evo_blocks(readme: Path = README) -> list[list[str]]:
    """The blocks that run ``evo``, without their set-up (``make``) lines."""
    out = []
    for block in shell_blocks(readme.read_text(encoding="utf-8")):
        if any(re.match(r"(\S+=\S+\s+)*evo\b", ln) for ln in block):
            out.append([ln for ln in block if not ln.startswith("make ")])
    return out


def test_the_readme_shows_the_set_up_and_the_commands():
    blocks = shell_blocks(README.read_text(encoding="utf-8"))
    setup = [ln for b in blocks for ln in b if ln.startswith("make ")]
    assert {"make run", "make test", "make install"} <= {
        ln.split()[0] + " " + ln.split()[1] for ln in setup
    }
    commands = {ln.split()[1] for b in evo_blocks() for ln in b if ln.startswith("evo ")}
    assert {"run", "explore", "play", "baselines", "report", "compare", "config"} <= commands
    text = README.read_text(encoding="utf-8")
    assert "make install" in text and ". .venv/bin/activate" in text


def test_make_install_links_evo(tmp_path):
    """``make install`` (dry run: the set-up it depends on is the test suite's own) links
    ``.venv/bin/evo`` into ``~/.local/bin``."""
    if not shutil.which("make"):
        pytest.skip("no make")
    env = {**os.environ, "HOME": str(tmp_path)}
    out = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "install"], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert f"ln -sf {ROOT}/.venv/bin/evo {tmp_path}/.local/bin/evo" in out.stdout


@pytest.mark.slow
def test_every_readme_command_runs(tmp_path):
    """A fresh clone's view: the configs copied to an empty directory, ``evo`` on the PATH
    from the virtual environment, each block run by bash with ``set -e``."""
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    bindir = Path(sys.executable).parent
    assert (bindir / "evo").exists(), "evo is not installed in this environment"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    blocks = evo_blocks()
    assert blocks, "the README shows no evo command"
    for block in blocks:
        script = "set -euo pipefail\n" + "\n".join(f"echo '$ {ln}' >&2\n{ln}" for ln in block)
        res = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=BUDGET,
        )
        assert res.returncode == 0, f"{res.stderr[-3000:]}\n{res.stdout[-2000:]}"
    # What the tour says it writes.
    run = sorted((tmp_path / "runs").glob("quick-*"))[-1]
    for name in ("report.html", "explore.html", "best.json", "fitness.png"):
        assert (run / name).is_file(), name
    assert (tmp_path / "explore.html").read_text().startswith("<!DOCTYPE html>")
    assert (tmp_path / "compare.pdf").read_bytes()[:5] == b"%PDF-"
    assert (tmp_path / "best-top.svg").is_file()


@pytest.mark.slow
def test_the_breakers_readme_commands_run(tmp_path):
    """breakers/README.md's commands, run where a clone has them (every shipped tree is
    read by table, play, render and explore)."""
    shutil.copytree(ROOT / "breakers", tmp_path / "breakers")
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    blocks = evo_blocks(ROOT / "breakers" / "README.md")
    assert blocks
    for block in blocks:
        script = "set -euo pipefail\n" + "\n".join(block)
        res = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert res.returncode == 0, res.stderr[-3000:]
    assert (tmp_path / "top.svg").is_file() and (tmp_path / "page.html").is_file()


def python_blocks(text: str) -> list[str]:
    """The bodies of the README's ```python blocks."""
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


@pytest.mark.slow
def test_the_readme_python_runs_as_written(tmp_path):
    """The "From Python" snippet, run in an empty directory: it prints Knuth's total and
    the optimum it reaches, and writes the two files it says."""
    block = next(b for b in python_blocks(README.read_text(encoding="utf-8")) if "knuth" in b)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == "5801 5625"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.json", "best.svg"]


@pytest.mark.slow
def test_the_readme_custom_game_runs_as_written(tmp_path):
    """The "Games" snippet: a game of twelve animals, evolved in ten generations to the
    optimum the exact search proves (35); it writes nothing."""
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    block = next(b for b in blocks if "custom_game" in b)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    evolved, optimum = (int(x) for x in res.stdout.split())
    assert evolved == optimum == 35
    assert not list(tmp_path.iterdir())
    assert len(blocks) == 2


def layout_lines(text: str) -> list[str]:
    """The lines of the README's Layout block (the first unlabelled block after the
    heading)."""
    section = text.split("\n## Layout\n", 1)[1]
    body = re.search(r"^```\n(.*?)^```", section, re.S | re.M)
    assert body, "the Layout section has no block"
    return [ln for ln in body.group(1).splitlines() if ln.strip()]


def layout_paths(text: str) -> list[str]:
    """Every path the Layout names: each line's folder, and the files it lists before its
    colon, under that folder."""
    paths = []
    for line in layout_lines(text):
        folder, _, rest = line.partition(" ")
        paths.append(folder)
        files = rest.split(":", 1)[0] if ":" in rest else ""
        paths += [folder + f.strip() for f in files.split(",") if f.strip()]
    return paths


def test_every_path_in_the_layout_exists():
    """A wrong path fails (the Layout once named ``evo/game.py``, long after it moved to
    ``evo/core/``); every package of ``evo/`` is listed."""
    text = README.read_text(encoding="utf-8")
    paths = layout_paths(text)
    assert len(paths) > 30
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"the README's Layout names what does not exist: {missing}"
    packages = {f"{p.parent.relative_to(ROOT)}/" for p in (ROOT / "evo").glob("*/__init__.py")}
    listed = {ln.split()[0] for ln in layout_lines(text)}
    assert packages <= listed, f"packages missing from the Layout: {sorted(packages - listed)}"
    wrong = text.replace("evo/core/       game.py", "evo/            game.py")
    assert any(not (ROOT / p).exists() for p in layout_paths(wrong))


def test_make_test_runs_on_every_core_and_ci_runs_every_test_once(pytestconfig):
    """``make test`` (dry run) runs every test but the heavy ones on every core and prints
    the 15 slowest; ``make test-fast`` also deselects the ``slow`` marker; ``make
    test-heavy`` runs the heavy ones alone; both markers are registered, and ``.ci/run``
    calls the two targets that between them run every test once, and the lint."""
    if not shutil.which("make"):
        pytest.skip("no make")
    commands = {}
    for target in ("test", "test-fast", "test-heavy"):
        out = subprocess.run(
            ["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        (commands[target],) = [ln for ln in out.stdout.splitlines() if "-m pytest" in ln]
    for command in commands.values():
        assert " -n auto " in command and "--dist loadgroup" in command, command
    assert commands["test"].endswith('-m "not heavy" --durations=15')
    assert commands["test-fast"].endswith('-m "not slow and not heavy"')
    assert commands["test-heavy"].endswith("-m heavy --durations=15")
    markers = pytestconfig.getini("markers")
    assert {"slow", "heavy"} <= {m.split(":")[0] for m in markers}
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert [ln for ln in ci if ln.startswith("make")] == [
        "make test", "make test-heavy", "make lint"
    ]  # fmt: skip
