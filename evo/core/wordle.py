"""Wordle's rules: its two word lists, its feedback, the feedback's written forms, and
which guesses hard mode allows after a history (issue 53).

**The feedback** of a guess against a secret gives each of the 5 letters a colour, by the
game's rule for repeated letters: the greens first (the letters in place), then, from
left to right, a letter is yellow while the secret still has copies of it that no green
and no earlier yellow has matched, and grey otherwise. Guess SPEED against ABIDE: no
green; the first E is yellow (ABIDE has one E), the second grey (that E is taken), the D
yellow: grey grey yellow grey yellow.

**Its integer** (0 .. 242, so a table of them is uint8) reads the colours as a base-3
number, first letter most significant, with green 0, yellow 1, grey 2::

    feedback = sum(colour[p] * 3 ** (4 - p) for p in range(5))

so all green (the win) is 0, like every evo game's win, and all grey is 242; SPEED
against ABIDE is ``22121`` in base 3, 232. Written, a feedback is five letters G, Y, B
(B for grey, the game's black squares in dark mode), ``"BBYBY"``, or the game's squares
🟩 🟨 ⬛. (Selby's program numbers them the other way: grey 0, yellow 1, green 2, first
letter least significant.)

**Hard mode** (the game's own, and the rule of the published hard-mode optimum): every
guess after the first must use what earlier feedback revealed. A green letter must be
guessed again in its place; a letter that came back green or yellow ``n`` times in one
earlier guess must appear at least ``n`` times. Nothing else is required: grey letters
may be guessed again, a yellow letter may stay where it was, and a guess need not be a
possible secret. See :func:`hard_mode_mask`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

#: Letters in a word.
LENGTH = 5

#: Number of feedbacks: 3 colours in each of 5 places (5 of them, four greens and one
#: yellow, never happen).
FEEDBACKS = 3**LENGTH

#: The feedback of a guess that is the secret (all green).
WIN = 0

GREEN, YELLOW, GREY = 0, 1, 2

#: SHA-256 of the shipped files (their README says where they come from).
ANSWERS_SHA256 = "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee"
GUESSES_SHA256 = "feacc549249b5dcb43e2799fbbcda14ebc33d55904fb15d043779104e60c1579"

#: How many words of each list the game has.
ANSWER_COUNT = 2315
GUESS_COUNT = 12972

#: Powers of 3 by place: the weight of each letter's colour in the feedback integer.
_PLACE = 3 ** np.arange(LENGTH - 1, -1, -1, dtype=np.int64)

#: Written colours: the letters G Y B, the game's squares (with the light theme's grey
#: and the high-contrast theme's orange and blue read too), and the digits most solvers
#: print, 2 green, 1 yellow, 0 grey (the reverse of the ids: they count what matched).
_LETTERS = "GYB"
_SQUARES = "🟩🟨⬛"
_READ = {
    **{c: i for i, c in enumerate(_LETTERS)},
    **{c: i for i, c in enumerate(_LETTERS.lower())},
    **{c: i for i, c in enumerate(_SQUARES)},
    "⬜": GREY,
    "🟧": GREEN,
    "🟦": YELLOW,
    "2": GREEN,
    "1": YELLOW,
    "0": GREY,
}

#: Guesses per block of the table: about 0.6 M entries, so that each temporary stays in cache.
_BLOCK = 256


class WordListError(ValueError):
    """A word list file that is not one lowercase five-letter word a line, or a shipped list
    that is not the one evo was released with."""


@dataclass(frozen=True)
class WordLists:
    """Wordle's words: ``answers`` can be the secret, ``guesses`` can be guessed (the
    answers among them); both in alphabetical order."""

    answers: tuple[str, ...]
    guesses: tuple[str, ...]


def read_words(path: Path | str) -> tuple[str, ...]:
    """The words of a list file, one lowercase five-letter word a line, in file order;
    WordListError naming the file and line of the first bad one, or of a repeated one."""
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as e:
        raise WordListError(f"{path}: cannot read a word list ({e})") from e
    words = text.splitlines()
    seen: dict[str, int] = {}
    for number, word in enumerate(words, 1):
        if len(word) != LENGTH or not (word.isascii() and word.isalpha() and word.islower()):
            raise WordListError(
                f"{path}:{number}: {word!r} is not a lowercase {LENGTH}-letter word"
            )
        if word in seen:
            raise WordListError(f"{path}:{number}: {word!r} repeats line {seen[word]}")
        seen[word] = number
    return tuple(words)


def _shipped(name: str, digest: str) -> tuple[str, ...]:
    """A shipped list, after checking its file's SHA-256."""
    folder = resources.files("evo").joinpath("data").joinpath("wordle")
    path = Path(str(folder.joinpath(name)))
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    if found != digest:
        raise WordListError(
            f"{path}: SHA-256 {found} is not the shipped list's {digest} "
            "(the file was changed; reinstall evo)"
        )
    return read_words(path)


