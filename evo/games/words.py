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

**Other word lists** (:func:`wordle_game` ``answers=``/``guesses=``, ``--answers FILE
--guesses FILE``): any answers and guesses of five letters a-z, the answers among the
guesses (:func:`read_word_list` says what a list file may hold). Each list is sorted, so
the ids follow the same rule; the game is named by a SHA-256 of both sorted lists (its
:attr:`~WordleGame.key`, its ``name`` ``wordle-<12 digits>``, its spec's ``digest``), so
that a tree, a certificate, a cache file or a known optimum of one pair of lists is
never taken for another's; lists equal to the shipped ones, as sets, are the shipped game.

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

import hashlib
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import path_argument
from evo.core.game import GuessRule, TabledGame, UnknownGameError, memory_estimate
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


#: Lists of at most this many guesses (answers included) are written whole into the
#: game's spec, so that a tree file or certificate of them names its game alone; longer
#: lists are named by their digest and file names, and given again to read the file.
SPEC_WORDS_UP_TO = 1000


class WordListError(ValueError):
    """A word list that is not one five-letter word a line (naming the file and line), or a
    shipped list that is not the one evo was released with."""


@dataclass(frozen=True)
class WordLists:
    """Wordle's words: ``answers`` can be the secret, ``guesses`` can be guessed (the
    answers among them); both in alphabetical order. ``answers_file`` and
    ``guesses_file``: the names of the files they were read from (None: the shipped
    list, or given in Python), which name the lists in messages and specs only."""

    answers: tuple[str, ...]
    guesses: tuple[str, ...]
    answers_file: str | None = field(default=None, compare=False)
    guesses_file: str | None = field(default=None, compare=False)

    @cached_property
    def digest(self) -> str:
        """SHA-256 (hex) of both sorted lists: what names the game they make."""
        h = hashlib.sha256()
        for title, words in (("answers", self.answers), ("guesses", self.guesses)):
            h.update(f"{title} {len(words)}\n".encode("ascii"))
            h.update("\n".join(sorted(words)).encode("ascii"))
            h.update(b"\n")
        return h.hexdigest()

    @property
    def standard(self) -> bool:
        """Whether these are the shipped lists (as sets: the same game)."""
        return self.digest == load_words().digest

    @property
    def names(self) -> str:
        """The lists' files in a few words (``a.txt and g.txt``), or "lists given"."""
        if self.answers_file is None and self.guesses_file is None:
            return "lists given"
        a = self.answers_file or "the shipped answers"
        g = self.guesses_file or "the shipped guesses"
        return f"{a} and {g}"


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


#: Where a word of a list was given: ``(file name or None, line or index)``.
_Place = tuple[str | None, int]


def _where(place: _Place, what: str) -> str:
    """``answers.txt:12`` for a file's line, ``answers[11]`` for a Python list's item."""
    name, at = place
    return f"{name}:{at}" if name is not None else f"{what}[{at}]"


def _checked(items: Sequence[tuple[_Place, str]], *, what: str, source: str) -> dict[str, _Place]:
    """The words of a list given (its items with where each was: blank ones skipped),
    case-folded to lowercase, by word, with where each was; WordListError naming the
    place of the first bad one: not letters a-z, not five of them, or repeated."""
    words: dict[str, _Place] = {}
    for place, text in items:
        raw = text.strip()
        if not raw:
            continue
        word = raw.lower()
        at = _where(place, what)
        if not (word.isascii() and word.isalpha()):
            raise WordListError(f"{at}: {raw!r} is not a word of letters a-z")
        if len(word) != LENGTH:
            raise WordListError(
                f"{at}: {raw!r} has {len(word)} letters, not {LENGTH} (Wordle's words are "
                f"{LENGTH} letters)"
            )
        if word in words:
            first = words[word][1]
            again = f"line {first}" if place[0] is not None else f"{what}[{first}]"
            raise WordListError(f"{at}: {raw!r} repeats {again} (case aside)")
        words[word] = place
    if not words:
        raise WordListError(f"{source}: no words (an empty {what} list)")
    return words


def read_word_list(path: str | os.PathLike, *, what: str = "words") -> dict[str, _Place]:
    """The words of a list file, one word a line, by word (lowercase, in file order) with
    their line: letters a-z in any case (folded to lowercase, so ``Cigar`` and ``cigar``
    are one word, repeated), spaces around a word and blank lines ignored, UTF-8 or ASCII;
    WordListError, one line naming the file and line, for anything else: a word not of
    letters a-z or not of five, a word repeated, a file that cannot be read or holds no
    word. ``what``: the list's name in messages (``answers``, ``guesses``)."""
    name = os.fspath(path)
    try:
        data = Path(name).read_bytes()
    except OSError as e:
        raise WordListError(f"{name}: cannot read the {what} list ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise WordListError(f"{name}:{line}: not UTF-8 text (byte {e.start})") from None
    lines = text.splitlines()
    return _checked([((name, n), w) for n, w in enumerate(lines, 1)], what=what, source=name)


def word_lists(
    answers: str | os.PathLike | Sequence[str] | None = None,
    guesses: str | os.PathLike | Sequence[str] | None = None,
) -> WordLists:
    """The lists of a Wordle game: each a file's path (:func:`read_word_list`), a sequence
    of words (any case), or None for the shipped list; the answers must all be guesses.
    WordListError, one line naming the file and line (or the item), for a bad list."""
    shipped = load_words()
    found: list[tuple[dict[str, _Place] | None, str | None]] = []
    for given, what in ((answers, "answers"), (guesses, "guesses")):
        if given is None:
            found.append((None, None))
        elif isinstance(given, str | os.PathLike):
            found.append((read_word_list(given, what=what), os.path.basename(os.fspath(given))))
        elif isinstance(given, Sequence) and all(isinstance(w, str) for w in given):
            items = [((None, i), w) for i, w in enumerate(given)]
            found.append((_checked(items, what=what, source=what), None))
        else:
            raise WordListError(
                f"{what} should be a file's path or a sequence of words, not {given!r}"
            )
    (a, a_file), (g, g_file) = found
    answer_words = tuple(sorted(a)) if a is not None else shipped.answers
    guess_words = tuple(sorted(g)) if g is not None else shipped.guesses
    allowed = set(guess_words)
    for word in answer_words:
        if word not in allowed:
            at = _where(a[word], "answers") if a is not None else f"the shipped answer {word!r}"
            in_guesses = g_file or ("the guesses given" if g is not None else "the shipped guesses")
            raise WordListError(
                f"{at}: {word!r} is not among {in_guesses} (every answer must be a guess)"
            )
    return WordLists(answer_words, guess_words, a_file, g_file)


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
    """Wordle, normal (``hard`` False) or hard mode, on the shipped word lists or on
    ``lists`` of its own. Make it with :func:`wordle_game` (one per process, mode and
    lists: the table is built once, in about a second).

    >>> from evo.games.words import wordle_game
    >>> game = wordle_game()
    >>> game.num_codes, game.num_guesses, game.num_feedbacks, game.name
    (2315, 12972, 243, 'wordle')
    >>> game.format_feedback(game.feedback(game.parse_code("speed"), game.parse_code("abide")))
    'BBYBY'
    """

    use_table = True

    def __init__(
        self, hard: bool = False, cache: str | None = None, lists: WordLists | None = None
    ):
        self.hard = bool(hard)
        #: Where its baselines are kept between processes (None: nowhere), as a
        #: Mastermind game's (:mod:`evo.baselines.cache`); its table is built each time.
        self.cache = cache
        #: Its word lists (the shipped ones unless others were given).
        self.lists: WordLists = load_words() if lists is None else lists
        #: Whether they are the shipped lists (as sets): the game the records name.
        self.standard = self.lists.standard
        self.words: tuple[str, ...] = _guess_order(self.lists)
        self._answers = len(self.lists.answers)
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
        """``wordle`` or ``wordle-hard``; on other lists, with the first 12 digits of
        their digest: ``wordle-3f2a...`` (its caches' folder)."""
        return self.kind if self.standard else f"{self.kind}-{self.lists.digest[:12]}"

    @property
    def key(self) -> tuple:
        """``(kind,)``; on other lists ``(kind, digest)``."""
        return (self.kind,) if self.standard else (self.kind, self.lists.digest)

    @property
    def spec(self) -> dict[str, Any]:
        """``{"kind": "wordle"}`` or ``{"kind": "wordle-hard"}`` for the shipped lists
        (checked by their digests when read). Other lists add their ``digest`` (SHA-256 of
        both sorted lists), their sizes and files' names and, up to
        :data:`SPEC_WORDS_UP_TO` guesses, the ``words`` themselves."""
        if self.standard:
            return {"kind": self.kind}
        lists = self.lists
        spec: dict[str, Any] = {
            "kind": self.kind,
            "digest": lists.digest,
            "answers": len(lists.answers),
            "guesses": len(lists.guesses),
            "answers_file": lists.answers_file,
            "guesses_file": lists.guesses_file,
        }
        if len(lists.guesses) <= SPEC_WORDS_UP_TO:
            spec["words"] = {"answers": list(lists.answers), "guesses": list(lists.guesses)}
        return spec

    @property
    def description(self) -> str:
        mode = ", hard mode" if self.hard else ""
        of = "" if self.standard else f" of {self.lists.names}"
        return f"Wordle{mode} ({self.num_codes:,} answers, {self.num_guesses:,} guesses{of})"

    @property
    def rule(self) -> HardRule | None:
        """Hard mode's rule (None in normal mode)."""
        return self._rule

    def __repr__(self) -> str:
        lists = "" if self.standard else f", lists={self.lists.digest[:12]}"
        return f"WordleGame(hard={self.hard}{lists})"

    def __reduce__(self):
        # A worker process makes its own (the shipped lists ship with evo; others are
        # sent), once per mode and lists.
        if self.standard:
            return (wordle_game, (self.hard, self.cache))
        return (_game_of, (self.hard, self.cache, self.lists))

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
            where = (
                "Wordle's list of allowed guesses"
                if self.standard
                else f"the allowed guesses ({self.lists.guesses_file or 'the list given'})"
            )
            raise ValueError(f"{text!r} is not in {where}")
        return hit

    @property
    def code_help(self) -> str:
        if self.standard:
            return "a five-letter word that Wordle allows, such as SALET"
        return f"a five-letter word that the game allows, such as {self.format_code(0)}"

    @property
    def secret_help(self) -> str:
        if self.standard:
            return f"one of Wordle's {self.num_codes:,} answers, such as CIGAR"
        return f"one of the game's {self.num_codes:,} answers, such as {self.format_code(0)}"

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
        process and lists: both modes and every cache share it)."""
        return _table(self.lists)


class HardRule(GuessRule):
    """Wordle's hard mode as a rule on guesses. The state is what the feedback revealed
    (:func:`evo.games.words.revealed`): the green letter of each place (-1 where none),
    and the least count of each letter, the most shown green or yellow in one guess; a
    guess is legal when :func:`evo.games.words.hard_mode_allows` it (the AND of
    :func:`~evo.games.words.hard_mode_mask` over the history). It narrows: each step ANDs
    one more mask, so a longer history allows a subset of what its prefixes allow."""

    narrows = True

    def __init__(self, game: WordleGame):
        self._letters = game.letters
        self._legal: dict[Hashable, np.ndarray] = {}
        #: The state after each (state, guess, feedback): searches walk the same steps
        #: from the same states many times (each set's key walks its history).
        self._after: dict[tuple, tuple] = {}

    def start(self) -> tuple:
        return ((-1,) * LENGTH, (0,) * 26)

    def after(self, state: Hashable, guess: int, feedback: int) -> tuple:
        assert isinstance(state, tuple)
        step = (state, int(guess), int(feedback))
        hit = self._after.get(step)
        if hit is None:
            greens, least = revealed(self._letters[step[1]], step[2])
            merged = tuple(b if b >= 0 else a for a, b in zip(state[0], greens))
            hit = (merged, tuple(max(a, b) for a, b in zip(state[1], least)))
            if len(self._after) > 1 << 18:
                self._after.clear()
            self._after[step] = hit
        return hit

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


def _guess_order(lists: WordLists) -> tuple[str, ...]:
    """The guesses by id: the answers, then the other allowed words (the module's ids)."""
    hit = _ORDERS.get(lists.digest)
    if hit is None:
        answers = set(lists.answers)
        hit = lists.answers + tuple(w for w in lists.guesses if w not in answers)
        _ORDERS[lists.digest] = hit
    return hit


def _table(lists: WordLists) -> np.ndarray:
    """The ``(G, M)`` table of a pair of lists, read-only, built once per process."""
    hit = _TABLES.get(lists.digest)
    if hit is None:
        hit = feedback_table(_guess_order(lists), lists.answers)
        hit.setflags(write=False)
        _TABLES[lists.digest] = hit
    return hit


_ORDERS: dict[str, tuple[str, ...]] = {}
_TABLES: dict[str, np.ndarray] = {}
_GAMES: dict[tuple[bool, str | None, str], WordleGame] = {}


def wordle_game(
    hard: bool = False,
    cache: str | os.PathLike | None = None,
    *,
    answers: str | os.PathLike | Sequence[str] | None = None,
    guesses: str | os.PathLike | Sequence[str] | None = None,
) -> WordleGame:
    """The Wordle game of this process (normal or ``hard`` mode) whose baselines are kept
    in ``cache`` (None: nowhere), on the shipped lists or on ``answers`` and ``guesses``
    of its own (each a file's path or a sequence of words; None: the shipped list; see
    :func:`word_lists`, whose :class:`WordListError` says what is wrong in one line):
    made once per mode, cache and lists, its table shared.

    >>> from evo.games.words import wordle_game
    >>> words = ["cigar", "rebut", "sissy"]
    >>> game = wordle_game(answers=words, guesses=words + ["salet"])
    >>> game.num_codes, game.num_guesses, game.name[:7], game.key == wordle_game().key
    (3, 4, 'wordle-', False)
    """
    lists = None if answers is None and guesses is None else word_lists(answers, guesses)
    return _game_of(hard, cache, lists)


def _game_of(hard: bool, cache: str | os.PathLike | None, lists: WordLists | None) -> WordleGame:
    """:func:`wordle_game` of lists already checked (None: the shipped ones)."""
    root = None if cache is None else str(path_argument(cache, what="cache"))
    if lists is None or lists.standard:
        lists = load_words()  # the shipped game, whatever files named them
    key = (bool(hard), root, lists.digest)
    if key not in _GAMES:
        _GAMES[key] = WordleGame(hard, root, lists)
    return _GAMES[key]


# ---------------------------------------------------------------- the family's functions
def make(
    pegs: int | str, colors: int, kind: str, *, cache: str | os.PathLike | None = None, **_: Any
) -> WordleGame:
    """The game :func:`evo.core.game.make_game` asks for by name, on the shipped lists
    (``pegs``, ``colors`` and the options but ``cache`` do not apply; other lists:
    :func:`wordle_game`)."""
    return wordle_game(kind == "wordle-hard", cache)


def from_spec(
    spec: Mapping[str, Any], *, cache: str | os.PathLike | None = None, **_: Any
) -> WordleGame:
    """The game of ``{"kind": "wordle"}`` or ``{"kind": "wordle-hard"}`` (``cache``: see
    :func:`wordle_game`); of other lists, the game of the spec's ``words`` (checked
    against its digest), else one made in this process on lists of that digest, else
    :class:`~evo.core.game.UnknownGameError` (one line: give the lists again)."""
    key = spec_key(spec)
    hard = key[0] == "wordle-hard"
    if len(key) == 1:
        return wordle_game(hard, cache)
    digest = key[1]
    words = spec.get("words")
    if isinstance(words, Mapping):
        if not all(isinstance(words.get(k), list) for k in ("answers", "guesses")):
            raise ValueError("game.words should hold the lists 'answers' and 'guesses'")
        try:
            lists = word_lists(words.get("answers"), words.get("guesses"))
        except WordListError as e:
            raise ValueError(f"game.words: {e}") from None
        if lists.digest != digest:
            raise ValueError(
                f"game.words do not make the lists of game.digest {digest[:12]} "
                f"(theirs: {lists.digest[:12]}): the file was edited or corrupted"
            )
        named = WordLists(
            lists.answers, lists.guesses, spec.get("answers_file"), spec.get("guesses_file")
        )
        return _game_of(hard, cache, named)
    for made in list(_GAMES.values()):
        if made.lists.digest == digest:
            return _game_of(hard, cache, made.lists)
    a, g = spec.get("answers_file") or "its answers", spec.get("guesses_file") or "its guesses"
    files = f"{a} and {g}"
    raise UnknownGameError(
        f"{spec_text(key)} is of word lists not given here ({files}): give them with "
        "--answers FILE --guesses FILE (or wordle_game(answers=..., guesses=...) in Python)"
    )


def spec_key(spec: Mapping[str, Any]) -> tuple:
    """``(kind,)`` for the shipped lists, ``(kind, digest)`` for others: a word game is
    named by its kind and, on lists of its own, their SHA-256 (:attr:`WordLists.digest`)."""
    kind = spec.get("kind", spec.get("variant"))
    if kind not in WORDLE_KINDS:
        raise ValueError(f"game.kind should be one of {', '.join(WORDLE_KINDS)}, not {kind!r}")
    digest = spec.get("digest")
    if digest is None:
        return (kind,)
    if not (isinstance(digest, str) and len(digest) == 64 and _is_hex(digest)):
        raise ValueError(f"game.digest should be 64 hex digits (a SHA-256), not {digest!r}")
    return (kind, digest)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def spec_text(key: tuple) -> str:
    """``Wordle`` or ``Wordle in hard mode``; on other lists, ``... on the word lists of
    digest 3f2a...`` (its first 12 digits)."""
    text = "Wordle" + (" in hard mode" if key[0] == "wordle-hard" else "")
    return text if len(key) == 1 else f"{text} on the word lists of digest {key[1][:12]}"
