"""A code-breaking game, as every part of evo sees it (docs/DESIGN.md §1): its secrets,
the guesses allowed, and a feedback function.

**Ids.** Secrets are the integers ``0 .. M-1`` (:attr:`Game.num_codes`), guesses
``0 .. G-1`` (:attr:`Game.num_guesses`, ``G >= M``), and the first ``M`` guesses are the
secrets: guess ``g < M`` is secret ``g``. Mastermind and Bulls and Cows have ``G = M``.
A node of a breaker is *terminal* when its guess is a secret of its code set.

**Feedbacks** are the integers ``0 .. F-1`` (``F <= 256``, stored as uint8), and ``0`` is
always the win: the feedback of a secret guessed. The *feedback table* is the ``(G, M)``
uint8 array of every feedback, kept when it fits; the compiled kernels read a *source*,
the table or what computes it (:mod:`evo.core.feedback_kernel`).

The games themselves are in :mod:`evo.games`, one module per family, each registered
under its kinds (:mod:`evo.core.families`): :mod:`evo.games.pegs` (Mastermind, black-peg
Mastermind, Bulls and Cows), :mod:`evo.games.words` (Wordle and its hard mode) and
:mod:`evo.games.custom` (any game from a list of codes and a feedback function, defined
in Python). Nothing here imports them.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from evo.core.families import Family, family_of, registered_kinds

#: Above this many bytes the full feedback table is not built (rows are computed on the fly).
TABLE_LIMIT_BYTES = 2 * 1024**3

#: Rough bytes of working memory per code: digit and count arrays, one tree's arrays,
#: and the temporaries of a level of growth.
WORKING_BYTES_PER_CODE = 160


class GameTooLargeError(ValueError):
    """The game's table or working set would not fit in memory."""


class UnknownGameError(ValueError):
    """A file or a config names a game this process does not know (a custom game not
    defined here, or defined otherwise)."""


class GuessRule(ABC):
    """Which guesses are legal after a history (Wordle's hard mode: every guess uses what
    earlier feedback revealed). The rule walks a *state* along a game path: its start,
    then one step per guess and feedback; the guesses legal at a node are those of its
    state. Contract: a code still possible at a node is legal there (so that every node
    has a legal guess that helps, and a node of one or two codes plays one of them)."""

    #: Whether the rule narrows: the guesses legal after a history are among those legal
    #: after any of its prefixes (Wordle's hard mode). A search may then bound a node's
    #: cost from below by letting every guess below it use the node's legal guesses (a
    #: relaxation, :func:`evo.proofs.firsts.relaxed_bound`). False unless a rule says so:
    #: a custom rule may widen what is legal (the relaxation would then be wrong).
    narrows: bool = False

    @abstractmethod
    def start(self) -> Hashable:
        """The state at the root."""

    @abstractmethod
    def after(self, state: Hashable, guess: int, feedback: int) -> Hashable:
        """The state after ``guess`` was answered ``feedback``."""

    @abstractmethod
    def legal(self, state: Hashable) -> np.ndarray:
        """Whether each guess ``0 .. G-1`` is legal in ``state`` (a bool array)."""


