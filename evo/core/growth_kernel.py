"""Compiled random path completion: one tree grown in one call (the engine of evo.core.growth).

Growing a tree is ~7 levels of a few small steps each; as NumPy calls their per-call
overhead set the cost, so the whole build is one numba function. It follows the NumPy
engine of :mod:`evo.core.growth` step for step and draws from the same generator in the same
order (numba's ``Generator`` methods share the state and the streams of NumPy's), so a
seed gives the same tree with either engine; the tests check that they agree.

Feedbacks come from a source (:mod:`evo.core.feedback_kernel`): the game's table, or
computed from packed codes where no table fits. ``cache=True`` keeps the machine code on
disk: compiling happens once per machine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evo.core.feedback_kernel import feedback
from evo.core.tree_kernel import node_arrays


@njit(cache=True)
def _helps(src, guess, cur, lo, hi, win):  # pragma: no cover - compiled
    """The guess wins for one of ``cur[lo:hi]`` or splits them (evo.core.game.helpful_rows)."""
    lead = feedback(src, guess, cur[lo])
    if lead == win:
        return True
    for j in range(lo + 1, hi):
        f = feedback(src, guess, cur[j])
        if f != lead:
            return True
    return False


@njit(cache=True)
def _in_set(src, guess, cur, lo, hi, win):  # pragma: no cover - compiled
    for j in range(lo, hi):
        if feedback(src, guess, cur[j]) == win:
            return True
    return False


@njit(cache=True)
def _helpful_draw(src, m, cur, lo, hi, win, rng):  # pragma: no cover - compiled
    """Uniform draw among all codes that help on ``cur[lo:hi]`` (as ``rng.choice``)."""
    found = np.empty(m, dtype=np.int64)
    n = 0
    for g in range(m):
        if _helps(src, g, cur, lo, hi, win):
            found[n] = g
            n += 1
    return found[rng.integers(0, n)]


@njit(cache=True, inline="always")
def _gather(order, frontier, k, cur, first):  # pragma: no cover - compiled
    """The codes of the ``k`` nodes of the frontier side by side in ``cur`` (node ``i``'s
    from ``first[i]`` to ``first[i + 1]``); the fewest codes of a node."""
    f_start, f_count = frontier[1], frontier[2]
    total = 0
    small = len(cur) + 1
    for i in range(k):
        first[i] = total
        c = f_count[i]
        s = f_start[i]
        for j in range(c):
            cur[total + j] = order[s + j]
        total += c
        if c < small:
            small = c
    first[k] = total
    return small


@njit(cache=True, inline="always")
def _first_guesses(grow, k, small, frontier, work, rng, sampling):  # pragma: no cover - compiled
    """A first try of a helpful guess per frontier node (evo.core.growth._choose_guesses):
    the template's, or drawn; the number of nodes left ``pending`` (their guess does not
    help; a template's guess that does not help is followed down its only branch)."""
    src, m, win, _, consistent, t_guess, t_child = grow
    cur, first, guesses, cand, pending, _ = work
    f_count, f_tmpl = frontier[2], frontier[3]
    first_width, large_set = sampling[2], sampling[3]
    width = 1
    if consistent:
        for i in range(k):
            cand[i] = cur[first[i] + rng.integers(0, f_count[i])]
    else:
        width = 1 if small >= large_set else first_width
        for x in range(k * width):
            cand[x] = np.int64(rng.random() * m)
    npend = 0
    for i in range(k):
        lo, hi = first[i], first[i + 1]
        t = f_tmpl[i]
        if t >= 0:
            g = np.int64(t_guess[t])
            ok = _helps(src, g, cur, lo, hi, win)
            if ok and consistent and not _in_set(src, g, cur, lo, hi, win):
                ok = False
                f_tmpl[i] = -1
            if ok:
                guesses[i] = g
            else:
                guesses[i] = g
                pending[npend] = i
                npend += 1
                t = f_tmpl[i]
                if t >= 0:  # skip a guess that does not help: follow its only branch
                    f_tmpl[i] = t_child[t, feedback(src, g, cur[lo])]
        else:
            found = False
            for w in range(width):
                g = cand[i * width + w]
                if _helps(src, g, cur, lo, hi, win):
                    guesses[i] = g
                    found = True
                    break
            if not found:
                guesses[i] = cand[i * width]
                pending[npend] = i
                npend += 1
    return npend


