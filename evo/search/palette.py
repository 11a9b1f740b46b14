"""What the compiled searches need to tell codes that split a set alike (a *palette*):
each code's colors as a bit mask, the colors the guesses above played, and the
symmetries that fix them (docs/DESIGN.md §5). Shared by the look-ahead, the exact search
and the bounds, and read by their kernels. (No postponed annotations: the API reference
reads the named tuple's own.)"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from evo.core.game import Game
from evo.games.pegs import peg_game
from evo.search.build import Node


class Palette(NamedTuple):
    """What the compiled searches need to tell codes that split a set alike (:func:`palette`)."""

    masks: np.ndarray  # each code's colors as a bit mask (uint32)
    distinct: bool  # pegs are distinct (Bulls and Cows)
    every: np.uint32  # every color's bit
    digits: np.ndarray  # the codes' pegs, a row a code
    played: np.uint32  # the colors the guesses above played
    pis: np.ndarray  # the symmetries that fix those guesses: position permutations,
    luts: np.ndarray  # and color maps, a row an element


@lru_cache(maxsize=8)
def _shape(game: Game) -> tuple[bool, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The parts of :func:`palette` that depend on the game only and on no color's bit
    (computed once): whether pegs are distinct, the codes' pegs, the identity as a group
    of one element. A game of no known symmetry is given as one peg of one color: its
    group is the identity, and no color is ever free or absent."""
    pegs = peg_game(game)
    if pegs is None:
        one = np.zeros((1, 1), dtype=np.int64)
        return False, np.zeros((game.num_guesses, 1), dtype=np.uint8), (one, one.copy())
    identity = (
        np.arange(pegs.pegs, dtype=np.int64)[None, :],
        np.arange(pegs.colors, dtype=np.int64)[None, :],
    )
    return pegs.distinct, np.ascontiguousarray(pegs.digits), identity


@lru_cache(maxsize=8)
def _colors(game: Game) -> tuple[np.ndarray, bool, np.uint32, np.ndarray, tuple]:
    """The parts of :func:`palette` that depend on the game only (computed once), the
    identity as a group of one element among them (no color bit for a game of no known
    symmetry)."""
    masks = np.zeros(game.num_guesses, dtype=np.uint32)
    pegs = peg_game(game)
    every = np.uint32(0)
    if pegs is not None:
        for p in range(pegs.pegs):
            masks |= np.left_shift(np.uint32(1), pegs.digits[:, p].astype(np.uint32))
        every = np.uint32((1 << pegs.colors) - 1)
    distinct, digits, identity = _shape(game)
    return masks, distinct, every, digits, identity


def palette(
    game: Game, history: tuple[int, ...] | None = None, *, symmetries: bool = False
) -> Palette:
    """What the compiled look-ahead needs to tell codes that split a set alike: each
    code's colors as a bit mask, whether pegs are distinct (Bulls and Cows), every
    color's bit, the codes' pegs, the colors the guesses of ``history`` played (without
    a history: every color, so that none counts as unplayed), and the symmetries that fix
    them as position permutations and color maps (the identity alone without
    ``symmetries``: for candidates reduced already)."""
    masks, distinct, every, digits, (pis, luts) = _colors(game)
    if symmetries and history is not None:
        pis, luts = Node.after(game, history).stabilizer.arrays
    return Palette(masks, distinct, every, digits, played_colors(game, history), pis, luts)


def identity_palette(game: Game) -> Palette:
    """A :func:`palette` of the identity alone with no color free (none of its color bits
    is read, so it serves games of any number of colors): for candidates reduced already,
    or that no symmetry reduces."""
    distinct, digits, (pis, luts) = _shape(game)
    none = np.uint32(0)
    masks = np.zeros(game.num_guesses, dtype=np.uint32)
    return Palette(masks, distinct, none, digits, none, pis, luts)


def played_colors(game: Game, history: tuple[int, ...] | None) -> np.uint32:
    """The colors the guesses of ``history`` played, as a bit mask (every color without one)."""
    masks, _, every, _, _ = _colors(game)
    if history is None:
        return every
    return np.uint32(np.bitwise_or.reduce(masks[list(history)], initial=0))
