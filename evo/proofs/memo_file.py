"""The exact search's memo kept on disk beside a bound's certificate, so that a bound that
goes on (``evo bound --resume``) does not search again the code sets a stopped run solved.

The file (``CERT.memo``, :func:`memo_path`) is JSON lines: a head ``{"format", "game"}``,
then one line per code set of at least :data:`LEAST_CODES` codes that the exact search
of :func:`evo.proofs.bound.part_bound` solved or bounded: ``codes``, its sorted codes as
little-endian unsigned integers (2 bytes, 4 past 65,536 codes) in base64; ``cost`` and
``guess``, its least total and the first guess of a subtree that reaches it, or (guess
-1, cost 0) only ``lower``, a bound its least total is at least. Those are facts of the
set whatever the part it was met in (the search tries every guess), as in the memo.

Each line is sealed (:mod:`evo.core.seal`) over its fields and the game: a line whose
seal does not hold (edited, or written on another machine or for another game) is not
used, only counted, so no file can make the bound claim what was not proved here. A file
that is not such a file at all is refused by :func:`read_memo` (:class:`MemoFileError`,
one line naming it); :func:`open_memo`, which a bound goes on with, sets it aside instead
(renamed ``CERT.memo.bad-<time>``, a line saying so): the memo is only a cache, and an
empty or cut one must not block ``--resume`` of a valid certificate.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.game import Game, spec_key
from evo.search.exact import Solver

#: The memo file's name: the certificate's and this.
MEMO_SUFFIX = ".memo"

#: The head's format, written in it.
FORMAT = "evo-bound-memo/1"

#: Sets of fewer codes are not kept: searched again in less time than they take to read.
#: Measured on (5,6) (NOTES-t52memo.md): from 40 codes the file keeps about a tenth of the
#: memo's sets and a fifth of its codes, and the resumed search saves as much as with 20.
LEAST_CODES = 40

#: The most codes the file keeps (the largest sets first, the costliest to search again):
#: about 21 MB of base64 in games of at most 65,536 codes, a few seconds to write.
MOST_CODES = 8_000_000

#: Seconds between two writes of the file while a bound runs (each after a task, with its
#: certificate); it is written at the end or stop of the run too.
SAVE_SECONDS = 30.0

_FIELDS = {"codes", "cost", "guess", "lower", "seal"}


class MemoFileError(ValueError):
    """A memo file that is not one (of this game): one line naming it."""


@dataclass(frozen=True)
class Fact:
    """What the exact search proved of a sorted code set: its least total ``cost`` and the
    first ``guess`` of a subtree of that total, or (guess -1) only a ``lower`` bound."""

    codes: np.ndarray
    cost: int
    guess: int
    lower: int


def memo_path(certificate: str | Path) -> Path:
    """The memo file kept beside ``certificate``: its name and :data:`MEMO_SUFFIX`."""
    certificate = Path(certificate)
    return certificate.with_name(certificate.name + MEMO_SUFFIX)


def solver_facts(
    solver: Solver,
    *,
    least: int = LEAST_CODES,
    most: int = MOST_CODES,
    also: list[Fact] | None = None,
) -> list[Fact]:
    """What ``solver``'s memos (and ``also``: facts read, which a memo emptied when full
    would have lost) know of the sets of at least ``least`` codes, the largest sets
    first, at most ``most`` codes in all; an exact cost preferred to a lower bound, and
    of two lower bounds the higher."""
    _check_solver(solver)
    known = [
        Fact(c, int(k), int(g), int(lo) if g < 0 else 0) for c, k, g, lo in solver.known_sets(least)
    ]
    best: dict[bytes, Fact] = {}
    for fact in [*(also or []), *known]:
        codes = fact.codes
        if len(codes) < least or (len(codes) > 1 and not bool(np.all(np.diff(codes) > 0))):
            continue  # a key of a search within a depth: not a set
        key = codes.astype(np.int64).tobytes()
        old = best.get(key)
        if old is None or (old.guess < 0 and (fact.guess >= 0 or fact.lower > old.lower)):
            best[key] = fact
    out, codes_kept = [], 0
    for fact in sorted(best.values(), key=lambda f: -len(f.codes)):
        if codes_kept + len(fact.codes) > most:
            break
        out.append(fact)
        codes_kept += len(fact.codes)
    return out


def plant(solver: Solver, facts: list[Fact]) -> int:
    """Put ``facts`` in ``solver``'s memo (read from a file, their seals held); how many."""
    _check_solver(solver)
    for f in facts:
        solver.remember(
            f.codes, f.cost if f.guess >= 0 else -1, f.guess if f.guess >= 0 else f.lower
        )
    return len(facts)


