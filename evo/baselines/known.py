"""The best-known total of a game, with where it comes from: a proven optimum (published
or found by evo's exact search), a reported best, or for tiny games the optimum computed
on the spot."""

from __future__ import annotations

from dataclasses import dataclass

from evo.core.game import Game

_GODDARD = "Goddard 2004, Mastermind revisited"
_EVO = "evo's own exact search (evo.search.exact; benchmarks/RESULTS.md)"

#: Best-known optimal totals (expected case): ``(pegs, colors, variant, total, source)``.
#: Every published figure here was also found by :func:`optimal`; the others are its own.
_OPTIMA = [
    (2, 2, "mastermind", 8, _GODDARD),
    (3, 2, "mastermind", 18, _GODDARD),
    (4, 2, "mastermind", 44, _GODDARD),
    (5, 2, "mastermind", 97, _GODDARD),
    (6, 2, "mastermind", 224, _GODDARD),
    (7, 2, "mastermind", 496, _GODDARD),
    (2, 3, "mastermind", 21, _GODDARD),
    (3, 3, "mastermind", 73, _GODDARD),
    (4, 3, "mastermind", 246, _GODDARD),
    (5, 3, "mastermind", 816, _GODDARD),
    (2, 4, "mastermind", 45, _GODDARD),
    (3, 4, "mastermind", 206, _GODDARD),
    (4, 4, "mastermind", 905, _GODDARD),
    (2, 5, "mastermind", 81, _GODDARD),
    (3, 5, "mastermind", 451, _GODDARD),
    (4, 5, "mastermind", 2463, _GODDARD),
    (4, 6, "mastermind", 5625, "Koyama & Lai 1993"),
    (4, 7, "mastermind", 11228, _EVO),
    (4, 8, "mastermind", 20471, f"reported optimal (arfst23/Mastermind, exhaustive); {_EVO}"),
    (4, 9, "mastermind", 34666, _EVO),  # published nowhere before: breakers/mastermind-4-9.json
    (4, 10, "mastermind", 55632, _EVO),  # published nowhere before: breakers/mastermind-4-10.json
    (5, 5, "mastermind", 13496, _EVO),
    (5, 6, "mastermind", 36721, _EVO),  # published nowhere before: breakers/mastermind-5-6.json
    (5, 7, "mastermind", 85645, _EVO),  # published nowhere before: breakers/mastermind-5-7.json
    (3, 6, "mastermind", 854, _EVO),
    (3, 7, "mastermind", 1474, _EVO),
    (3, 8, "mastermind", 2359, _EVO),
    (5, 4, "mastermind", 3954, _EVO),
    (3, 9, "mastermind", 3596, _EVO),
    (3, 6, "bulls-cows", 436, _EVO),
    (3, 7, "bulls-cows", 836, _EVO),
    (3, 8, "bulls-cows", 1449, _EVO),
    (4, 6, "bulls-cows", 1446, _EVO),
    (3, 10, "bulls-cows", 3575, _EVO),
    (4, 7, "bulls-cows", 3639, _EVO),
    (4, 8, "bulls-cows", 7817, _EVO),
    (4, 9, "bulls-cows", 14914, _EVO),
    (4, 10, "bulls-cows", 26274, "published optimum of 4-digit Bulls and Cows"),
    (5, 8, "bulls-cows", 34444, _EVO),  # published nowhere before: breakers/bulls-cows-5-8.json
]

#: Best-known optimal totals keyed by ``(pegs, colors, variant)``.
KNOWN_OPTIMA: dict[tuple[int, int, str], int] = {(p, c, v): t for p, c, v, t, _ in _OPTIMA}

#: Where each of :data:`KNOWN_OPTIMA` comes from.
OPTIMA_SOURCES: dict[tuple[int, int, str], str] = {(p, c, v): s for p, c, v, _, s in _OPTIMA}


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
