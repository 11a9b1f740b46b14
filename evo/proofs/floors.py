"""What the first guesses and their parts cost at least, for the exact search of a whole
game (docs/DESIGN.md §5, "The exact search", "Floors of the first guesses").

Every first guess is one of a few symmetry classes (the lowest code of each orbit, the
one the search tries), and its parts are code sets that the lower bounds of
:mod:`evo.proofs.bound` bound: ``V_d`` searched ``d`` levels deep, or the bounds of an
``evo bound`` certificate. Planted in the exact search's memo as proved lower bounds of
those sets (:meth:`evo.search.exact.Solver.remember`), they prune its root: a first
guess whose parts are proved to cost at least what it must beat is dropped as soon as it
is split, without a search below it, and each part of the others is searched with the
budget its siblings' floors leave. A lower bound only ever drops a candidate that costs
at least its bound, so the tree chosen is the same (the first optimal candidate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.game import Game
from evo.proofs.bound import (
    EXACT_BELOW,
    Bounder,
    certificate_classes,
    certificate_sealed,
    check_certificate,
    first_guess_classes,
    first_guess_part,
    read_certificate,
)
from evo.search.build import Node


@dataclass(frozen=True)
class PartFloor:
    """A part of a first guess (the codes answering ``feedback`` to ``guess``) and a
    proved lower bound of its least total."""

    guess: int
    feedback: int
    size: int
    bound: int


@dataclass(frozen=True)
class Floors:
    """The first guesses' floors: every part of each class's first guess with its lower
    bound, how they were proved (``how``: ``depth D`` or the certificate's file) and the
    seconds it took."""

    game: Game
    parts: tuple[PartFloor, ...]
    how: str
    seconds: float

    def totals(self) -> dict[int, int]:
        """What each first guess costs at least: the codes plus its parts' floors."""
        out: dict[int, int] = {}
        for p in self.parts:
            out[p.guess] = out.get(p.guess, self.game.num_codes) + p.bound
        return out

    @property
    def least(self) -> int:
        """A lower bound of the optimum: the least first guess's floor."""
        return min(self.totals().values())


def floors_at_depth(
    game: Game,
    depth: int,
    *,
    exact_below: int = EXACT_BELOW,
    below: int | None = None,
) -> Floors:
    """Every first guess class bounded ``depth`` levels deep, the first guess's level
    included, as ``evo bound --depth`` counts them: its parts' ``V_(depth - 1)`` (one
    memo for all of them; ``depth`` 1 or more); ``below``: a class whose parts already
    reach it (the upper bound of the search) is not refined further (its other parts
    keep their perfect-split bounds)."""
    if depth < 1:
        raise ValueError(f"the floors' depth must be 1 or more, not {depth}")
    start = time.monotonic()
    bounder = Bounder(game, exact_below=exact_below)
    out: list[PartFloor] = []
    for guess, _ in first_guess_classes(game):
        fb = game.feedback_row(guess)
        sizes = np.bincount(fb, minlength=game.num_feedbacks)
        if sizes[game.win] == 0 and np.count_nonzero(sizes) == 1:
            continue  # a first guess that tells nothing is never searched
        node = Node.after(game, (guess,))
        parts = [(f, int(s)) for f, s in enumerate(sizes.tolist()) if f != game.win and s > 0]
        bounds = [2 * s - 1 if s <= 2 else int(bounder.lb[s]) for _, s in parts]
        # The largest parts last: once the class reaches ``below``, they keep LB(size).
        for i in sorted(range(len(parts)), key=lambda i: parts[i][1]):
            f, s = parts[i]
            if s <= 2:
                continue
            if below is not None and game.num_codes + sum(bounds) >= below:
                break
            part = first_guess_part(game, guess, f)
            bounds[i] = max(bounds[i], bounder.bound(part, node, depth=depth - 1))
        out.extend(PartFloor(guess, f, s, b) for (f, s), b in zip(parts, bounds))
    return Floors(game, tuple(out), f"depth {depth}", time.monotonic() - start)


def floors_of_certificate(game: Game, path: str | Path) -> Floors:
    """The floors an ``evo bound`` certificate of ``game`` proves: its parts' bounds,
    taken as proved when its seal holds (written on this machine), else proved again
    part by part first (:func:`evo.proofs.bound.check_certificate`; a
    :class:`~evo.proofs.bound.CertificateError` when one cannot be)."""
    start = time.monotonic()
    data: dict[str, Any] = read_certificate(path)
    exact_below = data.get("exact_below")
    classes = certificate_classes(
        data, game, exact_below=exact_below if isinstance(exact_below, int) else EXACT_BELOW
    )
    if not certificate_sealed(data):
        check_certificate(data, game=game)
    parts = tuple(PartFloor(c.guess, p.feedback, p.size, p.bound) for c in classes for p in c.parts)
    return Floors(game, parts, str(path), time.monotonic() - start)


def plant(floors: Floors, solver: Any) -> int:
    """Keep each part's floor in ``solver``'s memo as a proved lower bound of its code set
    (:meth:`evo.search.exact.Solver.remember`), and the least first guess's as the whole
    game's; returns the sets planted."""
    game = floors.game
    planted = 0
    for p in floors.parts:
        if p.size <= 2:
            continue
        codes = first_guess_part(game, p.guess, p.feedback)
        if len(codes) != p.size:
            raise ValueError(
                f"a floor of {len(codes)} codes is given for a part of {p.size} "
                f"({game.format_code(p.guess)}, feedback {p.feedback})"
            )
        solver.remember(codes, -1, p.bound)
        planted += 1
    solver.remember(game.all_codes().astype(np.int64), -1, floors.least)
    return planted + 1
