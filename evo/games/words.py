"""Wordle, the family of word games (docs/DESIGN.md §1): the original game's 2,315 answers
are the secrets, its 12,972 allowed guesses the guesses, and its colours the feedback;
its two word lists, the feedback's written forms, and hard mode's rule.

**Ids.** Secret ``i`` is the ``i``-th answer in alphabetical order; the guesses are the
answers (so guess ``i < 2315`` is secret ``i``), then the 10,657 other allowed words,
alphabetically. Feedback ids are the colours read in base 3 (green 0, yellow 1, grey 2,
first letter most significant): ``GGGGG`` is 0, the win, and ``BBBBB`` 242; 238 of the
243 occur. The ``(12972, 2315)`` table (30 MB) is always kept, with its transpose: the
feedback is not symmetric (SPEED against ABIDE is not ABIDE against SPEED, and most
guesses are no secret), so the kernels read the pair.

**Hard mode** (``wordle-hard``): every guess uses what earlier feedback revealed, each
green again in its place and each letter shown green or yellow ``n`` times in a guess
at least ``n`` times (:class:`HardRule`, the game's rule and that of the published
optimum, :func:`hard_mode_mask`). It is a kind of its own rather than an
option of ``wordle``: ``--game`` and a config's ``game.kind`` name it alone, its runs,
caches and files are told from normal mode's by name, and no other game has a use for
the option.

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

import functools
import hashlib
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import path_argument
from evo.core.game import GuessRule, TabledGame, memory_estimate
from evo.core.kinds import WORDLE_KINDS

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


class WordleGame(TabledGame):
    """Wordle, normal (``hard`` False) or hard mode. Make it with :func:`wordle_game`
    (one per process and mode: the table is built once, in about a second).

    >>> from evo.games.words import wordle_game
    >>> game = wordle_game()
    >>> game.num_codes, game.num_guesses, game.num_feedbacks, game.name
    (2315, 12972, 243, 'wordle')
    >>> game.format_feedback(game.feedback(game.parse_code("speed"), game.parse_code("abide")))
    'BBYBY'
    """

    use_table = True

    def __init__(self, hard: bool = False, cache: str | None = None):
        self.hard = bool(hard)
        #: Where its baselines are kept between processes (None: nowhere), as a
        #: Mastermind game's (:mod:`evo.baselines.cache`); its table is built each time.
        self.cache = cache
        self.words: tuple[str, ...] = _guess_order()
        self._answers = len(load_words().answers)
        self._rule = HardRule(self) if self.hard else None

    # ---------------------------------------------------------------- identity
    @property
    def kind(self) -> str:
        return WORDLE_KINDS[self.hard]

    @property
    def num_codes(self) -> int:
        return self._answers

    @property
    def num_guesses(self) -> int:
        return len(self.words)

    @property
    def num_feedbacks(self) -> int:
        return FEEDBACKS

    @property
    def name(self) -> str:
        return self.kind

    @property
    def key(self) -> tuple:
        return (self.kind,)

    @property
    def spec(self) -> dict[str, Any]:
        """``{"kind": "wordle"}`` or ``{"kind": "wordle-hard"}`` (the lists are the
        shipped ones, checked by their digests when read)."""
        return {"kind": self.kind}

    @property
    def description(self) -> str:
        mode = ", hard mode" if self.hard else ""
        return f"Wordle{mode} ({self.num_codes:,} answers, {self.num_guesses:,} guesses)"

    @property
    def rule(self) -> HardRule | None:
        """Hard mode's rule (None in normal mode)."""
        return self._rule

    def __repr__(self) -> str:
        return f"WordleGame(hard={self.hard})"

    def __reduce__(self):
        # A worker process makes its own (the lists ship with evo), once per mode.
        return (wordle_game, (self.hard, self.cache))

    def memory_need(self, trees: int = 1, *, memory: int | None = None) -> tuple[int, bool]:
        """The table and its transpose, the letters, and ``trees`` trees; the table is
        always kept (a Wordle game has no other source of feedbacks)."""
        need, _ = memory_estimate(
            self.num_codes, self.num_guesses, trees=trees, memory=None, per_code=0
        )
        return need + self.num_codes * self.num_guesses, True

    # ---------------------------------------------------------------- codes
    def format_code(self, code: int) -> str:
        """The word in capitals: ``SALET``."""
        return self.words[int(code)].upper()

    def format_codes(self, codes: np.ndarray) -> list[str]:
        return [self.words[int(c)].upper() for c in np.asarray(codes).ravel()]

    @cached_property
    def _ids(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def parse_code(self, text: str) -> int:
        """The id of a word allowed as a guess (any case, spaces around ignored)."""
        word = str(text).strip().lower()
        hit = self._ids.get(word)
        if hit is None:
            if len(word) != LENGTH or not (word.isascii() and word.isalpha()):
                raise ValueError(f"{text!r} is not a {LENGTH}-letter word")
            raise ValueError(f"{text!r} is not in Wordle's list of allowed guesses")
        return hit

    @property
    def code_help(self) -> str:
        return "a five-letter word that Wordle allows, such as SALET"

    @property
    def secret_help(self) -> str:
        return f"one of Wordle's {self.num_codes:,} answers, such as CIGAR"

    def is_answer(self, code: int) -> bool:
        """Whether a guess is one of the answers (a possible secret)."""
        return 0 <= int(code) < self._answers

    # ------------------------------------------------------------ feedbacks
    def format_feedback(self, fb: int) -> str:
        """``GYBBY``: G green, Y yellow, B grey (a black square), first letter first."""
        return format_feedback(int(fb))

    def squares(self, fb: int) -> str:
        """A feedback as the game's squares: 🟩🟨⬛⬛🟨."""
        return format_feedback(int(fb), squares=True)

    def parse_feedback(self, text: str) -> int:
        """Five of G, Y, B (any case), of the game's squares 🟩 🟨 ⬛ (⬜ too) or of the
        digits 2 (green), 1 (yellow), 0 (grey)."""
        return parse_feedback(str(text))

    @property
    def feedback_prompt(self) -> str:
        return "colours"

    @property
    def feedback_help(self) -> str:
        return (
            "the colours, first letter first: G green, Y yellow, B grey (such as BBYGB), "
            "the squares 🟩🟨⬛, or 2 green, 1 yellow, 0 grey (such as 0 0 1 2 0)"
        )

    @cached_property
    def letters(self) -> np.ndarray:
        """``(G, 5)`` uint8 letters (a = 0) of every guess."""
        return letters(self.words)

    @property
    def table(self) -> np.ndarray:
        """The ``(G, M)`` uint8 table, read-only (built in about a second, once per
        process: both modes and every cache share it)."""
        return _table()


class HardRule(GuessRule):
    """Wordle's hard mode as a rule on guesses. The state is what the feedback revealed
    (:func:`evo.games.words.revealed`): the green letter of each place (-1 where none),
    and the least count of each letter, the most shown green or yellow in one guess; a
    guess is legal when :func:`evo.games.words.hard_mode_allows` it (the AND of
    :func:`~evo.games.words.hard_mode_mask` over the history)."""

    def __init__(self, game: WordleGame):
        self._letters = game.letters
        self._legal: dict[Hashable, np.ndarray] = {}

    def start(self) -> tuple:
        return ((-1,) * LENGTH, (0,) * 26)

    def after(self, state: Hashable, guess: int, feedback: int) -> tuple:
        assert isinstance(state, tuple)
        greens, least = revealed(self._letters[int(guess)], int(feedback))
        merged = tuple(b if b >= 0 else a for a, b in zip(state[0], greens))
        return (merged, tuple(max(a, b) for a, b in zip(state[1], least)))

    def legal(self, state: Hashable) -> np.ndarray:
        hit = self._legal.get(state)
        if hit is None:
            assert isinstance(state, tuple)
            hit = hard_mode_allows(self._letters, *state)
            hit.setflags(write=False)
            if len(self._legal) > 1 << 14:
                self._legal.clear()
            self._legal[state] = hit
        return hit


@functools.cache
def _guess_order() -> tuple[str, ...]:
    """The guesses by id: the answers, then the other allowed words (the module's ids)."""
    words = load_words()
    answers = set(words.answers)
    return words.answers + tuple(w for w in words.guesses if w not in answers)


@functools.cache
def _table() -> np.ndarray:
    """The ``(G, M)`` table of the shipped lists, read-only, built once per process."""
    t = feedback_table(_guess_order(), load_words().answers)
    t.setflags(write=False)
    return t


_GAMES: dict[tuple[bool, str | None], WordleGame] = {}


def wordle_game(hard: bool = False, cache: str | os.PathLike | None = None) -> WordleGame:
    """The Wordle game of this process (normal or ``hard`` mode) whose baselines are kept
    in ``cache`` (None: nowhere): made once, its table shared."""
    root = None if cache is None else str(path_argument(cache, what="cache"))
    key = (bool(hard), root)
    if key not in _GAMES:
        _GAMES[key] = WordleGame(hard, root)
    return _GAMES[key]


# ---------------------------------------------------------------- the family's functions
def make(
    pegs: int | str, colors: int, kind: str, *, cache: str | os.PathLike | None = None, **_: Any
) -> WordleGame:
    """The game :func:`evo.core.game.make_game` asks for by name (its words are fixed:
    ``pegs``, ``colors`` and the options but ``cache`` do not apply)."""
    return wordle_game(kind == "wordle-hard", cache)


def from_spec(
    spec: Mapping[str, Any], *, cache: str | os.PathLike | None = None, **_: Any
) -> WordleGame:
    """The game of ``{"kind": "wordle"}`` or ``{"kind": "wordle-hard"}`` (``cache``: see
    :func:`wordle_game`)."""
    kind = spec.get("kind")
    if kind not in WORDLE_KINDS:
        raise ValueError(f"game.kind should be one of {', '.join(WORDLE_KINDS)}, not {kind!r}")
    return wordle_game(kind == "wordle-hard", cache)


def spec_key(spec: Mapping[str, Any]) -> tuple:
    """``(kind,)``: a word game is named by its kind alone."""
    return (spec.get("kind", spec.get("variant")),)


def spec_text(key: tuple) -> str:
    """``Wordle`` or ``Wordle in hard mode``."""
    return "Wordle" + (" in hard mode" if key[0] == "wordle-hard" else "")
