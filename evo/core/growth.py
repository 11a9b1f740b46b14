"""Building breaker trees: random path completion, replay onto a template, exact build.

All three share one engine that builds a tree level by level, splitting every node's
code set with one vectorised feedback lookup per level.

Random path completion (docs/DESIGN.md §3) grows code by code, then shrinks and
triangle-optimizes. The engine draws the same trees directly:

* A guess drawn at a node either *helps* (it is in the code set ``S``, or it splits
  ``S`` into two or more parts) or it does not; a guess that does not help makes a
  unary non-terminal node, which *shrink* removes. So after shrinking, the node's
  guess is the first helpful draw: uniform over the helpful codes of the pool. Guesses
  already on the path never help (every code of ``S`` answered them alike), so "not
  yet used on this path" needs no bookkeeping.
* A one-code set always ends, after shrinking, as a leaf guessing that code.
* *Triangle optimization* applies exactly to two-code nodes whose guess is outside the
  set; the node takes the guess of one of its two leaves, chosen at random. So a
  two-code node ends as a uniform pick of its two codes, with the other as its leaf,
  and is settled as soon as it is created.

``tests/reference_growth.py`` implements the code-by-code procedure literally, and the
tests check that both give the same fitness distribution.

A game with a rule on guesses (:class:`~evo.core.game.GuessRule`, Wordle's hard mode)
is grown node by node in Python (:func:`_grow_by_rule`), the same draws restricted to
the guesses legal at each node, which its history decides; every tree of such a game is
checked legal (:func:`build_exact`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from evo.core.engine import compiled
from evo.core.game import Game, helpful_rows, legal_in, rule_state
from evo.core.kinds import POOLS, Pool
from evo.core.tree import InvalidTreeError, Tree

#: Rounds of batched rejection sampling before a node's helpful guesses are listed exactly,
#: the candidates drawn at once per node in later rounds, and in the first.
_REJECTION_ROUNDS = 3
_BATCH = 16
_FIRST_WIDTH = 4
_LARGE_SET = 16  # sets this large: a random guess almost surely helps
_SAMPLING = (_REJECTION_ROUNDS, _BATCH, _FIRST_WIDTH, _LARGE_SET)


@dataclass(frozen=True)
class Template:
    """Guesses to follow while building: ``guess[t]`` and ``child[t, f]`` (-1: none).

    Building "onto a template" plays the codes through it, keeps the guesses that still
    help, drops branches no code reaches, and grows the branches it lacks.

    >>> import evo, numpy as np
    >>> from evo.ops import Template, replay
    >>> game = evo.make_game(3, 3)
    >>> knuth = evo.baseline(game, "knuth")
    >>> template = Template.of(knuth)  # its guesses, to follow
    >>> len(template.guess), template.root
    (27, 0)
    >>> replay(game, game.all_codes(), template, rng=np.random.default_rng(0)).total
    74
    """

    guess: np.ndarray
    child: np.ndarray
    root: int = 0

    @staticmethod
    def of(tree: Tree, node: int = 0) -> Template:
        """The subtree of ``tree`` under ``node`` as a template.

        >>> import evo, numpy as np
        >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> codes = knuth.code_set(7)  # the codes of another node, under another guess
        >>> rng = np.random.default_rng(0)
        >>> sub = evo.ops.replay(knuth.game, codes, Template.of(knuth, 1), rng=rng)
        >>> knuth.game.format_code(sub.guess[0]), sub.total  # node 1's guess first
        ('113', 17)
        """
        return Template(tree.guess, tree.child_table, int(node))

    @staticmethod
    def single(guess: int, num_feedbacks: int) -> Template:
        """A one-node template: a root guess to try first, everything below grown.

        >>> import evo, numpy as np
        >>> game = evo.make_game(3, 3)
        >>> first = Template.single(game.parse_code("123"), game.num_feedbacks)
        >>> tree = evo.ops.replay(game, game.all_codes(), first, rng=np.random.default_rng(0))
        >>> game.format_code(tree.guess[0]), tree.is_valid()
        ('123', True)
        """
        return Template(
            np.array([guess], dtype=np.int32), np.full((1, num_feedbacks), -1, dtype=np.int32)
        )


def grow(
    game: Game,
    codes: np.ndarray,
    *,
    rng: np.random.Generator,
    pool: Pool = "all",
    root_guess: int | None = None,
    history: Sequence[int] = (),
) -> Tree:
    """A random breaker subtree for the code set ``codes`` (``grow(S, used, rng)`` of
    docs/DESIGN.md §3).

    No ``used`` argument: a guess used above a node never helps on its code set (every code
    of it answered that guess alike), so it is never drawn.

    ``root_guess``, when given and helpful, is the root's guess (mutation uses it).
    ``history``: the guesses above the subtree, which decide the legal guesses of a game
    with a rule (``tree.used_guesses(node)``; unused by the others).

    >>> import evo, numpy as np
    >>> game = evo.make_game(3, 3)
    >>> codes = game.parse_codes(["113", "111", "122", "212", "132", "312"])
    >>> sub = grow(game, codes, rng=np.random.default_rng(1))
    >>> sub.num_codes, sub.total, sorted(game.format_codes(sub.code_set(0)))
    (6, 15, ['111', '113', '122', '132', '212', '312'])
    >>> game.format_code(grow(game, codes, rng=np.random.default_rng(1), root_guess=0).guess[0])
    '111'
    """
    template = None if root_guess is None else Template.single(root_guess, game.num_feedbacks)
    if game.rule is not None:
        return _grow_by_rule(game, codes, rng, pool, template, history)
    return _build(game, np.asarray(codes, dtype=np.int32), rng, pool, template, strict=False)


def random_breaker(game: Game, *, rng: np.random.Generator, pool: Pool = "all") -> Tree:
    """A random breaker for the whole game: random path completion, shrink, triangles."""
    return grow(game, game.all_codes(), rng=rng, pool=pool)


def replay(
    game: Game,
    codes: np.ndarray,
    template: Template,
    *,
    rng: np.random.Generator,
    pool: Pool = "all",
    history: Sequence[int] = (),
) -> Tree:
    """The template played on another code set: guesses that no longer help are skipped,
    branches no code reaches are dropped, missing branches are grown (crossover repair).
    ``history``: as for :func:`grow` (a template guess not legal there is skipped too).

    >>> import evo, numpy as np
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> codes = knuth.code_set(7)  # node 7's codes, played through node 1's subtree
    >>> sub = replay(knuth.game, codes, Template.of(knuth, 1), rng=np.random.default_rng(0))
    >>> sub.num_codes, sub.total, int(knuth.subtree_totals()[7])  # Knuth's own: 11
    (6, 17, 11)
    """
    if game.rule is not None:
        return _grow_by_rule(game, codes, rng, pool, template, history)
    return _build(game, np.asarray(codes, dtype=np.int32), rng, pool, template, strict=False)


def build_exact(
    game: Game,
    template: Template,
    *,
    codes: np.ndarray | None = None,
    history: Sequence[int] = (),
) -> Tree:
    """The tree that is exactly the template (no growth, no shrinking), checked on every
    code: raises :class:`InvalidTreeError` when a code has no path or a node is reached by
    no code. Used to load files and to turn hand-built strategies into trees. In a game
    with a rule, a guess not legal at its node is refused too (``history``: the guesses
    above ``codes``).

    >>> import evo, numpy as np
    >>> game = evo.make_game(2, 2)  # codes 11, 12, 21, 22: guess 11, then 12 or 22
    >>> guess = game.parse_codes(["11", "12", "21", "22"])
    >>> child = np.full((4, game.num_feedbacks), -1, dtype=np.int32)
    >>> child[0, game.parse_feedback("1B 0W")] = 1  # 12 and 21 answer 1B 0W to 11
    >>> child[1, game.parse_feedback("0B 2W")] = 2  # 21 answers 0B 2W to 12
    >>> child[0, game.parse_feedback("0B 0W")] = 3
    >>> build_exact(game, Template(guess, child)).total  # 1 + 2 + 3 + 2
    8
    """
    if codes is None:
        codes = game.all_codes()
    tree = _build(game, np.asarray(codes, dtype=np.int32), None, "all", template, strict=True)
    reached = len(tree)
    given = _template_size(template)
    if reached != given:
        raise InvalidTreeError(
            f"{given - reached} node(s) of the strategy are reached by no code "
            f"(a branch whose feedback cannot happen there)"
        )
    _check_no_repeats(tree)
    if game.rule is not None:
        tree.check_legal(history)
    return tree


def _grow_by_rule(
    game: Game,
    codes: np.ndarray,
    rng: np.random.Generator,
    pool: Pool,
    template: Template | None,
    history: Sequence[int],
) -> Tree:
    """:func:`grow` and :func:`replay` in a game with a rule on guesses, node by node: a
    one-code set guesses its code, a two-code set one of its two at random (a template
    guess among them kept), a larger one the template's guess where it is legal and
    helps (one that is legal but tells nothing is passed, following its only branch),
    else a uniform draw among the legal guesses of the pool that help."""
    rule = game.rule
    assert rule is not None
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}, not {pool!r}")
    codes = np.sort(np.asarray(codes, dtype=np.int64))
    guesses: list[int] = []
    links: list[tuple[int, int, int]] = []
    t_root = -1 if template is None else int(template.root)
    start = rule_state(game, history, int(codes[0]))
    stack: list[tuple[np.ndarray, Hashable, int, int, int]] = [(codes, start, t_root, -1, -1)]
    while stack:
        s, state, t, parent, fb = stack.pop()
        while template is not None and t >= 0 and len(s) > 2:
            answers = game.feedback_row(int(template.guess[t]), s)
            if not (answers == answers[0]).all() or answers[0] == game.win:
                break
            t = int(template.child[t, int(answers[0])])  # it tells nothing: its branch
        g = _rule_guess(game, s, state, t, template, rng, pool)
        me = len(guesses)
        guesses.append(g)
        if parent >= 0:
            links.append((parent, fb, me))
        answers = game.feedback_row(g, s)
        for f in sorted(set(answers.tolist()) - {game.win}, reverse=True):
            part = s[answers == f]
            below = -1
            if template is not None and t >= 0 and int(template.guess[t]) == g:
                below = int(template.child[t, f])
            stack.append((part, rule.after(state, g, f), below, me, f))
    child = np.full((len(guesses), game.num_feedbacks), -1, dtype=np.int32)
    for parent, f, me in links:
        child[parent, f] = me
    built = Template(np.array(guesses, dtype=np.int32), child)
    return build_exact(game, built, codes=codes, history=history)


def _rule_guess(
    game: Game,
    s: np.ndarray,
    state: Hashable,
    t: int,
    template: Template | None,
    rng: np.random.Generator,
    pool: Pool,
) -> int:
    """The guess of :func:`_grow_by_rule` at a node of code set ``s`` in ``state``."""
    wanted = -1 if template is None or t < 0 else int(template.guess[t])
    if len(s) == 1:
        return int(s[0])
    if len(s) == 2:
        return wanted if wanted in s else int(s[rng.integers(2)])
    legal = legal_in(game, state)
    if wanted >= 0 and wanted in legal and game.helps(wanted, s):
        return wanted
    cand = s if pool == "consistent" else legal
    fb = game.feedback(cand[:, None], s[None, :])
    good = cand[helpful_rows(fb, game.win)]
    return int(good[rng.integers(len(good))])


def _template_size(template: Template) -> int:
    """Nodes reachable from the template's root (level by level)."""
    seen, level = 0, np.array([template.root], dtype=np.int64)
    while len(level):
        seen += len(level)
        kids = template.child[level].ravel()
        level = kids[kids >= 0]
    return seen


