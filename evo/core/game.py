"""Mastermind-family games: codes, feedbacks and the feedback table (docs/DESIGN.md §1).

A code is an integer ``0 .. M-1``. For Mastermind it is the base-``C`` number of its
pegs (first peg most significant); for Bulls and Cows it is the rank of its digit
tuple among all tuples without repetition, in lexicographic order. Feedbacks
``<b, w>`` are integers ``0 .. F-1`` grouped by ``b`` from ``N`` down and by ``w``
upward inside a group, so ``0`` is always the win ``<N, 0>``.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from evo.core.files import path_argument
from evo.core.kinds import VARIANTS, Variant
from evo.core.numbers import MAX_BUDGET_BYTES, whole

#: Symbols used to print pegs: Mastermind colors read 1..C, Bulls and Cows digits 0..C-1.
_SYMBOLS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: A written feedback: ``1B 2W`` (``C`` for cows), or the bare counts ``1,2`` or ``1 2``.
_FEEDBACK = re.compile(
    r"\s*([0-9]+)\s*(?:B\s*,?\s*([0-9]+)\s*[WC]|(?:,|\s)\s*([0-9]+))\s*", re.IGNORECASE
)

#: Above this many bytes the full feedback table is not built (rows are computed on the fly).
TABLE_LIMIT_BYTES = 2 * 1024**3

#: From this many bytes the table is kept as a file in the cache and memory-mapped, so
#: that every process of the machine shares one copy, built once per machine.
TABLE_FILE_BYTES = 64 * 1024**2

#: Rough bytes of working memory per code: digit and count arrays, one tree's arrays,
#: and the temporaries of a level of growth.
_WORKING_BYTES_PER_CODE = 160


class GameTooLargeError(ValueError):
    """The game's table or working set would not fit in memory."""


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


