"""The Mastermind family (docs/DESIGN.md §1): Mastermind, black-peg Mastermind and Bulls
and Cows, ``N`` pegs of ``C`` colors (digits).

A code is an integer ``0 .. M-1``. For Mastermind (both forms) it is the base-``C``
number of its pegs (first peg most significant); for Bulls and Cows it is the rank of
its digit tuple among all tuples without repetition, in lexicographic order. Guesses
are the codes (``G = M``).

Feedbacks ``<b, w>`` are integers ``0 .. F-1`` grouped by ``b`` from ``N`` down and by
``w`` upward inside a group, so ``0`` is always the win ``<N, 0>``. Black-peg Mastermind
tells ``b`` alone: its feedback is ``N - b`` (``F = N + 1``).

Permuting the positions and the colors of every code keeps every feedback of the three
games: their automorphism groups (:mod:`evo.search.symmetry`) are the same.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import path_argument
from evo.core.game import Game, check_fits, gib_text, memory_estimate
from evo.core.kinds import VARIANTS, Variant
from evo.core.numbers import MAX_BUDGET_BYTES, whole

#: Symbols used to print pegs: Mastermind colors read 1..C, Bulls and Cows digits 0..C-1.
SYMBOLS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: A written feedback: ``1B 2W`` (``C`` for cows), or the bare counts ``1,2`` or ``1 2``.
_FEEDBACK = re.compile(
    r"\s*([0-9]+)\s*(?:B\s*,?\s*([0-9]+)\s*[WC]|(?:,|\s)\s*([0-9]+))\s*", re.IGNORECASE
)

#: A black-peg feedback: ``2B``, or the bare count ``2``.
_BLACK = re.compile(r"\s*([0-9]+)\s*B?\s*", re.IGNORECASE)

#: From this many bytes the table is kept as a file in the cache and memory-mapped, so
#: that every process of the machine shares one copy, built once per machine.
TABLE_FILE_BYTES = 64 * 1024**2


def feedback_index(b: int, w: int, pegs: int) -> int:
    """The integer of feedback ``<b, w>`` in an ``pegs``-peg game (docs/DESIGN.md §1 order)."""
    if not (0 <= b <= pegs and 0 <= w <= pegs - b):
        raise ValueError(f"<{b},{w}> is not a feedback of a {pegs}-peg game")
    k = pegs - b
    return k * (k + 1) // 2 + w


def feedback_pair(index: int, pegs: int) -> tuple[int, int]:
    """The ``(b, w)`` pair of feedback integer ``index`` (inverse of :func:`feedback_index`)."""
    if not 0 <= index < (pegs + 1) * (pegs + 2) // 2:
        raise ValueError(f"{index} is not a feedback of a {pegs}-peg game")
    k = 0
    while (k + 1) * (k + 2) // 2 <= index:
        k += 1
    return pegs - k, index - k * (k + 1) // 2


def feedback_text(black: int, white: int | None, variant: str) -> str:
    """A feedback as evo writes it everywhere: ``1B 2W`` (black and white pegs), ``1B 2C``
    (bulls and cows) or ``1B`` (black pegs alone, ``white`` None);
    :meth:`PegGame.parse_feedback` reads it back."""
    if white is None:
        return f"{black}B"
    return f"{black}B {white}{'C' if variant == 'bulls-cows' else 'W'}"


def count_codes(pegs: int, colors: int, variant: str = "mastermind") -> int:
    """``C^N`` codes for Mastermind (both forms), ``C!/(C-N)!`` for Bulls and Cows."""
    if variant != "bulls-cows":
        return colors**pegs
    return int(np.prod(np.arange(colors - pegs + 1, colors + 1, dtype=object))) if pegs else 1


def peg_memory_estimate(
    pegs: int,
    colors: int,
    variant: str = "mastermind",
    trees: int = 1,
    *,
    memory: int | None = None,
) -> tuple[int, bool]:
    """:func:`evo.core.game.memory_estimate` of a game of the family, before it is made."""
    m = count_codes(pegs, colors, variant)
    return memory_estimate(m, m, trees=trees, memory=memory, per_code=pegs + colors)


_KIND_NAMES = {"mastermind": "Mastermind", "black-peg": "Black-peg Mastermind"}


@dataclass(frozen=True, eq=False)
class PegGame(Game):
    """An ``(N, C)`` game of the Mastermind family, with its codes and feedback function.

    Build it with :func:`evo.core.game.make_game` (:func:`make`), which checks that it
    fits in memory.

    >>> import evo
    >>> game = evo.make_game(4, 6, "black-peg")
    >>> game.num_codes, game.num_feedbacks, game.name
    (1296, 5, 'black-peg-4-6')
    >>> game.format_feedback(game.feedback(game.parse_code("1122"), game.parse_code("1213")))
    '1B'
    """

    pegs: int
    colors: int
    variant: Variant = "mastermind"
    use_table: bool = field(default=True, repr=False)
    cache: str | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- identity
    @property
    def kind(self) -> str:
        """The variant: ``mastermind``, ``black-peg`` or ``bulls-cows``."""
        return self.variant

    @cached_property
    def num_codes(self) -> int:
        """``M``: the number of codes."""
        return count_codes(self.pegs, self.colors, self.variant)

    @property
    def num_feedbacks(self) -> int:
        """``F = (N+1)(N+2)/2``; ``N + 1`` for black-peg Mastermind."""
        if self.variant == "black-peg":
            return self.pegs + 1
        return (self.pegs + 1) * (self.pegs + 2) // 2

    @property
    def name(self) -> str:
        """A short name such as ``mastermind-4-6``, used for caches and run directories."""
        return f"{self.variant}-{self.pegs}-{self.colors}"

    @property
    def key(self) -> tuple[int, int, str]:
        return (self.pegs, self.colors, self.variant)

    @property
    def spec(self) -> dict[str, Any]:
        """``{"pegs": N, "colors": C, "variant": ...}``."""
        return {"pegs": self.pegs, "colors": self.colors, "variant": self.variant}

    @property
    def description(self) -> str:
        """``Mastermind, 4 pegs, 6 colors (1296 codes)``."""
        kind = _KIND_NAMES.get(self.variant, "Bulls and Cows")
        unit = "digits" if self.variant == "bulls-cows" else "colors"
        return f"{kind}, {self.pegs} pegs, {self.colors} {unit} ({self.num_codes} codes)"

    @property
    def symmetric_feedback(self) -> bool:
        """Every game of the family answers ``a`` against ``b`` as ``b`` against ``a``."""
        return True

    @property
    def distinct(self) -> bool:
        """Whether a code's pegs are distinct (Bulls and Cows)."""
        return self.variant == "bulls-cows"

    def __repr__(self) -> str:
        return f"PegGame(pegs={self.pegs}, colors={self.colors}, variant={self.variant!r})"

    def __reduce__(self):
        # Pickle as its defining parameters; each process keeps one game (and one table)
        # per parameters, so trees sent to worker processes share it.
        return (interned_game, (self.pegs, self.colors, self.variant, self.use_table, self.cache))

    def memory_need(self, trees: int = 1, *, memory: int | None = None) -> tuple[int, bool]:
        return peg_memory_estimate(self.pegs, self.colors, self.variant, trees, memory=memory)

    # ---------------------------------------------------------------- codes
    @cached_property
    def digits(self) -> np.ndarray:
        """``(M, N)`` uint8 array: the pegs of every code (0-based colors)."""
        n, c = self.pegs, self.colors
        if self.variant != "bulls-cows":
            codes = np.arange(c**n, dtype=np.int64)
            powers = c ** np.arange(n - 1, -1, -1, dtype=np.int64)
            return ((codes[:, None] // powers[None, :]) % c).astype(np.uint8)
        rows = list(itertools.permutations(range(c), n))
        return np.array(rows, dtype=np.uint8).reshape(len(rows), n)

    @cached_property
    def color_counts(self) -> np.ndarray:
        """``(M, C)`` uint8 array: how many pegs of each color every code has."""
        d = self.digits
        out = np.zeros((len(d), self.colors), dtype=np.uint8)
        for i in range(self.pegs):
            out[np.arange(len(d)), d[:, i]] += 1
        return out

    @cached_property
    def _bc_rank(self) -> dict[tuple[int, ...], int]:
        return {tuple(int(x) for x in row): i for i, row in enumerate(self.digits)}

    def code_of_digits(self, pegs: tuple[int, ...] | list[int]) -> int:
        """The code of a tuple of 0-based pegs.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.code_of_digits((0, 0, 1)), game.format_code(1)
        (1, '112')
        """
        pegs = tuple(int(p) for p in pegs)
        if len(pegs) != self.pegs or any(not 0 <= p < self.colors for p in pegs):
            raise ValueError(f"{pegs} are not {self.pegs} pegs of {self.colors} colors")
        if self.variant != "bulls-cows":
            code = 0
            for p in pegs:
                code = code * self.colors + p
            return code
        try:
            return self._bc_rank[pegs]
        except KeyError:
            raise ValueError(f"{pegs} repeats a digit, which Bulls and Cows forbids") from None

    @property
    def _offset(self) -> int:
        """Printed symbol of color 0: 1 for Mastermind (colors 1..C), 0 for Bulls and Cows."""
        return 0 if self.variant == "bulls-cows" else 1

    def format_code(self, code: int) -> str:
        """Print a code as people read it: ``1123`` (Mastermind), ``0123`` (Bulls and Cows).

        >>> import evo
        >>> evo.make_game(4, 6).format_code(7), evo.make_game(4, 10, "bulls-cows").format_code(0)
        ('1122', '0123')
        """
        return "".join(SYMBOLS[int(p) + self._offset] for p in self.digits[int(code)])

    def format_codes(self, codes: np.ndarray) -> list[str]:
        """:meth:`format_code` of many codes at once."""
        symbols = np.array(list(SYMBOLS[self._offset : self._offset + self.colors]))
        chars = symbols[self.digits[np.asarray(codes, dtype=np.int64)]]
        return ["".join(row) for row in chars.tolist()]

    def parse_code(self, text: str) -> int:
        """Parse what :meth:`format_code` prints (case-insensitive, spaces ignored).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.parse_code("112"), game.parse_code("3 3 3")
        (1, 26)
        >>> game.parse_code("114")
        Traceback (most recent call last):
        ...
        ValueError: code '114': '4' is not a color 1..3
        """
        s = str(text).replace(" ", "").upper()
        if len(s) != self.pegs:
            raise ValueError(f"code {text!r} should have {self.pegs} pegs, it has {len(s)}")
        pegs = []
        for ch in s:
            v = SYMBOLS.find(ch) - self._offset
            if not 0 <= v < self.colors:
                lo = SYMBOLS[self._offset]
                hi = SYMBOLS[self.colors - 1 + self._offset]
                raise ValueError(f"code {text!r}: {ch!r} is not a color {lo}..{hi}")
            pegs.append(v)
        return self.code_of_digits(pegs)

    def parse_codes(self, texts: list[str]) -> np.ndarray | None:
        """:meth:`parse_code` of many printed codes at once (int32), or None when one of
        them does not parse (vectorised)."""
        clean = [str(t).replace(" ", "").upper() for t in texts]
        if any(len(s) != self.pegs for s in clean):
            return None
        try:
            data = np.frombuffer("".join(clean).encode("ascii"), dtype=np.uint8)
        except UnicodeEncodeError:
            return None
        value = np.full(256, -1, dtype=np.int64)
        for v in range(self.colors):
            value[ord(SYMBOLS[v + self._offset])] = v
        pegs = value[data].reshape(len(clean), self.pegs)
        if np.any(pegs < 0):
            return None
        number = pegs @ (self.colors ** np.arange(self.pegs - 1, -1, -1, dtype=np.int64))
        if self.variant != "bulls-cows":
            return number.astype(np.int32)
        rank = np.full(self.colors**self.pegs, -1, dtype=np.int64)
        d = self.digits.astype(np.int64)
        rank[d @ (self.colors ** np.arange(self.pegs - 1, -1, -1, dtype=np.int64))] = np.arange(
            len(d)
        )
        codes = rank[number]
        return None if np.any(codes < 0) else codes.astype(np.int32)

    @property
    def code_help(self) -> str:
        """``4 pegs of colors 1 to 6`` (``4 different digits from 0 to 9``)."""
        lowest, highest = self.format_code(0)[0], self.format_code(self.num_codes - 1)[0]
        if self.variant == "bulls-cows":
            return f"{self.pegs} different digits from {lowest} to {highest}"
        return f"{self.pegs} pegs of colors {lowest} to {highest}"

    # ------------------------------------------------------------ feedbacks
    def black_white(self, fb: int) -> tuple[int, int | None]:
        """The black (bulls) and white (cows) pegs of feedback ``fb``; white None in
        black-peg Mastermind.

        >>> import evo
        >>> evo.make_game(4, 6).black_white(5), evo.make_game(4, 6, "black-peg").black_white(3)
        ((2, 2), (1, None))
        """
        if self.variant == "black-peg":
            if not 0 <= int(fb) <= self.pegs:
                raise ValueError(f"{fb} is not a feedback of a {self.pegs}-peg black-peg game")
            return self.pegs - int(fb), None
        return feedback_pair(int(fb), self.pegs)

    def format_feedback(self, fb: int) -> str:
        """Print a feedback as people read it, the one notation of evo's output (files,
        tables, pictures, graphs): ``1B 2W`` (black and white pegs), ``1B 2C`` (bulls and
        cows) in Bulls and Cows, ``1B`` in black-peg Mastermind.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> [game.format_feedback(f) for f in range(4)]  # 0 is always the win
        ['3B 0W', '2B 0W', '2B 1W', '1B 0W']
        """
        return feedback_text(*self.black_white(int(fb)), self.variant)

    def parse_feedback(self, text: str) -> int:
        """Parse a feedback into its integer: what :meth:`format_feedback` prints
        (``1B 2W``, ``1B 2C``; any case, spaces optional, ``W`` or ``C`` in either game)
        and the bare counts of older files and answers (``1,2``, ``1 2``); ``1B`` or ``1``
        in black-peg Mastermind.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.parse_feedback("1B 2W"), game.parse_feedback("1b2w"), game.parse_feedback("1,2")
        (5, 5, 5)
        >>> evo.make_game(3, 3, "black-peg").parse_feedback("1B")
        2
        """
        if self.variant == "black-peg":
            m = _BLACK.fullmatch(str(text))
            if m is None:
                raise ValueError(f"feedback {text!r} should be the black pegs, such as '1B' or '1'")
            black = int(m[1])
            if black > self.pegs:
                raise ValueError(f"feedback {text!r} counts more than the {self.pegs} pegs")
            return self.pegs - black
        m = _FEEDBACK.fullmatch(str(text))
        if m is None:
            example = feedback_text(1, 0, self.variant)
            raise ValueError(f"feedback {text!r} should be two counts such as {example!r} or '1,0'")
        black, white = (int(x) for x in (m[1], m[2] or m[3]))
        if black + white > self.pegs:
            said = feedback_text(black, white, self.variant)
            raise ValueError(f"feedback {text!r} ({said}) counts more than the {self.pegs} pegs")
        return feedback_index(black, white, self.pegs)

    @property
    def feedback_prompt(self) -> str:
        """``black,white``, ``bulls,cows`` or ``black pegs``."""
        if self.variant == "black-peg":
            return "black pegs"
        return "bulls,cows" if self.variant == "bulls-cows" else "black,white"

    @property
    def feedback_help(self) -> str:
        """How to type a feedback (``evo play``)."""
        n = self.pegs
        if self.variant == "black-peg":
            return f"the black pegs, such as 1B or 1, from 0 to {n}"
        example = feedback_text(1, 2, self.variant)
        return (
            f"the {self.feedback_prompt} counts, such as {example}, 1,2 or 1 2, each from 0 to "
            f"{n} and together at most {n}"
        )

    @cached_property
    def _feedback_lut(self) -> np.ndarray:
        """``(N+1, N+1)`` table from (black, common colors) to the feedback integer."""
        n = self.pegs
        lut = np.full((n + 1, n + 1), 255, dtype=np.uint8)
        for b in range(n + 1):
            for common in range(b, n + 1):
                black_peg = self.variant == "black-peg"
                lut[b, common] = n - b if black_peg else feedback_index(b, common - b, n)
        return lut

    @cached_property
    def _digits_t(self) -> np.ndarray:
        """``(N, M)`` pegs, one contiguous row per position (fast per-peg comparisons)."""
        return np.ascontiguousarray(self.digits.T)

    @cached_property
    def _multisets(self) -> tuple[np.ndarray, np.ndarray]:
        """Each code's color multiset id, and the ``(K, K)`` table of common colors
        ``sum_c min(count_a[c], count_b[c])`` between multisets (K is small: 792 for (5,8))."""
        uniq, ids = np.unique(self.color_counts, axis=0, return_inverse=True)
        k = len(uniq)
        common = np.empty((k, k), dtype=np.uint8)
        block = max(1, (32 * 1024**2) // max(1, k * self.colors))
        for lo in range(0, k, block):
            part = np.minimum(uniq[lo : lo + block, None, :], uniq[None, :, :])
            common[lo : lo + block] = part.sum(axis=-1, dtype=np.uint8)
        return ids.reshape(-1).astype(np.int32), common

    def compute_feedback(self, guesses: np.ndarray | int, secrets: np.ndarray | int) -> np.ndarray:
        """Feedbacks of paired (broadcast) guess and secret arrays, from the pegs (no table).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.compute_feedback(1, game.all_codes()[:3]).tolist()  # 112 against 111, 112, 113
        [1, 0, 1]
        """
        g = np.asarray(guesses, dtype=np.int64)
        s = np.asarray(secrets, dtype=np.int64)
        shape = np.broadcast_shapes(g.shape, s.shape)
        black = np.zeros(shape, dtype=np.uint8)
        for row in self._digits_t:
            black += row[g] == row[s]
        ids, common = self._multisets
        flat = black.astype(np.int64) * (self.pegs + 1) + common[ids[g], ids[s]]
        return self._feedback_lut.reshape(-1).take(flat)

    @cached_property
    def table(self) -> np.ndarray | None:
        """The ``(M, M)`` uint8 feedback table, or None when it is not kept in memory.

        From :data:`TABLE_FILE_BYTES` on, with a :attr:`cache`, it is read-only, mapped
        from a file there (built once per machine, shared by its processes); smaller
        tables, without a cache or when it cannot be written, are built in this process."""
        if not self.use_table:
            return None
        m = self.num_codes
        path = self._table_file
        if path is not None:
            from evo.core.table_file import mapped_table

            try:
                return mapped_table(
                    path,
                    name=self.name,
                    rows=m,
                    blocks=self._table_blocks,
                    check=self.compute_feedback,
                )
            except OSError:
                pass
        table = np.empty((m, m), dtype=np.uint8)
        lo = 0
        for block in self._table_blocks():
            table[lo : lo + len(block)] = block
            lo += len(block)
        return table

    def _table_blocks(self) -> Iterator[np.ndarray]:
        """The rows of the feedback table, computed in blocks of about 32 MB, in order:
        compiled on every thread for a table kept as a file (a big game), in NumPy below
        (where loading the kernel would cost more than it saves)."""
        m, n = self.num_codes, self.pegs
        ids, common = self._multisets
        lut = self._feedback_lut.reshape(-1)
        block = max(1, min(m, (32 * 1024**2) // m))
        if m * m >= TABLE_FILE_BYTES:
            yield from self._compiled_blocks(block)
            return
        small = (n + 1) ** 2 <= 256  # black * (N+1) + common fits a uint8
        for lo in range(0, m, block):
            hi = min(m, lo + block)
            key = np.zeros((hi - lo, m), dtype=np.uint8 if small else np.int32)
            for row in self._digits_t:
                key += row[lo:hi, None] == row[None, :]
            key *= n + 1
            key += common[ids[lo:hi, None], ids[None, :]]
            yield lut[key]

    def _compiled_blocks(self, block: int) -> Iterator[np.ndarray]:
        """:meth:`_table_blocks` by the compiled kernel (the same rows)."""
        from evo.core.engine import numba_threads
        from evo.core.table_kernel import table_rows

        numba_threads()
        src = self.computed_source
        for lo in range(0, self.num_codes, block):
            yield table_rows(src, self.num_codes, lo, min(self.num_codes, lo + block))

    @cached_property
    def computed_source(self) -> tuple:
        """What the compiled kernels compute feedbacks from without the table: the codes
        packed into uint64 and the color multisets
        (:func:`evo.core.feedback_kernel.packed_source`)."""
        from evo.core.feedback_kernel import packed_source

        ids, common = self._multisets
        return packed_source(self.digits, ids, common, self._feedback_lut.reshape(-1))

    @property
    def packed_source(self) -> tuple:
        """:attr:`computed_source` (its name of old)."""
        return self.computed_source

    @property
    def table_at_hand(self) -> bool:
        """Whether using the table costs no build worth counting: it is in memory already,
        small, or kept in the cache as a file (mapped, not built)."""
        if not self.use_table or "table" in self.__dict__:
            return self.use_table
        if self.num_codes**2 < TABLE_FILE_BYTES:
            return True
        path = self._table_file
        return path is not None and path.exists()

    @property
    def _table_file(self) -> Path | None:
        """Where the table is kept as a file: from :data:`TABLE_FILE_BYTES` on, with a
        :attr:`cache`; else None."""
        if self.num_codes**2 < TABLE_FILE_BYTES or self.cache is None:
            return None
        return Path(self.cache) / self.name / "feedback-table.bin"

    def computing(self) -> PegGame:
        """The same game without a table: the kernels compute each feedback they need."""
        return interned_game(self.pegs, self.colors, self.variant, False, self.cache)


_GAMES: dict[tuple, PegGame] = {}


def interned_game(
    pegs: int, colors: int, variant: str, use_table: bool, cache: str | None = None
) -> PegGame:
    """The one game of this process for these parameters (its tables are built once;
    :func:`evo.core.game.make_game` checks them)."""
    key = (pegs, colors, variant, use_table, cache)
    if key not in _GAMES:
        _GAMES[key] = PegGame(pegs, colors, variant, use_table, cache)  # type: ignore[arg-type]
    return _GAMES[key]


def peg_game(game: Game) -> PegGame | None:
    """``game`` when it is of the Mastermind family (its codes are pegs of colors, its
    feedbacks kept by permuting both), else None."""
    return game if isinstance(game, PegGame) else None


# ---------------------------------------------------------------- the family's functions
def make(
    pegs: int | str,
    colors: int,
    variant: str,
    *,
    trees: int = 1,
    table: bool | None = None,
    memory: int | None = None,
    cache: str | os.PathLike | None = None,
) -> PegGame:
    """The game :func:`evo.core.game.make_game` asks for: its parameters and memory
    checked first (:class:`~evo.core.game.GameTooLargeError`, with the estimate)."""
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    pegs = whole(pegs, what="pegs", low=1, high=20)
    colors = whole(colors, what="colors", low=1, high=len(SYMBOLS) - 1)
    trees = whole(trees, what="trees", low=1)
    if variant == "bulls-cows" and pegs > colors:
        raise ValueError(f"Bulls and Cows needs pegs <= colors (digits), got {pegs} > {colors}")
    if memory is not None:
        memory = min(MAX_BUDGET_BYTES, whole(memory, what="memory (bytes)", low=1))
    if table is not None and not isinstance(table, bool):
        raise ValueError(f"table must be True, False or None, not {table!r}")
    if cache is not None:
        cache = path_argument(cache, what="cache")
    need, use_table = peg_memory_estimate(pegs, colors, variant, trees, memory=memory)
    m = count_codes(pegs, colors, variant)
    what = (
        f"the {variant} game ({pegs} pegs, {colors} colors) has {m:,} codes and needs about "
        f"{gib_text(need)} for its {'tables' if use_table else 'codes'} and {trees} tree(s)"
    )
    check_fits(what, need, memory)
    if table is not None:
        use_table = table
    root = None if cache is None else str(cache)  # path_argument expanded ~
    return interned_game(pegs, colors, variant, use_table, root)


def from_spec(
    spec: Mapping[str, Any],
    *,
    cache: str | os.PathLike | None = None,
    trees: int = 1,
    memory: int | None = None,
) -> PegGame:
    """The game of ``{"pegs": N, "colors": C, "variant": ...}`` (``kind`` for ``variant``
    too; Mastermind when neither is given); ValueError naming the key that is wrong."""
    _whole_pegs_and_colors(spec)
    variant = spec.get("variant", spec.get("kind", "mastermind"))
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ValueError(f"game.variant should be one of {', '.join(VARIANTS)}, not {variant!r}")
    return make(
        int(spec["pegs"]), int(spec["colors"]), variant, cache=cache, trees=trees, memory=memory
    )


def spec_key(spec: Mapping[str, Any]) -> tuple:
    """``(pegs, colors, variant)`` of a spec (:func:`evo.core.game.spec_key`)."""
    if not {"pegs", "colors"} <= set(spec):
        raise ValueError("'game' should be an object with 'pegs' and 'colors'")
    _whole_pegs_and_colors(spec)
    return (spec["pegs"], spec["colors"], spec.get("kind", spec.get("variant", "mastermind")))


def _whole_pegs_and_colors(spec: Mapping[str, Any]) -> None:
    """ValueError, naming the key, unless a spec's pegs and colors are whole numbers."""
    for key in ("pegs", "colors"):
        value = spec.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"game.{key} should be a whole number, not {value!r}")


def spec_text(key: tuple) -> str:
    """``mastermind with 4 pegs and 6 colors``."""
    return f"{key[2]} with {key[0]} pegs and {key[1]} colors"