def _check_no_repeats(tree: Tree) -> None:
    """Raise when a guess repeats on a path (the feedback would tell nothing new)."""
    guess, parent = tree.guess, tree.parent.astype(np.int64)
    above = parent.copy()
    while True:
        live = np.flatnonzero(above >= 0)
        if not len(live):
            return
        same = live[guess[live] == guess[above[live]]]
        if len(same):
            node = int(same.min())
            raise InvalidTreeError(
                f"guess {tree.game.format_code(int(guess[node]))} repeats on a path (node {node})"
            )
        above[live] = parent[above[live]]


# --------------------------------------------------------------------- engine
#: Growth runs compiled (evo.core.growth_kernel) when :func:`evo.core.engine.compiled` says
#: so, even on small games (a population repays numba's load); the NumPy engine below draws
#: the same trees and serves exact builds. Without a table the kernel computes feedbacks from
#: packed codes (the same draws).


def _build_compiled(
    game: Game,
    codes: np.ndarray,
    rng: np.random.Generator,
    pool: Pool,
    template: Template | None,
) -> Tree:
    from evo.core.growth_kernel import grow_tree  # numba loads only when a tree is grown

    nfb = game.num_feedbacks
    # Writeable C-ordered arrays: a read-only one (a tree's, a file's) would be a kind of
    # its own to numba, compiled again.
    codes = np.require(codes, dtype=np.int32, requirements=["C", "W"])
    if template is None:
        t_guess = np.empty(0, dtype=np.int32)
        t_child = np.empty((0, nfb), dtype=np.int32)
        root = -1
    else:
        t_guess = np.array(template.guess, dtype=np.int32)
        t_child = np.array(template.child, dtype=np.int32)
        root = int(template.root)
    arrays = grow_tree(
        game.feedback_source,
        game.num_guesses,
        codes,
        game.win,
        nfb,
        pool == "consistent",
        t_guess,
        t_child,
        root,
        rng,
        _SAMPLING,
    )
    return Tree(game, *arrays)


