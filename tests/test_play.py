"""evo play: the pure game logic, and the command through its real input and output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.reference_growth import brute_feedback

from evo.cli import main
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import save_tree
from evo.show.play import AnswerError, Position, answer, parse_answer, secret_lines

# hand_tree (conftest.py): (2,2): 11, then 12 and 21 on 1B0W, 22 on 0B0W.


def answers_for(tree, secret: str) -> list[str]:
    """The answers a person gives for ``secret``, from the definition of the feedback."""
    game = tree.game
    pegs = tuple(int(ch) - 1 for ch in secret)
    out, node = [], 0
    while True:
        guess = tuple(int(p) for p in game.digits[int(tree.guess[node])])
        b, w = brute_feedback(guess, pegs)
        out.append(f"{b},{w}")
        if b == game.pegs:
            return out
        node = tree.children(node)[game.parse_feedback(f"{b},{w}")]


def test_answers_lead_to_the_secret(hand_tree):
    tree = hand_tree
    game = tree.game
    pos = Position()
    pos = answer(tree, pos, parse_answer(game, "1B0W"))
    assert game.format_code(int(tree.guess[pos.node])) == "12"
    pos = answer(tree, pos, parse_answer(game, "0 2"))
    pos = answer(tree, pos, parse_answer(game, "2,0"))
    assert pos.solved and len(pos.history) == 3 and pos.history[-1][0] == game.parse_code("21")


def test_wrong_answers_are_refused(hand_tree):
    tree = hand_tree
    game = tree.game
    with pytest.raises(AnswerError, match="not an answer"):
        parse_answer(game, "banana")
    with pytest.raises(AnswerError, match="not an answer"):
        parse_answer(game, "2,1")  # more pegs than the code has
    with pytest.raises(AnswerError, match="no code at all answers 1B 1W to 11"):
        answer(tree, Position(), parse_answer(game, "1,1"))  # <N-1,1> never happens
    pos = answer(tree, Position(), parse_answer(game, "0,0"))  # only 22 is left
    with pytest.raises(AnswerError, match="no secret code is consistent with the answers so far"):
        answer(tree, pos, parse_answer(game, "1,0"))  # 12 would answer 1,0, but 22 is left


def test_bulls_and_cows_answers():
    game = make_game(3, 5, "bulls-cows")
    assert parse_answer(game, "1B2C") == parse_answer(game, "1,2") == game.parse_feedback("1,2")
    with pytest.raises(AnswerError, match="bulls,cows counts, such as 1B 2C"):
        parse_answer(game, "1B")


def test_answers_in_evo_notation_and_the_bare_counts():
    """What evo prints (``1B 0W``) is what one types, as are the bare counts."""
    game = make_game(4, 6)
    for fb in range(game.num_feedbacks):
        said = game.format_feedback(fb)
        b, w = said.replace("B", "").replace("W", "").split()
        assert parse_answer(game, said) == parse_answer(game, f"{b},{w}") == fb
        assert parse_answer(game, said.lower().replace(" ", "")) == fb
    with pytest.raises(AnswerError, match="such as 1B 2W, 1,2 or 1 2"):
        parse_answer(game, "1W 0B")


def test_secret_lines_follow_the_tree():
    tree = random_breaker(make_game(4, 6), rng=np.random.default_rng(9))
    lines = secret_lines(tree, tree.game.parse_code("5512"))
    assert lines[0] == "Secret 5512" and lines[-1] == f"Solved in {len(lines) - 2} guesses: 5512"
    expected = answers_for(tree, "5512")
    got = [line.split("→ ")[1].split(" (")[0] for line in lines[1:-1]]
    assert got == [f"{a[0]}B {a[2]}W" for a in expected]


def refused_answer(tree, node: int) -> str:
    """An answer some code gives to the guess at ``node``, but no code of its code set."""
    game = tree.game
    for fb in sorted(set(game.feedback_row(int(tree.guess[node])).tolist()) - {game.win}):
        if tree.child_table[node, fb] < 0:
            return game.format_feedback(fb)
    raise AssertionError("every possible answer has a branch here")


@pytest.fixture
def tree_file(tmp_path):
    tree = random_breaker(make_game(3, 4), rng=np.random.default_rng(4))
    path = tmp_path / "tree.json"
    save_tree(tree, path)
    return tree, path


def test_cli_play_with_a_wrong_answer(tree_file):
    tree, path = tree_file
    answers = answers_for(tree, "342")
    second = tree.children(0)[tree.game.parse_feedback(answers[0])]
    feed = [answers[0], "x", refused_answer(tree, second), *answers[1:]]
    res = CliRunner().invoke(main, ["play", str(path)], input="\n".join(feed) + "\n")
    assert res.exit_code == 0, res.output
    first_guess = tree.game.format_code(int(tree.guess[0]))
    assert f"Guess 1: {first_guess} — your feedback (black,white)? {answers[0]}" in res.output
    assert "'x' is not an answer" in res.output
    assert "no secret code is consistent with the answers so far" in res.output
    assert res.output.count("Guess 2:") == 3  # asked again after each refused answer
    assert res.output.rstrip().endswith(f"Solved in {len(answers)} guesses: 342")


def test_cli_play_undo_and_end_of_input(tree_file):
    tree, path = tree_file
    answers = answers_for(tree, "111")
    wrong = "0,0" if answers[0] != "0,0" else "1,0"
    res = CliRunner().invoke(
        main, ["play", str(path)], input="\n".join([wrong, "undo", *answers]) + "\n"
    )
    assert res.exit_code == 0, res.output
    assert res.output.rstrip().endswith(": 111")
    res = CliRunner().invoke(main, ["play", str(path)], input="")
    assert res.exit_code == 1 and "Input ended before the secret was found" in res.output


def test_cli_play_secret(tree_file):
    tree, path = tree_file
    res = CliRunner().invoke(main, ["play", str(path), "--secret", "243"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == secret_lines(tree, tree.game.parse_code("243"))
    res = CliRunner().invoke(main, ["play", str(path), "--secret", "2435"])
    assert res.exit_code != 0 and "--secret" in res.output


def test_play_as_a_real_process(tree_file, tmp_path):
    tree, path = tree_file
    answers = answers_for(tree, "424")
    second = tree.children(0)[tree.game.parse_feedback(answers[0])]
    feed = [answers[0], "4,4", refused_answer(tree, second), *answers[1:]]
    evo = Path(sys.executable).parent / "evo"
    env = dict(os.environ, EVO_CACHE=str(tmp_path / "cache"))
    proc = subprocess.run(
        [str(evo), "play", str(path)],
        input="\n".join(feed) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "'4,4' is not an answer" in proc.stdout  # eight pegs in a three-peg code
    assert "no secret code is consistent" in proc.stdout
    assert proc.stdout.rstrip().endswith(f"Solved in {len(answers)} guesses: 424")
