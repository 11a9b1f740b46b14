"""Playing a breaker against a person: they think of a secret and answer each guess.

The game logic is pure functions over a :class:`~evo.core.tree.Tree` and a :class:`Position`;
:func:`play_loop` is the thin input/output loop around them. An answer that no secret
can give is refused with a message saying why, and the question is asked again;
``undo`` takes back the last answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evo.core.game import Game
from evo.core.tree import Tree

UNDO = ("undo", "u", "back")
QUIT = ("quit", "q", "exit")


class AnswerError(ValueError):
    """An answer that cannot be right: the message says why."""


@dataclass(frozen=True)
class Position:
    """A game in progress: the node whose guess is asked, and the answers so far as
    ``(guess, feedback)`` pairs; ``solved`` once the last answer was the win."""

    node: int = 0
    history: tuple[tuple[int, int], ...] = ()
    solved: bool = False


def asked_guess(tree: Tree, pos: Position) -> int:
    """The guess the breaker makes at this position."""
    return int(tree.guess[pos.node])


def parse_answer(game: Game, text: str) -> int:
    """A feedback typed as ``1B 2W`` (``1B 2C`` in Bulls and Cows), ``1,2`` or ``1 2``."""
    try:
        return game.parse_feedback(text)
    except ValueError:
        raise AnswerError(f"{text.strip()!r} is not an answer: type {game.feedback_help}") from None


def answer(tree: Tree, pos: Position, fb: int) -> Position:
    """The position after answering ``fb`` to the asked guess; raises :class:`AnswerError`
    when no secret code gives that answer after the earlier ones."""
    game = tree.game
    guess = asked_guess(tree, pos)
    history = (*pos.history, (guess, fb))
    if fb == game.win and tree.terminal[pos.node]:
        return Position(pos.node, history, solved=True)
    child = -1 if fb == game.win else int(tree.child_table[pos.node, fb])
    if child >= 0:
        return Position(child, history)
    said = game.format_feedback(fb)
    if not (game.feedback_row(guess) == fb).any():
        raise AnswerError(
            f"no code at all answers {said} to {game.format_code(guess)}: "
            "check your last answer and type it again"
        )
    raise AnswerError(
        f"no secret code is consistent with the answers so far; check your last answer "
        f"({said} to {game.format_code(guess)}), or type 'undo' to change an earlier one"
    )


def prompt_text(tree: Tree, pos: Position) -> str:
    """``Guess 1: 1122 — your feedback (black,white)? ``"""
    guess = tree.game.format_code(asked_guess(tree, pos))
    return f"Guess {len(pos.history) + 1}: {guess} — your feedback ({tree.game.feedback_prompt})? "


def solved_text(tree: Tree, pos: Position) -> str:
    """``Solved in K guesses: XXXX``."""
    k = len(pos.history)
    code = tree.game.format_code(pos.history[-1][0])
    return f"Solved in {k} guess{'es' if k != 1 else ''}: {code}"


def secret_lines(tree: Tree, code: int) -> list[str]:
    """The game path of a secret, one line per guess, ending with the solved line."""
    game = tree.game
    nodes = tree.path(tree.node_of_code(code))
    lines = [f"Secret {game.format_code(code)}"]
    for k, (guess, fb) in enumerate(tree.play(code), 1):
        line = f"Guess {k}: {game.format_code(guess)} → {game.format_feedback(fb)}"
        if k < len(nodes):
            left = int(tree.count[nodes[k]])
            line += f" ({left} code{'s' if left != 1 else ''} still possible)"
        lines.append(line)
    pos = Position(nodes[-1], tuple(tree.play(code)), solved=True)
    lines.append(solved_text(tree, pos))
    return lines


def play_loop(
    tree: Tree, *, read: Callable[[str], str | None], write: Callable[[str], None]
) -> Position:
    """Ask each guess with ``read(prompt)`` (None: input ended) until the win, writing
    messages with ``write``; returns the final position (``solved`` or not)."""
    pos = Position()
    positions = [pos]
    while not pos.solved:
        text = read(prompt_text(tree, pos))
        if text is None:
            write("Input ended before the secret was found.")
            return pos
        word = text.strip().lower()
        if word in QUIT:
            write("Game left.")
            return pos
        if word in UNDO:
            if len(positions) > 1:
                positions.pop()
                pos = positions[-1]
            else:
                write("Nothing to undo: this is the first guess.")
            continue
        try:
            pos = answer(tree, pos, parse_answer(tree.game, text))
        except AnswerError as e:
            write(str(e))
            continue
        positions.append(pos)
    write(solved_text(tree, pos))
    return pos