@cache
def load_words() -> WordLists:
    """The original game's 2,315 answers and 12,972 allowed guesses, as shipped in
    ``evo/data/wordle`` (its README gives their source), checked against their digests."""
    answers = _shipped("answers.txt", ANSWERS_SHA256)
    guesses = _shipped("guesses.txt", GUESSES_SHA256)
    return WordLists(answers=answers, guesses=guesses)


def letters(words: Sequence[str], *, what: str = "word") -> np.ndarray:
    """``(n, 5)`` uint8 letter numbers (a = 0 .. z = 25) of five-letter words (any case);
    ValueError naming the first word that is not five letters a-z."""
    text = "".join(words).lower()
    bad = len(text) != LENGTH * len(words) or not (text.isascii() and text.isalpha())
    if bad:
        for word in words:
            if len(word) != LENGTH or not (word.isascii() and word.isalpha()):
                raise ValueError(f"{what} {word!r} is not {LENGTH} letters a-z")
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8) - np.uint8(ord("a"))
    return codes.reshape(len(words), LENGTH)


def feedback_table(guesses: Sequence[str], answers: Sequence[str]) -> np.ndarray:
    """The ``(len(guesses), len(answers))`` uint8 table of feedback integers (module
    docstring), vectorised over blocks of guesses.

    A letter of the guess that is not green is yellow when fewer of its copies stand
    before it in the guess than the secret has copies left unmatched; a copy of the
    secret is unmatched unless a green holds it. So for place ``p`` of letter ``c``: yellow
    iff not green and ``before(p) + greens of c after p < copies of c in the secret``,
    where ``before(p)`` counts the earlier copies of ``c`` in the guess (each consumed a
    copy of the secret, green or yellow, or found none left) and the greens of ``c``
    before ``p`` are among them."""
    g = letters(guesses, what="guess")
    a = letters(answers, what="answer")
    table = np.empty((len(g), len(a)), dtype=np.uint8)
    # copies[j, c]: how many times letter c is in answer j.
    copies = np.zeros((len(a), 26), dtype=np.int8)
    for p in range(LENGTH):
        np.add.at(copies, (np.arange(len(a)), a[:, p]), 1)
    for start in range(0, len(g), _BLOCK):
        block = g[start : start + _BLOCK]
        table[start : start + len(block)] = _block_feedback(block, a, copies)
    return table


