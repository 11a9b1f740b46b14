"""One-step look-ahead: score the partition of a code set by every candidate guess and
keep the best; ties go to a consistent guess, then to the lowest code.

* ``knuth``: the smallest largest part (Knuth 1977);
* ``irving``: the smallest expected part size, ``sum n_f^2 / |S|`` (Irving 1979);
* ``kooi``: the most parts (Kooi 2005);
* ``entropy``: the most information, ``-sum p_f log p_f`` (Neuwirth 1982).

Parts are counted over every feedback, the win included (a consistent guess has a win
part of one code). With a history (a :class:`~evo.search.build.Node`), candidates are
first reduced to one per orbit of the symmetries that fix it; the lowest code of the
best orbit is the one the tie rule would pick anyway, so the choice is the same.
"""

import os
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from evo.core.engine import Engine, compiled, numba_threads, threads
from evo.core.game import Game, helpful_counts
from evo.core.kinds import HEURISTICS, Pool
from evo.core.tree import Tree
from evo.search.build import Node, Player, SubtreeArrays, Subtrees, build_tree
from evo.search.palette import Palette as Palette  # numba caches of older evo name it here
from evo.search.palette import palette, played_colors
from evo.search.partition import candidates, partition_counts, perfect_consistent


def score(name: str, counts: np.ndarray) -> np.ndarray:
    """Score of each candidate's part sizes; lower is better (ties are exact)."""
    if name == "knuth":
        return counts.max(axis=1)
    if name == "irving":
        return (counts * counts).sum(axis=1)
    if name == "kooi":
        return -np.count_nonzero(counts, axis=1)
    if name == "entropy":
        # Maximal entropy = minimal sum of n log n. Summed over sorted rows, so that
        # equal multisets of part sizes give bit-identical floats, then rounded.
        c = np.sort(counts, axis=1).astype(np.float64)
        nlogn = np.where(c > 0, c * np.log(np.maximum(c, 1)), 0.0)
        return np.round(nlogn.sum(axis=1), 9)
    raise ValueError(f"heuristic must be one of {', '.join(HEURISTICS)}, not {name!r}")