def write_memo(path: str | Path, game: Game, facts: list[Fact]) -> Path:
    """Write ``facts`` of ``game`` to the memo file ``path``, each line sealed, atomically."""
    from evo.core.files import atomic_write_text
    from evo.core.seal import seals

    dtype = _dtype(game)
    bodies = [
        {
            "codes": base64.b64encode(f.codes.astype(dtype).tobytes()).decode("ascii"),
            "cost": f.cost,
            "guess": f.guess,
            "lower": f.lower,
        }
        for f in facts
    ]
    marks = seals(_sealed(game, body) for body in bodies)
    lines = [json.dumps({"format": FORMAT, "game": game.spec}, sort_keys=True)]
    lines += [json.dumps({**body, "seal": mark}) for body, mark in zip(bodies, marks)]
    return atomic_write_text(path, "\n".join(lines) + "\n")


@dataclass(frozen=True)
class MemoRead:
    """A memo file's lines whose seals hold (:attr:`facts`), and how many did not."""

    facts: list[Fact]
    unsealed: int


def read_memo(path: str | Path, game: Game) -> MemoRead:
    """The facts of the memo file ``path`` of ``game`` whose seals hold;
    :class:`MemoFileError`, one line naming the file (and line), when it is not a memo file
    of the game."""
    from evo.core.files import read_text
    from evo.core.seal import seals

    text = read_text(path, what="memo file", error=MemoFileError, max_bytes=1 << 31)
    lines = text.splitlines()
    head = _json_line(lines[0] if lines else "", path, 1)
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise MemoFileError(f"{path}: not a memo file of evo bound (format {FORMAT!r})")
    try:
        same = spec_key(head.get("game")) == game.key
    except ValueError:
        same = False
    if not same:
        raise MemoFileError(f"{path}: a memo file of another game, not of {game.name}")
    dtype = _dtype(game)
    read = []
    for number, text_line in enumerate(lines[1:], 2):
        line = _json_line(text_line, path, number)
        read.append((number, line, _fact_codes(line, dtype, path, number)))
    bodies = ({k: v for k, v in line.items() if k != "seal"} for _, line, _ in read)
    marks = seals(_sealed(game, body) for body in bodies)
    facts, unsealed = [], 0
    for (number, line, codes), mark in zip(read, marks):
        if not hmac.compare_digest(mark, line["seal"]):
            unsealed += 1
            continue
        fact = Fact(codes.astype(np.int64), line["cost"], line["guess"], line["lower"])
        if not _sane(fact, game):
            raise MemoFileError(
                f"{path}, line {number}: not a code set of {game.name} and its cost"
            )
        facts.append(fact)
    return MemoRead(facts, unsealed)