def _block_feedback(g: np.ndarray, a: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """The feedback of a block of guesses (letters ``(b, 5)``) against all answers."""
    green = g[:, None, :] == a[None, :, :]  # (b, n, 5)
    same = g[:, :, None] == g[:, None, :]  # (b, 5, 5): same letter at places q and p
    code = np.zeros(green.shape[:2], dtype=np.uint8)
    for p in range(LENGTH):
        before = same[:, :p, p].sum(axis=1).astype(np.int8)  # (b,): earlier copies
        used = np.broadcast_to(before[:, None], code.shape).copy()
        for q in range(p + 1, LENGTH):
            rows = np.flatnonzero(same[:, q, p])
            if rows.size:
                used[rows] += green[rows, :, q]
        have = copies[:, g[:, p]].T  # (b, n): copies of this letter in each answer
        # grey 2, yellow 1 (a copy left), green 0, times the place's weight
        colour = np.uint8(GREY) - (used < have).view(np.uint8)
        colour[green[:, :, p]] = GREEN
        code += colour * np.uint8(_PLACE[p])
    return code


def feedback(guess: str, answer: str) -> int:
    """The feedback integer of one guess against one secret (:func:`feedback_table`'s)."""
    return int(feedback_table([guess], [answer])[0, 0])


def colours(value: int) -> tuple[int, ...]:
    """The five colours (GREEN, YELLOW, GREY) of a feedback integer, first letter first."""
    if not 0 <= value < FEEDBACKS:
        raise ValueError(f"{value!r} is not a Wordle feedback (0 to {FEEDBACKS - 1})")
    return tuple(int(value) // 3 ** (LENGTH - 1 - p) % 3 for p in range(LENGTH))


def format_feedback(value: int, *, squares: bool = False) -> str:
    """A feedback integer written as ``"GYBBY"``, or as the game's squares 🟩🟨⬛⬛🟨 when
    ``squares``."""
    symbols = _SQUARES if squares else _LETTERS
    return "".join(symbols[c] for c in colours(value))


def parse_feedback(text: str) -> int:
    """The feedback integer of a written feedback: five of G, Y, B (any case), of the
    game's squares (🟩 🟨 ⬛, light theme ⬜, high contrast 🟧 🟦) or of the digits 2
    (green), 1 (yellow), 0 (grey), spaces ignored; ValueError naming the text otherwise."""
    marks = [c for c in text if not c.isspace() and c != "\ufe0f"]
    if len(marks) != LENGTH or any(c not in _READ for c in marks):
        raise ValueError(
            f"{text!r} is not a Wordle feedback: {LENGTH} of G (green), Y (yellow), "
            "B (grey), of the squares 🟩 🟨 ⬛, or of 2 (green), 1 (yellow), 0 (grey)"
        )
    return int(sum(_READ[c] * int(w) for c, w in zip(marks, _PLACE)))


def hard_mode_mask(words: Sequence[str], previous: str, value: int) -> np.ndarray:
    """Which of ``words`` hard mode allows after ``previous`` got feedback ``value``: bool
    per word. The rule (Wordle's hard mode, and the rule of Selby's hard-mode optimum):
    each green letter of ``previous`` again in its place, and each letter that came back
    green or yellow ``n`` times in ``previous`` at least ``n`` times in the word."""
    (prev,) = letters([previous], what="guess")
    greens, least = revealed(prev, value)
    return hard_mode_allows(letters(words), greens, least)


def revealed(previous: np.ndarray, value: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What feedback ``value`` to a guess of letters ``previous`` (5 letter numbers)
    revealed, as hard mode reads it: the green letter of each place (-1 where none), and
    the least count of each of the 26 letters (its copies shown green or yellow)."""
    shown = np.array(colours(value))
    prev = np.asarray(previous, dtype=np.int64)
    greens = tuple(int(c) if s == GREEN else -1 for c, s in zip(prev, shown))
    least = np.bincount(prev[shown != GREY], minlength=26)
    return greens, tuple(int(n) for n in least)


def hard_mode_allows(words: np.ndarray, greens: Sequence[int], least: Sequence[int]) -> np.ndarray:
    """Which words (letters ``(n, 5)``) hard mode allows once ``greens`` (a letter per
    place, -1 for none) and ``least`` (a count per letter) are revealed: bool per word."""
    ok = np.ones(len(words), dtype=bool)
    for p, c in enumerate(greens):
        if c >= 0:
            ok &= words[:, p] == c
    for c, n in enumerate(least):
        if n:
            ok &= (words == c).sum(axis=1) >= n
    return ok


def hard_mode_legal(guess: str, history: Sequence[tuple[str, int]]) -> bool:
    """Whether hard mode allows ``guess`` after ``history``, the earlier (guess, feedback
    integer) pairs: :func:`hard_mode_mask` against each of them. (The game checks the
    last one only, which is the same for a history of allowed guesses: each allowed guess
    keeps the greens and the counts of the one before.)"""
    return all(bool(hard_mode_mask([guess], g, f)[0]) for g, f in history)
