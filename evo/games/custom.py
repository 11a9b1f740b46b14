"""Custom games (docs/DESIGN.md §1): any list of codes and a feedback function, defined in
Python, evolved, bounded and drawn like the games evo ships.

The codes (the secrets) are any hashable labels; the guesses are the codes, followed by
the extra guesses given (``guesses``, a superset of the codes). The feedback function is
called once per guess and secret, guess by guess in order, each against the codes in
order, and its answers become the feedback integers: the answer to a secret guessed is
the win, 0; the others follow in their own order when it is total (each less than the
next once sorted: numbers, strings, tuples of them), else in the order they first appear
in that walk. Labels and answers are written with ``str``, a set's members in the order
of their own text: order, text and digest are the same in every process, whatever its
``PYTHONHASHSEED``. The whole ``(G, M)`` table is kept (one byte a pair, filled a guess at
a time), so the kernels read it as they read Mastermind's; a game whose build would not
fit the memory budget is refused before any answer is asked for. A custom game has no
known symmetry.

A custom game may restrict the guesses, as Wordle's hard mode does: ``legal(guess,
earlier, answer)`` says whether ``guess`` may be played after ``earlier`` was answered
``answer``, and a guess is legal at a node when it is so after every guess above
(:class:`StepRule`; tabulated when the game is made, so every code still possible must
be legal).

A game is registered in this process under its name when it is made, so that tree files,
configs and worker processes that name it find it again; files name it with a digest of
its codes, guesses and feedback table, and one of another game of that name is refused.

>>> import evo
>>> words = ["ant", "bug", "cat", "dog", "elk", "fox"]
>>> def shared(guess, secret):  # letters in common
...     return len(set(guess) & set(secret))
>>> game = evo.custom_game(words, shared, name="pets")
>>> game.num_codes, game.num_feedbacks, game.format_feedback(0)
(6, 4, '3')
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from evo.core.game import GuessRule, TabledGame, UnknownGameError, check_fits, gib_text
from evo.core.numbers import MAX_BUDGET_BYTES, whole

#: What a custom game's name may hold: it names cache folders and run directories.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

#: The most codes and guesses a custom game's table may hold (its bytes).
MAX_TABLE_BYTES = 1 << 31

#: Bytes of work per code while one guess's answers are read (the answers as Python
#: objects and their ids), and per guess (its label's text and index), beyond the table
#: (:func:`build_bytes`): generous; 6,000 codes peaked at their 34 MiB table and 4 MiB.
ROW_BYTES_PER_CODE = 128
BYTES_PER_GUESS = 512

#: Rows of the table renumbered at once when the answers are sorted (bytes of scratch).
_REMAP_BYTES = 1 << 22

#: Every custom game made in this process, by name (the last one made under a name).
_REGISTRY: dict[str, CustomGame] = {}


class CustomGame(TabledGame):
    """A game of codes, guesses and feedbacks given in Python (:func:`custom_game`)."""

    use_table = True
    cache = None

    def __init__(
        self,
        name: str,
        codes: Sequence[Hashable],
        guesses: Sequence[Hashable],
        feedbacks: Sequence[Hashable],
        table: np.ndarray,
        allowed: np.ndarray | None = None,
    ):
        self._name = name
        self._rule = None if allowed is None else StepRule(allowed)
        self.codes = tuple(codes)
        self.guesses = tuple(guesses)
        self.feedbacks = tuple(feedbacks)
        self._table = np.ascontiguousarray(table, dtype=np.uint8)
        self._table.setflags(write=False)
        self._code_text = [written(c) for c in self.guesses]
        self._feedback_text = [written(f) for f in self.feedbacks]

    # ---------------------------------------------------------------- identity
    @property
    def kind(self) -> str:
        return "custom"

    @property
    def num_codes(self) -> int:
        return len(self.codes)

    @property
    def num_guesses(self) -> int:
        return len(self.guesses)

    @property
    def num_feedbacks(self) -> int:
        return len(self.feedbacks)

    @property
    def name(self) -> str:
        return self._name

    @cached_property
    def digest(self) -> str:
        """A SHA-256 of the codes, guesses and feedbacks as written, and of the table
        (16 hex digits): what tells this game from another of its name."""
        h = hashlib.sha256()
        for part in (self._code_text[: self.num_codes], self._code_text, self._feedback_text):
            h.update(repr(part).encode())
        h.update(np.array(self._table.shape, dtype=np.int64).tobytes())
        h.update(self._table.data)  # the bytes in place: no copy of a big table
        if self._rule is not None:
            h.update(np.packbits(self._rule.allowed).tobytes())
        return h.hexdigest()[:16]

    @property
    def rule(self) -> StepRule | None:
        """The rule on legal guesses given to :func:`custom_game` (None: every guess)."""
        return self._rule

    @property
    def key(self) -> tuple:
        return ("custom", self._name, self.digest)

    @property
    def spec(self) -> dict[str, Any]:
        """``{"kind": "custom", "name", "codes", "guesses", "feedbacks", "digest"}``:
        enough to find the game again in a process that defined it, and to refuse
        another."""
        return {
            "kind": "custom",
            "name": self._name,
            "codes": self.num_codes,
            "guesses": self.num_guesses,
            "feedbacks": self.num_feedbacks,
            "digest": self.digest,
        }

    @property
    def description(self) -> str:
        extra = self.num_guesses - self.num_codes
        more = f", {extra} more guesses" if extra else ""
        return f"{self._name} (custom game, {self.num_codes} codes{more})"

    @cached_property
    def symmetric_feedback(self) -> bool:
        t = self._table
        return t.shape[0] == t.shape[1] and bool(np.array_equal(t, t.T))

    def __repr__(self) -> str:
        return (
            f"CustomGame({self._name!r}: {self.num_codes} codes, {self.num_guesses} guesses, "
            f"{self.num_feedbacks} feedbacks)"
        )

    def __reduce__(self):
        # Pickled whole (worker processes have not defined it), then interned there.
        allowed = None if self._rule is None else self._rule.allowed
        args = (self._name, self.codes, self.guesses, self.feedbacks, self._table, allowed)
        return (_rebuilt, args)

    # ---------------------------------------------------------------- codes
    def label(self, code: int) -> Hashable:
        """The label the code (or guess) was given."""
        return self.guesses[int(code)]

    def format_code(self, code: int) -> str:
        return self._code_text[int(code)]

    @cached_property
    def _code_ids(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._code_text)}

    @cached_property
    def _folded_ids(self) -> dict[str, int]:
        """Codes by their text without case and spaces, where that is unambiguous."""
        out: dict[str, int] = {}
        seen: set[str] = set()
        for i, t in enumerate(self._code_text):
            k = _fold(t)
            if k in seen:
                out.pop(k, None)
            else:
                out[k] = i
                seen.add(k)
        return out

    def parse_code(self, text: str) -> int:
        """The guess written ``text`` (as :meth:`format_code` writes it; case and spaces
        ignored where no two guesses differ only by them)."""
        s = str(text)
        hit = self._code_ids.get(s)
        if hit is None:
            hit = self._folded_ids.get(_fold(s))
        if hit is None:
            shown = ", ".join(repr(t) for t in self._code_text[:3])
            raise ValueError(f"{text!r} is not a guess of {self._name} (such as {shown})")
        return hit

    # ------------------------------------------------------------ feedbacks
    def format_feedback(self, fb: int) -> str:
        return self._feedback_text[int(fb)]

    @cached_property
    def _feedback_ids(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._feedback_text)}

    def parse_feedback(self, text: str) -> int:
        """The feedback written ``text`` (as :meth:`format_feedback` writes it; spaces
        and case ignored where no two feedbacks differ only by them)."""
        s = str(text)
        hit = self._feedback_ids.get(s)
        if hit is None:
            folded = [i for i, t in enumerate(self._feedback_text) if _fold(t) == _fold(s)]
            hit = folded[0] if len(folded) == 1 else None
        if hit is None:
            shown = ", ".join(repr(t) for t in self._feedback_text[:4])
            raise ValueError(f"feedback {text!r} is not one of {self._name} (such as {shown})")
        return hit

    @property
    def table(self) -> np.ndarray:
        return self._table


class StepRule(GuessRule):
    """A rule made of steps: ``allowed[h, f, g]`` says whether guess ``g`` may follow
    guess ``h`` answered ``f``; the state is the set of (guess, feedback) steps above a
    node, and a guess is legal when every step allows it. It narrows: a longer history
    only adds steps to AND."""

    narrows = True

    def __init__(self, allowed: np.ndarray):
        self.allowed = np.asarray(allowed, dtype=bool)
        self.allowed.setflags(write=False)
        self._legal: dict[frozenset, np.ndarray] = {}

    def start(self) -> frozenset:
        return frozenset()

    def after(self, state: Hashable, guess: int, feedback: int) -> frozenset:
        assert isinstance(state, frozenset)
        return state | {(int(guess), int(feedback))}

    def legal(self, state: Hashable) -> np.ndarray:
        assert isinstance(state, frozenset)
        hit = self._legal.get(state)
        if hit is None:
            hit = np.ones(self.allowed.shape[2], dtype=bool)
            for h, f in state:
                hit &= self.allowed[h, f]
            if len(self._legal) > 1 << 16:
                self._legal.clear()
            self._legal[state] = hit
        return hit


def _fold(text: str) -> str:
    return "".join(text.split()).casefold()


def _rebuilt(
    name: str,
    codes: tuple,
    guesses: tuple,
    feedbacks: tuple,
    table: np.ndarray,
    allowed: np.ndarray | None = None,
) -> CustomGame:
    """A pickled custom game, made again and interned (a worker process)."""
    return _intern(CustomGame(name, codes, guesses, feedbacks, table, allowed))


def _intern(game: CustomGame) -> CustomGame:
    """The game registered under ``game``'s name when it is the same game, else ``game``,
    registered in its place (the last definition of a name is the one files find)."""
    known = _REGISTRY.get(game.name)
    if known is not None and known.digest == game.digest:
        return known
    _REGISTRY[game.name] = game
    return game


def written(label: Hashable) -> str:
    """``str(label)``, but a set's members (in it or in a tuple) in the order of their own
    text: Python writes them in hash order, which changes with ``PYTHONHASHSEED``."""
    return _text(label, inner=False)


def _text(value: Any, *, inner: bool) -> str:
    """:func:`written`'s text of ``value``; ``inner``: inside a container, as ``repr``."""
    if isinstance(value, set | frozenset):
        members = sorted(_text(v, inner=True) for v in value)
        kind = type(value).__name__
        return f"{kind}({{{', '.join(members)}}})" if members else f"{kind}()"
    if type(value) is tuple:
        parts = [_text(v, inner=True) for v in value]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return repr(value) if inner else str(value)


