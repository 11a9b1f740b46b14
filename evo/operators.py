"""Variation operators on breaker trees: crossovers and mutations (DESIGN §4).

Every operator is a plain function ``op(tree, ..., rng, **params)`` that returns *new*
trees (inputs are never modified) that are valid breakers for the same code set, with no
guess repeated on a path, shrunk and triangle-optimized. Each works on one or a few
subtrees and splices the result in with :meth:`Tree.replace`; the new total is then the
old total, less the old subtree's, plus the new subtree's (:func:`splice`), so an
offspring is re-evaluated only where it changed.

Subtrees are chosen by :func:`pick_node`: only nodes whose code set has at least three
codes are candidates (a one- or two-code subtree is already optimal after shrinking and
the triangle rule), uniformly or weighted by the size of their code set.

Crossovers
    ``graft``     one-point subtree graft: a node of each parent takes the other
                  parent's subtree at the *aligned* node (reached by the same guesses and
                  feedbacks, so with the same code set) when there is one, else at a random
                  node; a subtree that lands on another code set is replayed there
                  (:func:`evo.growth.replay`).
    ``exchange``  uniform exchange of aligned subtrees: the two parents are walked together
                  from the root while they make the same guesses; at every node where they
                  first differ (same code set, different guess) the two subtrees are
                  exchanged with probability ½, or, with probability ``bias``, the first
                  offspring takes the better one. No replay: aligned subtrees fit as they are.

Mutations
    ``regrow``      another helpful guess at a node, its subtree regrown at random.
    ``best-of-k``   ``k`` random regrows of a node's subtree, the best one kept.
    ``greedy``      a node's subtree rebuilt by one-step look-ahead (Kooi's most parts,
                    entropy, Irving's expected size or Knuth's largest part), trying a few
                    of the best root guesses.
    ``exhaustive``  a small code set's subtree replaced by an optimal one (exact search).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evo.baselines.build import helps
from evo.baselines.lookahead import SCORES as HEURISTICS
from evo.baselines.lookahead import feedback_block, partition_counts
from evo.baselines.lookahead import score as look_score
from evo.baselines.optimal import max_parts, perfect_split_bounds
from evo.game import Game
from evo.growth import Template, grow, replay
from evo.tree import Tree

#: Code sets smaller than this are never worth changing (shrink and triangle settle them).
MIN_CODES = 3

NODE_WEIGHTS: tuple[str, ...] = ("uniform", "size", "sqrt")


# ------------------------------------------------------------------ basics
def splice(tree: Tree, node: int, sub: Tree) -> Tree:
    """``tree`` with the subtree at ``node`` replaced by ``sub`` (a tree of the node's code
    set), its total computed from the change alone: old total − old subtree + new subtree."""
    old = int(tree.subtree_totals()[node])
    new_tree = tree.replace(node, sub)
    new_tree._cache["total"] = tree.total - old + sub.total
    return new_tree


def offer(tree: Tree, node: int, sub: Tree, keep_current: bool = False) -> Tree:
    """``tree`` with ``sub`` at ``node``; ``tree`` itself when ``sub`` is the same subtree,
    or, with ``keep_current``, when ``sub`` is worse. A subtree as good as the current one
    is taken: such neutral moves let the population drift along plateaus of equal total."""
    n = int(tree.nsub[node])
    if len(sub) == n and np.array_equal(sub.guess, tree.guess[node : node + n]):
        return tree  # same guesses in preorder on the same code set: the same subtree
    if keep_current and sub.total > tree.subtree_totals()[node]:
        return tree
    return splice(tree, node, sub)


def _total(tree: Tree) -> int:
    return tree.total  # the first of equal totals wins a min()


def candidate_nodes(
    tree: Tree, min_codes: int = MIN_CODES, max_codes: int | None = None
) -> np.ndarray:
    """Nodes whose code set has ``min_codes`` .. ``max_codes`` codes."""
    ok = tree.count >= min_codes
    if max_codes is not None:
        ok &= tree.count <= max_codes
    return np.flatnonzero(ok)


def pick_node(
    tree: Tree,
    rng: np.random.Generator,
    weight: str = "size",
    min_codes: int = MIN_CODES,
    max_codes: int | None = None,
) -> int | None:
    """A random node with ``min_codes`` .. ``max_codes`` codes, uniformly (``uniform``) or
    with probability proportional to its code set's size (``size``) or its square root
    (``sqrt``); None when there is none."""
    nodes = candidate_nodes(tree, min_codes, max_codes)
    if len(nodes) == 0:
        return None
    if weight == "uniform":
        return int(nodes[rng.integers(len(nodes))])
    w = tree.count[nodes].astype(np.float64)
    if weight == "sqrt":
        w = np.sqrt(w)
    elif weight != "size":
        raise ValueError(f"node weight must be one of {', '.join(NODE_WEIGHTS)}, not {weight!r}")
    cum = np.cumsum(w)
    return int(nodes[min(len(nodes) - 1, np.searchsorted(cum, rng.random() * cum[-1], "right"))])


def candidates(game: Game, codes: np.ndarray, pool: str) -> np.ndarray:
    """The guesses considered at a node: every code (``all``) or its code set (``consistent``)."""
    return np.sort(codes).astype(np.int64) if pool == "consistent" else np.arange(game.num_codes)


def candidate_feedbacks(game: Game, codes: np.ndarray, pool: str) -> tuple[np.ndarray, np.ndarray]:
    """The pool's candidate guesses for ``codes`` and their ``(candidates, codes)``
    feedbacks (read as the codes' rows: the feedback is symmetric, and that is fast)."""
    cand = candidates(game, codes, pool)
    return cand, feedback_block(game, codes, cand if pool == "consistent" else None).T


def helpful_guess(
    game: Game, codes: np.ndarray, rng: np.random.Generator, pool: str, avoid: int = -1
) -> int:
    """A uniform draw among the pool's guesses that help on ``codes`` (a consistent guess,
    or one that splits them), other than ``avoid`` when there is another."""
    for _ in range(8):  # rejection: a random guess nearly always helps on 3+ codes
        g = int(
            codes[rng.integers(len(codes))]
            if pool == "consistent"
            else rng.integers(game.num_codes)
        )
        if g != avoid and helps(game, g, codes):
            return g
    cand, fb = candidate_feedbacks(game, codes, pool)
    ok = (fb == game.win).any(axis=1) | (fb != fb[:, :1]).any(axis=1)
    ok &= cand != avoid
    good = cand[ok]
    if len(good) == 0:
        return avoid
    return int(good[rng.integers(len(good))])


# ---------------------------------------------------- building subtrees by rule
def build_subtree(game: Game, codes: np.ndarray, choose: Callable[[np.ndarray], int]) -> Tree:
    """The subtree for ``codes`` in which every node of three or more codes guesses
    ``choose(code set)`` (which must help); one-code sets are leaves, two-code sets guess
    their lower code with the other as a leaf. Nodes are laid out as :class:`Tree` expects
    (preorder, children in feedback order, a node's own code first)."""
    guess, label, parent, depth, term, start, count, order = [], [], [], [], [], [], [], []
    win = game.win

    def node(s: np.ndarray, par: int, lab: int, d: int) -> None:
        me = len(guess)
        n = len(s)
        if n == 1:
            g = int(s[0])
        elif n == 2:
            g = int(min(s[0], s[1]))
        else:
            g = int(choose(s))
        guess.append(g)
        label.append(lab)
        parent.append(par)
        depth.append(d)
        start.append(len(order))
        count.append(n)
        fb = game.feedback(g, s).astype(np.int64)
        hit = fb == win
        term.append(bool(hit.any()))
        if hit.any():
            order.append(g)
        if n == 1:
            return
        rest = ~hit
        s, fb = s[rest], fb[rest]
        if len(set(fb.tolist())) == 1 and not term[me]:
            raise ValueError(f"guess {game.format_code(g)} does not help on its code set")
        perm = np.argsort(fb, kind="stable")
        s, fb = s[perm], fb[perm]
        cut = np.flatnonzero(np.diff(fb)) + 1
        for part, f in zip(np.split(s, cut), fb[np.concatenate(([0], cut))]):
            node(part, me, int(f), d + 1)

    node(np.asarray(codes, dtype=np.int64), -1, -1, 1)
    return Tree(
        game,
        np.array(guess, dtype=np.int32),
        np.array(label, dtype=np.int32),
        np.array(parent, dtype=np.int32),
        np.array(depth, dtype=np.int32),
        np.array(term, dtype=bool),
        np.array(start, dtype=np.int32),
        np.array(count, dtype=np.int32),
        np.array(order, dtype=np.int32),
    )


def partition_scores(game: Game, codes: np.ndarray, pool: str, heuristic: str):
    """Candidate guesses for ``codes`` ranked by one-step look-ahead (best first): the
    heuristic's score of the partition by feedback (:mod:`evo.baselines.lookahead`), then
    a consistent guess first, then the lowest code (DESIGN §5's tie rule). Guesses that
    do not help are left out. Returns the ranked guesses and their scores."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {', '.join(HEURISTICS)}, not {heuristic!r}")
    cand = candidates(game, codes, pool)
    sizes = partition_counts(game, codes, cand if pool == "consistent" else None)
    consistent = sizes[:, game.win] > 0
    useful = consistent | (np.count_nonzero(sizes, axis=1) > 1)
    score = look_score(heuristic, sizes)
    cand, score, consistent = cand[useful], score[useful], consistent[useful]
    order = np.lexsort((cand, ~consistent, score))
    return cand[order], score[order]


def lookahead_choice(game: Game, pool: str, heuristic: str) -> Callable[[np.ndarray], int]:
    """One-step look-ahead: the best guess for a code set by ``heuristic``."""

    def choose(codes: np.ndarray) -> int:
        return int(partition_scores(game, codes, pool, heuristic)[0][0])

    return choose


def greedy_subtree(
    game: Game,
    codes: np.ndarray,
    pool: str = "all",
    heuristic: str = "kooi",
    root: int | None = None,
    exact_below: int = 0,
) -> Tree:
    """The one-step look-ahead subtree of ``codes`` (``root``: its root guess, if given);
    code sets of at most ``exact_below`` codes get an optimal subtree instead."""
    choose = lookahead_choice(game, pool, heuristic)
    if exact_below >= MIN_CODES:
        solver = exact_solver(game, pool)
        look = choose

        def choose(s: np.ndarray) -> int:
            return solver.best_guess(s) if len(s) <= exact_below else look(s)

    if root is None:
        return build_subtree(game, codes, choose)
    first = [True]

    def choose_root(s: np.ndarray) -> int:
        if first[0]:
            first[0] = False
            return int(root)
        return choose(s)

    return build_subtree(game, codes, choose_root)


# ------------------------------------------------------------- exact search
class ExactSolver:
    """Optimal (least total) subtrees for small code sets, by depth-first branch and bound.

    ``T(S) = |S| + Σ T(P)`` over the parts ``P`` of ``S`` other than the win, for the best
    guess. Guesses with the same partition of ``S`` (same blocks, same win) are tried once,
    in the order of their lower bound ``|S| + Σ LB(|P|)`` (``LB``: the perfect-split bound
    of :mod:`evo.baselines.optimal`), then a consistent guess first, then the lowest code;
    a guess is dropped once its bound reaches the best total found. Results are memoised
    per code set (exact values, and lower bounds proved by cut-offs).

    The chosen guess is the first optimal one in that order, whatever the memo holds, so
    that the subtree found does not depend on what this process solved before: evolution
    gives the same result with any number of worker processes. (The baselines' solver
    prunes by symmetry of the history, so its choice among optimal guesses depends on
    the path by which a code set was first met; this one does not look at the path.)
    """

    def __init__(self, game: Game, pool: str = "all", max_memo: int = 200_000):
        self.game = game
        self.pool = pool
        self.max_memo = max_memo
        self.exact: dict[bytes, tuple[int, int]] = {}
        self.lower: dict[bytes, int] = {}
        self.lb = perfect_split_bounds(game.num_codes, max_parts(game))

    def total(self, codes: np.ndarray) -> int:
        """The least total of a subtree for ``codes``."""
        s = np.sort(np.asarray(codes, dtype=np.int64))
        return self._solve(s, 1 << 60)

    def best_guess(self, codes: np.ndarray) -> int:
        """The root guess of an optimal subtree for ``codes`` (three codes or more)."""
        s = np.sort(np.asarray(codes, dtype=np.int64))
        key = s.tobytes()
        if key not in self.exact:
            self._solve(s, 1 << 60)
        return self.exact[key][1]

    def subtree(self, codes: np.ndarray) -> Tree:
        """An optimal subtree for ``codes``."""
        return build_subtree(self.game, np.asarray(codes, dtype=np.int64), self.best_guess)

    def _solve(self, s: np.ndarray, bound: int) -> int:
        n = len(s)
        if n <= 2:
            return 2 * n - 1
        key = s.tobytes()
        hit = self.exact.get(key)
        if hit is not None:
            return hit[0]
        low = max(int(self.lb[n]), self.lower.get(key, 0))
        if low >= bound:
            return low
        if len(self.exact) + len(self.lower) > self.max_memo:
            self.exact.clear()
            self.lower.clear()
        game = self.game
        cand, fb = candidate_feedbacks(game, s, self.pool)
        # Canonical partitions: each code labelled by the first code of its part; the win
        # part (the guess itself) by n.
        same = fb[:, :, None] == fb[:, None, :]
        canon = same.argmax(axis=1)
        canon[fb == game.win] = n
        canon, first = np.unique(canon, axis=0, return_index=True)
        guesses = cand[first]
        win = (canon == n).any(axis=1)
        rows = len(canon)
        sizes = np.bincount(
            (np.arange(rows)[:, None] * (n + 1) + canon).ravel(), minlength=rows * (n + 1)
        ).reshape(rows, n + 1)[:, :n]
        helps = win | (np.count_nonzero(sizes, axis=1) > 1)
        canon, guesses, win = canon[helps], guesses[helps], win[helps]
        lb = n + self.lb[sizes[helps]].sum(axis=1)
        order = np.lexsort((guesses, ~win, lb))
        best, choice = bound, -1
        for i in order:
            if lb[i] >= best:
                break
            row = canon[i]
            blocks = [s[row == v] for v in np.unique(row) if v != n]
            blocks.sort(key=len, reverse=True)
            rest = [int(self.lb[len(b)]) for b in blocks]
            acc, rest_lb = n, sum(rest)
            for b, r in zip(blocks, rest):
                rest_lb -= r
                acc += self._solve(b, best - acc - rest_lb)
                if acc + rest_lb >= best:
                    break
            else:
                if acc < best:
                    best, choice = acc, int(guesses[i])
        if choice >= 0:
            self.exact[key] = (best, choice)
            return best
        self.lower[key] = max(self.lower.get(key, 0), bound)
        return bound


_SOLVERS: dict[tuple, ExactSolver] = {}


def exact_solver(game: Game, pool: str) -> ExactSolver:
    """The process's solver for a game and pool (its memo is shared by all calls)."""
    key = (game.key, pool)
    if key not in _SOLVERS or _SOLVERS[key].game is not game:
        _SOLVERS[key] = ExactSolver(game, pool)
    return _SOLVERS[key]


# --------------------------------------------------------------- mutations
def regrow_mutation(
    tree: Tree, rng: np.random.Generator, pool: str = "all", node_weight: str = "size"
) -> Tree:
    """*Regrow*: a node takes another helpful guess from the pool and its subtree is
    regrown by random path completion."""
    node = pick_node(tree, rng, node_weight)
    if node is None:
        return tree
    codes = tree.code_set(node)
    g = helpful_guess(tree.game, codes, rng, pool, avoid=int(tree.guess[node]))
    return splice(tree, node, grow(tree.game, codes, rng, pool, root_guess=g))


def best_of_k_mutation(
    tree: Tree,
    rng: np.random.Generator,
    pool: str = "all",
    node_weight: str = "size",
    k: int = 4,
    keep_current: bool = True,
) -> Tree:
    """*Best-of-k regrow*: ``k`` random regrows of a node's subtree; the one with the least
    total replaces it (unless it is worse than the current one, with ``keep_current``)."""
    node = pick_node(tree, rng, node_weight)
    if node is None:
        return tree
    codes = tree.code_set(node)
    best = min((grow(tree.game, codes, rng, pool) for _ in range(k)), key=_total)
    return offer(tree, node, best, keep_current)


def greedy_mutation(
    tree: Tree,
    rng: np.random.Generator,
    pool: str = "all",
    node_weight: str = "size",
    heuristic: str = "kooi",
    tries: int = 2,
    top: int = 6,
    exact_below: int = 0,
    keep_current: bool = True,
    max_codes: int | None = None,
) -> Tree:
    """*Greedy subtree*: a node's subtree is rebuilt by one-step look-ahead with
    ``heuristic``. ``tries`` root guesses are drawn among the ``top`` best by the heuristic
    (the best one always among them), each completed by look-ahead below; the best result
    replaces the subtree (unless it is worse, with ``keep_current``). Code sets of at most
    ``exact_below`` codes are solved exactly. Only nodes of at most ``max_codes`` codes
    are picked, when it is given (a whole Bulls and Cows tree takes minutes to rebuild)."""
    node = pick_node(tree, rng, node_weight, max_codes=max_codes)
    if node is None:
        return tree
    game = tree.game
    codes = tree.code_set(node)
    ranked, _ = partition_scores(game, codes, pool, heuristic)
    top = min(top, len(ranked))
    picks = [0]
    if tries > 1 and top > 1:
        picks += (1 + rng.permutation(top - 1)[: tries - 1]).tolist()
    subs = (
        greedy_subtree(game, codes, pool, heuristic, int(ranked[p]), exact_below) for p in picks
    )
    return offer(tree, node, min(subs, key=_total), keep_current)


def exhaustive_mutation(
    tree: Tree,
    rng: np.random.Generator,
    pool: str = "all",
    node_weight: str = "size",
    max_codes: int = 10,
) -> Tree:
    """*Exhaustive subtree*: a node with at most ``max_codes`` codes gets an optimal subtree
    (exact search): the first optimal one in the search's order, so an optimal subtree
    of another shape may be replaced by this one, of the same total."""
    node = pick_node(tree, rng, node_weight, max_codes=max_codes)
    if node is None:
        return tree
    return offer(tree, node, exact_solver(tree.game, pool).subtree(tree.code_set(node)))


# --------------------------------------------------------------- crossovers
def aligned_node(a: Tree, node: int, b: Tree) -> int:
    """The node of ``b`` reached by ``a``'s guesses and feedbacks down to ``node`` (so with
    the same code set), or -1 when ``b`` guesses differently on the way."""
    path = a.path(node)
    child = b.child_table
    y = 0
    for x, nxt in zip(path, path[1:]):
        if a.guess[x] != b.guess[y]:
            return -1
        y = int(child[y, a.label[nxt]])
    return y


def graft_crossover(
    a: Tree,
    b: Tree,
    rng: np.random.Generator,
    pool: str = "all",
    node_weight: str = "size",
) -> tuple[Tree, Tree]:
    """*Subtree graft*: a node ``x`` of ``a`` is picked; the donor is ``b``'s aligned node
    (same guesses above, so the same code set) when there is one, else a random node of
    ``b``. ``a``'s subtree at ``x`` becomes the donor's subtree replayed on ``x``'s code set
    (unchanged when the sets are equal); the second offspring is the same with the roles
    of the parents exchanged."""
    return _graft(a, b, rng, pool, node_weight), _graft(b, a, rng, pool, node_weight)


def _graft(a: Tree, b: Tree, rng, pool, node_weight) -> Tree:
    x = pick_node(a, rng, node_weight)
    if x is None:
        return a
    y = aligned_node(a, x, b)
    if y >= 0:
        sub = b.subtree(y)
    else:
        y = pick_node(b, rng, node_weight)
        if y is None:
            return a
        sub = replay(a.game, a.code_set(x), Template.of(b, y), rng, pool)
    return offer(a, x, sub)


def divergence_points(a: Tree, b: Tree) -> list[tuple[int, int]]:
    """Pairs ``(x, y)`` of nodes of ``a`` and ``b`` reached by the same guesses and
    feedbacks (so with the same code set) where the two guess differently, in preorder."""
    out = []
    ca, cb = a.child_table, b.child_table
    stack = [(0, 0)]
    while stack:
        x, y = stack.pop()
        if a.guess[x] != b.guess[y]:
            out.append((x, y))
            continue
        kids = np.flatnonzero(ca[x] >= 0)
        stack.extend((int(ca[x, f]), int(cb[y, f])) for f in kids[::-1])
    return out


def exchange_crossover(
    a: Tree, b: Tree, rng: np.random.Generator, bias: float = 0.0
) -> tuple[Tree, Tree]:
    """*Aligned subtree exchange*: at every divergence point (the parents reach a node by
    the same guesses and feedbacks but guess differently there) the two subtrees are
    exchanged with probability ½; with probability ``bias`` the first offspring takes the
    better of the two instead (and the second the worse). Parents that differ in their
    root guess have one divergence point, the root: they are returned unchanged."""
    points = divergence_points(a, b)
    if len(points) <= 1 and (not points or points[0] == (0, 0)):
        return a, b
    ta, tb = a.subtree_totals(), b.subtree_totals()
    u = rng.random((len(points), 2))
    swap = []
    for (x, y), (r_bias, r_swap) in zip(points, u):
        if r_bias < bias:
            swap.append(tb[y] < ta[x])
        else:
            swap.append(r_swap < 0.5)
    child_a, child_b = a, b
    # Right to left, so that the node numbers of earlier points stay valid.
    for (x, y), s in zip(points[::-1], swap[::-1]):
        if s:
            sub_a, sub_b = a.subtree(x), b.subtree(y)
            child_a = splice(child_a, x, sub_b)
            child_b = splice(child_b, y, sub_a)
    return child_a, child_b


#: The operators by the names configs use.
CROSSOVERS: dict[str, Callable] = {"graft": graft_crossover, "exchange": exchange_crossover}
MUTATIONS: dict[str, Callable] = {
    "regrow": regrow_mutation,
    "best-of-k": best_of_k_mutation,
    "greedy": greedy_mutation,
    "exhaustive": exhaustive_mutation,
}
