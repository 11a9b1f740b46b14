"""RC with fixed openings against the Mastermind write-up ("Dave Computes Mastermind
Strategy", 2016, sections "RC: The Random-Consistent Strategy", "The X+RC Strategy" and
"The 1123+X+RC Strategy"), whose averages come from a million simulated games each."""

from __future__ import annotations

import pytest

from evo.baselines import run
from evo.baselines.simple import estimate_rc
from evo.core.game import make_game

#: (opening, published average, decimals published).
PUBLISHED_RC = [
    ("", 4.64, 2),
    ("1111", 5.13, 2),
    ("1112", 4.74, 2),
    ("1122", 4.64, 2),
    ("1123", 4.61, 2),
    ("1234", 4.67, 2),
    ("1123+2245", 4.592, 3),
    ("1123+4415", 4.593, 3),
]

#: A 95% half-width of the write-up's own estimate: a million games whose length has a
#: standard deviation below 1 guess.
WRITEUP_HALF_WIDTH = 1.96 / 1000


@pytest.mark.parametrize("opening,published,decimals", PUBLISHED_RC)
def test_rc_estimates_agree_with_the_writeup(opening, published, decimals):
    """evo's interval (100 random trees, each averaged over every code) and the
    write-up's (its rounded figure, widened by its own sampling error) overlap."""
    game = make_game(4, 6)
    codes = [game.parse_code(c) for c in opening.split("+")] if opening else []
    est = estimate_rc(game, seeds=100, seed=0, opening=codes)
    lo, hi = est["ci95"]
    slack = 0.5 * 10**-decimals + WRITEUP_HALF_WIDTH
    assert lo - slack <= published <= hi + slack
    assert hi - lo < 0.05  # narrow enough for the comparison to mean something


def test_rc_estimate_tells_the_openings_apart():
    """The write-up's ranking: 1111+RC is far worse, 1123+RC better than plain RC."""
    game = make_game(4, 6)
    est = {
        o: estimate_rc(game, seeds=60, seed=1, opening=[game.parse_code(o)])
        for o in ("1111", "1123")
    }
    assert est["1111"]["ci95"][0] > 5.0 > est["1123"]["ci95"][1]


def test_rc_opening_baseline_carries_its_estimate():
    game = make_game(4, 6)
    b = run(game, "1123+2245+rc", rc_seeds=20, use_cache=False)
    assert b.result["estimate"]["seeds"] == 20
    lo, hi = b.result["estimate"]["ci95"]
    assert lo < 4.6 < hi + 0.02