@njit(cache=True, inline="always")
def _retry(grow, npend, frontier, work, rng, sampling):  # pragma: no cover - compiled
    """Batches of guesses for the ``npend`` pending nodes until each has a helpful one:
    the template's (followed down while it does not help), codes of the node, random
    codes for some rounds, then a uniform draw among the helpful ones."""
    src, m, win, _, consistent, t_guess, t_child = grow
    cur, first, guesses, _, pending, batch = work
    f_count, f_tmpl = frontier[2], frontier[3]
    rejection_rounds, size = sampling[0], sampling[1]
    rounds = 0
    while npend > 0:
        still = 0
        for q in range(npend):
            i = pending[q]
            lo, hi = first[i], first[i + 1]
            t = f_tmpl[i]
            from_t = t >= 0
            if from_t:
                for b in range(size):
                    batch[b] = t_guess[t]
            elif consistent:
                for b in range(size):
                    batch[b] = cur[lo + rng.integers(0, f_count[i])]
            elif rounds < rejection_rounds:
                for b in range(size):
                    batch[b] = np.int64(rng.random() * m)
            else:
                g = _helpful_draw(src, m, cur, lo, hi, win, rng)
                for b in range(size):
                    batch[b] = g
            found = False
            if from_t:
                g = batch[0]
                found = _helps(src, g, cur, lo, hi, win)
                if found and consistent and not _in_set(src, g, cur, lo, hi, win):
                    found = False
                    f_tmpl[i] = -1
                    from_t = False
                if found:
                    guesses[i] = g
            else:
                for b in range(size):
                    if _helps(src, batch[b], cur, lo, hi, win):
                        guesses[i] = batch[b]
                        found = True
                        break
            if not found:
                if from_t:
                    f_tmpl[i] = t_child[t, feedback(src, batch[0], cur[lo])]
                pending[still] = i
                still += 1
        npend = still
        rounds += 1


@njit(cache=True, inline="always")
def _split(grow, k, depth, work, order, made, next_id):  # pragma: no cover - compiled
    """Every frontier node split by its guess (its codes in ``order``, stable by feedback)
    and its children made from id ``next_id`` on (``made``: the frontier, the children and
    the nodes; ``grow`` and ``work`` as :func:`grow_tree` makes them); ``(children made,
    next_id)``."""
    src, win, nfb, t_child = grow[0], grow[2], grow[3], grow[6]
    cur, first, guesses = work[0], work[1], work[2]
    frontier, children, nodes = made
    f_id, f_start, f_tmpl = frontier[0], frontier[1], frontier[3]
    c_id, c_start, c_count, c_tmpl = children
    r_guess, r_label, r_parent, r_depth, r_term, r_start, r_count = nodes
    hist = np.zeros(nfb, dtype=np.int64)
    offs = np.zeros(nfb, dtype=np.int64)
    nc = 0
    for i in range(k):
        lo, hi = first[i], first[i + 1]
        g = guesses[i]
        for f in range(nfb):
            hist[f] = 0
        for j in range(lo, hi):
            hist[feedback(src, g, cur[j])] += 1
        acc = 0
        for f in range(nfb):
            offs[f] = acc
            acc += hist[f]
        s = f_start[i]
        for j in range(lo, hi):
            f = feedback(src, g, cur[j])
            order[s + offs[f]] = cur[j]
            offs[f] += 1
        node = f_id[i]
        r_guess[node] = g
        r_term[node] = hist[win] > 0
        acc = 0
        for f in range(nfb):
            h = hist[f]
            if h > 0 and f != win:
                cid = next_id
                next_id += 1
                r_label[cid] = f
                r_parent[cid] = node
                r_depth[cid] = depth + 1
                r_start[cid] = s + acc
                r_count[cid] = h
                c_id[nc] = cid
                c_start[nc] = s + acc
                c_count[nc] = h
                t = f_tmpl[i]
                c_tmpl[nc] = t_child[t, f] if t >= 0 else -1
                nc += 1
            acc += h
    return nc, next_id


@njit(cache=True, inline="always")
def _settle(grow, nc, depth, order, made, next_id, rng):  # pragma: no cover - compiled
    """The ``nc`` children: one-code ones are leaves; two-code ones guess one code, the
    other is their leaf (shrink and triangles); larger ones form the next frontier
    (``made`` as :func:`_split` takes it). ``(frontier size, next_id)``."""
    src, t_guess = grow[0], grow[5]
    frontier, children, nodes = made
    f_id, f_start, f_count, f_tmpl = frontier
    c_id, c_start, c_count, c_tmpl = children
    r_guess, r_label, r_parent, r_depth, r_term, r_start, r_count = nodes
    k = 0
    for x in range(nc):
        cid = c_id[x]
        h = c_count[x]
        if h == 1:
            r_guess[cid] = order[c_start[x]]
            r_term[cid] = True
        elif h == 2:
            s = c_start[x]
            a = order[s]
            b = order[s + 1]
            swap = rng.random() < 0.5
            t = c_tmpl[x]
            if t >= 0:
                tg = t_guess[t]
                if tg == a:
                    swap = False
                elif tg == b:
                    swap = True
            g = b if swap else a
            other = a if swap else b
            order[s] = g
            order[s + 1] = other
            r_guess[cid] = g
            r_term[cid] = True
            leaf = next_id
            next_id += 1
            r_guess[leaf] = other
            r_term[leaf] = True
            r_label[leaf] = feedback(src, g, other)
            r_parent[leaf] = cid
            r_depth[leaf] = depth + 2
            r_start[leaf] = s + 1
            r_count[leaf] = 1
        else:
            f_id[k] = cid
            f_start[k] = c_start[x]
            f_count[k] = h
            f_tmpl[k] = c_tmpl[x]
            k += 1
    return k, next_id