def available_memory_bytes() -> int:
    """Memory available to this process now (MemAvailable on Linux, else 8 GiB)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 1024**3


def _gib(n: float) -> str:
    if n >= 1024**3:
        return f"{n / 1024**3:.2f} GiB"
    return f"{n / 1024**2:.1f} MiB" if n >= 1024**2 / 10 else f"{n / 1024:.1f} KiB"


@dataclass(frozen=True, eq=False)
class Game:
    """An ``(N, C)`` game of a variant, with its codes and feedback function.

    Build it with :func:`make_game`, which checks that it fits in memory.

    >>> import evo
    >>> game = evo.make_game(4, 6)
    >>> game.num_codes, game.num_feedbacks, game.name
    (1296, 15, 'mastermind-4-6')
    >>> game.format_feedback(game.feedback(game.parse_code("1122"), game.parse_code("1213")))
    '1B 2W'
    """

    pegs: int
    colors: int
    variant: Variant = "mastermind"
    use_table: bool = field(default=True, repr=False)
    #: Where this game's computed artifacts are kept (its big feedback table, its
    #: baselines): a directory, or None to keep nothing on disk.
    cache: str | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- sizes
    @cached_property
    def num_codes(self) -> int:
        """``M``: the number of codes."""
        return count_codes(self.pegs, self.colors, self.variant)

    @property
    def num_feedbacks(self) -> int:
        """``F = (N+1)(N+2)/2``."""
        return (self.pegs + 1) * (self.pegs + 2) // 2

    @property
    def name(self) -> str:
        """A short name such as ``mastermind-4-6``, used for caches and run directories."""
        return f"{self.variant}-{self.pegs}-{self.colors}"

    def __repr__(self) -> str:
        return f"Game(pegs={self.pegs}, colors={self.colors}, variant={self.variant!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> tuple[int, int, str]:
        return (self.pegs, self.colors, self.variant)

    def __reduce__(self):
        # Pickle as its defining parameters; each process keeps one Game (and one table)
        # per parameters, so trees sent to worker processes share it.
        return (_interned_game, (self.pegs, self.colors, self.variant, self.use_table, self.cache))

    # ---------------------------------------------------------------- codes
    @cached_property
    def digits(self) -> np.ndarray:
        """``(M, N)`` uint8 array: the pegs of every code (0-based colors)."""
        n, c = self.pegs, self.colors
        if self.variant == "mastermind":
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
        if self.variant == "mastermind":
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
        return 1 if self.variant == "mastermind" else 0

    def format_code(self, code: int) -> str:
        """Print a code as people read it: ``1123`` (Mastermind), ``0123`` (Bulls and Cows).

        >>> import evo
        >>> evo.make_game(4, 6).format_code(7), evo.make_game(4, 10, "bulls-cows").format_code(0)
        ('1122', '0123')
        """
        return "".join(_SYMBOLS[int(p) + self._offset] for p in self.digits[int(code)])

    def format_codes(self, codes: np.ndarray) -> list[str]:
        """:meth:`format_code` of many codes at once.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.format_codes(game.all_codes()[:3])
        ['111', '112', '113']
        """
        symbols = np.array(list(_SYMBOLS[self._offset : self._offset + self.colors]))
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
            v = _SYMBOLS.find(ch) - self._offset
            if not 0 <= v < self.colors:
                lo = _SYMBOLS[self._offset]
                hi = _SYMBOLS[self.colors - 1 + self._offset]
                raise ValueError(f"code {text!r}: {ch!r} is not a color {lo}..{hi}")
            pegs.append(v)
        return self.code_of_digits(pegs)

    def parse_codes(self, texts: list[str]) -> np.ndarray | None:
        """:meth:`parse_code` of many printed codes at once (int32), or None when one of
        them does not parse (its message: :meth:`parse_code` of it).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.parse_codes(["111", "333"]).tolist(), game.parse_codes(["111", "4"])
        ([0, 26], None)
        """
        clean = [str(t).replace(" ", "").upper() for t in texts]
        if any(len(s) != self.pegs for s in clean):
            return None
        try:
            data = np.frombuffer("".join(clean).encode("ascii"), dtype=np.uint8)
        except UnicodeEncodeError:
            return None
        value = np.full(256, -1, dtype=np.int64)
        for v in range(self.colors):
            value[ord(_SYMBOLS[v + self._offset])] = v
        pegs = value[data].reshape(len(clean), self.pegs)
        if np.any(pegs < 0):
            return None
        number = pegs @ (self.colors ** np.arange(self.pegs - 1, -1, -1, dtype=np.int64))
        if self.variant == "mastermind":
            return number.astype(np.int32)
        rank = np.full(self.colors**self.pegs, -1, dtype=np.int64)
        d = self.digits.astype(np.int64)
        rank[d @ (self.colors ** np.arange(self.pegs - 1, -1, -1, dtype=np.int64))] = np.arange(
            len(d)
        )
        codes = rank[number]
        return None if np.any(codes < 0) else codes.astype(np.int32)

    # ------------------------------------------------------------ feedbacks
    @property
    def win(self) -> int:
        """The winning feedback ``<N, 0>``: always 0."""
        return 0

    def format_feedback(self, fb: int) -> str:
        """Print a feedback as people read it, the one notation of evo's output (files,
        tables, pictures, graphs): ``1B 2W`` (black and white pegs), ``1B 2C`` (bulls and
        cows) in Bulls and Cows.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> [game.format_feedback(f) for f in range(4)]  # 0 is always the win
        ['3B 0W', '2B 0W', '2B 1W', '1B 0W']
        """
        return feedback_text(*feedback_pair(int(fb), self.pegs), self.variant)

    def parse_feedback(self, text: str) -> int:
        """Parse a feedback into its integer: what :meth:`format_feedback` prints
        (``1B 2W``, ``1B 2C``; any case, spaces optional, ``W`` or ``C`` in either game)
        and the bare counts of older files and answers (``1,2``, ``1 2``).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.parse_feedback("1B 2W"), game.parse_feedback("1b2w"), game.parse_feedback("1,2")
        (5, 5, 5)
        """
        m = _FEEDBACK.fullmatch(str(text))
        if m is None:
            example = feedback_text(1, 0, self.variant)
            raise ValueError(f"feedback {text!r} should be two counts such as {example!r} or '1,0'")
        black, white = (int(x) for x in (m[1], m[2] or m[3]))
        if black + white > self.pegs:
            said = feedback_text(black, white, self.variant)
            raise ValueError(f"feedback {text!r} ({said}) counts more than the {self.pegs} pegs")
        return feedback_index(black, white, self.pegs)

    @cached_property
    def _feedback_lut(self) -> np.ndarray:
        """``(N+1, N+1)`` table from (black, common colors) to the feedback integer."""
        n = self.pegs
        lut = np.full((n + 1, n + 1), 255, dtype=np.uint8)
        for b in range(n + 1):
            for common in range(b, n + 1):
                lut[b, common] = feedback_index(b, common - b, n)
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
        src = self.packed_source
        for lo in range(0, self.num_codes, block):
            yield table_rows(src, self.num_codes, lo, min(self.num_codes, lo + block))

    @cached_property
    def packed_source(self) -> tuple:
        """What the compiled kernels compute feedbacks from without the table: the codes
        packed into uint64 and the color multisets
        (:func:`evo.core.feedback_kernel.packed_source`)."""
        from evo.core.feedback_kernel import packed_source

        ids, common = self._multisets
        return packed_source(self.digits, ids, common, self._feedback_lut.reshape(-1))

    @property
    def feedback_source(self) -> np.ndarray | tuple:
        """The compiled kernels' source of feedbacks: the table when there is one, else
        :attr:`packed_source` (the same numbers, computed where they are needed)."""
        t = self.table
        return t if t is not None else self.packed_source

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

    def computing(self) -> Game:
        """The same game without a table: the kernels compute each feedback they need.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.computing().use_table, game.computing() == game  # the same game
        (False, True)
        """
        return _interned_game(self.pegs, self.colors, self.variant, False, self.cache)

    def prepare(self) -> Game:
        """Build the feedback table now (a one-time cost), so later timings exclude it.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.prepare().table.shape
        (27, 27)
        """
        _ = self.table
        return self

    def feedback(self, guesses: np.ndarray | int, secrets: np.ndarray | int) -> np.ndarray:
        """Feedbacks of paired guesses and secrets (broadcast), from the table when there is one.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> guesses, secrets = game.parse_codes(["112", "123"]), game.parse_codes(["221", "321"])
        >>> [game.format_feedback(f) for f in game.feedback(guesses, secrets)]
        ['0B 2W', '1B 2W']
        """
        t = self.table
        if t is not None:
            # A flat take is about twice as fast as 2-D fancy indexing.
            flat = np.asarray(guesses, dtype=np.int64) * self.num_codes + secrets
            return t.reshape(-1).take(flat)
        return self.compute_feedback(guesses, secrets)

    def feedback_row(self, guess: int, secrets: np.ndarray | None = None) -> np.ndarray:
        """Feedbacks of one guess against ``secrets`` (every code when omitted).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> row = game.feedback_row(game.parse_code("112"))
        >>> len(row), int((row == game.win).sum())
        (27, 1)
        """
        t = self.table
        if t is not None:
            return t[guess] if secrets is None else t[guess, secrets]
        if secrets is None:
            secrets = np.arange(self.num_codes)
        return self.compute_feedback(np.int64(guess), secrets)

    def helps(self, guess: int, codes: np.ndarray) -> bool:
        """The guess wins for one of ``codes`` or splits them (:func:`helpful_rows`).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> codes = game.parse_codes(["222", "333"])
        >>> game.helps(game.parse_code("111"), codes), game.helps(game.parse_code("223"), codes)
        (False, True)
        """
        return bool(helpful_rows(self.feedback_row(int(guess), codes)[None, :], self.win)[0])

    def all_codes(self) -> np.ndarray:
        """Every code, as an int32 array ``0 .. M-1``.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.all_codes()[:4].tolist(), len(game.all_codes())
        ([0, 1, 2, 3], 27)
        """
        return np.arange(self.num_codes, dtype=np.int32)


_GAMES: dict[tuple, Game] = {}


def helpful_rows(fb: np.ndarray, win: int) -> np.ndarray:
    """Rows of a ``(guesses, codes)`` feedback block whose guess *helps* on the codes: it
    wins for one of them, or not all of them answer alike (so it splits them). This is
    the rule that every guess of a breaker must follow; a guess that does not help tells
    nothing."""
    return (fb == win).any(axis=1) | (fb != fb[:, :1]).any(axis=1)


def helpful_counts(counts: np.ndarray, win: int) -> np.ndarray:
    """:func:`helpful_rows` from part sizes: rows of ``(guesses, F)`` counts of the codes
    per feedback."""
    return (counts[:, win] > 0) | (np.count_nonzero(counts, axis=1) > 1)


def _interned_game(
    pegs: int, colors: int, variant: str, use_table: bool, cache: str | None = None
) -> Game:
    """The one Game of this process for these parameters (its tables are built once)."""
    key = (pegs, colors, variant, use_table, cache)
    if key not in _GAMES:
        _GAMES[key] = Game(pegs, colors, variant, use_table, cache)  # type: ignore[arg-type]
    return _GAMES[key]


def count_codes(pegs: int, colors: int, variant: str = "mastermind") -> int:
    """``C^N`` codes for Mastermind, ``C!/(C-N)!`` for Bulls and Cows."""
    if variant == "mastermind":
        return colors**pegs
    return int(np.prod(np.arange(colors - pegs + 1, colors + 1, dtype=object))) if pegs else 1


def memory_estimate(
    pegs: int,
    colors: int,
    variant: str = "mastermind",
    trees: int = 1,
    *,
    memory: int | None = None,
) -> tuple[int, bool]:
    """Bytes a game needs (its table when it is used, plus ``trees`` trees), and whether
    the full feedback table is used: within a ``memory`` budget (bytes) and 80% of the
    memory available when a budget is given (a budget beyond the machine is no reason to
    build a table that does not fit it), else when it is at most
    :data:`TABLE_LIMIT_BYTES` and a third of the memory available."""
    m = count_codes(pegs, colors, variant)
    table = m * m
    working = m * (pegs + colors + _WORKING_BYTES_PER_CODE) + trees * m * 64
    if memory is None:
        use_table = table <= min(TABLE_LIMIT_BYTES, available_memory_bytes() // 3)
    else:
        use_table = table + working <= min(memory, available_memory_bytes() * 0.8)
    return (table if use_table else 0) + working, use_table


def make_game(
    pegs: int = 4,
    colors: int = 6,
    variant: str = "mastermind",
    *,
    trees: int = 1,
    table: bool | None = None,
    memory: int | None = None,
    cache: str | os.PathLike | None = None,
) -> Game:
    """Check the parameters and the memory, then build the game: ``pegs`` and ``colors``
    (digits, for ``variant="bulls-cows"``).

    ``trees`` is how many breakers the caller will hold at once, for the estimate.
    ``table`` forces the full feedback table on or off (default: when it fits).
    ``memory``: the bytes the game may use; its feedback table is kept only within it,
    feedbacks are computed where they are needed beyond (the same numbers), and a game
    whose working arrays exceed it is refused (default: 80% of the memory available,
    the table up to :data:`TABLE_LIMIT_BYTES`).
    ``cache``: a directory where the game's big feedback table and its baselines are
    kept between processes (the command line uses ``$EVO_CACHE`` or ``~/.cache/evo``);
    None keeps nothing on disk. Raises :class:`GameTooLargeError`, with the estimate,
    before any work.

    >>> import evo
    >>> evo.make_game(4, 6).num_codes, evo.make_game(4, 10, "bulls-cows").num_codes
    (1296, 5040)
    >>> evo.make_game(8, 12, memory=2**30)
    Traceback (most recent call last):
    ...
    evo.core.game.GameTooLargeError: the mastermind game (8 pegs, 12 colors) has ...
    """
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    pegs = whole(pegs, what="pegs", low=1, high=20)
    colors = whole(colors, what="colors", low=1, high=len(_SYMBOLS) - 1)
    trees = whole(trees, what="trees", low=1)
    if variant == "bulls-cows" and pegs > colors:
        raise ValueError(f"Bulls and Cows needs pegs <= colors (digits), got {pegs} > {colors}")
    if memory is not None:
        memory = min(MAX_BUDGET_BYTES, whole(memory, what="memory (bytes)", low=1))
    if table is not None and not isinstance(table, bool):
        raise ValueError(f"table must be True, False or None, not {table!r}")
    if cache is not None:
        cache = path_argument(cache, what="cache")
    need, use_table = memory_estimate(pegs, colors, variant, trees, memory=memory)
    have = available_memory_bytes()
    m = count_codes(pegs, colors, variant)
    what = (
        f"the {variant} game ({pegs} pegs, {colors} colors) has {m:,} codes and needs about "
        f"{_gib(need)} for its {'tables' if use_table else 'codes'} and {trees} tree(s)"
    )
    if memory is not None and need > memory:
        raise GameTooLargeError(f"{what}, more than the memory budget of {_gib(memory)}")
    if need > have * 0.8:
        raise GameTooLargeError(
            f"{what}, more than the {_gib(have * 0.8)} this machine can give "
            f"(80% of {_gib(have)} available)"
        )
    if table is not None:
        use_table = table
    root = None if cache is None else str(cache)  # path_argument expanded ~
    return _interned_game(pegs, colors, variant, use_table, root)


def table_note(game: Game, *, read: bool = True) -> str:
    """How a game gets its feedbacks, in a few words: from its table (and its size), or
    computed where they are needed because the table is not kept, or (``read=False``)
    not built for work that computes them; and the memory it is expected to take (its
    table, codes and one tree)."""
    table = game.num_codes**2
    need, counted = memory_estimate(game.pegs, game.colors, game.variant)
    working = need - (table if counted else 0)
    if game.use_table and read:
        total = _gib(working + table)
        return f"feedback table of {_gib(table)}, about {total} with its codes and a tree"
    why = "not kept in" if not game.use_table else "no need to build"
    return (
        f"feedbacks computed where needed, {why} a {_gib(table)} table; "
        f"about {_gib(working)} for its codes and a tree"
    )


def feedback_text(black: int, white: int, variant: str) -> str:
    """A feedback as evo writes it everywhere: ``1B 2W`` (black and white pegs) or ``1B 2C``
    (bulls and cows); :meth:`Game.parse_feedback` reads it back."""
    return f"{black}B {white}{'W' if variant == 'mastermind' else 'C'}"