def _segments(starts: np.ndarray, counts: np.ndarray):
    """Gather contiguous ranges ``[starts[s], starts[s] + counts[s])`` into one array:
    the segment of each element, where each segment begins in it, and its positions."""
    seg = np.repeat(np.arange(len(counts)), counts)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pos = np.arange(len(seg)) + np.repeat(starts - first, counts)
    return seg, first, pos


class _Records:
    """The nodes of a tree being built, by creation id (breadth-first), a level at a time:
    each node's feedback label, parent, depth and code range when it is made, and its
    guess and whether it ends (a leaf) when that is chosen."""

    def __init__(self, codes: int):
        self.label: list[np.ndarray | list[int]] = [[-1]]
        self.parent: list[np.ndarray | list[int]] = [[-1]]
        self.depth: list[np.ndarray | list[int]] = [[1]]
        self.start: list[np.ndarray | list[int]] = [[0]]
        self.count: list[np.ndarray | list[int]] = [[codes]]
        self.ids: list[np.ndarray] = []
        self.guess: list[np.ndarray] = []
        self.term: list[np.ndarray] = []
        self.next_id = 1  # the root is node 0

    def new_ids(self, k: int) -> np.ndarray:
        """Ids for ``k`` new nodes."""
        ids = np.arange(self.next_id, self.next_id + k, dtype=np.int64)
        self.next_id += k
        return ids

    def made(
        self,
        labels: np.ndarray,
        parents: np.ndarray,
        depth: int,
        starts: np.ndarray,
        counts: np.ndarray,
    ) -> None:
        """New nodes (in id order): their feedbacks, parents, depth and code ranges."""
        self.label.append(labels)
        self.parent.append(parents)
        self.depth.append(np.full(len(labels), depth))
        self.start.append(starts)
        self.count.append(counts)

    def guessed(self, ids: np.ndarray, guesses: np.ndarray, terminal: np.ndarray) -> None:
        """Nodes' guesses, and which of them are leaves."""
        self.ids.append(ids)
        self.guess.append(guesses)
        self.term.append(terminal)

    def tree(self, game: Game, order: np.ndarray) -> Tree:
        """The tree, its nodes in preorder: by the start of the code range, ancestors
        (shallower) first."""
        n = self.next_id
        label = np.concatenate(self.label).astype(np.int32)
        parent = np.concatenate(self.parent).astype(np.int64)
        depths = np.concatenate(self.depth).astype(np.int32)
        start = np.concatenate(self.start).astype(np.int32)
        count = np.concatenate(self.count).astype(np.int32)
        guess = np.empty(n, dtype=np.int32)
        term = np.empty(n, dtype=bool)
        ids = np.concatenate(self.ids)
        guess[ids] = np.concatenate(self.guess)
        term[ids] = np.concatenate(self.term)
        pre = np.lexsort((depths, start))
        rank = np.empty(n, dtype=np.int64)
        rank[pre] = np.arange(n)
        par = parent[pre]
        par = np.where(par >= 0, rank[np.maximum(par, 0)], -1).astype(np.int32)
        return Tree(
            game, guess[pre], label[pre], par, depths[pre], term[pre], start[pre], count[pre], order
        )


