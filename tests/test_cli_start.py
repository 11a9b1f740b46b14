"""The command line starts fast: a subcommand's modules are imported only when it runs.

Each command runs as a real process (``python -c "from evo.cli import main; main()"``)
that writes the names of its imported modules on exit; none of the heavy libraries may be
among them for ``evo --help``, any ``evo CMD --help``, or ``evo play`` on a tree file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner

import evo.cli
from evo.cli import COMMANDS, main
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import save_tree

ROOT = Path(__file__).resolve().parent.parent

#: Libraries that no command may import before it needs them.
HEAVY = ("matplotlib", "networkx", "pydantic", "deap", "tqdm", "graphviz")

#: Run ``evo`` with the process's arguments; at exit, write the imported modules' names.
PROBE = (
    "import atexit, json, os, sys\n"
    "def _dump():\n"
    "    with open(os.environ['EVO_TEST_MODULES'], 'w') as f:\n"
    "        json.dump(sorted(sys.modules), f)\n"
    "atexit.register(_dump)\n"
    "from evo.cli import main\n"
    "main(prog_name='evo')\n"
)


def run_evo(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """``evo ARGS`` as a process with its standard input closed: the result, and the
    modules it had imported when it ended."""
    out = tmp_path / "modules.json"
    out.unlink(missing_ok=True)
    env = dict(os.environ)
    env["EVO_CACHE"] = str(tmp_path / "cache")
    env["EVO_TEST_MODULES"] = str(out)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    res = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    modules = json.loads(out.read_text()) if out.exists() else []
    assert modules, f"no module list written; stderr:\n{res.stderr}"
    return res, modules


def heavy(modules: list[str]) -> list[str]:
    return sorted({m.partition(".")[0] for m in modules} & set(HEAVY))


def commands_imported(modules: list[str]) -> list[str]:
    return sorted(name for name in COMMANDS if f"evo.cli.{name}" in modules)


@pytest.fixture
def tree_file(tmp_path):
    """A random (3,3) breaker saved as a tree file, and a secret code of its game."""
    game = make_game(3, 3)
    tree = random_breaker(game, rng=np.random.default_rng(7))
    path = tmp_path / "tree.json"
    save_tree(tree, path)
    return path, game.format_code(17)


def test_help_lists_the_commands_without_importing_them(tmp_path):
    res, modules = run_evo(tmp_path, "--help")
    assert res.returncode == 0, res.stderr
    assert heavy(modules) == []
    assert commands_imported(modules) == []
    listed = res.stdout.split("Commands:", 1)[1].strip().splitlines()
    assert [line.split()[0] for line in listed] == sorted(COMMANDS)


def test_play_help_imports_play_alone(tmp_path):
    res, modules = run_evo(tmp_path, "play", "--help")
    assert res.returncode == 0, res.stderr
    assert "Usage: evo play" in res.stdout
    assert heavy(modules) == []
    assert commands_imported(modules) == ["play"]


def test_play_secret_on_a_tree_file_imports_nothing_heavy(tmp_path, tree_file):
    path, secret = tree_file
    res, modules = run_evo(tmp_path, "play", "--secret", secret, str(path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == f"Secret {secret}"
    assert res.stdout.rstrip().endswith(f": {secret}")
    assert heavy(modules) == []
    assert commands_imported(modules) == ["play"]


def test_play_on_a_tree_file_with_input_closed_imports_nothing_heavy(tmp_path, tree_file):
    path, _ = tree_file
    res, modules = run_evo(tmp_path, "play", str(path))
    assert res.returncode == 1, res.stderr
    assert "Input ended before the secret was found." in res.stdout
    assert heavy(modules) == []


def test_play_a_baseline_imports_nothing_heavy(tmp_path):
    res, modules = run_evo(
        tmp_path, "play", "knuth", "--pegs", "3", "--colors", "3", "--secret", "123"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.rstrip().endswith(": 123")
    assert heavy(modules) == []


def test_a_small_games_baseline_runs_without_numba(tmp_path):
    """Knuth's (4,6) tree from a fresh cache on the NumPy engine: numba's load would cost
    more than the whole tree (evo.core.engine, ``auto``)."""
    res, modules = run_evo(tmp_path, "baselines", "-n", "4", "-c", "6", "--only", "knuth")
    assert res.returncode == 0, res.stderr
    assert " 5801 " in res.stdout
    assert "numba" not in modules


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_shows_its_help_without_heavy_imports(tmp_path, name):
    res, modules = run_evo(tmp_path, name, "--help")
    assert res.returncode == 0, res.stderr
    assert f"Usage: evo {name} " in res.stdout
    assert heavy(modules) == []
    assert name in commands_imported(modules)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_lines_are_the_docstrings_first_lines(name):
    command = main.get_command(click.Context(main), name)
    assert command is not None and command.name == name
    assert command.help.splitlines()[0] == COMMANDS[name]


def test_every_command_module_is_in_the_table():
    modules = {p.stem for p in Path(evo.cli.__file__).parent.glob("*.py")}
    assert modules - {"__init__", "common"} == set(COMMANDS)


def test_unknown_command_is_refused():
    res = CliRunner().invoke(main, ["no-such-command"])
    assert res.exit_code == 2 and "No such command" in res.output


def test_render_choices_are_those_of_evo_render():
    import evo.cli.render as cli_render
    import evo.show.render as render

    assert cli_render.LAYOUTS == render.LAYOUTS
    assert cli_render.FORMATS == render.FORMATS
    assert cli_render.RANKDIRS == render.RANKDIRS


def test_every_user_error_named_is_a_class_of_evo():
    """USER_ERRORS names classes without importing them: a class moved to another module
    would no longer be matched, and its errors would show a traceback."""
    import importlib

    from evo.cli import USER_ERRORS

    for name in USER_ERRORS:
        module, _, cls = name.rpartition(".")
        found = getattr(importlib.import_module(module), cls)
        assert isinstance(found, type) and issubclass(found, Exception), name
        assert f"{found.__module__}.{found.__qualname__}" == name, name
