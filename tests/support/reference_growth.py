"""The seed's random path completion, written literally (DESIGN §3), as a test oracle.

Plain Python: dict nodes, feedback from the definition, one code at a time, then shrink
and triangle optimization. Slow, obvious, and independent of ``evo.core.growth``.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache


@cache
def brute_feedback(guess: tuple, secret: tuple) -> tuple[int, int]:
    """<b, w> from the definition: b right in place; w right in color only, by multiplicity."""
    b = sum(g == s for g, s in zip(guess, secret))
    common = sum((Counter(guess) & Counter(secret)).values())
    return b, common - b


class Node:
    """A node, with the codes whose path passes through it (its code set)."""

    def __init__(self, guess):
        self.guess = guess
        self.children: dict[tuple[int, int], Node] = {}
        self.codes: list[tuple] = []

    def terminal(self) -> bool:
        return self.guess in self.codes


def grow_reference(codes: list[tuple], rng: random.Random, pool: str = "all") -> Node:
    """Random path completion over every code, then shrink, then triangle optimization."""
    win = (len(codes[0]), 0)

    def draw(path_guesses, history):
        unused = [c for c in codes if c not in path_guesses]
        if pool == "consistent":
            unused = [c for c in unused if all(brute_feedback(g, c) == f for g, f in history)]
        return rng.choice(unused)

    root = Node(draw([], []))
    for code in codes:
        node, path, history = root, [], []
        while True:
            node.codes.append(code)
            f = brute_feedback(node.guess, code)
            if f == win:
                break
            path.append(node.guess)
            history.append((node.guess, f))
            if f not in node.children:
                node.children[f] = Node(draw(path, history))
            node = node.children[f]
    root = shrink(root)
    triangle(root, rng)
    return root


def shrink(node: Node) -> Node:
    """Remove every non-terminal node with exactly one child (linking the child up)."""
    while len(node.children) == 1 and not node.terminal():
        (node,) = node.children.values()
    for f in list(node.children):
        node.children[f] = shrink(node.children[f])
    return node


def triangle(node: Node, rng: random.Random) -> None:
    """A non-terminal node with two leaf children takes the guess of one of them (at
    random); that child goes, the other is relabelled with its feedback to the new guess."""
    for child in node.children.values():
        triangle(child, rng)
    kids = list(node.children.values())
    if len(kids) == 2 and all(not k.children for k in kids) and not node.terminal():
        keep, gone = kids if rng.random() < 0.5 else kids[::-1]
        node.guess = gone.guess
        node.children = {brute_feedback(node.guess, keep.guess): keep}


def depths(node: Node, codes, n: int) -> dict[tuple, int]:
    """Depth of every code's win, by playing it with the definition."""
    out = {}
    for c in codes:
        node_, d = node, 1
        while True:
            f = brute_feedback(node_.guess, c)
            if f == (n, 0):
                out[c] = d
                break
            node_ = node_.children[f]
            d += 1
    return out
