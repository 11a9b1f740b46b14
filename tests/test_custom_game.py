"""Custom games from Python (docs/DESIGN.md §1): a list of codes and a feedback function
become a game that evo evolves, bounds, searches and draws; checked against the function
itself and against a brute force over every guess (tests/support/brute.py)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.brute import least

import evo
from evo.core.custom import custom_game
from evo.core.feedback_kernel import feedback_pairs, secret_pairs
from evo.core.game import UnknownGameError, game_from_spec
from evo.core.treeio import TreeFileError, load_tree, save_tree
from evo.search.exact import UNBOUNDED, Solver

REPO = Path(__file__).resolve().parent.parent

#: Secrets of three distinct letters of ``abcd``; guesses: any three letters.
SECRETS = ["".join(p) for p in itertools.permutations("abcd", 3)]
GUESSES = SECRETS + ["".join(p) for p in itertools.product("abcd", repeat=3) if len(set(p)) < 3]


def marks(guess: str, secret: str) -> str:
    """A Wordle-like answer: G in place, Y elsewhere in the secret, . absent."""
    return "".join("G" if g == s else "Y" if g in secret else "." for g, s in zip(guess, secret))


@pytest.fixture(scope="module")
def words():
    return custom_game(SECRETS, marks, guesses=GUESSES, name="test-words")


def test_the_table_is_the_function_on_every_pair(words):
    assert (words.num_codes, words.num_guesses) == (24, 64)
    assert words.format_codes(words.all_guesses()) == GUESSES  # the secrets first
    for g, guess in enumerate(GUESSES):
        for s, secret in enumerate(SECRETS):
            said = words.format_feedback(int(words.feedback(g, s)))
            assert said == marks(guess, secret)
    assert words.format_feedback(words.win) == "GGG"
    assert not words.symmetric_feedback  # abc answers bcd .YY, bcd answers abc YY.


def test_the_kernels_read_both_ways(words):
    src = words.feedback_source
    assert isinstance(src, tuple) and len(src) == 2
    g = np.repeat(np.arange(words.num_guesses), words.num_codes)
    s = np.tile(np.arange(words.num_codes), words.num_guesses)
    assert np.array_equal(feedback_pairs(src, g, s), words.table.ravel())
    assert np.array_equal(secret_pairs(src, s, g), words.table.ravel())


def test_codes_and_feedbacks_print_and_parse(words):
    assert words.parse_code("dcb") == SECRETS.index("dcb")
    assert words.parse_code(" D C B ") == SECRETS.index("dcb")  # case and spaces
    assert words.parse_feedback("gy.") == words.parse_feedback("GY.")
    with pytest.raises(ValueError, match="'abz' is not a guess of test-words"):
        words.parse_code("abz")
    with pytest.raises(ValueError, match="not one of test-words"):
        words.parse_feedback("GGGG")


@pytest.mark.parametrize(
    ("args", "kw", "message"),
    [
        ((["a", "b"], lambda g, s: 0), {}, "answers the secret 'b' as a win"),
        ((["ab", "abc"], lambda g, s: len(g)), {}, "answers itself 3, not 2"),
        ((["a", "a"], lambda g, s: g == s), {}, "given twice"),
        ((["a", 1, "1"], lambda g, s: g == s), {}, "written alike"),
        ((["a", "b"], lambda g, s: [g == s]), {}, "not hashable"),
        ((["a", "b"], lambda g, s: g == s), {"guesses": ["a"]}, "must hold every code"),
        ((["a", "b"], lambda g, s: g == s), {"name": "no/slash"}, "name must be"),
        ((list(range(300)), lambda g, s: "w" if g == s else (g - s) % 300), {}, "more than 256"),
        (("abc", lambda g, s: g == s), {}, "non-empty list"),
    ],
)
def test_bad_games_are_refused_in_one_line(args, kw, message):
    with pytest.raises(ValueError, match=message) as e:
        custom_game(*args, **kw)
    assert "\n" not in str(e.value)


def test_the_optimum_is_the_brute_forces(words):
    solver = Solver(words)
    codes = words.all_codes()
    assert solver.total(codes) == least(SECRETS, marks, guesses=GUESSES)
    wc = least(SECRETS, marks, guesses=GUESSES, worst=True)
    assert solver.total(codes, depth=wc) < UNBOUNDED
    assert solver.total(codes, depth=wc - 1) == UNBOUNDED
    secrets_only = custom_game(SECRETS, marks, name="test-words-secrets")  # G = M
    assert not secrets_only.symmetric_feedback
    assert Solver(secrets_only).total(codes) == least(SECRETS, marks)


def test_more_guesses_can_beat_the_secrets_alone():
    # Three secrets answered 0 or 1 by each other: no secret splits the other two, the
    # extra guess "x" tells all three apart at once.
    secrets = ["a", "b", "c"]

    def answer(g, s):
        return "win" if g == s else {"x": {"a": 0, "b": 1, "c": 2}}.get(g, {}).get(s, 0)

    game = custom_game(secrets, answer, guesses=["a", "b", "c", "x"], name="test-extra")
    assert least(secrets, answer) == 6  # a; then b; then c
    assert least(secrets, answer, guesses=["a", "b", "c", "x"]) == 6
    assert evo.baseline(game, "optimal").total == 6
    five = custom_game(
        ["a", "b", "c", "d"],
        lambda g, s: "win" if g == s else {"a": 0, "b": 1, "c": 2, "d": 3}[s] if g == "x" else 0,
        guesses=["a", "b", "c", "d", "x"],
        name="test-extra-4",
    )
    assert evo.baseline(five, "optimal").total == least(
        ["a", "b", "c", "d"],
        lambda g, s: "win" if g == s else {"a": 0, "b": 1, "c": 2, "d": 3}[s] if g == "x" else 0,
        guesses=["a", "b", "c", "d", "x"],
    )
    assert evo.baseline(five, "optimal").total == 4 + 4  # x, then each code at once
    best = evo.baseline(five, "optimal")
    assert five.format_code(int(best.guess[0])) == "x"


@pytest.mark.parametrize("name", ["knuth", "irving", "kooi", "entropy", "lc", "rc", "optimal"])
def test_baselines_are_valid_breakers(words, name):
    tree = evo.baseline(words, name)
    tree.validate()
    assert tree.total >= least(SECRETS, marks, guesses=GUESSES)


def test_a_custom_game_evolves_and_draws_in_a_few_lines(tmp_path):
    # The notebook's cell: any codes, any feedback function.
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen", "owl", "pig", "ram", "yak"]
    game = evo.custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-animals")
    result = evo.evolve(game, seed=1, generations=4)
    result.best.validate()
    optimum = least(words, lambda g, s: len(set(g) & set(s)))
    assert result.best.total >= optimum and result.logbook.select("min")[-1] == result.total
    assert evo.evolve(game, seed=1, generations=4).total == result.total  # reproducible
    svg = result.best.svg(depth=2)
    assert ">" + result.best.game.format_code(int(result.best.guess[0])) + "<" in svg
    graph = result.best.to_networkx()
    assert "pegs" not in graph.nodes[0] and graph.graph["kind"] == "custom"
    assert graph.graph["name"] == "test-animals"


def test_tree_files_name_the_game_and_reload_it(words, tmp_path):
    tree = evo.baseline(words, "entropy")
    path = save_tree(tree, tmp_path / "words.json")
    doc = json.loads(path.read_text())
    assert doc["game"] == words.spec and doc["game"]["digest"] == words.digest
    assert load_tree(path).total == tree.total  # found by its name in this process
    assert game_from_spec(doc["game"]) is words
    again = save_tree(tree, tmp_path / "words.npz")
    assert load_tree(again).total == tree.total
    with pytest.raises(TreeFileError, match="is for the custom game 'test-words'"):
        load_tree(path, game=evo.make_game(3, 4))


def test_a_file_of_another_game_of_the_name_is_refused(tmp_path):
    first = custom_game(["a", "b", "c"], lambda g, s: g == s, name="test-renamed")
    path = save_tree(evo.baseline(first, "lc"), tmp_path / "t.json")
    custom_game(["a", "b", "c", "d"], lambda g, s: g == s, name="test-renamed")
    with pytest.raises(TreeFileError, match="defined here is not the one named"):
        load_tree(path)
    with pytest.raises(UnknownGameError, match="not defined in this process"):
        game_from_spec({"kind": "custom", "name": "test-never-made", "digest": "0"})


def test_the_command_line_refuses_a_custom_game_it_cannot_know(words, tmp_path):
    path = save_tree(evo.baseline(words, "lc"), tmp_path / "words.json")
    done = subprocess.run(
        [sys.executable, "-c", "from evo.cli import main; main()", "table", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "custom game 'test-words' is not defined in this process" in lines[0]


def test_worker_processes_get_the_game(tmp_path):
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen"]
    game = evo.custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-workers")
    one = evo.evolve(game, seed=2, generations=2)
    two = evo.evolve(game, seed=2, generations=2, workers=2)
    assert one.logbook.select("min") == two.logbook.select("min")


def test_a_run_directory_and_its_report(tmp_path):
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen"]
    game = evo.custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-run-dir")
    result = evo.evolve(game, seed=3, generations=2, run_dir=tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["game"] == game.spec and summary["best_total"] == result.total
    assert load_tree(tmp_path / "run" / "best.json").total == result.total