@njit(cache=True, inline="always")
def _preorder(nodes, nn, n):  # pragma: no cover - compiled
    """The ``nn`` nodes made, in preorder: ``guess, label, parent, depth, terminal, start,
    count`` as evo.core.tree.Tree holds them."""
    # By the start of the code range, ancestors (shallower) first. Nodes that share a
    # start were made in order of depth (level by level; a two-code node's leaf starts one
    # code later), so a stable count by start gives it in linear time.
    r_guess, r_label, r_parent, r_depth, r_term, r_start, r_count = nodes
    at = np.zeros(n + 1, dtype=np.int64)
    for i in range(nn):
        at[r_start[i] + 1] += 1
    for s in range(n):
        at[s + 1] += at[s]
    pre = np.empty(nn, dtype=np.int64)
    for i in range(nn):
        s = r_start[i]
        pre[at[s]] = i
        at[s] += 1
    rank = np.empty(nn, dtype=np.int64)
    for i in range(nn):
        rank[pre[i]] = i
    guess, label, parent, depths, term, start, count = node_arrays(nn)
    for i in range(nn):
        p = pre[i]
        guess[i] = r_guess[p]
        label[i] = r_label[p]
        parent[i] = rank[r_parent[p]] if r_parent[p] >= 0 else -1
        depths[i] = r_depth[p]
        term[i] = r_term[p]
        start[i] = r_start[p]
        count[i] = r_count[p]
    return guess, label, parent, depths, term, start, count


@njit(cache=True, inline="always")
def _frontier(n):  # pragma: no cover - compiled
    """Room for a frontier (or its children) of at most ``n + 1`` nodes: each one's id,
    start and count of its codes in ``order``, and template node (-1: none)."""
    return (
        np.empty(n + 1, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64),
    )


@njit(cache=True)
def grow_tree(
    src, m, codes, win, nfb, consistent, t_guess, t_child, t_root, rng, sampling
):  # pragma: no cover - compiled
    """Grow a breaker for ``codes`` (int32) of a game of ``m`` guesses whose feedbacks come
    from ``src``, optionally onto a template (``t_root`` >= 0), level by level: the
    frontier's codes gathered, a helpful guess chosen per node, the nodes split.

    ``sampling``: evo.core.growth's rejection rounds, candidates per retry, first-round width
    and the set size from which one first candidate is drawn (arguments, so that the
    cached machine code never holds stale constants).

    Returns the preorder arrays ``guess, label, parent, depth, terminal, start, count``
    and the reordered codes, as evo.core.tree.Tree holds them.
    """
    n = len(codes)
    order = codes.copy()
    nodes = node_arrays(2 * n + 2)
    nodes[1][0] = -1  # the root's label, parent, depth and codes
    nodes[2][0] = -1
    nodes[3][0] = 1
    nodes[5][0] = 0
    nodes[6][0] = n
    next_id = 1
    frontier = _frontier(n)
    frontier[0][0] = 0
    frontier[1][0] = 0
    frontier[2][0] = n
    frontier[3][0] = t_root
    k = 1
    depth = 1
    children = _frontier(n)
    # Per-level work arrays: the frontier's codes side by side, where each node's start,
    # their guesses, the first candidates, the pending nodes, a batch of candidates.
    cur = np.empty(n, dtype=np.int32)
    first = np.empty(n + 1, dtype=np.int64)
    guesses = np.empty(n + 1, dtype=np.int64)
    cand = np.empty((n + 1) * sampling[2], dtype=np.int64)
    pending = np.empty(n + 1, dtype=np.int64)
    work = (cur, first, guesses, cand, pending, np.empty(sampling[1], dtype=np.int64))
    grow = (src, m, win, nfb, consistent, t_guess, t_child)
    made = (frontier, children, nodes)
    while k > 0:
        small = _gather(order, frontier, k, cur, first)
        npend = _first_guesses(grow, k, small, frontier, work, rng, sampling)
        _retry(grow, npend, frontier, work, rng, sampling)
        # Triangle optimization (only a two-code root gets here).
        if k == 1 and frontier[2][0] == 2:
            g = guesses[0]
            if feedback(src, g, cur[0]) != win and feedback(src, g, cur[1]) != win:
                guesses[0] = cur[rng.integers(0, 2)]
        nc, next_id = _split(grow, k, depth, work, order, made, next_id)
        k, next_id = _settle(grow, nc, depth, order, made, next_id, rng)
        depth += 1
    guess, label, parent, depths, term, start, count = _preorder(nodes, next_id, n)
    return guess, label, parent, depths, term, start, count, order
