"""Wordle as an evo game (docs/DESIGN.md §1): the original game's 2,315 answers are the
secrets, its 12,972 allowed guesses the guesses, and its colours the feedback
(:mod:`evo.core.wordle` holds the lists and the rules).

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
optimum, :func:`evo.core.wordle.hard_mode_mask`). It is a kind of its own rather than an
option of ``wordle``: ``--game`` and a config's ``game.kind`` name it alone, its runs,
caches and files are told from normal mode's by name, and no other game has a use for
the option.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Hashable
from functools import cached_property
from typing import Any

import numpy as np

from evo.core.files import path_argument
from evo.core.game import GuessRule, TabledGame, memory_estimate
from evo.core.kinds import WORDLE_KINDS
from evo.core.wordle import (
    FEEDBACKS,
    LENGTH,
    feedback_table,
    format_feedback,
    hard_mode_allows,
    letters,
    load_words,
    parse_feedback,
    revealed,
)


class WordleGame(TabledGame):
    """Wordle, normal (``hard`` False) or hard mode. Make it with :func:`wordle_game`
    (one per process and mode: the table is built once, in about a second).

    >>> from evo.core.wordle_game import wordle_game
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
    (:func:`evo.core.wordle.revealed`): the green letter of each place (-1 where none),
    and the least count of each letter, the most shown green or yellow in one guess; a
    guess is legal when :func:`evo.core.wordle.hard_mode_allows` it (the AND of
    :func:`~evo.core.wordle.hard_mode_mask` over the history)."""

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


def wordle_from_spec(
    spec: dict[str, Any] | Any, *, cache: str | os.PathLike | None = None, **_: Any
) -> WordleGame:
    """The game of ``{"kind": "wordle"}`` or ``{"kind": "wordle-hard"}`` (``cache``: see
    :func:`wordle_game`)."""
    kind = spec.get("kind")
    if kind not in WORDLE_KINDS:
        raise ValueError(f"game.kind should be one of {', '.join(WORDLE_KINDS)}, not {kind!r}")
    return wordle_game(kind == "wordle-hard", cache)