def _build(
    game: Game,
    codes: np.ndarray,
    rng: np.random.Generator | None,
    pool: Pool,
    template: Template | None,
    strict: bool,
) -> Tree:
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}, not {pool!r}")
    if len(codes) == 0:
        raise InvalidTreeError("cannot build a tree for an empty code set")
    if not strict and rng is not None and compiled(game, small=False):
        return _build_compiled(game, codes, rng, pool, template)
    if strict and template is None:
        raise ValueError("an exact build needs a template")
    if not strict and rng is None:
        raise ValueError("growing a tree needs a random generator")
    order = codes.copy()
    nodes = _Records(len(codes))
    # The frontier: nodes whose guess is still to be chosen, a level at a time.
    f_id = np.array([0], dtype=np.int64)
    f_start = np.array([0], dtype=np.int64)
    f_count = np.array([len(codes)], dtype=np.int64)
    f_tmpl = np.array([template.root if template is not None else -1], dtype=np.int64)
    depth = 1  # every frontier node of a level has the same depth
    while len(f_id):
        seg, first, pos = _segments(f_start, f_count)
        cur = order[pos]
        if strict:
            assert template is not None
            guesses = template.guess[f_tmpl].astype(np.int64)
            fb = game.feedback(guesses[seg], cur)
        else:
            assert rng is not None
            guesses, fb, f_tmpl = _choose_guesses(
                game, cur, seg, first, f_count, f_tmpl, template, rng, pool
            )
        # The level's codes grouped by (node, feedback): runs of them are the children.
        fb = fb.astype(np.int64)
        key = seg * game.num_feedbacks + fb
        perm = np.argsort(key, kind="stable")
        order[pos] = cur[perm]
        skey, sfb = key[perm], fb[perm]
        nodes.guessed(f_id, guesses, sfb[first] == game.win)
        c_seg, c_fb, c_first, c_len = _runs(seg[perm], sfb, skey, game.win)
        c_start = pos[c_first]
        c_ids = nodes.new_ids(len(c_first))
        c_tmpl = _child_templates(template, f_tmpl, c_seg, c_fb)
        if strict and np.any(c_tmpl < 0):
            raise _no_path(game, order, guesses, c_seg, c_fb, c_start, c_tmpl)
        nodes.made(c_fb, f_id[c_seg], depth + 1, c_start, c_len)
        if strict:
            go = np.ones(len(c_len), dtype=bool)
        else:
            assert rng is not None
            go = _settle_small(
                game, nodes, order, c_ids, c_start, c_len, c_tmpl, template, depth, rng=rng
            )
        f_id, f_start, f_count, f_tmpl = c_ids[go], c_start[go], c_len[go], c_tmpl[go]
        depth += 1
    return nodes.tree(game, order)


