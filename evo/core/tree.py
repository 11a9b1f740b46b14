"""Breaker trees as flat NumPy arrays (docs/DESIGN.md §2).

Nodes are stored in preorder, children in feedback order. Every node's code set is a
contiguous slice ``codes[start : start + count]``: ``codes`` lists the codes in the
preorder of their terminal nodes, so a subtree is a contiguous range of nodes *and*
of codes. That makes the code set of any node free, fitness a couple of vector sums,
and replacing a subtree (what every operator does) a splice of arrays.

Trees are treated as immutable: operations return new trees.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from evo.core.game import Game, rule_state


class InvalidTreeError(ValueError):
    """A tree (or a file describing one) breaks a rule of docs/DESIGN.md §2."""


#: The arrays of a :class:`Tree`: one entry a node (``codes``: one a code).
ARRAYS = ("guess", "label", "parent", "depth", "terminal", "start", "count", "codes")


@dataclass(eq=False)
class Tree:
    """A breaker tree (or a subtree grown for a code set), nodes in preorder.

    ``guess[i]``: the guess at node ``i``; ``label[i]``: the feedback on the edge from its
    parent (-1 at the root); ``parent[i]`` (-1 at the root); ``depth[i]`` (root = 1);
    ``terminal[i]``: the guess is in the node's code set; ``start[i]``, ``count[i]``: the
    node's code set is ``codes[start[i] : start[i] + count[i]]``.

    >>> import evo
    >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")  # a Breaker, which is a Tree
    >>> tree.total, round(tree.average, 4), tree.worst, tree.histogram
    (74, 2.7407, 4, {1: 1, 2: 7, 3: 17, 4: 2})
    >>> len(tree), tree.game.format_code(tree.guess[0]), int(tree.count[0])
    (27, '112', 27)
    """

    game: Game
    guess: np.ndarray
    label: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    terminal: np.ndarray
    start: np.ndarray
    count: np.ndarray
    codes: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    # -------------------------------------------------------------- fitness
    def __len__(self) -> int:
        return len(self.guess)

    @property
    def num_nodes(self) -> int:
        return len(self.guess)

    @property
    def num_codes(self) -> int:
        """How many codes the tree solves (``M`` for a whole breaker)."""
        return len(self.codes)

    def _memo(self, key: str, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def terminal_depths(self) -> np.ndarray:
        """Depth (root = 1) of each code's terminal node, in ``codes`` order."""
        return self._memo("tdepth", lambda: self.depth[self.terminal])

    @property
    def total(self) -> int:
        """Sum over codes of the number of guesses: the exact fitness (Knuth: 5801)."""
        return self._memo("total", lambda: int(self.terminal_depths.sum(dtype=np.int64)))

    @property
    def average(self) -> float:
        """Average number of guesses: ``total / M``."""
        return self.total / self.num_codes

    @property
    def worst(self) -> int:
        """Worst case: the depth of the deepest terminal node."""
        return int(self.terminal_depths.max())

    @property
    def histogram(self) -> dict[int, int]:
        """How many codes are solved in each number of guesses: ``{guesses: codes}``, in
        order, without empty counts (Knuth's (4,6) tree: ``{1: 1, 2: 6, 3: 62, 4: 533,
        5: 694}``)."""
        h = np.bincount(self.terminal_depths, minlength=self.worst + 1)
        return {int(d): int(c) for d, c in enumerate(h) if c}

    @property
    def nsub(self) -> np.ndarray:
        """Number of nodes in each node's subtree (itself included)."""

        def compute() -> np.ndarray:
            end = self.start + self.count
            return np.searchsorted(self.start, end, side="left") - np.arange(len(self))

        return self._memo("nsub", compute)

    def subtree_totals(self) -> np.ndarray:
        """``total`` of every node's subtree, counting its own guess as 1: the additive
        ``total(node) = |S| + sum of total(child)`` of docs/DESIGN.md §2.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.subtree_totals()[:4].tolist()  # the root's is the tree's total
        [74, 13, 1, 3]
        """

        def compute() -> np.ndarray:
            cum = np.concatenate(([0], np.cumsum(self.terminal_depths, dtype=np.int64)))
            sums = cum[self.start + self.count] - cum[self.start]
            return sums - (self.depth.astype(np.int64) - 1) * self.count

        return self._memo("subtotals", compute)

    def deepest(self) -> np.ndarray:
        """The depth of the deepest terminal node under each node: where the worst case of
        its codes lies (the root's is the tree's worst case).

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.deepest()[:4].tolist()
        [4, 4, 3, 4]
        """

        def compute() -> np.ndarray:
            worst = self.depth.astype(np.int64).copy()
            parent = self.parent
            for i in range(len(self) - 1, 0, -1):  # preorder: children after their parent
                p = parent[i]
                if worst[i] > worst[p]:
                    worst[p] = worst[i]
            return worst

        return self._memo("deepest", compute)

    @property
    def at_worst(self) -> int:
        """How many codes need the worst case."""
        return self.solved_at(self.worst)

    def solved_at(self, guesses: int) -> int:
        """How many codes are solved at the ``guesses``-th guess: the second objective
        of a search within a worst case (fewest codes at the last guess).

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.solved_at(tree.worst), tree.solved_at(1)
        (2, 1)
        """
        return int(np.count_nonzero(self.terminal_depths == guesses))

    def height(self, node: int) -> int:
        """The most guesses that a code of ``node``'s set needs from ``node`` on (its own
        guess counted): the worst case of its subtree.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.height(0), tree.height(1), tree.height(2)
        (4, 3, 1)
        """
        below = self.depth[node : node + int(self.nsub[node])]
        return int(below.max()) - int(self.depth[node]) + 1

    # ------------------------------------------------------------ structure
    def code_set(self, node: int) -> np.ndarray:
        """The codes whose game path passes through ``node``.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.game.format_codes(tree.code_set(3))
        ['122', '212']
        """
        return self.codes[self.start[node] : self.start[node] + self.count[node]]

    @property
    def child_table(self) -> np.ndarray:
        """``(n, F)`` int32 array: the child of node ``i`` for feedback ``f``, or -1."""

        def compute() -> np.ndarray:
            table = np.full((len(self), self.game.num_feedbacks), -1, dtype=np.int32)
            nodes = np.arange(1, len(self), dtype=np.int32)
            table[self.parent[1:], self.label[1:]] = nodes
            return table

        return self._memo("child", compute)

    def children(self, node: int) -> dict[int, int]:
        """``{feedback: child node}`` of a node, in feedback order.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> game = tree.game
        >>> {game.format_feedback(f): game.format_code(tree.guess[c])
        ...  for f, c in tree.children(1).items()}
        {'2B 0W': '111', '1B 0W': '122', '1B 1W': '132'}
        """
        row = self.child_table[node]
        return {int(f): int(c) for f, c in enumerate(row) if c >= 0}

    @property
    def terminal_node(self) -> np.ndarray:
        """``terminal_node[k]``: the node where code ``codes[k]`` is guessed and wins."""
        return self._memo("tnode", lambda: np.flatnonzero(self.terminal).astype(np.int32))

    def node_of_code(self, code: int) -> int:
        """The terminal node of ``code`` (where it is guessed).

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.node_of_code(tree.game.parse_code("212"))
        4
        """
        pos = self._memo("pos", lambda: _inverse_positions(self.codes, self.game.num_codes))
        k = int(pos[int(code)])
        if k < 0:
            raise KeyError(f"code {self.game.format_code(code)} is not solved by this tree")
        return int(self.terminal_node[k])

    def path(self, node: int) -> list[int]:
        """Nodes from the root down to ``node``.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.path(4)
        [0, 1, 3, 4]
        """
        out = [int(node)]
        while self.parent[out[-1]] >= 0:
            out.append(int(self.parent[out[-1]]))
        return out[::-1]

    def play(self, code: int) -> list[tuple[int, int]]:
        """The game path of ``code``: its ``(guess, feedback)`` pairs, ending on the win.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> game = tree.game
        >>> steps = tree.play(game.parse_code("212"))
        >>> [(game.format_code(g), game.format_feedback(f)) for g, f in steps]
        [('112', '2B 0W'), ('113', '1B 0W'), ('122', '1B 2W'), ('212', '3B 0W')]
        """
        nodes = self.path(self.node_of_code(code))
        return [(int(self.guess[a]), int(self.label[b])) for a, b in zip(nodes, nodes[1:])] + [
            (int(code), self.game.win)
        ]

    def used_guesses(self, node: int) -> list[int]:
        """The guesses on the path above ``node`` (excluded from its subtree).

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.game.format_codes(tree.used_guesses(4))
        ['112', '113', '122']
        """
        return [int(self.guess[a]) for a in self.path(node)[:-1]]

    def is_leaf(self) -> np.ndarray:
        """Boolean per node: it has no children.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.is_leaf()[:4].tolist(), int(tree.is_leaf().sum())
        ([False, False, True, False], 18)
        """
        return self.nsub == 1

    # ------------------------------------------------------------- editing
    def subtree(self, node: int) -> Tree:
        """A copy of the subtree under ``node``, as a tree of its own code set.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> sub = tree.subtree(1)
        >>> len(sub), sub.num_codes, sub.total  # its guesses counted from its root
        (6, 6, 13)
        """
        a, b = int(node), int(node) + int(self.nsub[node])
        s0 = int(self.start[node])
        parent = self.parent[a:b] - a
        parent[0] = -1
        label = self.label[a:b].copy()
        label[0] = -1
        return Tree(
            self.game,
            self.guess[a:b].copy(),
            label,
            parent,
            self.depth[a:b] - self.depth[a] + 1,
            self.terminal[a:b].copy(),
            self.start[a:b] - s0,
            self.count[a:b].copy(),
            self.codes[s0 : s0 + int(self.count[node])].copy(),
        )

    def replace(self, node: int, sub: Tree) -> Tree:
        """A new tree with the subtree under ``node`` replaced by ``sub``, which must solve
        exactly the node's code set. Only array copies: nothing is replayed.

        >>> import evo, numpy as np
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> sub = evo.ops.grow(tree.game, tree.code_set(1), rng=np.random.default_rng(1))
        >>> new = tree.replace(1, sub)
        >>> new.total, tree.total - int(tree.subtree_totals()[1]) + sub.total, new.is_valid()
        (76, 76, True)
        """
        a = int(node)
        b = a + int(self.nsub[a])
        s0, cnt = int(self.start[a]), int(self.count[a])
        if sub.num_codes != cnt:
            raise InvalidTreeError(
                f"a subtree for {sub.num_codes} codes cannot replace a node of {cnt} codes"
            )
        delta = len(sub) - (b - a)
        sub_parent = sub.parent + a
        sub_parent[0] = self.parent[a]
        sub_label = sub.label.copy()
        sub_label[0] = self.label[a]
        after_parent = self.parent[b:].copy()
        after_parent[after_parent >= b] += delta
        codes = self.codes.copy()
        codes[s0 : s0 + cnt] = sub.codes
        return Tree(
            self.game,
            np.concatenate((self.guess[:a], sub.guess, self.guess[b:])),
            np.concatenate((self.label[:a], sub_label, self.label[b:])),
            np.concatenate((self.parent[:a], sub_parent, after_parent)),
            np.concatenate((self.depth[:a], sub.depth + (self.depth[a] - 1), self.depth[b:])),
            np.concatenate((self.terminal[:a], sub.terminal, self.terminal[b:])),
            np.concatenate((self.start[:a], sub.start + s0, self.start[b:])),
            np.concatenate((self.count[:a], sub.count, self.count[b:])),
            codes,
        )

    # ----------------------------------------------------------- checking
    def validate(self) -> None:
        """Check every rule of docs/DESIGN.md §2 from scratch, by playing every code with the
        game's feedback; raise :class:`InvalidTreeError` saying what is wrong.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.validate()  # nothing to say
        >>> tree.replace(3, tree.subtree(5)).validate()  # the subtree of other codes
        Traceback (most recent call last):
        ...
        evo.core.tree.InvalidTreeError: ...
        """
        game, fmt = self.game, self.game.format_code
        n = len(self)
        if n == 0:
            raise InvalidTreeError("the tree has no node")
        arrays = (self.label, self.parent, self.depth, self.terminal, self.start, self.count)
        if any(len(x) != n for x in arrays):
            raise InvalidTreeError("the node arrays have different lengths")
        if self.parent[0] != -1 or (n > 1 and np.any(self.parent[1:] >= np.arange(1, n))):
            raise InvalidTreeError("nodes are not in preorder (a parent after its child)")
        if np.any(self.guess < 0) or np.any(self.guess >= game.num_guesses):
            raise InvalidTreeError("a guess is not a guess of the game")
        if len(np.unique(self.codes)) != len(self.codes):
            raise InvalidTreeError("a code is listed twice")
        child = self.child_table
        if np.count_nonzero(child >= 0) != n - 1:
            raise InvalidTreeError("two children of one node share a feedback")
        for code in self.codes:
            node, seen = 0, set()
            for _ in range(n + 1):
                g = int(self.guess[node])
                if g in seen:
                    raise InvalidTreeError(f"guess {fmt(g)} repeats on the path of {fmt(code)}")
                seen.add(g)
                f = int(game.feedback(g, int(code)))
                if f == game.win:
                    break
                nxt = int(child[node, f])
                if nxt < 0:
                    raise InvalidTreeError(
                        f"code {fmt(code)} has no path: after guess {fmt(g)} (node {node}) "
                        f"no branch for feedback {game.format_feedback(f)}"
                    )
                node = nxt
            if self.node_of_code(code) != node:
                raise InvalidTreeError(f"code {fmt(code)} wins at node {node}, not where listed")
        for i in range(n):
            s = self.code_set(i)
            if len(s) == 0:
                raise InvalidTreeError(f"node {i} is reached by no code")
            if bool(self.terminal[i]) != bool(np.any(s == self.guess[i])):
                raise InvalidTreeError(f"node {i}: terminal flag disagrees with its code set")
            if i and self.depth[i] != self.depth[self.parent[i]] + 1:
                raise InvalidTreeError(f"node {i}: depth is not its parent's plus one")
        self.check_legal()

    def check_legal(self, history: Sequence[int] = ()) -> None:
        """Raise :class:`InvalidTreeError` when a guess is not legal at its node under
        the game's rule (a subtree: below the guesses of ``history``); nothing to check
        in a game without a rule.

        >>> import evo
        >>> def hard(guess, earlier, answer):  # a guess keeps the letters found
        ...     return answer == "0" or any(x in guess for x in earlier)
        >>> words = ["ab", "bc", "cd", "da"]
        >>> game = evo.custom_game(words, lambda g, s: str(len(set(g) & set(s))), legal=hard)
        >>> evo.baseline(game, "optimal").check_legal()  # nothing to say
        """
        game = self.game
        rule = game.rule
        if rule is None:
            return
        state: list[Hashable] = [rule_state(game, history, int(self.codes[0]))] * len(self)
        for i in range(len(self)):
            p = int(self.parent[i])
            if p >= 0:
                state[i] = rule.after(state[p], int(self.guess[p]), int(self.label[i]))
            if not rule.legal(state[i])[int(self.guess[i])]:
                raise InvalidTreeError(
                    f"guess {game.format_code(int(self.guess[i]))} (node {i}) is not legal "
                    f"there under {game.name}'s rule"
                )

    def unlike(self, other: Tree) -> list[str]:
        """The names of the arrays (:data:`ARRAYS`) in which this tree and ``other``
        differ: none for the same tree.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.unlike(tree.subtree(0)), tree.unlike(tree.replace(1, tree.subtree(1)))
        ([], [])
        """
        return [
            name for name in ARRAYS if not np.array_equal(getattr(self, name), getattr(other, name))
        ]

    def is_valid(self) -> bool:
        """Whether :meth:`validate` finds nothing wrong.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.is_valid()
        True
        """
        try:
            self.validate()
        except InvalidTreeError:
            return False
        return True

    def summary(self) -> dict:
        """Fitness figures as plain data.

        >>> import evo
        >>> tree = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> tree.summary()  # doctest: +NORMALIZE_WHITESPACE
        {'total': 74, 'average': 2.740741, 'worst': 4,
         'histogram': {1: 1, 2: 7, 3: 17, 4: 2}, 'nodes': 27}
        """
        return {
            "total": self.total,
            "average": round(self.average, 6),
            "worst": self.worst,
            "histogram": self.histogram,
            "nodes": len(self),
        }


def _inverse_positions(codes: np.ndarray, m: int) -> np.ndarray:
    pos = np.full(m, -1, dtype=np.int64)
    pos[codes] = np.arange(len(codes))
    return pos
