"""Turning a player (a rule that picks a guess for a code set) into a breaker tree: the
one builder behind every baseline and every rule-built subtree of the operators.

A player is a callable ``choose(S, node) -> guess``: ``S`` is the node's code set (a
sorted int64 array) and ``node`` a :class:`Node` that knows the history (the guesses
above) and its symmetry group. The strategy is built recursively on code sets, the
partition of ``S`` by guess ``g`` being ``game.feedback(g, S)``, and then turned into a
:class:`~evo.core.tree.Tree` by :func:`evo.core.growth.build_exact`, which checks it on every
code. One code left is always guessed at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from evo.core.game import Game
from evo.core.growth import Template, build_exact
from evo.core.tree import Tree
from evo.games.pegs import PegGame, peg_game
from evo.search.partition import split
from evo.search.symmetry import Relabel, Stabilizer, canonical_frame


class Node:
    """Where a player stands: the guesses above a node, and the symmetries fixing them."""

    def __init__(self, game: Game, history: tuple[int, ...] = (), parent: Node | None = None):
        self.game = game
        self.history = history
        self._parent = parent

    @cached_property
    def stabilizer(self) -> Stabilizer:
        if self._parent is None:
            return Stabilizer.root(self.game)
        return self._parent.stabilizer.extend(self.history[-1])

    @staticmethod
    def after(game: Game, history: tuple[int, ...] | list[int]) -> Node:
        """The node reached by the guesses of ``history`` (its symmetries fix them all)."""
        node = Node(game)
        for g in history:
            node = node.then(g)
        return node

    def then(self, guess: int) -> Node:
        """The node below, after ``guess``."""
        return Node(self.game, self.history + (int(guess),), self)


Player = Callable[[np.ndarray, Node], int]

#: Preorder ``guess``, ``label`` (feedback from the parent) and ``parent`` (-1 at the
#: root) arrays of a subtree.
SubtreeArrays = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Subtrees:
    """A player's whole subtrees on code sets of at most ``most`` codes, built together,
    ``batch`` sets at a time as the rest of the tree is built (so that the codes found
    grow steadily): ``build(sets, nodes)`` gives one :data:`SubtreeArrays` per set (a
    compiled builder for the many small nodes of a big game, where a call per node costs
    more than its work, and sets side by side use every thread)."""

    most: int
    build: Callable[[list[np.ndarray], list[Node]], list[SubtreeArrays]]
    batch: int = 1024


class UnhelpfulGuessError(RuntimeError):
    """A player chose a guess that neither wins nor splits the code set (a bug)."""


def build_tree(
    game: Game,
    choose: Player,
    *,
    codes: np.ndarray | None = None,
    history: tuple[int, ...] = (),
    as_written: bool = False,
    progress: Callable[[int, int], None] | None = None,
    subtrees: Subtrees | None = None,
) -> Tree:
    """The tree of a player over ``codes`` (every code by default), checked on every code;
    ``history``: the guesses that led to ``codes`` (the player's nodes start below them).
    ``progress(found, total)`` is called after each node (and each batch of subtrees)
    with the codes found so far (the guess was the secret): they grow steadily to
    ``total``.

    A player must help at every node, and a node of one code plays it. ``as_written``: the
    player is asked at every node and may play a guess that tells nothing (it costs a move
    and the node has one child), as a written opening or a published rule may; it must
    not repeat a guess of the node's history. ``subtrees``: the player's whole subtrees
    on small code sets, built together in batches (:class:`Subtrees`)."""
    if codes is None:
        codes = game.all_codes()
    codes = np.sort(np.asarray(codes, dtype=np.int64))
    guesses: list[int] = []
    links: list[tuple[int, int, int]] = []
    stack: list[tuple[np.ndarray, Node, int, int]] = [(codes, Node.after(game, history), -1, -1)]
    found = 0
    later: list[tuple[np.ndarray, Node, int, int]] = []  # (S, node, parent, fb): subtrees

    def build_later() -> None:
        """The subtrees of ``later``, each at the end of the tree so far (a template's
        nodes may come in any order)."""
        nonlocal found
        assert subtrees is not None
        built = subtrees.build([c[0] for c in later], [c[1] for c in later])
        for (s, _, parent, fb), (sub_guess, sub_label, sub_parent) in zip(later, built):
            me = len(guesses)
            guesses.extend(sub_guess.tolist())
            if parent >= 0:
                links.append((parent, fb, me))
            inner = np.flatnonzero(sub_parent >= 0)
            links.extend(
                zip(
                    (me + sub_parent[inner]).tolist(),
                    sub_label[inner].tolist(),
                    (me + inner).tolist(),
                )
            )
            found += len(s)
        later.clear()
        if progress is not None:
            progress(found, len(codes))

    while stack:
        s, node, parent, fb = stack.pop()
        me = len(guesses)
        if subtrees is not None and 1 < len(s) <= subtrees.most:
            later.append((s, node, parent, fb))
            if len(later) >= subtrees.batch:
                build_later()
            continue
        g = int(s[0]) if len(s) == 1 and not as_written else int(choose(s, node))
        guesses.append(g)
        if parent >= 0:
            links.append((parent, fb, me))
        if progress is not None:
            at = int(np.searchsorted(s, g))
            found += at < len(s) and s[at] == g
            progress(found, len(codes))
        if len(s) == 1 and g == s[0]:
            continue
        parts = split(game, g, s)
        if as_written:
            if g in node.history:
                raise UnhelpfulGuessError(f"the player repeated guess {game.format_code(g)}")
        elif len(parts) == 1 and len(parts[0][1]) == len(s):
            raise UnhelpfulGuessError(
                f"guess {game.format_code(g)} does not split the {len(s)} codes of its node"
            )
        below = node.then(g)
        for f, part in reversed(parts):
            stack.append((part, below, me, f))
    if later:
        build_later()
    child = np.full((len(guesses), game.num_feedbacks), -1, dtype=np.int32)
    for parent, fb, me in links:
        child[parent, fb] = me
    template = Template(np.array(guesses, dtype=np.int32), child)
    return build_exact(game, template, codes=codes, history=history)


def _frame(game: Game, history: tuple[int, ...]) -> Relabel | None:
    """The relabelling that makes the first guess of ``history`` the lowest code of its
    orbit; None when there is none to make (no history, it is that code already, or the
    game has no known symmetry)."""
    pegs = peg_game(game)
    if not history or pegs is None:
        return None
    phi = canonical_frame(pegs, history[0])
    return None if phi.identity else phi


def in_canonical_frame_args(
    game: Game, codes: np.ndarray, history: tuple[int, ...]
) -> tuple[np.ndarray, tuple[int, ...]]:
    """``codes`` (sorted) and ``history`` where the first guess of ``history`` is the
    lowest code of its orbit: what :func:`in_canonical_frame` searches."""
    phi = _frame(game, history)
    if phi is None:
        return np.sort(codes), history
    assert isinstance(game, PegGame)
    return _relabelled(game, phi, codes, history)


def _relabelled(
    game: PegGame, phi: Relabel, codes: np.ndarray, history: tuple[int, ...]
) -> tuple[np.ndarray, tuple[int, ...]]:
    """``codes`` (sorted) and ``history`` relabelled by ``phi``."""
    return np.sort(phi.apply(game, codes)), tuple(int(g) for g in phi.apply(game, history))


def in_canonical_frame(
    game: Game,
    codes: np.ndarray,
    history: tuple[int, ...],
    build: Callable[[np.ndarray, tuple[int, ...]], Tree],
) -> Tree:
    """``build(codes, history)`` done where the first guess of ``history`` is the lowest
    code of its orbit (:func:`~evo.search.symmetry.canonical_frame`), then mapped back: a
    subtree below one first guess serves every symmetric one (their code sets meet in
    that frame, with their memos and caches). The result is the same subtree, relabelled."""
    phi = _frame(game, history)
    if phi is None:
        return build(codes, history)
    assert isinstance(game, PegGame)
    sub = build(*_relabelled(game, phi, codes, history))
    back = phi.inverse().apply(game, sub.guess).astype(np.int32)
    return build_exact(game, Template(back, sub.child_table), codes=np.sort(codes))
