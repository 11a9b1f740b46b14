"""Issue 66: a custom game on the command line (``--game FILE.py:FUNCTION`` or
``--game MODULE:FUNCTION``): its trees loaded, drawn, played, tabled and explored; wrong
names are one line with exit status 2; nothing read from a tree file runs code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from evo.cli import main

#: A user's file of games: Jotto on a few animals (letters in common; the secret itself
#: answers "win", so that an anagram is no win), and what is not a game. Importing it
#: leaves a mark, to tell when it ran.
GAMES = """
from pathlib import Path

import evo

Path("imported").write_text("yes")
WORDS = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen", "owl", "pig", "ram", "yak"]


def common(guess, secret):
    return "win" if guess == secret else len(set(guess) & set(secret))


def animals():
    return evo.custom_game(WORDS, common, name="animals")


def broken():
    raise RuntimeError("no words today")


def words():
    return WORDS
"""


def run_evo(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """``evo ARGS`` in a process of its own, in ``folder`` (no custom game made yet)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", "from evo.cli import main; main()", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder with games.py and animals.json, Knuth's tree of its game."""
    where = tmp_path_factory.mktemp("games")
    (where / "games.py").write_text(GAMES)
    made = run_evo(where, "polish", "knuth", "--game", "games.py:animals", "--band",
                   "3:12:all", "-o", "animals.json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    (where / "imported").unlink()
    return where


def test_a_custom_games_tree_is_refused_without_its_function_and_runs_no_code(folder):
    """The file names its game 'animals', and a games.py lies beside it: nothing of it
    runs unless named on the command line."""
    res = run_evo(folder, "play", "animals.json", "--secret", "fox")
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert "the custom game 'animals' is not defined in this process" in line
    assert "--game FILE.py:FUNCTION" in line and "--game MODULE:FUNCTION" in line
    assert not (folder / "imported").exists()


@pytest.mark.slow
def test_a_custom_games_tree_is_played_drawn_tabled_and_explored(folder):
    """Each command of a tree, in a new process, with the file or the module named."""
    res = run_evo(folder, "play", "animals.json", "--game", "games.py:animals", "--secret", "fox")
    assert res.returncode == 0, res.stderr
    assert res.stdout.rstrip().endswith(": fox") and "→ win" in res.stdout
    res = run_evo(folder, "table", "animals.json", "--game", "games:animals", "--json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert rows[0]["move"] == 1 and rows[0]["count"] == 12 and rows[0]["guess"] in GAMES
    res = run_evo(folder, "render", "animals.json", "--game", "games.py:animals", "-o", "a.svg")
    assert res.returncode == 0, res.stderr
    assert (folder / "a.svg").read_text().count('id="node') >= 12
    res = run_evo(folder, "explore", "animals.json", "--game", f"{folder}/games.py:animals")
    assert res.returncode == 0, res.stderr
    assert (folder / "explore-animals.html").exists()


def evo(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize(
    "name, says",
    [
        ("nowhere.py:animals", "no such file nowhere.py"),
        ("games.py:nothing", "games.py has no function 'nothing'"),
        ("games.py:WORDS", "WORDS is neither a function nor a game"),
        ("games.py:words", "words() returned list, not a game"),
        ("games.py:broken", "broken() raised RuntimeError: no words today"),
        ("no_such_module_here:animals", "no module named 'no_such_module_here'"),
        ("games.py:not-a-name", "'not-a-name' is not the name of a Python function"),
        ("tetris", "'tetris' is not one of mastermind"),
    ],
)
def test_a_wrong_game_is_one_line(tmp_path, monkeypatch, name, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "games.py").write_text(GAMES)
    res = evo("play", "knuth", "--game", name, "--secret", "ant")
    assert res.exit_code == 2, res.output
    (line,) = res.stderr.strip().splitlines()
    assert says in line, line


def test_pegs_and_colors_do_not_apply_to_a_custom_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "games.py").write_text(GAMES.replace('"animals"', '"animals2"'))
    res = evo("play", "knuth", "--game", "games.py:animals", "-c", "5", "--secret", "ant")
    assert res.exit_code == 2 and "--colors does not apply" in res.stderr, res.output
    res = evo("play", "knuth", "--game", "games.py:animals", "--secret", "yak")
    assert res.exit_code == 0 and res.stdout.rstrip().endswith(": yak"), res.output


def test_the_readmes_custom_feedback_tells_an_anagram_from_the_win():
    """The README's custom game counts letters in common: its feedback must still answer
    the secret itself apart, or an anagram would be a win (custom_game refuses that)."""
    import ast
    import re

    import evo

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    block = next(b for b in re.findall(r"^```python\n(.*?)^```", readme, re.S | re.M)
                 if "custom_game" in b)  # fmt: skip
    tree = ast.parse(block)
    call = next(
        n for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "custom_game"
    )  # fmt: skip
    name = call.args[1].id  # the feedback, a function the block defines
    (definition,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    space: dict = {}
    exec(compile(ast.Module([definition], []), "README.md", "exec"), space)
    feedback = space[name]
    assert feedback("eat", "tea") == 3 and feedback("ant", "tea") == 2
    assert feedback("eat", "tea") != feedback("tea", "tea")
    game = evo.custom_game(["eat", "tea", "ate", "ant"], feedback, name="anagrams")
    assert game.num_codes == 4
    with pytest.raises(ValueError, match="the guess 'eat' answers the secret 'tea' as a win"):
        evo.custom_game(["eat", "tea"], lambda g, s: len(set(g) & set(s)), name="anagrams2")
