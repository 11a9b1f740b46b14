"""Goel and Garg's Bulls and Cows players against their paper ("A Mathematical Approach
to the Simple Bulls and Cows Code Breaking Game", 2015): section 5.3 (human-friendly
strategy) and section 5.4 (extended strategy, "Average Guesses Required: 5.8930")."""

from __future__ import annotations

import itertools
import random

import pytest

from evo.baselines import HUMAN, NAMES, build, default_names, parse_name
from evo.baselines.paper import (
    extended,
    fallbacks,
    human_friendly,
    human_friendly_guess,
    separating_guess,
    v8_sort,
)
from evo.core.game import make_game


@pytest.fixture(scope="module")
def g310():
    return make_game(3, 10, "bulls-cows")


def _codes(game, texts):
    import numpy as np

    return np.array(sorted(game.parse_code(t) for t in texts), dtype=np.int64)


# ------------------------------------------------------------------ the tie order
def test_v8_sort_hand_worked():
    """Eleven equal keys (quicksort: the median of three moves items 5 and 1); up to ten
    items, insertion sort keeps them in order."""
    assert v8_sort(list(range(11)), key=lambda x: 0) == [5, 0, 2, 3, 4, 1, 6, 7, 8, 9, 10]
    assert v8_sort(list(range(10)), key=lambda x: 0) == list(range(10))


def test_v8_sort_sorts():
    rng = random.Random(4)
    for n in (0, 1, 5, 11, 30, 200):
        items = [(rng.randrange(4), i) for i in range(n)]
        out = v8_sort(items, key=lambda r: r[0])
        assert sorted(out) == sorted(items)
        assert [r[0] for r in out] == sorted(r[0] for r in items)


# ------------------------------------------------------------------ the examples
def test_human_friendly_examples_of_section_5_3(g310):
    """Guessing 798: from {098, ..., 798} the least frequent digits give 012, and from
    {398, ..., 798} they give 345."""
    first = _codes(g310, [f"{d}98" for d in range(8)])
    assert g310.format_code(human_friendly_guess(g310, first)) == "012"
    second = _codes(g310, [f"{d}98" for d in range(3, 8)])
    assert g310.format_code(human_friendly_guess(g310, second)) == "345"


def test_extended_example_of_section_5_4(g310):
    """243 answers each code of {243, 342, 432, 425, 142, 153} differently, with the
    answers the paper lists; the program takes the lowest such code."""
    s = _codes(g310, ["243", "342", "432", "425", "142", "153"])
    listed = {"243": "3,0", "342": "1,2", "432": "0,3", "425": "0,2", "142": "1,1", "153": "1,0"}
    g = g310.parse_code("243")
    for code, answer in listed.items():
        assert g310.feedback(g, g310.parse_code(code)) == g310.parse_feedback(answer)
    lowest = separating_guess(g310, s)
    assert lowest is not None and lowest <= g
    fb = g310.feedback(lowest, s).tolist()
    assert len(set(fb)) == len(s)
    assert all(len(set(g310.feedback(c, s).tolist())) < len(s) for c in range(lowest))


# ------------------------------------------------------------------ the figures
def test_extended_reproduces_5_8930(g310):
    """Section 5.4: 5.8930 with the tie order of the JavaScript sort of the paper's
    time: 4,243 guesses for 720 codes, 5.89306 (the paper cut it to four decimals)."""
    tree = extended(g310)
    tree.validate()
    assert tree.total == 4243
    assert int(tree.average * 10**4) / 10**4 == 5.8930
    assert extended(g310, tie_order="stable").total == 4210  # the option matters


def test_human_friendly_about_6_07(g310):
    tree = human_friendly(g310)
    tree.validate()
    assert round(tree.average, 2) == 6.07 and tree.total == 4373
    assert human_friendly(g310, tie_order="stable").total == 4350
    assert fallbacks(tree, extended=False) == 0


def _simulate(game, *, extended_player: bool, sort) -> int:
    """The paper's program, game by game, written independently of the tree builder:
    records per (position, digit) in creation order, sorted by frequency with ``sort``;
    a repeated guess retries from the second record."""
    n = game.pegs
    codes = list(itertools.permutations(range(game.colors), n))
    separating: dict[tuple, tuple | None] = {}

    def answer(g, c):
        bulls = sum(x == y for x, y in zip(g, c))
        return bulls, len(set(g) & set(c)) - bulls

    def guess(s, played):
        if len(s) == 1:
            return s[0]
        if extended_player and len(s) < 100:
            key = tuple(s)
            if key not in separating:
                separating[key] = next(
                    (g for g in codes if len({answer(g, c) for c in s}) == len(s)), None
                )
            if separating[key] is not None:
                return separating[key]
        counts: dict[tuple[int, int], int] = {}
        for c in s:
            for pos, d in enumerate(c):
                counts[(pos, d)] = counts.get((pos, d), 0) + 1
        records = sort(list(counts.items()))
        for start in (0, 1):
            digits: list[int] = []
            for (_, d), _ in records[start:]:
                if d not in digits and len(digits) < n:
                    digits.append(d)
            if tuple(digits) not in played:
                return tuple(digits)
        return s[0]

    total = 0
    for secret in codes:
        s, played = codes, []
        while True:
            g = guess(s, played)
            played.append(g)
            a = answer(g, secret)
            if a == (n, 0):
                break
            s = [c for c in s if answer(g, c) == a]
        total += len(played)
    return total


@pytest.mark.parametrize("tie_order", ["v8", "stable"])
@pytest.mark.parametrize("is_extended", [False, True])
def test_trees_match_a_game_by_game_simulation(tie_order, is_extended):
    game = make_game(3, 7, "bulls-cows")
    if tie_order == "stable":

        def sort(r):
            return sorted(r, key=lambda x: x[1])
    else:

        def sort(r):
            return v8_sort(r, key=lambda x: x[1])

    maker = extended if is_extended else human_friendly
    tree = maker(game, tie_order=tie_order)
    tree.validate()
    assert tree.total == _simulate(game, extended_player=is_extended, sort=sort)


def test_names(g310):
    assert {"human-friendly", "extended", "human-friendly-stable", "extended-stable"} <= set(NAMES)
    assert set(HUMAN) <= set(default_names(g310))
    assert build(g310, "extended-stable").total == 4210
    with pytest.raises(ValueError, match="Bulls and Cows"):
        parse_name(make_game(4, 6), "extended")
