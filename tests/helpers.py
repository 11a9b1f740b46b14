"""Small independent definitions shared by the core tests."""

from __future__ import annotations

import itertools

from tests.reference_growth import brute_feedback


def all_code_tuples(pegs: int, colors: int, variant: str = "mastermind") -> list[tuple]:
    """Every code as a tuple of 0-based pegs, in the order DESIGN §1 numbers them."""
    if variant == "mastermind":
        return list(itertools.product(range(colors), repeat=pegs))
    return list(itertools.permutations(range(colors), pegs))


def design_feedback_number(b: int, w: int, pegs: int) -> int:
    """DESIGN §1's numbering, by listing the feedbacks in order (b from N down, w up)."""
    order = [(bb, ww) for bb in range(pegs, -1, -1) for ww in range(0, pegs - bb + 1)]
    return order.index((b, w))


def play_depths(tree, codes: list[tuple]) -> list[int]:
    """Guesses each code needs, by walking the tree's children with the definition."""
    game = tree.game
    out = []
    for code in codes:
        node, d = 0, 1
        while True:
            g = tuple(int(x) for x in game.digits[int(tree.guess[node])])
            b, w = brute_feedback(g, code)
            if (b, w) == (game.pegs, 0):
                out.append(d)
                break
            node = tree.children(node)[design_feedback_number(b, w, game.pegs)]
            d += 1
    return out
