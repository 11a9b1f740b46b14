"""What running a baseline hands back: its tree and figures (:class:`Baseline`,
:class:`BaselineResult`), or why it was not computed (:class:`Refused`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from evo.core.tree import Tree


class BaselineResult(TypedDict, total=False):
    """A baseline's figures, as cached and printed: ``total``, ``average``, ``worst``,
    ``histogram`` (guesses: codes), ``seconds`` (of the original computation),
    ``first_guess``, ``nodes``, ``cached``; RC forms also ``seed`` and ``estimate``."""

    name: str
    total: int
    average: float
    worst: int
    histogram: dict[int, int]
    nodes: int
    seconds: float
    first_guess: str
    cached: bool
    seed: int
    estimate: dict


@dataclass
class Baseline:
    """A baseline's tree and its figures."""

    name: str
    tree: Tree
    result: BaselineResult


@dataclass(frozen=True)
class Refused:
    """A baseline that was not computed (estimated beyond the time limit, or its search
    gave up there), and why (``reason`` names no option: the caller says what raises the
    limit); ``lower``: the optimum's search with an upper bound found nothing below it,
    so the optimum is at least ``lower`` (no time limit was reached)."""

    name: str
    reason: str
    estimate_seconds: float | None = None
    lower: int | None = None
