"""Shared fixtures: every test gets its own baseline cache, and the small trees worked by
hand. Oracles (the game's definitions played literally) are in ``tests/support/``."""

from __future__ import annotations

import copy

import pytest

from evo.core.game import make_game
from evo.core.treeio import from_nested

#: The (2,2) game worked by hand: codes 11, 12, 21, 22.
#:   guess 11: 11 wins (1 guess); 12 and 21 answer <1,0>; 22 answers <0,0>.
#:   <1,0> -> guess 12: 12 wins (2); 21 answers <0,2> -> guess 21 (3).
#:   <0,0> -> guess 22 (2).
#: Total 1 + 2 + 3 + 2 = 8, average 2.0, worst 3, histogram {1: 1, 2: 2, 3: 1}.
#: Feedbacks are written as evo writes them (``1B 0W``); older files wrote ``1,0``.
HAND = {
    "guess": "11",
    "children": {
        "1B 0W": {"guess": "12", "children": {"0B 2W": {"guess": "21"}}},
        "0B 0W": {"guess": "22"},
    },
}

#: The same strategy with 21 guessed before 12 under <1,0>: another tree of the same total.
HAND_SWAPPED = {
    "guess": "11",
    "children": {
        "1B 0W": {"guess": "21", "children": {"0B 2W": {"guess": "12"}}},
        "0B 0W": {"guess": "22"},
    },
}


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory, monkeypatch):
    """Baselines are cached under a fresh directory for each test, never in ~/.cache/evo."""
    cache = tmp_path_factory.mktemp("evo-cache")
    monkeypatch.setenv("EVO_CACHE", str(cache))
    return cache


@pytest.fixture
def hand_nested() -> dict:
    """The hand-worked (2,2) strategy as a nested document (see :data:`HAND`)."""
    return copy.deepcopy(HAND)


@pytest.fixture
def hand_tree():
    """The hand-worked (2,2) tree: total 8, worst case 3 (see :data:`HAND`)."""
    return from_nested(make_game(2, 2), HAND)


@pytest.fixture
def hand_tree_swapped():
    """The hand-worked tree with 12 and 21 exchanged below <1,0>: the same total, 8."""
    return from_nested(make_game(2, 2), HAND_SWAPPED)
