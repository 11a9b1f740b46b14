"""How long a baseline may take: the refusal of a build estimated beyond its time limit,
before any work (and of a search that reaches the limit), with the estimate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evo.core.numbers import positive

if TYPE_CHECKING:
    from evo.core.game import Game

#: What raises the limit, as a Python caller says it; the command line cites its option.
PYTHON_OPTION = "time_limit="

#: Seconds a baseline may take when the caller sets no limit, wherever one is built:
#: ``evo baselines --time-limit``, ``evo run --time-limit`` (those planted in the first
#: population), ``evo.baseline``, ``evo.evolve`` and ``evo.steps`` (``time_limit=``).
DEFAULT_TIME_LIMIT = 600.0


class BaselineRefused(RuntimeError):
    """A baseline not computed: its estimate is beyond the time allowed (refused before
    any work), or its search reached the limit. ``option`` names what raises the limit
    where the caller asked (``time_limit=`` in Python; the command line says
    ``--time-limit``, see :meth:`citing`).

    >>> import evo
    >>> evo.baseline(evo.make_game(5, 8, table=False), "optimal", time_limit=60)
    Traceback (most recent call last):
    ...
    evo.baselines.limits.BaselineRefused: refused: the exact optimum of mastermind-5-8 ...
    """

    def __init__(
        self,
        reason: str,
        *,
        name: str = "optimal",
        estimate_seconds: float | None = None,
        option: str = PYTHON_OPTION,
    ):
        super().__init__(reason)
        self.reason = reason
        self.name = name
        self.estimate_seconds = estimate_seconds
        self.option = option

    def __str__(self) -> str:
        return f"{self.reason} ({self.option})"

    def citing(self, option: str) -> BaselineRefused:
        """The same refusal, naming ``option`` as what raises the limit.

        >>> refused = BaselineRefused("refused: the estimate is beyond the limit")
        >>> str(refused), str(refused.citing("--time-limit"))
        ('refused: ... (time_limit=)', 'refused: ... (--time-limit)')
        """
        return BaselineRefused(
            self.reason, name=self.name, estimate_seconds=self.estimate_seconds, option=option
        )


def check_time_limit(time_limit: Any, *, what: str = "time_limit") -> float | None:
    """``time_limit`` as seconds (None: no limit); ValueError naming ``what`` unless it is
    a finite number above 0 (a NaN would compare false with every estimate and turn the
    limit off)."""
    return None if time_limit is None else positive(time_limit, what=what, unit="seconds")


def refuse_beyond(
    game: Game,
    name: str,
    estimate: float | None,
    time_limit: float | None,
    *,
    on: str = "here",
) -> None:
    """Raise :class:`BaselineRefused` when baseline ``name`` of ``game`` is estimated to
    take longer than ``time_limit`` seconds (None: no limit; no estimate: quick); ``on``:
    where, as the message says it."""
    if time_limit is None or estimate is None or estimate <= time_limit:
        return
    what = "the exact optimum" if name == "optimal" else f"the {name} tree"
    known = _recorded_optimum(game) if name == "optimal" else ""
    raise BaselineRefused(
        f"refused: {what} of {game.name} ({game.num_codes:,} codes{known}) would take about "
        f"{duration_text(estimate)} {on}, more than the {duration_text(time_limit)} allowed",
        name=name,
        estimate_seconds=estimate,
    )


def _recorded_optimum(game: Game) -> str:
    """What a refusal of the optimum says of it when it is recorded (published, or proved
    by evo's exact search before), so that nobody waits for what is known."""
    from evo.baselines.known import KNOWN_OPTIMA

    total = KNOWN_OPTIMA.get(game.key)
    return "" if total is None else f"; recorded: {total:,}"


def duration_text(seconds: float) -> str:
    """A duration as people say it: seconds, minutes, hours, days or years."""
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365 * 86400):.2g} years"