@dataclass
class KeptMemo:
    """The memo file a bound goes on with (:func:`evo.proofs.refine.lower_bound`'s
    ``memo``): what was read of it, planted before the first task, and where the exact
    search's memo is written again (at most every ``every`` seconds, and at the end)."""

    path: Path
    game: Game
    read: MemoRead = field(default_factory=lambda: MemoRead([], 0))
    every: float = SAVE_SECONDS
    least: int = LEAST_CODES
    most: int = MOST_CODES
    planted: int = 0
    #: When the file there was not a memo file of the game: the line that says it was set
    #: aside (:func:`open_memo`), else empty.
    note: str = ""
    _last: float = -math.inf
    _kept: list[Fact] = field(default_factory=list)  # what the file holds: read or written

    def __post_init__(self) -> None:
        self._kept = list(self.read.facts)

    def plant(self, solver: Solver) -> int:
        """The facts read, put in ``solver``'s memo (once)."""
        if not self.planted:
            self.planted = plant(solver, self.read.facts)
        return self.planted

    def save(self, solver: Solver, *, now: bool = False) -> bool:
        """Write ``solver``'s facts to the file when ``every`` seconds passed since the
        last write (``now``: whatever the time); whether it did."""
        if not now and time.monotonic() - self._last < self.every:
            return False
        # With what was written last (and read): a memo emptied when full forgets them.
        facts = solver_facts(solver, least=self.least, most=self.most, also=self._kept)
        write_memo(self.path, self.game, facts)
        self._kept = facts
        self._last = time.monotonic()
        return True


def open_memo(path: str | Path, game: Game, *, least: int = LEAST_CODES) -> KeptMemo:
    """The memo file ``path`` of ``game`` to go on with: read when it exists
    (:func:`read_memo`), else to be written. A file there that is not a memo file of the
    game (empty, cut, edited out of form) is set aside, said in :attr:`KeptMemo.note`: it
    is only a cache; :class:`MemoFileError` when it cannot be set aside."""
    from evo.core.files import set_aside

    path = Path(path)
    try:
        read = read_memo(path, game) if os.path.lexists(path) else MemoRead([], 0)
    except MemoFileError as e:
        try:
            aside = set_aside(path)
        except FileNotFoundError:  # gone meanwhile
            return KeptMemo(path, game, MemoRead([], 0), least=least)
        except OSError as bad:
            raise MemoFileError(f"{e}; it cannot be set aside ({bad.strerror or bad})") from None
        note = f"{e}: set aside as {aside.name} (only a cache), the memo made again"
        return KeptMemo(path, game, MemoRead([], 0), least=least, note=note)
    return KeptMemo(path, game, read, least=least)


def _check_solver(solver: Solver) -> None:
    """The memo files hold the least totals over every guess: a solver of another pool or
    objective has other costs."""
    if solver.pool != "all" or solver.fewest_last:
        raise ValueError("a memo file holds the exact search's least totals over every guess")


def _dtype(game: Game) -> str:
    return "<u2" if game.num_codes <= 1 << 16 else "<u4"


def _sealed(game: Game, line: dict[str, Any]) -> dict[str, Any]:
    """What a line's seal covers: its fields, the format and the game."""
    return {"format": FORMAT, "game": list(game.key), **line}


def _json_line(text: str, path: str | Path, number: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise MemoFileError(
            f"{path}, line {number}: not JSON (the file is cut or corrupted)"
        ) from None


def _fact_codes(line: Any, dtype: str, path: str | Path, number: int) -> np.ndarray:
    """A line's codes, or :class:`MemoFileError` when it is not a memo line."""
    bad = MemoFileError(f"{path}, line {number}: not a memo line ({', '.join(sorted(_FIELDS))})")
    if not isinstance(line, dict) or set(line) != _FIELDS:
        raise bad
    if not all(_whole(line[k]) for k in ("cost", "guess", "lower")):
        raise bad
    if not isinstance(line["codes"], str) or not isinstance(line["seal"], str):
        raise bad
    try:
        raw = base64.b64decode(line["codes"], validate=True)
    except (binascii.Error, ValueError):
        raise bad from None
    width = np.dtype(dtype).itemsize
    if not raw or len(raw) % width:
        raise bad
    return np.frombuffer(raw, dtype=dtype)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 1 << 31


def _sane(f: Fact, game: Game) -> bool:
    """Whether a fact names a sorted set of the game's codes and a guess of it (or none)."""
    c = f.codes
    ascending = len(c) < 2 or bool(np.all(np.diff(c) > 0))
    guess_ok = (f.guess >= 0 and f.cost > 0) or (f.guess == -1 and f.lower > 0)
    return ascending and int(c[-1]) < game.num_codes and f.guess < game.num_guesses and guess_ok