def _runs(
    seg: np.ndarray, sfb: np.ndarray, skey: np.ndarray, win: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The children of a level, from its codes sorted by (node, feedback) key: the runs
    of equal keys other than the win, as their node (segment), feedback, first position
    and length."""
    run_first = np.flatnonzero(np.concatenate(([True], skey[1:] != skey[:-1])))
    run_len = np.diff(np.concatenate((run_first, [len(skey)])))
    keep = sfb[run_first] != win
    run_first, run_len = run_first[keep], run_len[keep]
    return seg[run_first], sfb[run_first], run_first, run_len


def _child_templates(
    template: Template | None, f_tmpl: np.ndarray, c_seg: np.ndarray, c_fb: np.ndarray
) -> np.ndarray:
    """The template node of each child (-1: none), from its parent's and its feedback."""
    c_tmpl = np.full(len(c_seg), -1, dtype=np.int64)
    if template is not None:
        parent_t = f_tmpl[c_seg]
        has = parent_t >= 0
        c_tmpl[has] = template.child[parent_t[has], c_fb[has]]
    return c_tmpl


def _no_path(
    game: Game,
    order: np.ndarray,
    guesses: np.ndarray,
    c_seg: np.ndarray,
    c_fb: np.ndarray,
    c_start: np.ndarray,
    c_tmpl: np.ndarray,
) -> InvalidTreeError:
    """The error of an exact build whose template has no branch for a child's codes."""
    bad = int(np.flatnonzero(c_tmpl < 0)[0])
    code = int(order[c_start[bad]])
    bad_guess = int(guesses[c_seg[bad]])
    return InvalidTreeError(
        f"code {game.format_code(code)} has no path: "
        f"after guess {game.format_code(bad_guess)} "
        f"there is no branch for feedback {game.format_feedback(int(c_fb[bad]))}"
    )


def _settle_small(
    game: Game,
    nodes: _Records,
    order: np.ndarray,
    c_ids: np.ndarray,
    c_start: np.ndarray,
    c_len: np.ndarray,
    c_tmpl: np.ndarray,
    template: Template | None,
    depth: int,
    *,
    rng: np.random.Generator,
) -> np.ndarray:
    """End the children of one or two codes (docs/DESIGN.md §3, shrink): one code as a
    leaf guessing it, two as one of them with the other as its leaf; which children go
    on (more codes)."""
    single = c_len == 1
    nodes.guessed(
        c_ids[single], order[c_start[single]].astype(np.int64), np.ones(int(single.sum()), bool)
    )
    pair = np.flatnonzero(c_len == 2)
    if len(pair):
        leaf_ids = nodes.new_ids(len(pair))
        tmpl_guess = None
        if template is not None:
            t = c_tmpl[pair]
            tmpl_guess = np.where(t >= 0, template.guess[np.maximum(t, 0)], -1)
        g, other = _settle_pairs(game, order, c_start[pair], tmpl_guess, rng)
        ends = np.ones(len(pair), dtype=bool)
        nodes.guessed(c_ids[pair], g, ends)
        nodes.guessed(leaf_ids, other, ends)
        nodes.made(
            game.feedback(g, other).astype(np.int64),
            c_ids[pair],
            depth + 2,
            c_start[pair] + 1,
            np.ones(len(pair), dtype=np.int64),
        )
    return c_len > 2


def _choose_guesses(
    game: Game,
    cur: np.ndarray,
    seg: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    tmpl: np.ndarray,
    template: Template | None,
    rng: np.random.Generator,
    pool: Pool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A helpful guess for every frontier node, and the feedback of every code against it.

    The template's guess where it helps (walking down the template past guesses that do
    not), else a uniform draw from the helpful codes of the pool; then the triangle rule
    on a two-code root.
    """
    k = len(count)
    m = game.num_guesses
    tmpl = tmpl.copy()
    # First round: a few candidates per node, the first helpful one wins; nearly all
    # nodes are settled here (a consistent candidate always helps).
    rand = tmpl < 0
    if pool == "consistent":
        cand = cur[first + rng.integers(0, count)][:, None]
    else:
        width = 1 if count.min() >= _LARGE_SET else _FIRST_WIDTH
        cand = _uniform_codes(rng, m, (k, width))
    if template is not None and not rand.all():
        cand[~rand] = template.guess[tmpl[~rand]][:, None]
    fb_all = game.feedback(cand[seg], cur[:, None])
    helpful = _helpful(fb_all, seg, first, game.win)
    if pool == "consistent" and not rand.all():
        _leave_template_outside_pool(fb_all, first, game.win, helpful, tmpl)
    pick = helpful.argmax(axis=1)
    guesses = cand[np.arange(k), pick]
    fb = fb_all[np.arange(len(cur)), pick[seg]]
    pending = np.flatnonzero(~helpful.any(axis=1))
    if len(pending):
        _skip_template(tmpl, pending, template, fb[first[pending]])
        _retry(game, cur, first, count, tmpl, template, rng, pool, guesses, pending)
        redo = np.isin(seg, pending)
        fb[redo] = game.feedback(guesses[seg[redo]], cur[redo])

    # Triangle optimization (only a two-code root gets here; other pairs are settled
    # when created): a guess outside the set becomes one of the two codes, at random.
    if k == 1 and count[0] == 2 and fb[0] != game.win and fb[1] != game.win:
        guesses[0] = cur[rng.integers(0, 2)]
        fb = game.feedback(guesses[seg], cur)
    return guesses, fb, tmpl


def _uniform_codes(rng: np.random.Generator, m: int, shape: tuple[int, int]) -> np.ndarray:
    """Uniform codes ``0 .. m-1`` (``Generator.random`` is much cheaper per call than
    ``Generator.integers`` on the small arrays of deep levels)."""
    return (rng.random(shape) * m).astype(np.int64)


def _helpful(fb: np.ndarray, seg: np.ndarray, first: np.ndarray, win: int) -> np.ndarray:
    """:func:`evo.core.game.helpful_rows` per segment, for a level of many nodes at once: rows
    ``seg == s`` of ``fb`` (codes, starting at ``first[s]``) against candidate columns."""
    lead = fb[first]
    differs = np.logical_or.reduceat(fb != lead[seg], first, axis=0)
    return differs | (lead == win)


def _leave_template_outside_pool(fb, first, win, helpful, tmpl) -> None:
    """Consistent pool: a template guess that splits the set but is not in it is not in the
    pool; the template ends there and the node is grown (its row marked unsettled)."""
    in_set = np.logical_or.reduceat(fb[:, 0] == win, first)
    outside = (tmpl >= 0) & helpful[:, 0] & ~in_set
    helpful[outside] = False
    tmpl[outside] = -1


def _skip_template(tmpl, rows, template, constant_fb) -> None:
    """A template guess that does not help is skipped: follow its only live branch."""
    if template is None:
        return
    t = tmpl[rows]
    has = t >= 0
    tmpl[rows[has]] = template.child[t[has], constant_fb[has]]


def _retry(game, cur, first, count, tmpl, template, rng, pool, guesses, pending) -> None:
    """Settle the nodes whose first candidate did not help, in batches of candidates."""
    m = game.num_guesses
    rounds = 0
    while len(pending):
        t = tmpl[pending]
        from_t = t >= 0
        cand = np.empty((len(pending), _BATCH), dtype=np.int64)
        if from_t.any():
            cand[from_t] = template.guess[t[from_t]][:, None]
        rand = np.flatnonzero(~from_t)
        if len(rand):
            rp = pending[rand]
            if pool == "consistent":
                cand[rand] = cur[
                    first[rp, None] + rng.integers(0, count[rp, None], (len(rp), _BATCH))
                ]
            elif rounds < _REJECTION_ROUNDS:
                cand[rand] = _uniform_codes(rng, m, (len(rp), _BATCH))
            else:
                cand[rand] = np.array(
                    [_helpful_draw(game, cur[first[s] : first[s] + count[s]], rng) for s in rp]
                )[:, None]
        sub_seg, sub_first, idx = _segments(first[pending], count[pending])
        fb = game.feedback(cand[sub_seg], cur[idx][:, None])
        helpful = _helpful(fb, sub_seg, sub_first, game.win)
        if pool == "consistent" and from_t.any():
            sub_tmpl = tmpl[pending]
            _leave_template_outside_pool(fb, sub_first, game.win, helpful, sub_tmpl)
            tmpl[pending] = sub_tmpl
            from_t = sub_tmpl >= 0
        ok = helpful.any(axis=1)
        pick = helpful.argmax(axis=1)
        rows = np.flatnonzero(ok)
        guesses[pending[rows]] = cand[rows, pick[rows]]
        stuck = np.flatnonzero(~ok & from_t)
        if len(stuck):
            _skip_template(tmpl, pending[stuck], template, fb[sub_first[stuck], 0])
        pending = pending[~ok]
        rounds += 1


def _settle_pairs(
    game: Game,
    order: np.ndarray,
    starts: np.ndarray,
    tmpl_guess: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Finish two-code nodes: the node guesses one code and the other is its leaf child.

    Shrink and the triangle rule (which takes a child chosen at random) make the node a
    uniform pick of its two codes, whatever was drawn; a template guess that is one of the
    two is kept. Reorders ``order`` so that the guessed code comes first.
    """
    a, b = order[starts], order[starts + 1]
    swap = rng.random(len(starts)) < 0.5
    if tmpl_guess is not None:
        swap = np.where(tmpl_guess == a, False, np.where(tmpl_guess == b, True, swap))
    g = np.where(swap, b, a).astype(np.int64)
    other = np.where(swap, a, b).astype(np.int64)
    order[starts], order[starts + 1] = g, other
    return g, other


def _helpful_draw(game: Game, s: np.ndarray, rng: np.random.Generator) -> int:
    """Uniform draw among all guesses that help on code set ``s`` (exact, for rare cases)."""
    every = game.all_guesses()
    fb = game.feedback(every[:, None], s[None, :])
    return int(rng.choice(np.flatnonzero(helpful_rows(fb, game.win))))
