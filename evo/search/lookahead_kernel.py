"""Compiled one-step look-ahead: the best candidate guess of a code set in one call.

It counts each candidate's parts over the code set and keeps the best by the heuristic's
score (:func:`evo.search.lookahead.score`, the same numbers bit for bit), a consistent
guess first on ties, then the lowest code. Consistent candidates are scored first, then
the others, each in ascending order, a candidate replacing the best only when strictly
lower: that is the same choice, and it lets a candidate be dropped as soon as its partial
score reaches the best, and the scan stop once the best has the lowest score any later
candidate could have. Feedbacks come from a source (:mod:`evo.core.feedback_kernel`): the
game's table, or computed where no table fits. ``cache=True`` keeps the machine code on
disk: compiling happens once per machine.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from evo.core.feedback_kernel import by_secret, feedback, popcount
from evo.core.tree_kernel import node_arrays
from evo.search.palette import Palette
from evo.search.symmetry_kernel import fixing, lowest_of_its_orbit

#: Heuristic numbers of :func:`best_guess`, in the order of evo.core.kinds.HEURISTICS.
KNUTH, IRVING, KOOI, ENTROPY = 0, 1, 2, 3

#: Below this many codes a block's feedbacks are read by code rows of the table (in order,
#: all of them); from it on, each candidate's from its own row, as far as its bound lets.
_ROW_READS = 4096

#: The same limit where feedbacks are computed: reading order costs nothing there, and a
#: candidate dropped early saves computing the rest.
_ROW_READS_COMPUTED = 0


def _row_reads(src):
    """:data:`_ROW_READS` or :data:`_ROW_READS_COMPUTED` for the kind of source."""
    raise TypeError("compiled kernels only")


@overload(_row_reads)
def _row_reads_of(src):  # pragma: no cover - compiled
    table = isinstance(src, types.Array) or len(src) == 2  # a table, or a table pair
    limit = _ROW_READS if table else _ROW_READS_COMPUTED
    return lambda src: limit


@njit(cache=True)
def _pairwise_sum(a):  # pragma: no cover - compiled
    """NumPy's summation order for a short row (8 partial sums), so that the floats are
    NumPy's to the last bit."""
    n = len(a)
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    while i < n - (n % 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


@njit(cache=True)
def perfect_guess(src, codes, win):  # pragma: no cover - compiled
    """The lowest code of ``codes`` (ascending) that leaves every other code alone in its
    part, or -1 (evo.search.partition.perfect_consistent)."""
    n = len(codes)
    seen = np.zeros(256, dtype=np.bool_)
    for i in range(n):
        c = codes[i]
        ok = True
        for j in range(n):
            f = feedback(src, c, codes[j])
            if seen[f]:
                ok = False
                break
            seen[f] = True
        for j in range(n):
            seen[feedback(src, c, codes[j])] = False
        if ok:
            return c
    return -1


@njit(cache=True)
def _score(sizes, parts, heuristic, nfb, nlogn, row):  # pragma: no cover - compiled
    """The heuristic's score of a candidate whose ``parts`` nonzero part sizes are
    ``sizes[:parts]`` (any order; lower is better), as evo.search.lookahead.score computes
    it from the full row of counts; ``row`` is scratch."""
    if heuristic == KNUTH:
        s = 0.0
        for p in range(parts):
            s = max(s, float(sizes[p]))
    elif heuristic == IRVING:
        s = 0.0
        for p in range(parts):
            s += float(sizes[p] * sizes[p])
    elif heuristic == KOOI:
        s = -float(parts)
    else:
        # The row as np.sort(counts) gives it: zeros first, then parts ascending.
        for p in range(1, parts):  # insertion sort of the (few) part sizes
            c = sizes[p]
            q = p
            while q > 0 and sizes[q - 1] > c:
                sizes[q] = sizes[q - 1]
                q -= 1
            sizes[q] = c
        z = nfb - parts
        for f in range(z):
            row[f] = 0.0
        for p in range(parts):
            row[z + p] = nlogn[sizes[p]]
        s = np.rint(_pairwise_sum(row) * 1e9) / 1e9
    return s


@njit(cache=True)
def _floor(heuristic, n, most):  # pragma: no cover - compiled
    """The lowest score a candidate can have on ``n`` codes split into at most ``most``
    parts: once the best so far has it, no later candidate can do strictly better."""
    if heuristic == KNUTH:
        return float((n + most - 1) // most)
    if heuristic == IRVING:
        q, r = n // most, n % most
        return float(r * (q + 1) * (q + 1) + (most - r) * q * q)
    if heuristic == KOOI:
        return -float(min(n, most))
    return 0.0 if n <= most else -np.inf


#: Candidates scored together by :func:`_scan`.
_BLOCK = 64

#: Codes a candidate counts between two looks at its bound where a loop without a test in
#: it runs faster (Kooi's even on vector instructions) than the few codes it counts too many.
_CHUNK = 32


@njit(cache=True)
def _scratch(src, nfb, n):  # pragma: no cover - compiled
    """The work arrays of :func:`_scan` and its filters: a block of candidates, their
    feedbacks, counts (zero), parts met, part sizes, a score row, a color map."""
    return (
        np.empty(_BLOCK, dtype=np.int64),
        np.empty((_BLOCK, min(n, _row_reads(src))), dtype=np.uint8),
        np.zeros(nfb, dtype=np.int64),
        np.empty(nfb, dtype=np.int64),
        np.empty(nfb, dtype=np.int64),
        np.empty(nfb, dtype=np.float64),
        np.empty(32, dtype=np.int64),
    )


@njit(cache=True)
def _scan(src, codes, nb, consistent, heuristic, floor, nlogn, scratch, best, best_score):
    """Scores the block's candidates ``blk[:nb]`` (consistent or not) in order and returns
    the best as ``(code, score, stop)``: a candidate replaces the best only when strictly
    lower, and ``stop`` once the best reaches ``floor``. Sets under ``_row_reads`` codes
    are read by code rows for the block (:func:`~evo.core.feedback_kernel.by_secret`:
    each row is read in order); larger ones by each candidate's own row, which stays
    cached."""
    blk, fbs, counts, touched, sizes, row, _ = scratch
    n = len(codes)
    nfb = len(counts)
    small = n < _row_reads(src)
    if small:
        for j in range(n):
            r = codes[j]
            for b in range(nb):
                fbs[b, j] = by_secret(src, r, blk[b])
    # Integer bounds from the best score (an integer but for entropy): a candidate is
    # dropped once its partial score reaches it (every score only grows as codes are
    # counted: Knuth's largest part, Irving's sum of squares, entropy's n log n; Kooi's
    # parts still possible, ``parts + codes left``, only falls).
    big = np.int64(1) << 62
    icap = big if best_score == np.inf else np.int64(best_score)
    for b in range(nb):
        g = blk[b]
        pruned, parts = False, 0
        if heuristic == KOOI and nfb <= 64:
            # Only which parts are met counts, a bit each, in a loop without exits
            # (vector instructions); the bound looked at every _CHUNK codes.
            met = np.uint64(0)
            j = 0
            while j < n and not pruned:
                end = min(j + _CHUNK, n)
                for i in range(j, end):
                    f = fbs[b, i] if small else feedback(src, g, codes[i])
                    met |= np.uint64(1) << np.uint64(f)
                j = end
                pruned = popcount(met) + n - j <= -icap
            parts = popcount(met)
        elif small and (heuristic == IRVING or heuristic == ENTROPY):
            # Feedbacks read from the block: loops without a test in them, the bound
            # looked at every _CHUNK codes (a few codes counted too many cost less).
            extra, fpartial = np.int64(0), 0.0
            j = 0
            while j < n and not pruned:
                end = min(j + _CHUNK, n)
                if heuristic == IRVING:
                    for i in range(j, end):
                        c = counts[fbs[b, i]]
                        counts[fbs[b, i]] = c + 1
                        extra += 2 * c  # the sum of squares less the codes counted
                    pruned = extra + n >= icap  # with one for each code left
                else:
                    for i in range(j, end):
                        c = counts[fbs[b, i]]
                        counts[fbs[b, i]] = c + 1
                        fpartial += nlogn[c + 1] - nlogn[c]
                    pruned = fpartial > best_score + 1e-6
                j = end
            for f in range(nfb):
                c = counts[f]
                if c:
                    sizes[parts] = c
                    parts += 1
                    counts[f] = 0
        else:
            # The bound looked at every code (Knuth's stops many candidates after a few
            # codes; computed feedbacks cost more than the test), the parts listed as met.
            partial, fpartial = np.int64(0), 0.0
            for j in range(n):
                f = fbs[b, j] if small else feedback(src, g, codes[j])
                c = counts[f]
                if c == 0:
                    touched[parts] = f
                    parts += 1
                counts[f] = c + 1
                if heuristic == KNUTH:
                    pruned = c + 1 >= icap
                elif heuristic == IRVING:
                    partial += 2 * c + 1
                    pruned = partial + n - 1 - j >= icap  # each code left adds 1 at least
                elif heuristic == KOOI:
                    pruned = parts + n - 1 - j <= -icap
                else:
                    # The rounded score differs from this sum by far less than the margin.
                    fpartial += nlogn[c + 1] - nlogn[c]
                    pruned = fpartial > best_score + 1e-6
                if pruned:
                    break
            for p in range(parts):
                f = touched[p]
                sizes[p] = counts[f]
                counts[f] = 0
        if pruned or (parts < 2 and not consistent):  # or it does not help
            continue
        s = _score(sizes, parts, heuristic, nfb, nlogn, row)
        if s < best_score:
            best, best_score = g, s
            icap = np.int64(s) if heuristic != ENTROPY else big
            if s <= floor:
                return best, best_score, True
    return best, best_score, False


@njit(cache=True)
def _zero_colors(codes, palette):  # pragma: no cover - compiled
    """The colors no code of ``codes`` has (a bit mask), and for each ``k`` the mask of
    the ``k`` lowest of them."""
    masks = palette.masks
    present = np.uint32(0)
    for j in range(len(codes)):
        present |= masks[codes[j]]
    zero = palette.every & ~present
    lowest = np.zeros(33, dtype=np.uint32)
    rest = zero
    for k in range(1, 33):
        low = rest & (~rest + np.uint32(1))  # the lowest bit left
        lowest[k] = lowest[k - 1] | low
        rest ^= low
    return zero, lowest


@njit(cache=True)
def _lowest_of_its_class(g, zero, lowest, palette):  # pragma: no cover - compiled
    """Whether ``g`` is the lowest code of its class: colors that no code of the set has
    (``zero``) answer alike wherever they stand, so codes that differ only in which of
    them they use split the set alike, and only the lowest need be scored. It uses the
    lowest zero color everywhere (Mastermind), or the lowest ones (distinct pegs)."""
    used = palette.masks[g] & zero
    if used == 0:
        return True
    if not palette.distinct:
        return used == lowest[1]
    return used == lowest[popcount(np.uint64(used))]


@njit(cache=True)
def _scan_range(
    src, codes, cands, lo, hi, others, heuristic, floor, nlogn, palette, scratch, best, score
):  # pragma: no cover - compiled
    """:func:`_scan` over ``cands[lo:hi]`` (ascending) block by block: the consistent
    candidates, or with ``others`` those not among ``codes`` (ascending) and lowest of
    their class (:func:`_lowest_of_its_class`); either way only the lowest of their orbit
    (:func:`~evo.search.symmetry_kernel.lowest_of_its_orbit`). Each code skipped has a lower
    one that splits the set alike and is as consistent: the lowest best candidate passes
    both, the same choice."""
    n = len(codes)
    blk = scratch[0]
    j = np.searchsorted(codes, cands[lo]) if lo < hi else n
    zero, lowest = _zero_colors(codes, palette)
    nb = 0
    for i in range(lo, hi):
        c = cands[i]
        if others:
            while j < n and codes[j] < c:
                j += 1
            if j < n and codes[j] == c:
                continue
            if zero != 0 and not _lowest_of_its_class(c, zero, lowest, palette):
                continue
        if not lowest_of_its_orbit(c, palette, scratch[6]):
            continue
        blk[nb] = c
        nb += 1
        if nb == _BLOCK:
            best, score, stop = _scan(
                src, codes, np.int64(nb), not others, heuristic, floor, nlogn, scratch, best, score
            )
            nb = 0
            if stop:
                return best, score, True
    if nb > 0:
        # ``nb`` as int64 at both calls (numba typed one as the constant 0: a second scan).
        count = np.int64(nb)
        return _scan(src, codes, count, not others, heuristic, floor, nlogn, scratch, best, score)
    return best, score, False


@njit(cache=True)
def _consistent(codes, cands):  # pragma: no cover - compiled
    """The candidates of ``cands`` (ascending) among ``codes`` (ascending)."""
    out = np.empty(len(codes), dtype=np.int64)
    k = 0
    for j in range(len(codes)):
        i = np.searchsorted(cands, codes[j])
        if i < len(cands) and cands[i] == codes[j]:
            out[k] = codes[j]
            k += 1
    return out[:k]


@njit(cache=True)
def best_guess(src, codes, cands, heuristic, nfb, nlogn, palette, parts=0):  # pragma: no cover
    """The best helpful candidate of ``cands`` (ascending) on ``codes``, or -1 when none
    helps. ``nlogn[c]``: ``c log c`` as NumPy computes it (the entropy score);
    ``palette``: each code's colors as a bit mask, whether pegs are distinct, every
    color's bit, the codes' pegs and the colors the guesses above played
    (evo.search.palette.palette); ``parts``: the most parts a guess can make, the win
    included (evo.search.lookahead.most_parts; 0: ``nfb``, every feedback).

    Consistent candidates are scored first, then the others, each in ascending order, a
    candidate replacing the best only when strictly lower: the choice of "best score, then
    consistent, then lowest code". So each candidate is dropped as soon as its partial
    score reaches the best, and the scan stops once the best reaches the lowest score
    any later candidate could have (:func:`_floor`)."""
    return _two_passes(src, codes, cands, heuristic, nfb, nlogn, palette, np.bool_(False), parts)


@njit(cache=True)
def best_guess_threads(
    src, codes, cands, heuristic, nfb, nlogn, palette, parts=0
):  # pragma: no cover
    """:func:`best_guess` with each pass's candidates cut into runs scored on numba's
    threads (:func:`_runs`): the same guess."""
    # ``threaded`` a variable, not a constant: the passes compiled once for both.
    return _two_passes(src, codes, cands, heuristic, nfb, nlogn, palette, np.bool_(True), parts)


@njit(cache=True)
def _two_passes(
    src, codes, cands, heuristic, nfb, nlogn, palette, threaded, parts
):  # pragma: no cover
    """:func:`best_guess`'s two passes, each scanned in order or in runs on the threads."""
    n = len(codes)
    # A consistent candidate has at most ``parts`` parts (every feedback but those that
    # never happen, as Mastermind's N - 1 black and 1 white), another one fewer (no win).
    most = nfb if parts <= 0 else min(parts, nfb)
    floor = _floor(heuristic, n, most)
    # The pass and the best so far as variables, not constants: numba compiles a kernel
    # once per kind of argument, and a constant is a kind of its own (each scan was
    # compiled four times per source of feedbacks).
    others, none = np.bool_(False), np.int64(-1)
    best, score = _pass(
        src,
        codes,
        _consistent(codes, cands),
        others,
        heuristic,
        floor,
        nfb,
        nlogn,
        palette,
        none,
        np.inf,
        threaded,
    )
    least = _floor(heuristic, n, max(most - 1, 1))
    if score <= floor or score <= least:  # no later candidate can be lower
        return best
    others = np.bool_(True)
    best, score = _pass(
        src,
        codes,
        cands,
        others,
        heuristic,
        least,
        nfb,
        nlogn,
        palette,
        best,
        score,
        threaded,
    )
    return best


@njit(cache=True)
def _pass(
    src, codes, cands, others, heuristic, floor, nfb, nlogn, palette, best, score, threaded
):  # pragma: no cover - compiled
    """One pass of :func:`_two_passes`: :func:`_scan_range` over every candidate, or
    :func:`_runs` of them on the threads."""
    if threaded:
        return _runs(src, codes, cands, others, heuristic, floor, nfb, nlogn, palette, best, score)
    span = (np.int64(0), np.int64(len(cands)))  # as :func:`_runs` gives it (one kind)
    return _scan_run(
        src, codes, cands, span, others, heuristic, floor, nfb, nlogn, palette, best, score
    )


@njit(cache=True)
def _scan_run(
    src, codes, cands, span, others, heuristic, floor, nfb, nlogn, palette, best, score
):  # pragma: no cover - compiled
    """:func:`_scan_range` over the candidates from ``span[0]`` to ``span[1]``, with
    scratch of its own: ``(best, score)``."""
    scratch = _scratch(src, nfb, len(codes))
    start, stop = span
    best, score, _ = _scan_range(
        src,
        codes,
        cands,
        start,
        stop,
        others,
        heuristic,
        floor,
        nlogn,
        palette,
        scratch,
        best,
        score,
    )
    return best, score


#: Runs of candidates :func:`best_guess_threads` shares out among the threads (a few per
#: thread balance them; each run lowers its own bound).
_RUNS = 64


@njit(cache=True, parallel=True)
def _runs(
    src, codes, cands, others, heuristic, floor, nfb, nlogn, palette, best, score
):  # pragma: no cover
    """:func:`_scan_range` over ``cands`` cut into runs scored side by side, each from the
    best so far; then the runs' bests in order, each replacing the best only when strictly
    lower: the serial scan's choice (a candidate its run's bound drops cannot win)."""
    k = len(cands)
    runs = max(1, min(_RUNS, k // _BLOCK))
    found = np.empty(runs, dtype=np.int64)
    scores = np.empty(runs, dtype=np.float64)
    for r in prange(runs):
        span = (r * k // runs, (r + 1) * k // runs)
        found[r], scores[r] = _scan_run(
            src, codes, cands, span, others, heuristic, floor, nfb, nlogn, palette, best, score
        )
    for r in range(runs):
        if scores[r] < score:
            best, score = found[r], scores[r]
    return best, score


@njit(cache=True)
def lookahead_tree(
    src,
    every,
    codes,
    root_cands,
    heuristic,
    consistent,
    win,
    nfb,
    nlogn,
    palette,
    threaded_work,
    parts,
):  # pragma: no cover - compiled
    """The whole tree of the one-step player on ``codes`` (ascending), as the preorder
    arrays ``guess, label, parent, depth, terminal, start, count`` and the codes in
    evo.core.tree.Tree's order. Node by node it chooses what evo.search.lookahead's player
    chooses: one code: it; two: the lower; a perfect consistent guess; else the best
    candidate (``root_cands`` at the root: one per symmetry orbit, the same choice; below,
    ``every`` code, or the node's codes for the consistent form); ``parts``: as
    :func:`best_guess`'s."""
    n = len(codes)
    order = codes.copy()
    tmp = np.empty(n, dtype=np.int64)
    cap = 2 * n + 2
    guess, label, parent, depth, term, start, count = node_arrays(cap)
    hist = np.zeros(nfb, dtype=np.int64)
    offs = np.zeros(nfb, dtype=np.int64)
    # Stack of (start, count, parent, label, depth).
    st = np.empty((cap, 6), dtype=np.int64)  # and the colors played above each node
    masks, digits, pis, luts = palette.masks, palette.digits, palette.pis, palette.luts
    # The symmetries of the nodes at each depth (those of the guesses above them): a
    # node's children share them, and its siblings are built after its subtree.
    sym_p = np.empty((8,) + pis.shape, dtype=pis.dtype)
    sym_l = np.empty((8,) + luts.shape, dtype=luts.dtype)
    sym_k = np.zeros(8, dtype=np.int64)
    sym_p[1, : len(pis)], sym_l[1, : len(pis)], sym_k[1] = pis, luts, len(pis)
    gp, gl = pis, luts
    top = 0
    st[0, 0], st[0, 1], st[0, 2], st[0, 3], st[0, 4] = 0, n, -1, -1, 1
    st[0, 5] = palette.played
    top = 1
    nodes = 0
    while top > 0:
        top -= 1
        s, c, par, lab, d = st[top, 0], st[top, 1], st[top, 2], st[top, 3], st[top, 4]
        played = np.uint32(st[top, 5])
        seg = order[s : s + c]
        if c <= 2:
            g = seg[0]
        else:
            k = sym_k[d]  # set by the parent (more than two codes too) or at the root
            gp, gl = np.ascontiguousarray(sym_p[d, :k]), np.ascontiguousarray(sym_l[d, :k])
            here = Palette(masks, palette.distinct, palette.every, digits, played, gp, gl)
            g = -1
            if c <= nfb:
                g = perfect_guess(src, seg, win)
            if g < 0:
                if par < 0:
                    cands = root_cands
                elif consistent:
                    cands = seg.copy()
                else:
                    cands = every
                if c * len(cands) >= threaded_work:
                    g = best_guess_threads(src, seg, cands, heuristic, nfb, nlogn, here, parts)
                else:
                    g = best_guess(src, seg, cands, heuristic, nfb, nlogn, here, parts)
        me = nodes
        nodes += 1
        guess[me] = g
        label[me] = lab
        parent[me] = par
        depth[me] = d
        start[me] = s
        count[me] = c
        for f in range(nfb):
            hist[f] = 0
        for j in range(c):
            hist[feedback(src, g, seg[j])] += 1
        term[me] = hist[win] > 0
        acc = 0
        for f in range(nfb):
            offs[f] = acc
            acc += hist[f]
        for j in range(c):
            f = feedback(src, g, seg[j])
            tmp[offs[f]] = seg[j]
            offs[f] += 1
        for j in range(c):
            seg[j] = tmp[j]
        if c > 2:
            if d + 1 == len(sym_k):  # deeper than ever: room for as many levels again
                sym_p = np.concatenate((sym_p, np.empty_like(sym_p)))
                sym_l = np.concatenate((sym_l, np.empty_like(sym_l)))
                sym_k = np.concatenate((sym_k, np.zeros_like(sym_k)))
            kp, kl = fixing(gp, gl, played, g, digits)
            sym_p[d + 1, : len(kp)], sym_l[d + 1, : len(kp)], sym_k[d + 1] = kp, kl, len(kp)
        # Children in feedback order: push the last first.
        for f in range(nfb - 1, -1, -1):
            if f != win and hist[f] > 0:
                st[top, 0] = s + offs[f] - hist[f]
                st[top, 1] = hist[f]
                st[top, 2] = me
                st[top, 3] = f
                st[top, 4] = d + 1
                st[top, 5] = played | masks[g]
                top += 1
    return (
        guess[:nodes].copy(),
        label[:nodes].copy(),
        parent[:nodes].copy(),
        depth[:nodes].copy(),
        term[:nodes].copy(),
        start[:nodes].copy(),
        count[:nodes].copy(),
        order,
    )


@njit(cache=True, parallel=True)
def lookahead_forest(
    src, m, flat, starts, played, heuristic, consistent, win, nfb, nlogn, palette, parts
):  # pragma: no cover - compiled
    """:func:`lookahead_tree` of each code set ``flat[starts[i]:starts[i+1]]`` (ascending)
    below guesses that played the colors ``played[i]``, sets side by side on the threads
    (each set's candidates: every code, or the set): the ``guess, label, parent`` arrays
    of set ``i`` from ``2 starts[i] + 2 i`` on, and each set's node count."""
    count = len(starts) - 1
    room = 2 * len(flat) + 2 * count
    guess = np.empty(room, dtype=np.int32)
    label = np.empty(room, dtype=np.int32)
    parent = np.empty(room, dtype=np.int32)
    nodes = np.empty(count, dtype=np.int64)
    every = np.arange(m, dtype=np.int64)
    never = np.iinfo(np.int64).max
    for i in prange(count):
        codes = flat[starts[i] : starts[i + 1]]
        root = codes.copy() if consistent else every
        p = palette
        here = Palette(p.masks, p.distinct, p.every, p.digits, played[i], p.pis, p.luts)
        tree = lookahead_tree(
            src, every, codes, root, heuristic, consistent, win, nfb, nlogn, here, never, parts
        )
        g, lab, par = tree[0], tree[1], tree[2]
        at = 2 * starts[i] + 2 * i
        k = len(g)
        guess[at : at + k] = g
        label[at : at + k] = lab
        parent[at : at + k] = par
        nodes[i] = k
    return guess, label, parent, nodes
