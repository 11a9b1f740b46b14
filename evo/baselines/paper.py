"""Goel and Garg's Bulls and Cows players ("A Mathematical Approach to the Simple Bulls
and Cows Code Breaking Game", 2015, sections 5.3 and 5.4), as the paper and its
program describe them.

``human-friendly`` (least frequent digits): one record per (position, digit) that
occurs among the codes still possible, with its frequency, created in the order the
codes are met (lowest code first, positions left to right). The records are sorted by
ascending frequency, and the guess takes the digits of the sorted records in that order,
skipping a digit already taken, until it has ``N``: the first digit goes first, and so
on. The guess need not be possible.

``extended``: while fewer than ``unique_below`` (100) codes are possible, the first code
of the game (lowest first) that answers every possible code differently, if any;
otherwise the human-friendly guess.

Differences with a computer player that the paper's rules imply, kept here:

* one code left is guessed at once; a written guess that tells nothing is still played
  (a node with a single child);
* when the guess was already played, the player walks the sorted records from the
  second one instead (the program's ``repeats``). When that guess repeats too, the
  paper's program plays it again and again (it stops after 50 guesses, never winning);
  here the player falls back to the lowest possible code instead, so every code is won.
  :func:`fallbacks` counts where this happens.

**Tie order.** Records of equal frequency keep an order that depends on the sort:
``tie_order="v8"`` reproduces the unstable sort of the JavaScript engine of the paper's
time (insertion sort up to 10 records, else quicksort with a median-of-three pivot), the
order in which the paper's program gives its published 5.8930 for the extended player on
3 of 10 digits; ``"stable"`` keeps the creation order (the JavaScript sort of today).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from evo.core.tree import Tree
from evo.games.pegs import PegGame
from evo.search.build import build_tree

TieOrder = Literal["v8", "stable"]
TIE_ORDERS: tuple[str, ...] = ("v8", "stable")

#: The extended player looks for a separating guess below this many possible codes.
UNIQUE_BELOW = 100


def v8_sort(items: list, key: Callable) -> list:
    """``items`` sorted by ``key`` the way the JavaScript engine V8 sorted arrays before
    2018 (not stable): insertion sort for at most 10 items, else an in-place quicksort
    with the median of the first, middle and last items as pivot."""
    a = list(items)

    def cmp(x, y) -> int:
        kx, ky = key(x), key(y)
        return (kx > ky) - (kx < ky)

    def insertion(lo: int, hi: int) -> None:
        for i in range(lo + 1, hi):
            element = a[i]
            j = i - 1
            while j >= lo and cmp(a[j], element) > 0:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = element

    def quick(lo: int, hi: int) -> None:
        while True:
            if hi - lo <= 10:
                insertion(lo, hi)
                return
            third = lo + ((hi - lo) >> 1)  # arrays over 1000 items pick it otherwise
            v0, v1, v2 = a[lo], a[hi - 1], a[third]
            if cmp(v0, v1) > 0:
                v0, v1 = v1, v0
            if cmp(v0, v2) >= 0:
                v0, v2, v1 = v2, v1, v0
            elif cmp(v1, v2) > 0:
                v1, v2 = v2, v1
            a[lo], a[hi - 1] = v0, v2
            pivot = v1
            low_end, high_start = lo + 1, hi - 1
            a[third] = a[low_end]
            a[low_end] = pivot
            i = low_end + 1
            while i < high_start:
                element = a[i]
                order = cmp(element, pivot)
                if order < 0:
                    a[i] = a[low_end]
                    a[low_end] = element
                    low_end += 1
                elif order > 0:
                    stop = False
                    while True:
                        high_start -= 1
                        if high_start == i:
                            stop = True
                            break
                        top = a[high_start]
                        order = cmp(top, pivot)
                        if order <= 0:
                            break
                    if stop:
                        break
                    a[i] = a[high_start]
                    a[high_start] = element
                    if order < 0:
                        element = a[i]
                        a[i] = a[low_end]
                        a[low_end] = element
                        low_end += 1
                i += 1
            if hi - high_start < low_end - lo:
                quick(high_start, hi)
                hi = low_end
            else:
                quick(lo, low_end)
                lo = high_start

    if len(a) > 1000:
        raise ValueError("v8_sort follows the engine only up to 1000 items")
    quick(0, len(a))
    return a


def frequency_records(game: PegGame, codes: np.ndarray, *, tie_order: TieOrder = "v8") -> list:
    """The paper's records ``(position, digit, frequency)`` of the possible ``codes``,
    in creation order, then sorted by ascending frequency with ``tie_order``."""
    n, c = game.pegs, game.colors
    digits = game.digits[np.asarray(codes, dtype=np.int64)].astype(np.int64)
    cells = np.arange(n)[None, :] * c + digits  # (code, position) -> record id
    counts = np.bincount(cells.ravel(), minlength=n * c)
    first = np.full(n * c, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, cells.ravel(), np.arange(cells.size))
    made = sorted(np.flatnonzero(counts).tolist(), key=lambda r: first[r])
    records = [(r // c, r % c, int(counts[r])) for r in made]
    if tie_order == "stable":
        return sorted(records, key=lambda r: r[2])
    if tie_order == "v8":
        return v8_sort(records, key=lambda r: r[2])
    raise ValueError(f"tie_order must be one of {', '.join(TIE_ORDERS)}, not {tie_order!r}")


def human_friendly_guess(
    game: PegGame, codes: np.ndarray, *, repeats: bool = False, tie_order: TieOrder = "v8"
) -> int | None:
    """The digits of the sorted records in order, each once, until ``N`` (from the
    second record with ``repeats``); None when the records run out first."""
    chosen: list[int] = []
    for _, digit, _ in frequency_records(game, codes, tie_order=tie_order)[int(repeats) :]:
        if digit not in chosen:
            chosen.append(digit)
            if len(chosen) == game.pegs:
                return game.code_of_digits(chosen)
    return None


def separating_guess(game: PegGame, codes: np.ndarray) -> int | None:
    """The lowest code of the game that answers each of ``codes`` differently."""
    codes = np.asarray(codes, dtype=np.int64)
    fb = np.sort(game.feedback(game.all_codes()[:, None], codes[None, :]), axis=1)
    ok = np.flatnonzero(np.all(fb[:, 1:] != fb[:, :-1], axis=1))
    return int(ok[0]) if len(ok) else None


def paper_guess(
    game: PegGame,
    codes: np.ndarray,
    history: tuple[int, ...],
    *,
    extended: bool,
    tie_order: TieOrder = "v8",
    unique_below: int = UNIQUE_BELOW,
) -> tuple[int, bool]:
    """The paper's guess for the possible ``codes`` after the guesses ``history``, and
    whether the fallback (lowest possible code) had to replace a repeated guess."""
    if len(codes) == 1:
        return int(codes[0]), False
    if extended and len(codes) < unique_below:
        g = separating_guess(game, codes)
        if g is not None:
            return g, False
    for repeats in (False, True):
        g = human_friendly_guess(game, codes, repeats=repeats, tie_order=tie_order)
        if g is not None and g not in history:
            return g, False
    return int(codes[0]), True


def _check(game: PegGame) -> None:
    if game.variant != "bulls-cows":
        raise ValueError("the paper's players are Bulls and Cows players (distinct digits)")


def play_tree(game: PegGame, choose: Callable[[np.ndarray, tuple[int, ...]], int]) -> Tree:
    """The tree of a player that may play a guess telling nothing (it then costs a move
    and the node has a single child); ``choose(codes, history)`` must never repeat a
    guess of ``history``."""
    return build_tree(game, lambda codes, node: choose(codes, node.history), as_written=True)


def paper_player(
    game: PegGame, *, extended: bool, tie_order: TieOrder = "v8", unique_below: int = UNIQUE_BELOW
) -> Callable[[np.ndarray, tuple[int, ...]], int]:
    _check(game)

    def choose(codes: np.ndarray, history: tuple[int, ...]) -> int:
        return paper_guess(
            game,
            codes,
            history,
            extended=extended,
            tie_order=tie_order,
            unique_below=unique_below,
        )[0]

    return choose


def human_friendly(game: PegGame, *, tie_order: TieOrder = "v8") -> Tree:
    """The paper's human-friendly (least frequent digits) player's tree."""
    return play_tree(game, paper_player(game, extended=False, tie_order=tie_order))


def extended(
    game: PegGame, *, tie_order: TieOrder = "v8", unique_below: int = UNIQUE_BELOW
) -> Tree:
    """The paper's extended player's tree."""
    player = paper_player(game, extended=True, tie_order=tie_order, unique_below=unique_below)
    return play_tree(game, player)


def fallbacks(tree: Tree, *, extended: bool, tie_order: TieOrder = "v8") -> int:
    """How many nodes of a paper player's ``tree`` use the fallback (where the paper's
    program would repeat a guess forever)."""
    game, out = tree.game, 0
    assert isinstance(game, PegGame)
    for i in range(len(tree)):
        history = tuple(tree.used_guesses(i))
        _, fell = paper_guess(
            game, tree.code_set(i), history, extended=extended, tie_order=tie_order
        )
        out += fell
    return out