def ranked_guesses(
    game: Game,
    codes: np.ndarray,
    *,
    heuristic: str,
    pool: Pool = "all",
    node: Node | None = None,
    history: tuple[int, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The helpful candidate guesses for ``codes``, best first by ``heuristic``, then a
    consistent guess first, then the lowest code; and their scores. With ``node``, one
    candidate per symmetry orbit of its history. In a game with a rule, only the guesses
    legal after ``history`` (by default the node's)."""
    if history is None and node is not None:
        history = node.history
    cand = candidates(game, codes, pool=pool, history=history)
    if node is not None and not node.stabilizer.trivial:
        cand = node.stabilizer.representatives(None if pool == "all" else cand)
    sizes = partition_counts(game, codes, None if len(cand) == game.num_guesses else cand)
    useful = helpful_counts(sizes, game.win)
    consistent = sizes[:, game.win] > 0
    value = score(heuristic, sizes)
    cand, value, consistent = cand[useful], value[useful], consistent[useful]
    order = np.lexsort((cand, ~consistent, value))
    return cand[order], value[order]


def lookahead_player(
    game: Game,
    heuristic: str,
    *,
    pool: Pool = "all",
    symmetry: bool = True,
    engine: Engine | None = None,
) -> Player:
    """The player that plays the best guess by ``heuristic`` at every node; two codes or
    fewer: the lower one. ``symmetry``: candidates reduced by the node's history (same
    choice, fewer candidates; off for a subtree whose history is unknown). ``engine``:
    see :mod:`evo.core.engine` (the same choices either way)."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {', '.join(HEURISTICS)}, not {heuristic!r}")
    use_kernel = compiled(game, engine)

    def choose(codes: np.ndarray, node: Node) -> int:
        if len(codes) <= 2:
            return int(min(codes))
        if use_kernel:
            return _compiled_choice(
                game, codes, heuristic, pool, node if symmetry else None, node.history
            )
        quick = perfect_consistent(game, codes)
        if quick is not None:
            return quick
        found, _ = ranked_guesses(
            game,
            codes,
            heuristic=heuristic,
            pool=pool,
            node=node if symmetry else None,
            history=node.history,
        )
        return int(found[0])

    return choose


def most_parts(game: Game) -> int:
    """The most parts a guess can split a code set into, the win included: the compiled
    scan stops once a guess reaches the best score that many parts allow. Every feedback
    but one in Mastermind and Bulls and Cows (N - 1 black and 1 white never happens);
    every one elsewhere (black-peg Mastermind's and a custom game's all can)."""
    if game.kind in ("mastermind", "bulls-cows"):
        return game.num_feedbacks - 1
    return game.num_feedbacks


@lru_cache(maxsize=8)
def _nlogn(size: int) -> np.ndarray:
    """``c log c`` for ``c = 0 .. size``, computed as :func:`score` computes it."""
    c = np.arange(size + 1, dtype=np.float64)
    return np.where(c > 0, c * np.log(np.maximum(c, 1)), 0.0)


#: From this many (code, candidate) pairs a node's candidates are scored on several threads
#: (the same guess): below, starting the threads costs more than they save.
THREADED_WORK = 1 << 16


def _threaded_work() -> int:
    """:data:`THREADED_WORK` when more than one thread is given (numba told how many),
    else more work than any node has."""
    return THREADED_WORK if numba_threads() > 1 else np.iinfo(np.int64).max


def _compiled_choice(
    game: Game,
    codes: np.ndarray,
    heuristic: str,
    pool: Pool,
    node: Node | None,
    history: tuple[int, ...] = (),
) -> int:
    """The first guess of :func:`ranked_guesses` (after :func:`perfect_consistent`), by
    the compiled kernel; candidates reduced by the symmetries of ``node`` (None: not),
    legal after ``history`` in a game with a rule."""
    from evo.search.lookahead_kernel import best_guess, perfect_guess

    src = game.feedback_source
    codes = np.asarray(codes, dtype=np.int64)
    if len(codes) <= game.num_feedbacks:
        quick = int(perfect_guess(src, codes, game.win))
        if quick >= 0:
            return quick
    cand = candidates(game, codes, pool=pool, history=history)
    if node is not None and not node.stabilizer.trivial:
        cand = np.sort(node.stabilizer.representatives(None if pool == "all" else cand))
    kernel = best_guess
    if len(codes) * len(cand) >= _threaded_work():
        from evo.search.lookahead_kernel import best_guess_threads as kernel
    found = kernel(
        src,
        codes,
        cand,
        HEURISTICS.index(heuristic),
        game.num_feedbacks,
        _nlogn(game.num_codes),
        palette(game, None if node is None else node.history),
        most_parts(game),
    )
    if found < 0:
        raise ValueError(f"no guess helps on a set of {len(codes)} codes")
    return int(found)


#: Thread-seconds per ``M^2`` of a one-step tree built by the compiled kernels without the
#: table, by heuristic and pool, measured on this project's machine (a 2-core Xeon, 2026)
#: on (5,8) on one thread, times 1.4 to match Kooi's 86 s on (6,8) on two: every level
#: of the tree scores about every code against every candidate, and the levels are few,
#: so the cost grows about as ``M^2`` (a little faster: bigger games have deeper trees).
THREAD_SECONDS_PER_M2: dict[tuple[str, str], float] = {
    ("knuth", "all"): 4.0e-9,
    ("irving", "all"): 6.2e-9,
    ("kooi", "all"): 2.4e-9,
    ("entropy", "all"): 9.0e-9,
    ("knuth", "consistent"): 2.8e-10,
    ("irving", "consistent"): 2.9e-10,
    ("kooi", "consistent"): 2.4e-10,
    ("entropy", "consistent"): 3.1e-10,
}


def estimate_seconds(game: Game, heuristic: str, *, pool: Pool = "all") -> float:
    """About how long :func:`lookahead_tree` takes on ``game`` (compiled, on
    :func:`~evo.core.engine.threads` threads): :data:`THREAD_SECONDS_PER_M2` scaled by the
    game's codes, shown before a long build; a machine of other speed scales it."""
    per = THREAD_SECONDS_PER_M2[(heuristic, pool)]
    used = min(threads(), os.cpu_count() or 1)
    return per * game.num_codes**2 / (0.93 * used if used > 1 else 1.0)


#: Games of at most this many codes build their one-step trees in one compiled call; larger
#: ones node by node, where candidates reduced by symmetry at every node save more than
#: the calls cost (measured on (4,8), (5,6) and (5,8)).
WHOLE_TREE_CODES = 5000


def lookahead_tree(
    game: Game,
    heuristic: str,
    *,
    pool: Pool = "all",
    engine: Engine | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Tree:
    """The breaker that :func:`lookahead_player` plays, over every code: built node by node
    by the player, or in one compiled call for a game of at most :data:`WHOLE_TREE_CODES`
    codes when the compiled engine serves it (the same tree). ``progress``: see
    :func:`~evo.search.build.build_tree` (node by node only; the one call is short)."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {', '.join(HEURISTICS)}, not {heuristic!r}")
    use_kernel = compiled(game, engine)
    whole = game.rule is None  # a rule's legal guesses are chosen node by node
    if use_kernel and whole and game.num_codes <= WHOLE_TREE_CODES:
        codes = game.all_codes().astype(np.int64)
        return Tree(game, *_compiled_tree(game, codes, Node(game), heuristic, pool))
    player = lookahead_player(game, heuristic, pool=pool, engine=engine)
    below = None
    if use_kernel and whole:
        below = Subtrees(SUBTREE_CODES, _compiled_subtrees(game, heuristic, pool))
    return build_tree(game, player, progress=progress, subtrees=below)


#: In a game built node by node, code sets of at most this many codes get their whole
#: subtrees from compiled calls, many sets side by side (the same subtrees).
SUBTREE_CODES = 64


def _compiled_subtrees(
    game: Game, heuristic: str, pool: Pool
) -> Callable[[list[np.ndarray], list[Node]], list[SubtreeArrays]]:
    """The compiled whole subtrees of small code sets, for :func:`build_tree`: their
    candidates are reduced by the colors not played above them (the same choices)."""
    from evo.search.lookahead_kernel import lookahead_forest

    def build(sets: list[np.ndarray], nodes: list[Node]) -> list[SubtreeArrays]:
        sizes = np.array([len(s) for s in sets], dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)))
        played = np.array([played_colors(game, n.history) for n in nodes], dtype=np.uint32)
        numba_threads()
        guess, label, parent, count = lookahead_forest(
            game.feedback_source,
            game.num_codes,
            np.concatenate(sets).astype(np.int64),
            starts,
            played,
            HEURISTICS.index(heuristic),
            pool == "consistent",
            game.win,
            game.num_feedbacks,
            _nlogn(game.num_codes),
            palette(game),
            most_parts(game),
        )
        at = 2 * starts[:-1] + 2 * np.arange(len(sets))  # each set's room: 2 n + 2 nodes
        return [
            (guess[a : a + k], label[a : a + k], parent[a : a + k])
            for a, k in zip(at.tolist(), count.tolist())
        ]

    return build


def _compiled_tree(game: Game, codes: np.ndarray, node: Node, heuristic: str, pool: Pool):
    """The compiled kernel's preorder arrays of the one-step tree on ``codes`` (ascending)
    below ``node``, whose candidates are reduced by its symmetries."""
    from evo.search.lookahead_kernel import lookahead_tree as compiled_tree

    cand = candidates(game, codes, pool=pool)
    if not node.stabilizer.trivial:
        cand = np.sort(node.stabilizer.representatives(None if pool == "all" else cand))
    return compiled_tree(
        game.feedback_source,
        np.arange(game.num_guesses, dtype=np.int64),
        codes,
        cand,
        HEURISTICS.index(heuristic),
        pool == "consistent",
        game.win,
        game.num_feedbacks,
        _nlogn(game.num_codes),
        palette(game, node.history, symmetries=True),
        _threaded_work(),
        most_parts(game),
    )