class Game(ABC):
    """A code-breaking game: the interface every part of evo works through.

    Build one with :func:`make_game` (Mastermind, black-peg Mastermind, Bulls and Cows)
    or :func:`evo.custom_game` (any list of codes and feedback function).

    >>> import evo
    >>> game = evo.make_game(4, 6)
    >>> game.num_codes, game.num_guesses, game.num_feedbacks, game.name
    (1296, 1296, 15, 'mastermind-4-6')
    >>> game.format_feedback(game.feedback(game.parse_code("1122"), game.parse_code("1213")))
    '1B 2W'
    """

    #: Whether the feedback table is used (else the feedbacks are computed).
    use_table: bool
    #: Where this game's computed artifacts are kept (its big feedback table, its
    #: baselines): a directory, or None to keep nothing on disk.
    cache: str | None

    @property
    @abstractmethod
    def kind(self) -> str:
        """The kind of game, as configs and ``--game`` name it (``mastermind``,
        ``black-peg``, ``bulls-cows``, ``custom``)."""

    # ---------------------------------------------------------------- identity
    @property
    @abstractmethod
    def num_codes(self) -> int:
        """``M``: the number of secrets."""

    @property
    def num_guesses(self) -> int:
        """``G``: the number of guesses allowed; the first ``M`` are the secrets."""
        return self.num_codes

    @property
    @abstractmethod
    def num_feedbacks(self) -> int:
        """``F``: feedbacks are ``0 .. F-1``, 0 the win."""

    @property
    @abstractmethod
    def name(self) -> str:
        """A short name such as ``mastermind-4-6``, used for caches and run directories
        (letters, digits, ``.``, ``_`` and ``-`` only)."""

    @property
    @abstractmethod
    def key(self) -> tuple:
        """What tells this game from every other (games are equal when their keys are)."""

    @property
    @abstractmethod
    def spec(self) -> dict[str, Any]:
        """The game as tree files, summaries and certificates name it (JSON):
        :func:`game_from_spec` makes it again."""

    @property
    @abstractmethod
    def description(self) -> str:
        """The game in words, for reports and headers: ``Mastermind, 4 pegs, 6 colors
        (1296 codes)``."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def win(self) -> int:
        """The winning feedback: always 0."""
        return 0

    @property
    def rule(self) -> GuessRule | None:
        """The rule on which guesses are legal after a history (None: every guess is)."""
        return None

    @property
    def symmetric_feedback(self) -> bool:
        """Whether ``feedback(a, b) == feedback(b, a)`` for every two codes, with ``G = M``:
        the kernels then read a code's row of the table for its column."""
        return False

    # ---------------------------------------------------------------- codes
    def all_codes(self) -> np.ndarray:
        """Every secret, as an int32 array ``0 .. M-1``.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.all_codes()[:4].tolist(), len(game.all_codes())
        ([0, 1, 2, 3], 27)
        """
        return np.arange(self.num_codes, dtype=np.int32)

    def all_guesses(self) -> np.ndarray:
        """Every guess, as an int32 array ``0 .. G-1`` (the secrets first).

        >>> import evo
        >>> game = evo.custom_game(["ab", "ba"], lambda g, s: g == s, guesses=["ab", "ba", "aa"])
        >>> game.all_guesses().tolist(), game.all_codes().tolist()
        ([0, 1, 2], [0, 1])
        """
        return np.arange(self.num_guesses, dtype=np.int32)

    @abstractmethod
    def format_code(self, code: int) -> str:
        """A guess (or secret) as people read it.

        >>> import evo
        >>> evo.make_game(4, 6).format_code(7)
        '1122'
        """

    def format_codes(self, codes: np.ndarray) -> list[str]:
        """:meth:`format_code` of many codes at once.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.format_codes(game.all_codes()[:3])
        ['111', '112', '113']
        """
        return [self.format_code(int(c)) for c in np.asarray(codes).ravel()]

    @abstractmethod
    def parse_code(self, text: str) -> int:
        """The guess :meth:`format_code` printed as ``text``; ValueError (one line) else.

        >>> import evo
        >>> evo.make_game(4, 6).parse_code("1122")
        7
        """

    def parse_codes(self, texts: list[str]) -> np.ndarray | None:
        """:meth:`parse_code` of many printed codes at once (int32), or None when one of
        them does not parse (its message: :meth:`parse_code` of it).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.parse_codes(["111", "333"]).tolist(), game.parse_codes(["111", "4"])
        ([0, 26], None)
        """
        try:
            return np.array([self.parse_code(t) for t in texts], dtype=np.int32)
        except ValueError:
            return None

    @property
    def code_help(self) -> str:
        """What a code looks like, in a few words."""
        return f"a code such as {self.format_code(0)}"

    @property
    def secret_help(self) -> str:
        """What a secret looks like, in a few words (the prompt of ``evo play``): a code
        (a game whose guesses are more than its secrets, such as Wordle, says which)."""
        return self.code_help

    # ------------------------------------------------------------ feedbacks
    @abstractmethod
    def format_feedback(self, fb: int) -> str:
        """A feedback as people read it, the one notation of evo's output (files, tables,
        pictures, graphs).

        >>> import evo
        >>> game = evo.make_game(4, 6)
        >>> game.format_feedback(0), evo.make_game(4, 6, "black-peg").format_feedback(1)
        ('4B 0W', '3B')
        """

    @abstractmethod
    def parse_feedback(self, text: str) -> int:
        """The feedback :meth:`format_feedback` printed as ``text`` (and the other
        spellings the game accepts); ValueError (one line) else.

        >>> import evo
        >>> evo.make_game(4, 6).parse_feedback("1B 2W"), evo.make_game(4, 6).parse_feedback("1,2")
        (8, 8)
        """

    @property
    def feedback_prompt(self) -> str:
        """What the feedback is called in a prompt (``black,white``)."""
        return "feedback"

    @property
    def feedback_help(self) -> str:
        """How to type a feedback, in a few words (the prompt of ``evo play``)."""
        shown = ", ".join(self.format_feedback(f) for f in range(min(3, self.num_feedbacks)))
        return f"the feedback as evo writes it ({shown}, …)"

    @abstractmethod
    def compute_feedback(self, guesses: np.ndarray | int, secrets: np.ndarray | int) -> np.ndarray:
        """Feedbacks (uint8) of paired (broadcast) guess and secret arrays, without the table.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.compute_feedback(1, game.all_codes()[:3]).tolist()  # 112 against 111, 112, 113
        [1, 0, 1]
        """

    @cached_property
    def table(self) -> np.ndarray | None:
        """The ``(G, M)`` uint8 feedback table, or None when it is not kept in memory."""
        if not self.use_table:
            return None
        return self._build_table()

    def _build_table(self) -> np.ndarray:
        """The table, computed (a game keeps it in memory or in a file as it needs)."""
        g, m = self.num_guesses, self.num_codes
        table = np.empty((g, m), dtype=np.uint8)
        block = max(1, min(g, (32 * 1024**2) // max(1, m)))
        secrets = np.arange(m, dtype=np.int64)[None, :]
        for lo in range(0, g, block):
            rows = np.arange(lo, min(g, lo + block), dtype=np.int64)[:, None]
            table[lo : lo + len(rows)] = self.compute_feedback(rows, secrets)
        return table

    @property
    def computed_source(self) -> tuple:
        """What the compiled kernels compute feedbacks from without the table
        (:mod:`evo.core.feedback_kernel`); a game that has no such source keeps its table."""
        raise NotImplementedError(f"{self.name} computes no feedback in the compiled kernels")

    @property
    def feedback_source(self) -> np.ndarray | tuple:
        """The compiled kernels' source of feedbacks (:mod:`evo.core.feedback_kernel`):
        the pair of the table and the table read by secret (its transpose; the table
        itself when the feedback is symmetric), both read-only plain arrays, so that every
        game with a table is one numba type and its kernels compile once; else
        :attr:`computed_source` (the same numbers, computed where they are needed)."""
        t = self.table
        if t is None:
            return self.computed_source
        if self.symmetric_feedback:
            t = _read_only(t)
            return (t, t)
        return (_read_only(t), self._transposed)

    @cached_property
    def _transposed(self) -> np.ndarray:
        """The ``(M, G)`` transposed table, read by secret."""
        t = self.table
        assert t is not None
        out = np.ascontiguousarray(t.T)
        out.setflags(write=False)  # as the table: the pair is one numba type
        return out

    @property
    def table_at_hand(self) -> bool:
        """Whether using the table costs no build worth counting (in memory already, or
        small)."""
        return self.use_table

    def computing(self) -> Game:
        """The same game without a table where the kernels can compute each feedback
        they need (else the game itself).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> game.computing().use_table, game.computing() == game  # the same game
        (False, True)
        """
        return self

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
        """Feedbacks of one guess against ``secrets`` (every secret when omitted).

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

    # ------------------------------------------------------------ memory
    def memory_need(self, trees: int = 1, *, memory: int | None = None) -> tuple[int, bool]:
        """Bytes the game needs (its table when it is used, plus ``trees`` trees), and
        whether the table is used: within a ``memory`` budget (bytes) and 80% of the
        memory available when a budget is given, else when it is at most
        :data:`TABLE_LIMIT_BYTES` and a third of the memory available.

        >>> import evo
        >>> need, table = evo.make_game(4, 6).memory_need()
        >>> table, need > 1296 * 1296
        (True, True)
        """
        return memory_estimate(
            self.num_codes, self.num_guesses, trees=trees, memory=memory, per_code=0
        )


class TabledGame(Game):
    """A game whose feedbacks are its table, always kept whole (a custom game, Wordle):
    computing a feedback is reading it."""

    def compute_feedback(self, guesses: np.ndarray | int, secrets: np.ndarray | int) -> np.ndarray:
        g = np.asarray(guesses, dtype=np.int64)
        s = np.asarray(secrets, dtype=np.int64)
        table = self.table
        assert table is not None  # kept whole, always
        return table[g, s]


def _read_only(table: np.ndarray) -> np.ndarray:
    """``table`` as a read-only plain C-ordered array (a view where it is one already: a
    memory-mapped table and one built in memory are then the same numba type)."""
    if type(table) is np.ndarray and table.flags.c_contiguous and not table.flags.writeable:
        return table
    view = np.ascontiguousarray(table).view(np.ndarray)
    view.setflags(write=False)
    return view


def rule_state(game: Game, history: Sequence[int], code: int) -> Hashable:
    """The state of ``game``'s rule at the node the guesses of ``history`` lead to for
    secret ``code`` (any code of that node: they all answer the history alike)."""
    rule = game.rule
    assert rule is not None
    state = rule.start()
    for g in history:
        state = rule.after(state, int(g), int(game.feedback(int(g), int(code))))
    return state


def legal_guesses(game: Game, history: Sequence[int], codes: np.ndarray) -> np.ndarray | None:
    """The guesses legal at the node of code set ``codes`` (not empty) that ``history``
    leads to, ascending (int64); None when every guess is (a game without a rule)."""
    if game.rule is None:
        return None
    return legal_in(game, rule_state(game, history, int(codes[0])))


def legal_in(game: Game, state: Hashable) -> np.ndarray:
    """The guesses legal in a state of ``game``'s rule, ascending (int64)."""
    rule = game.rule
    assert rule is not None
    mask = np.asarray(rule.legal(state), dtype=bool)
    if mask.shape != (game.num_guesses,):
        raise ValueError(
            f"{game.name}'s rule gave {mask.shape} legal flags, not {game.num_guesses}"
        )
    return np.flatnonzero(mask).astype(np.int64)


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


def gib_text(n: float) -> str:
    """Bytes in GiB, MiB or KiB, as evo's messages show them."""
    if n >= 1024**3:
        return f"{n / 1024**3:.2f} GiB"
    return f"{n / 1024**2:.1f} MiB" if n >= 1024**2 / 10 else f"{n / 1024:.1f} KiB"


def memory_estimate(
    codes: int,
    guesses: int,
    *,
    trees: int = 1,
    memory: int | None = None,
    per_code: int = 0,
) -> tuple[int, bool]:
    """Bytes a game of ``codes`` secrets and ``guesses`` guesses needs (its ``(G, M)``
    table when it is used, ``per_code`` bytes of its own per code, plus ``trees``
    trees), and whether the table is used: within a ``memory`` budget (bytes) and 80% of
    the memory available when a budget is given (a budget beyond the machine is no
    reason to build a table that does not fit it), else when it is at most
    :data:`TABLE_LIMIT_BYTES` and a third of the memory available."""
    table = codes * guesses
    working = codes * (per_code + WORKING_BYTES_PER_CODE) + trees * codes * 64
    if memory is None:
        use_table = table <= min(TABLE_LIMIT_BYTES, available_memory_bytes() // 3)
    else:
        use_table = table + working <= min(memory, available_memory_bytes() * 0.8)
    return (table if use_table else 0) + working, use_table


def check_fits(what: str, need: int, memory: int | None) -> None:
    """Raise :class:`GameTooLargeError` when ``need`` bytes exceed the ``memory`` budget or
    80% of the memory available (``what``: the game and its needs, in words)."""
    have = available_memory_bytes()
    if memory is not None and need > memory:
        raise GameTooLargeError(f"{what}, more than the memory budget of {gib_text(memory)}")
    if need > have * 0.8:
        raise GameTooLargeError(
            f"{what}, more than the {gib_text(have * 0.8)} this machine can give "
            f"(80% of {gib_text(have)} available)"
        )


def table_note(game: Game, *, read: bool = True) -> str:
    """How a game gets its feedbacks, in a few words: from its table (and its size), or
    computed where they are needed because the table is not kept, or (``read=False``)
    not built for work that computes them; and the memory it is expected to take (its
    table, codes and one tree)."""
    table = game.num_codes * game.num_guesses
    need, counted = game.memory_need()
    working = need - (table if counted else 0)
    if game.use_table and read:
        total = gib_text(working + table)
        return f"feedback table of {gib_text(table)}, about {total} with its codes and a tree"
    why = "not kept in" if not game.use_table else "no need to build"
    return (
        f"feedbacks computed where needed, {why} a {gib_text(table)} table; "
        f"about {gib_text(working)} for its codes and a tree"
    )


def make_game(
    pegs: int | str = 4,
    colors: int = 6,
    variant: str = "mastermind",
    *,
    trees: int = 1,
    table: bool | None = None,
    memory: int | None = None,
    cache: str | os.PathLike | None = None,
) -> Game:
    """Check the parameters and the memory, then build a game of the Mastermind family:
    ``pegs`` and ``colors`` (digits for Bulls and Cows) of a ``variant``: ``mastermind``
    (colors may repeat), ``black-peg`` (Mastermind answered by black pegs only) or
    ``bulls-cows`` (distinct digits). Or Wordle: ``make_game("wordle")`` or
    ``make_game("wordle-hard")`` (also ``variant="wordle"``), whose words are fixed, so
    that ``pegs``, ``colors`` and the options but ``cache`` do not apply. The game's
    family (:mod:`evo.games`) makes it (:mod:`evo.core.families`).

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
    >>> evo.make_game(4, 6, "black-peg").num_feedbacks
    5
    >>> evo.make_game(8, 12, memory=2**30)
    Traceback (most recent call last):
    ...
    evo.core.game.GameTooLargeError: the mastermind game (8 pegs, 12 colors) has ...
    >>> game = evo.make_game("wordle")
    >>> game.num_codes, game.num_guesses, game.num_feedbacks
    (2315, 12972, 243)
    """
    kind = pegs if isinstance(pegs, str) else variant
    family = family_of(kind)
    if isinstance(pegs, str) and (family is None or family.naming != "alone"):
        raise ValueError(
            f"a game named alone is one of {', '.join(registered_kinds('alone'))}, not "
            f"{pegs!r} ({', '.join(registered_kinds('pegs'))} are named by pegs and colors)"
        )
    if family is None or family.naming == "python":
        raise ValueError(
            f"variant must be one of {', '.join(registered_kinds('pegs'))}, not {variant!r}"
        )
    return family.load().make(
        pegs, colors, kind, trees=trees, table=table, memory=memory, cache=cache
    )


def game_from_spec(
    spec: Mapping[str, Any],
    *,
    cache: str | os.PathLike | None = None,
    trees: int = 1,
    memory: int | None = None,
) -> Game:
    """The game a :attr:`Game.spec` names (a tree file's, a summary's, a certificate's),
    made by its family (``cache``, ``trees``, ``memory``: see :func:`make_game`); a
    custom game must have been defined in this process (:class:`UnknownGameError` else,
    in one line). ValueError for a spec that is not one.

    >>> import evo
    >>> evo.core.game.game_from_spec({"pegs": 3, "colors": 4, "variant": "black-peg"}).name
    'black-peg-3-4'
    """
    family = _family_of_spec(spec)
    return family.load().from_spec(spec, cache=cache, trees=trees, memory=memory)


def spec_key(spec: Any) -> tuple:
    """The :attr:`Game.key` of the game ``spec`` names, without making it (a file's game
    compared with the one asked for); ValueError, naming the key, for a spec that is not
    one.

    >>> import evo
    >>> spec_key({"pegs": 4, "colors": 6}) == evo.make_game(4, 6).key
    True
    """
    return _family_of_spec(spec).load().spec_key(spec)


def spec_text(spec: Mapping[str, Any]) -> str:
    """The game of a (valid) spec in a few words: ``mastermind with 4 pegs and 6 colors``,
    ``the custom game 'pets'``."""
    family = _family_of_spec(spec).load()
    return family.spec_text(family.spec_key(spec))


def _family_of_spec(spec: Any) -> Family:
    """The family of the game a spec names (its ``kind``, or ``variant``; Mastermind when
    neither is given); ValueError for a spec that names none."""
    if not isinstance(spec, Mapping):
        raise ValueError(f"'game' should be an object naming the game, not {spec!r}")
    kind = spec.get("kind", spec.get("variant", "mastermind"))
    family = family_of(kind)
    if family is None:
        raise ValueError(
            f"game.kind should be one of {', '.join(registered_kinds())}, not {kind!r}"
        )
    return family
