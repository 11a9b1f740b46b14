"""What a bound says, in one sentence: the verdict that ``evo bound`` and
:func:`evo.bound` lead with, and the typed record :func:`evo.bound` returns.

A bound is a proved lower bound ``L`` of the least total; against a breaker of total
``U`` (``--against``) the breaker is optimal when ``L >= U``, else at most
``(U - L) / L`` above the optimum (the optimum is at least ``L``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evo.core.tree import Tree
from evo.proofs.bound import Bound


@dataclass(frozen=True)
class BoundResult:
    """A bound of a game's least total (:func:`evo.bound`): the one-sentence
    ``verdict``, the proved ``lower_bound``, the least known ``upper`` (a breaker's
    total or a subtree's; None: none), its ``gap`` in percent of the upper (None
    without one), whether the lower bound is the optimum (``optimal``), the
    ``certificate`` file when one was written, and the whole :class:`Bound`
    (``bound``: every first-guess class and part, its ``to_json()`` the certificate).

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> result = evo.bound(game, evo.baseline(game, "knuth"), depth=0, name="knuth")
    >>> result.verdict
    'knuth is at most 2.78% above the optimum (74; the optimum is at least 72, at most 73)'
    >>> result.lower_bound, result.upper, round(result.gap, 2), result.optimal
    (72, 73, 1.37, False)
    """

    verdict: str
    lower_bound: int
    upper: int | None
    gap: float | None
    optimal: bool
    certificate: Path | None
    bound: Bound
    #: The breaker's total (``against``), None without one.
    against_total: int | None = None
    #: The first guess the bound is about (``first``, as written), None: every one.
    first: str | None = None
    #: With ``first`` and ``tree=True``: a tree of least total that opens with it (the
    #: bound being the optimum), else None.
    tree: Tree | None = None


def above_percent(lower: int, total: int) -> float:
    """How far a breaker of ``total`` can be above an optimum proved at least ``lower``,
    at most, in percent of the optimum: ``(total - lower) / lower``."""
    return 100.0 * (total - lower) / lower


def verdict_text(
    bound: Bound,
    *,
    against: str | None = None,
    against_total: int | None = None,
    first: str | None = None,
) -> str:
    """The one sentence a bound leads with: ``NAME is optimal: 7,920``, ``NAME is at
    most 2.66% above the optimum (178,560; at least 173,930)``; without a breaker
    ``the optimum is 7,920`` or ``the least total is at least 6,843`` (of the breakers
    that open with ``first`` when given). ``against`` names the breaker, of total
    ``against_total``."""
    lower = bound.lower_bound
    where = bound.game.name if first is None else f"{bound.game.name} with {first} first"
    if against is not None and against_total is not None and first is None:
        if lower >= against_total:
            return f"{against} is optimal: {against_total:,}"
        if bound.optimal:  # the optimum is known, and below the breaker
            return (
                f"{against} is {above_percent(lower, against_total):.2f}% above the optimum "
                f"({against_total:,}; the optimum is {lower:,})"
            )
        better = bound.upper is not None and bound.upper < against_total
        most = f", at most {bound.upper:,}" if better else ""
        return (
            f"{against} is at most {above_percent(lower, against_total):.2f}% above the "
            f"optimum ({against_total:,}; the optimum is at least {lower:,}{most})"
        )
    if bound.optimal:
        return f"{where}: the optimum is {lower:,}"
    text = f"{where}: the least total is at least {lower:,}"
    if bound.upper is not None:
        text += f" and at most {bound.upper:,} (gap {bound.gap:.2f}%)"
    return text
