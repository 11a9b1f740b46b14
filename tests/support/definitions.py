"""The game's definitions (DESIGN §1–§2) played literally, to check ``evo`` against:
codes as tuples of pegs, feedback numbering, a tree's depths by playing every code, a
tree's total recomputed from its arrays, and the structural rules every offspring obeys."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from evo.core.tree import Tree
from support.reference_growth import brute_feedback


def all_code_tuples(pegs: int, colors: int, variant: str = "mastermind") -> list[tuple]:
    """Every code as a tuple of 0-based pegs, in the order DESIGN §1 numbers them."""
    if variant == "mastermind":
        return list(itertools.product(range(colors), repeat=pegs))
    return list(itertools.permutations(range(colors), pegs))


def design_feedback_number(b: int, w: int, pegs: int) -> int:
    """DESIGN §1's numbering, by listing the feedbacks in order (b from N down, w up)."""
    order = [(bb, ww) for bb in range(pegs, -1, -1) for ww in range(0, pegs - bb + 1)]
    return order.index((b, w))


def play_depths(tree: Tree, codes: list[tuple]) -> list[int]:
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


def fresh_total(tree: Tree) -> int:
    """The total recomputed from the arrays alone (no cached value carried over)."""
    return Tree(
        tree.game,
        tree.guess,
        tree.label,
        tree.parent,
        tree.depth,
        tree.terminal,
        tree.start,
        tree.count,
        tree.codes,
    ).total


def no_repeats_on_a_path(tree: Tree) -> bool:
    """No guess appears twice on a root-to-node path."""
    for i in range(len(tree)):
        path = tree.path(i)
        guesses = [int(tree.guess[p]) for p in path]
        if len(set(guesses)) != len(guesses):
            return False
    return True


def assert_offspring_ok(tree: Tree, *, slow: bool = True) -> None:
    """Valid (every code wins, no guess repeated on a path), shrunk, triangle-optimized,
    and the cached total equals the one recomputed from scratch."""
    if slow:
        tree.validate()
    else:
        assert no_repeats_on_a_path(tree)
    assert tree.num_codes == tree.game.num_codes
    assert sorted(tree.codes.tolist()) == list(range(tree.game.num_codes))
    nkids = np.bincount(tree.parent[1:], minlength=len(tree))
    leaf = nkids == 0
    inner = ~tree.terminal
    assert not np.any(inner & (nkids < 2)), "a non-terminal node with fewer than two children"
    for i in np.flatnonzero(inner & (nkids == 2)):
        kids = np.flatnonzero(tree.parent == i)
        assert not leaf[kids].all(), "a triangle left: two leaves under a non-terminal node"
    assert tree.total == fresh_total(tree)


def first_difference(a: Tree, b: Tree) -> int | None:
    """The first node (in preorder) where two trees differ in guess or edge label, or
    None when they are the same tree. A subtree replaced at node ``x`` shows up at ``x``
    or below it."""
    n = min(len(a), len(b))
    diff = np.flatnonzero((a.guess[:n] != b.guess[:n]) | (a.label[:n] != b.label[:n]))
    if len(diff):
        return int(diff[0])
    return None if len(a) == len(b) else n


def wordle_reference(guess: str, secret: str) -> str:
    """Wordle's colours as the rule states them, letter by letter (G, Y, B): greens
    first; then left to right a letter is yellow while the secret has an unmatched copy
    of it, which it takes."""
    out = ["B"] * 5
    unmatched = Counter(s for g, s in zip(guess, secret) if g != s)
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            out[i] = "G"
        elif unmatched[g] > 0:
            unmatched[g] -= 1
            out[i] = "Y"
    return "".join(out)


def marks(guess: str, secret: str) -> str:
    """Wordle's marks: G in place, Y elsewhere (each copy of the secret's letters used
    once, the greens first), - absent."""
    out = ["-"] * len(guess)
    left = [s for g, s in zip(guess, secret) if g != s]
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            out[i] = "G"
        elif g in left:
            out[i] = "Y"
            left.remove(g)
    return "".join(out)


def hard(guess: str, earlier: str, answer: str) -> bool:
    """Wordle's hard mode, one step: each G of ``earlier`` kept in its place, and each
    letter marked G or Y played at least as often as it was so marked."""
    for i, (e, a) in enumerate(zip(earlier, answer)):
        if a == "G" and guess[i] != e:
            return False
    shown = [e for e, a in zip(earlier, answer) if a != "-"]
    return all(guess.count(c) >= shown.count(c) for c in set(shown))
