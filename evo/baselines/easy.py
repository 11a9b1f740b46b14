"""The write-up's human Mastermind strategies, ``easy`` and ``advanced``: settle the
colors one at a time, lowest first, guessing only codes still possible.

``easy`` guesses the possible code that a player reasoning color by color reaches
first. Colors are decided in increasing order; for each color, a code that keeps that
color's pegs within as many copies as a guess has shown (its *cap*: the most copies of
the color in one guess so far; a color not yet played has no cap) comes before one that
exceeds it, and then the leftmost placement comes first (the color at the first
position, then the second, ...: the write-up's "assume it goes at the beginning" and
"fill the remaining holes"). So the first guess is 1111, after one R on 2222 the next is
2333, and so on. The write-up says it performs like LC; on (4,6) it totals 7,470 (LC
7,471), worst case 9.

``advanced`` is ``easy`` except that a guess made entirely of one color not yet played
is replaced by that color on the first half of the pegs and the next color (also not yet
played) on the rest: 1122 for 1111, 3344 for 3333. On (4,6) it totals 6,208 (the
write-up publishes 6,210), worst case 8, for the single code 6543; it replays the
write-up's three sample games move for move.
"""

from __future__ import annotations

import numpy as np

from evo.core.tree import Tree
from evo.games.pegs import PegGame
from evo.search.build import Node, Player, build_tree

#: Names of the strategies of this module.
NAMES: tuple[str, ...] = ("easy", "advanced")


def _check(game: PegGame) -> None:
    if game.variant != "mastermind":
        raise ValueError("easy and advanced are Mastermind strategies (colors may repeat)")


def caps(game: PegGame, history: tuple[int, ...]) -> np.ndarray:
    """Per color, the most copies of it in one guess of ``history`` (``N`` when the
    color was never played: a fresh color may fill every hole)."""
    out = np.full(game.colors, game.pegs, dtype=np.int64)
    if history:
        counts = game.color_counts[np.asarray(history, dtype=np.int64)].astype(np.int64)
        played = counts.max(axis=0)
        out[played > 0] = played[played > 0]
    return out


def easy_guess(game: PegGame, codes: np.ndarray, history: tuple[int, ...]) -> int:
    """The first code of ``codes`` in the color-by-color order (module docstring)."""
    digits = game.digits[codes]
    over = game.color_counts[codes] > caps(game, history)[None, :]
    keys: list[np.ndarray] = []
    for c in range(game.colors):  # np.lexsort: the last key is the primary one
        keys.append(over[:, c])
        keys.extend(digits[:, i] != c for i in range(game.pegs))
    return int(codes[np.lexsort(keys[::-1])[0]])


def advanced_guess(game: PegGame, codes: np.ndarray, history: tuple[int, ...]) -> int:
    """:func:`easy_guess`, with a one-color guess of a fresh color ``c`` replaced by
    ``c`` on the first half of the pegs and ``c+1`` on the rest when ``c+1`` is fresh too
    (and the pair is still possible)."""
    g = easy_guess(game, codes, history)
    pegs = game.digits[g]
    c = int(pegs[0])
    played = set(game.digits[list(history)].ravel().tolist()) if history else set()
    if (pegs == c).all() and c + 1 < game.colors and not {c, c + 1} & played:
        half = (game.pegs + 1) // 2
        pair = game.code_of_digits([c] * half + [c + 1] * (game.pegs - half))
        if np.any(codes == pair):
            return pair
    return g


def easy_player(game: PegGame) -> Player:
    _check(game)
    return lambda codes, node: easy_guess(game, codes, node.history)


def advanced_player(game: PegGame) -> Player:
    _check(game)

    def choose(codes: np.ndarray, node: Node) -> int:
        return advanced_guess(game, codes, node.history)

    return choose


def easy(game: PegGame) -> Tree:
    """The Easy strategy's tree."""
    return build_tree(game, easy_player(game))


def advanced(game: PegGame) -> Tree:
    """The Advanced strategy's tree."""
    return build_tree(game, advanced_player(game))