def _feedback_order(values: list[Any]) -> list[int]:
    """The order of the answers that are not the win, as indices into ``values`` (their
    first appearances): sorted when their order is total (each less than the next once
    sorted), else as they first appeared (a set's ``<`` is only a partial order)."""
    first = list(range(len(values)))
    try:
        ranked = sorted(first, key=values.__getitem__)
        if all(bool(values[a] < values[b]) for a, b in zip(ranked, ranked[1:])):
            return ranked
    except (TypeError, ValueError):
        pass
    return first


def build_bytes(codes: int, guesses: int) -> int:
    """About the bytes :func:`custom_game` needs to build a game of ``codes`` secrets and
    ``guesses`` guesses: its ``(G, M)`` table, rows of it renumbered at once, the answers
    of one guess, the labels."""
    table = codes * guesses
    work = ROW_BYTES_PER_CODE * codes + BYTES_PER_GUESS * guesses
    return table + min(table, _REMAP_BYTES) + work


def _answers(
    what: str, feedback: Callable, guesses: list, codes: list, texts: list[str]
) -> tuple[np.ndarray, list[Hashable]]:
    """The ``(G, M)`` table of answer ids and the answers by id, asked guess by guess (in
    order), each against the codes in order: an answer's id is the rank of its first
    appearance (the win, the first code's answer to itself, is 0). A row is filled at a
    time, so no answer outlives its row; each is checked: hashable, at most 256 answers,
    every code answers itself as the win and no other pair does."""
    m = len(codes)
    table = np.empty((len(guesses), m), dtype=np.uint8)
    ids: dict[Hashable, int] = {}
    order: list[Hashable] = []
    misplaced: tuple[int, int] | None = None  # the first other pair answered as the win
    for i, x in enumerate(guesses):
        row = [feedback(x, s) for s in codes]
        try:
            got: list[Any] = list(map(ids.get, row))  # None: not met yet
        except TypeError:
            j = next(j for j, a in enumerate(row) if not _can_hash(a))
            raise ValueError(
                f"{what}: feedback({texts[i]!r}, {texts[j]!r}) is {row[j]!r}, not hashable"
            ) from None
        if None in got:
            for j, a in enumerate(row):
                if got[j] is None:
                    k = ids.get(a)
                    if k is None:
                        if len(order) == 256:
                            raise ValueError(
                                f"{what}: more than 256 different feedbacks (the 257th: "
                                f"feedback({texts[i]!r}, {texts[j]!r}) is {a!r:.40})"
                            )
                        k = ids[a] = len(order)
                        order.append(a)
                    got[j] = k
        table[i] = np.frombuffer(bytes(got), dtype=np.uint8)
        if i < m and got[i] != 0:
            raise ValueError(
                f"{what}: the code {texts[i]!r} answers itself {row[i]!r}, not {order[0]!r} "
                f"as the code {texts[0]!r} does: every code guessed must win alike"
            )
        if misplaced is None and np.count_nonzero(table[i] == 0) != (i < m):
            wins = np.flatnonzero(table[i] == 0)
            misplaced = (i, int(wins[wins != i][0]))
        if misplaced is not None and i >= m - 1:  # every code's answer to itself seen
            h, j = misplaced
            raise ValueError(
                f"{what}: the guess {texts[h]!r} answers the secret {texts[j]!r} as a win "
                f"({order[0]!r})"
            )
    return table, order


