"""The best-known total of a game, with where it comes from: a proven optimum (published
or found by evo's exact search), a reported best, or for tiny games the optimum computed
on the spot."""

from __future__ import annotations

from dataclasses import dataclass

from evo.baselines.optimal import KNOWN_OPTIMA, OPTIMA_SOURCES
from evo.core.game import Game


@dataclass(frozen=True)
class KnownTotal:
    """The best-known total of a game and where it comes from: ``source`` names the
    publication or search; ``proved`` says whether it is a proven optimum."""

    total: int
    source: str
    proved: bool


#: Games of at most this many codes have their optimum computed (in milliseconds) when
#: none is recorded.
SOLVE_OPTIMUM_UP_TO = 64


#: Best totals reported for games whose optimum is not proved (or not checked by evo),
#: with what is known of where they come from.
BEST_REPORTED: dict[tuple[int, int, str], KnownTotal] = {
    (5, 8, "mastermind"): KnownTotal(
        179274,
        "reported best known (average 5.4711, first guess 12344); not proved optimal",
        proved=False,
    ),
    # No searched strategy is published for these: the best one-step tree is the yardstick.
    (6, 8, "mastermind"): KnownTotal(
        1560667, "entropy, the best published one-step tree (mikemag, GPU)", proved=False
    ),
    (6, 9, "mastermind"): KnownTotal(
        3339961, "entropy, the best published one-step tree (mikemag, GPU)", proved=False
    ),
    (7, 7, "mastermind"): KnownTotal(
        5013700, "entropy, the best published one-step tree (mikemag, GPU)", proved=False
    ),
}


#: Optima of the games not of the Mastermind family, by their key (Wordle's normal mode;
#: hard mode's published 8,122 holds within the game's 6 guesses, which evo's
#: ``wordle-hard`` does not impose).
OTHER_OPTIMA: dict[tuple, KnownTotal] = {
    ("wordle",): KnownTotal(
        7920,
        "Selby 2022, proved over every first guess (SALET); Bertsimas and Paskov 2025",
        proved=True,
    ),
}


def known_optimum(game: Game) -> KnownTotal | None:
    """The game's best-known total with its source: a recorded optimum (published, or
    found by evo's exact search), a reported best total (``proved`` False), or for tiny
    games (up to :data:`SOLVE_OPTIMUM_UP_TO` codes) the optimum computed now; else None."""
    total = KNOWN_OPTIMA.get(game.key)
    if total is not None:
        return KnownTotal(total, OPTIMA_SOURCES[game.key], proved=True)
    if game.key in BEST_REPORTED:
        return BEST_REPORTED[game.key]
    if game.key in OTHER_OPTIMA:
        return OTHER_OPTIMA[game.key]
    if game.num_codes <= SOLVE_OPTIMUM_UP_TO:
        from evo.search.exact import shared_solver

        total = shared_solver(game).total(game.all_codes())
        return KnownTotal(total, "evo's exact search, computed now", proved=True)
    return None