def _can_hash(value: Any) -> bool:
    """Whether ``value`` can be a dict key (an answer must)."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


def custom_game(
    codes: Sequence[Hashable],
    feedback: Callable[[Any, Any], Hashable],
    *,
    guesses: Sequence[Hashable] | None = None,
    legal: Callable[[Any, Any, Any], bool] | None = None,
    name: str = "custom",
    memory: int | None = None,
) -> CustomGame:
    """A game of ``codes`` (the secrets: any distinct hashable labels, such as strings)
    and ``feedback(guess, secret)`` (any hashable answer), called once per guess and
    secret; ``guesses``: the guesses allowed (the codes, and more), by default the codes.
    Every code answers itself alike (the win), and no other pair answers so.
    ``legal(guess, earlier, answer)``: whether ``guess`` may be played below ``earlier``
    answered ``answer`` (labels as given; a rule such as Wordle's hard mode; every guess
    by default); a code that answers ``earlier`` so must be allowed. ``name``
    names it in files, caches and run directories (letters, digits, ``.``, ``_``, ``-``);
    the game is registered in this process under it, so that a tree file of the game
    loads here (the last game made under a name is the one found).
    The win is feedback 0; the other answers follow sorted when their order is total
    (each less than the next: numbers, strings, tuples of them), else in the order they
    first appear, guess by guess, each against the codes in order (sets, mixed types):
    the same order, text and digest in every process, whatever its hash seed. The table
    takes a byte per guess and code (at most 2 GiB), built a guess at a time;
    ``memory``: the bytes the build may take, as :func:`make_game`'s (default, and at
    most, 80% of the memory available): a game whose estimate exceeds it is refused in
    one line that gives both, before any answer is asked for.

    >>> import evo
    >>> game = evo.custom_game(["ab", "ba", "aa"], lambda g, s: sum(x == y for x, y in zip(g, s)))
    >>> game.num_feedbacks, [game.format_feedback(f) for f in range(3)]
    (3, ['2', '0', '1'])
    >>> evo.custom_game(["a", "b"], lambda g, s: 0)
    Traceback (most recent call last):
    ...
    ValueError: custom game 'custom': the guess 'a' answers the secret 'b' as a win (0)
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"a custom game's name must be 1 to 64 letters, digits, '.', '_' or '-' "
            f"(a letter or digit first), not {name!r}"
        )
    what = f"custom game {name!r}"
    if isinstance(codes, str | bytes) or not isinstance(codes, Sequence) or not len(codes):
        raise ValueError(f"{what}: codes must be a non-empty list of labels, not {codes!r}")
    if not callable(feedback):
        raise ValueError(f"{what}: feedback must be a function of (guess, secret)")
    codes = list(codes)
    extra: list[Hashable] = []
    if guesses is not None:
        if isinstance(guesses, str | bytes) or not isinstance(guesses, Sequence):
            raise ValueError(f"{what}: guesses must be a list of labels, not {guesses!r}")
        secret_set = set(_hashable(codes, what, "codes"))
        given = list(guesses)
        missing = secret_set - set(_hashable(given, what, "guesses"))
        if missing:
            raise ValueError(
                f"{what}: guesses must hold every code; {sorted(map(str, missing))[:3]} missing"
            )
        extra = [g for g in given if g not in secret_set]
    everything = codes + extra
    texts = [written(c) for c in _hashable(everything, what, "codes")]
    if len(set(everything)) != len(everything):
        raise ValueError(f"{what}: a code or guess is given twice")
    if len(set(texts)) != len(texts):
        raise ValueError(f"{what}: two codes or guesses are written alike ({texts!r:.60})")
    m, g = len(codes), len(everything)
    if m * g > MAX_TABLE_BYTES:
        raise ValueError(
            f"{what}: {g:,} guesses by {m:,} codes is too big a table "
            f"({m * g:,} bytes, at most {MAX_TABLE_BYTES:,})"
        )
    if memory is not None:
        memory = min(MAX_BUDGET_BYTES, whole(memory, what=f"{what}: memory (bytes)", low=1))
    need = build_bytes(m, g)
    check_fits(
        f"{what}: {g:,} guesses by {m:,} codes need about {gib_text(need)} to build", need, memory
    )
    table, first = _answers(what, feedback, everything, codes, texts)
    ranked = _feedback_order(first[1:])
    order = [first[0], *(first[1 + k] for k in ranked)]
    if ranked != sorted(ranked):  # renumber the answers in their sorted order
        renumber = np.zeros(len(order), dtype=np.uint8)
        renumber[1 + np.array(ranked, dtype=np.int64)] = np.arange(1, len(order))
        step = max(1, _REMAP_BYTES // m)
        for lo in range(0, g, step):
            table[lo : lo + step] = renumber[table[lo : lo + step]]
    shown = [written(v) for v in order]
    if len(set(shown)) != len(order):
        raise ValueError(f"{what}: two feedbacks are written alike ({shown})")
    allowed = None if legal is None else _steps(what, legal, everything, order, table)
    return _intern(CustomGame(name, codes, everything, order, table, allowed))


#: The most entries (guesses x feedbacks x guesses) a custom rule's table may hold.
MAX_RULE_ENTRIES = 1 << 27


def _steps(
    what: str, legal: Callable, guesses: list, feedbacks: list, table: np.ndarray
) -> np.ndarray:
    """``allowed[h, f, g]``: ``legal(g, h, f)`` on labels, for every feedback ``f`` that
    guess ``h`` gives; checked to allow every code that answers ``h`` with ``f``."""
    if not callable(legal):
        raise ValueError(f"{what}: legal must be a function of (guess, earlier, answer)")
    g, f = len(guesses), len(feedbacks)
    if g * f * g > MAX_RULE_ENTRIES:
        raise ValueError(f"{what}: a rule over {g:,} guesses and {f} feedbacks is too big")
    allowed = np.zeros((g, f, g), dtype=bool)
    for h in range(g):
        for fb in np.unique(table[h]).tolist():
            if fb == 0:
                continue  # the win ends the game
            row = [bool(legal(x, guesses[h], feedbacks[fb])) for x in guesses]
            allowed[h, fb] = row
            for s in np.flatnonzero(table[h] == fb).tolist():
                if not row[s]:
                    raise ValueError(
                        f"{what}: legal forbids {str(guesses[s])!r} after {str(guesses[h])!r} "
                        f"answered {str(feedbacks[fb])!r}, though it is still possible there"
                    )
    return allowed


def _hashable(labels: list, what: str, role: str) -> list:
    """``labels``, each checked to be hashable."""
    for x in labels:
        try:
            hash(x)
        except TypeError:
            raise ValueError(f"{what}: {role} must be hashable labels, not {x!r}") from None
    return labels


def registered_game(spec: Mapping[str, Any]) -> CustomGame:
    """The custom game a file's ``spec`` names, defined in this process;
    :class:`~evo.core.game.UnknownGameError` (one line) when it is not, or is another."""
    name = spec.get("name")
    if not isinstance(name, str):
        raise ValueError(f"a custom game is named by a string, not {name!r}")
    game = _REGISTRY.get(name)
    if game is None:
        raise UnknownGameError(
            f"the custom game {name!r} is not defined in this process: make it first with "
            f"evo.custom_game(..., name={name!r})"
        )
    digest = spec.get("digest")
    if digest is not None and digest != game.digest:
        raise UnknownGameError(
            f"the custom game {name!r} defined here is not the one named ({game.num_codes} "
            f"codes, digest {game.digest}, not {spec.get('codes')} codes, digest {digest})"
        )
    return game


# ---------------------------------------------------------------- the family's functions
def make(pegs: int | str, colors: int, kind: str, **_: Any) -> CustomGame:
    """A custom game is made in Python only (:func:`custom_game`)."""
    raise ValueError("a custom game is made in Python: evo.custom_game(codes, feedback, ...)")


def from_spec(spec: Mapping[str, Any], **_: Any) -> CustomGame:
    """The custom game a spec names, defined in this process (:func:`registered_game`)."""
    return registered_game(spec)


def spec_key(spec: Mapping[str, Any]) -> tuple:
    """``("custom", name, digest)``: a custom game is named by its name and digest."""
    name, digest = spec.get("name"), spec.get("digest")
    if not isinstance(name, str) or not isinstance(digest, str):
        raise ValueError("a custom game is named by its 'name' and 'digest' (strings)")
    return ("custom", name, digest)


def spec_text(key: tuple) -> str:
    """``the custom game 'pets'``."""
    return f"the custom game {key[1]!r}"
