"""Compiled kernels of the exact search: the per-node work of scoring every candidate
guess on a code set, and splitting the set by one guess.

A node of the search does many small steps (count the parts of a few codes for each of
hundreds of guesses); NumPy's per-call overhead would dominate them, so they are
compiled with numba. ``cache=True`` keeps the machine code on disk, so compiling
happens once per machine, not on every start.

Feedbacks are read as ``feedback(rows, cands[i], codes[j])`` or
``by_secret(cols, codes[j], cands[i])`` (:mod:`evo.core.feedback_kernel`): the
feedback of candidate ``i`` against code ``j`` of the set, along the candidate's row or
the code's. Both sources are the game's: its table (with its transpose where the
feedback is not symmetric), or its packed codes, the feedbacks computed where they are
read.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evo.core.feedback_kernel import by_secret, feedback, popcount
from evo.search.memo_kernel import (
    MOST,
    NO_GUESS,
    STATUS,
    ZERO,
    counted,
    lookup,
    lookup_both,
    set_hash,
    store,
    store_both,
    within_key,
)
from evo.search.palette import Palette
from evo.search.symmetry_kernel import fixing, lowest_of_its_orbit, lowest_of_orbit

#: Above this many codes, the parts are counted into a (candidates, feedbacks) table.
_BIG = 48


@njit(cache=True, inline="always")
def _inside(cands, codes):  # pragma: no cover - compiled
    """``(inside, ni)``: the indexes in ``cands`` of the set's own codes (the consistent
    candidates, ascending: both lists are), ``ni`` of them."""
    n = len(codes)
    k = len(cands)
    inside = np.empty(n, dtype=np.int64)
    ni = 0
    for j in range(n):
        i = np.searchsorted(cands, codes[j])
        if i < k and cands[i] == codes[j]:
            inside[ni] = i
            ni += 1
    return inside, ni


@njit(cache=True, inline="always")
def _absent(codes, digits, colors):  # pragma: no cover - compiled
    """``(present, absent, na)``: per color whether a code of the set has it, and the
    ``na`` colors none has, ascending."""
    pegs = digits.shape[1]
    present = np.zeros(256, dtype=np.bool_)
    for j in range(len(codes)):
        for p in range(pegs):
            present[digits[codes[j], p]] = True
    absent = np.empty(256, dtype=np.int64)
    na = 0
    for c in range(colors):
        if not present[c]:
            absent[na] = c
            na += 1
    return present, absent, na


@njit(cache=True, inline="always")
def _live(cands, inside, ni, floor, kinds, cap, orbit, palette):  # pragma: no cover - compiled
    """``(live, nl, floored)``: the ``nl`` inconsistent candidates :func:`score` scores:
    those whose kind's floor is below ``cap`` (``floored``: the least floor of the others)
    and that are the lowest code of their orbit (under the permutations of the absent
    colors, ``orbit``: ``(digits, present, absent, na)``, and ``palette``'s symmetries)."""
    digits, present, absent, na = orbit
    k = len(cands)
    live = np.empty(k, dtype=np.int64)
    scratch = np.empty(digits.shape[1], dtype=np.int64)
    labels = np.empty(32, dtype=np.int64)
    floored = np.int64(1) << 62
    nl = 0
    q = 0
    for i in range(k):
        if q < ni and inside[q] == i:
            q += 1
            continue
        low_i = floor[kinds[cands[i]]]
        if low_i >= cap:
            floored = min(floored, low_i)
            continue
        if na > 1 and not lowest_of_orbit(digits, cands[i], present, absent, scratch):
            continue
        if not lowest_of_its_orbit(cands[i], palette, labels):
            continue
        live[nl] = i
        nl += 1
    return live, nl, floored


@njit(cache=True, inline="always")
def _tabled(cols, cands, codes, live, nl, nf, tiny):  # pragma: no cover - compiled
    """``(table, sub)``: the feedbacks of the ``live`` candidates on the set, read ahead of
    their scoring: nothing for a tiny set (read as they are needed), the part sizes
    counted per candidate (``table``, more than :data:`_BIG` codes), else the set's rows
    gathered (``sub``, a code per row)."""
    n = len(codes)
    if tiny:
        table = np.empty((0, nf), dtype=np.int32)
        sub = np.empty((0, nl), dtype=np.uint8)
    elif n > _BIG:
        table = np.zeros((nl, nf), dtype=np.int32)
        sub = np.empty((0, nl), dtype=np.uint8)
        for j in range(n):
            r = codes[j]
            for a in range(nl):
                table[a, by_secret(cols, r, cands[live[a]])] += 1
    else:
        table = np.empty((0, nf), dtype=np.int32)
        sub = np.empty((n, nl), dtype=np.uint8)
        for j in range(n):
            r = codes[j]
            for a in range(nl):
                sub[j, a] = by_secret(cols, r, cands[live[a]])
    return table, sub


@njit(cache=True)
def score(cands, codes, limit, target, game, palette):
    """Score the candidates ``cands`` (ascending) on the set ``codes`` (ascending), in a
    ``game`` as :func:`search` takes it:
    ``(kept, bounds, biggest, least)``; those that are not the lowest code of their orbit
    under the symmetries of ``palette`` (:func:`evo.search.palette.palette`) are skipped.

    ``bound`` of a candidate: ``n + sum lb[part size]`` over its non-win parts, a lower
    bound of the total with it at the root, exact when no part has more than two codes;
    ``biggest``: its largest non-win part (or just 3 when it is 3 or more). Unhelpful
    candidates (all codes in one non-win part) are dropped, and so are those whose bound
    reaches ``limit``. ``kept`` indexes the candidates ordered by bound, a consistent one
    first, then by index; ``least`` is the least bound of a helpful candidate, or a
    lower bound of the set's cost of at least ``limit`` when none is kept.

    Colors that no code of the set has can be permuted without changing the set, so a
    candidate is scored only when it is the lowest code of its orbit under those
    permutations (its absent colors, in order of first appearance, are the lowest ones;
    ``digits``: the pegs of every code, ``colors`` of them).

    The consistent candidates are scored first. When the first candidate of the order is
    known to be optimal before all are scored, only it is returned: a consistent one of
    exact bound ``target`` (a lower bound of the set's cost); after the consistent ones,
    the least of them when exact and at most what any other guess costs at least (``2n``,
    or the least of the kinds' floors, :func:`_kind_floors`: ``kinds`` numbers each code's
    color multiset, ``common`` the colors two kinds share); else the first inconsistent
    one of exact bound at that floor. The inconsistent ones are not scored when the
    consistent ones show that ``limit`` is out of reach, nor those whose kind's floor
    reaches ``limit`` or the bound of a candidate of known cost before them in the order
    (the search stops there); ``kept`` may then miss candidates the search would never
    try."""
    rows, cols, _, digits, colors, lb, nf, _, _, kinds, common = game
    n = len(codes)
    k = len(cands)
    inside, ni = _inside(cands, codes)
    pegs = digits.shape[1]
    present, absent, na = _absent(codes, digits, colors)
    scratch = np.empty(pegs, dtype=np.int64)
    labels = np.empty(32, dtype=np.int64)
    # Sets so small that each part of s codes has the bound 2s - 1 (at most P + 1 codes).
    small = 1
    while small + 1 < len(lb) and lb[small + 1] == 2 * small + 1:
        small += 1
    tiny = n <= small and nf <= 64
    counts = np.zeros(nf, dtype=np.int64)
    # Room for the consistent candidates; for all when the others are scored too.
    bounds = np.empty(ni, dtype=np.int64)
    biggest = np.empty(ni, dtype=np.int64)
    keys = np.empty(ni, dtype=np.int64)
    kept = np.empty(ni, dtype=np.int64)
    m = 0
    least = np.int64(1) << 62
    first = -1  # the first consistent candidate of least bound

    # Sweep 0: the consistent candidates, reading their rows directly.
    for q in range(ni):
        i = inside[q]
        if na > 1 and not lowest_of_orbit(digits, cands[i], present, absent, scratch):
            continue
        if not lowest_of_its_orbit(cands[i], palette, labels):
            continue
        g = cands[i]
        if tiny:
            b, big = _tiny_bound(rows, g, codes, n, 1)
        else:
            for f in range(nf):
                counts[f] = 0
            for j in range(n):
                counts[feedback(rows, g, codes[j])] += 1
            b, big = _bound(counts, lb, n, nf)
        if big < 0:
            continue  # does not help
        if b < least:
            least = b
            if b < limit:
                first = m
        if b >= limit:
            continue
        if b <= target and big <= 2 and first == m:
            kept[0] = i
            bounds[0] = b
            biggest[0] = big
            return kept[:1], bounds[:1], biggest[:1], b
        bounds[m] = b
        biggest[m] = big
        keys[m] = b * 2
        kept[m] = i
        m += 1
    # What every inconsistent guess costs at least: 2n; more, kind by kind, when codes
    # share their colors (the floors cost a pass over the kinds, so 2n is tried first).
    exact = first >= 0 and biggest[first] <= 2
    if exact and bounds[first] <= 2 * n:
        return kept[first : first + 1], bounds[first : first + 1], biggest[first : first + 1], least
    floor = _kind_floors(codes, kinds, common, pegs, small - 1, lb)
    outside = floor.min()
    if exact and bounds[first] <= outside:
        return kept[first : first + 1], bounds[first : first + 1], biggest[first : first + 1], least
    low = min(least, max(outside, target))
    if low >= limit:
        return kept[:0], bounds[:0], biggest[:0], low

    # Sweep 1: the other candidates whose kind's floor is below ``cap`` (the others' floors
    # go to ``least``): ``limit``, or the bound of a candidate of known cost (the first
    # consistent one if exact, an inconsistent one met with parts of two codes or less),
    # past which the search never goes. A tiny set's feedbacks read as they are needed
    # (its scan often stops at the first guess that leaves single codes), a block of the
    # set's rows gathered once (few codes), or part sizes counted code by code (many).
    cap = min(limit, bounds[first]) if exact else limit
    bounds, biggest = _room(bounds, m, k), _room(biggest, m, k)
    keys, kept = _room(keys, m, k), _room(kept, m, k)
    before = np.int64(1) << 62  # the least bound of the inconsistent candidates kept
    orbit = (digits, present, absent, na)
    live, nl, floored = _live(cands, inside, ni, floor, kinds, cap, orbit, palette)
    least = min(least, floored)
    table, sub = _tabled(cols, cands, codes, live, nl, nf, tiny)
    for a in range(nl):
        i = live[a]
        low_i = floor[kinds[cands[i]]]
        if low_i >= cap:
            least = min(least, low_i)
            continue
        if tiny:
            b, big = _tiny_bound(cols, cands[i], codes, n, 0)
        else:
            if n > _BIG:
                for f in range(nf):
                    counts[f] = table[a, f]
            else:
                for f in range(nf):
                    counts[f] = 0
                for j in range(n):
                    counts[sub[j, a]] += 1
            b, big = _bound(counts, lb, n, nf)
        if big < 0:
            continue
        if b < least:
            least = b
        if b >= cap:
            continue
        if big <= 2:
            # Known first in the order when no other guess can cost less and none of its
            # bound is kept before it.
            if b <= outside and b < before and (first < 0 or bounds[first] > b):
                kept[0] = i
                bounds[0] = b
                biggest[0] = big
                return kept[:1], bounds[:1], biggest[:1], b
            cap = b
        before = min(before, b)
        bounds[m] = b
        biggest[m] = big
        keys[m] = b * 2 + 1
        kept[m] = i
        m += 1
    order = _stable_order(keys[:m])
    return kept[:m][order], bounds[:m][order], biggest[:m][order], least


@njit(cache=True)
def _room(values, m, size):  # pragma: no cover - compiled
    """A new array of ``size`` starting with the first ``m`` of ``values``."""
    out = np.empty(size, dtype=values.dtype)
    out[:m] = values[:m]
    return out


@njit(cache=True)
def _stable_order(keys):  # pragma: no cover - compiled
    """The order that sorts ``keys`` keeping equal ones as they come: a counting sort
    when their range is small (bounds are), else a merge sort."""
    m = len(keys)
    if m == 0:
        return np.empty(0, dtype=np.int64)
    lo, hi = keys.min(), keys.max()
    if hi - lo > 4 * m + 64:
        return np.argsort(keys, kind="mergesort")
    start = np.zeros(hi - lo + 2, dtype=np.int64)
    for q in range(m):
        start[keys[q] - lo + 1] += 1
    for v in range(1, len(start)):
        start[v] += start[v - 1]
    order = np.empty(m, dtype=np.int64)
    for q in range(m):
        v = keys[q] - lo
        order[start[v]] = q
        start[v] += 1
    return order


@njit(cache=True)
def _bound(counts, lb, n, nf):  # pragma: no cover - compiled
    """``(bound, biggest)`` from part sizes; biggest -1: the guess does not help."""
    b = np.int64(n)
    big = 0
    for f in range(1, nf):
        s = counts[f]
        if s > 0:
            b += lb[s]
            if s > big:
                big = s
    if counts[0] == 0 and big == n:
        return b, -1
    return b, big


@njit(cache=True)
def three_guess_bounds(rows, cands, codes, nf, most, scale):  # pragma: no cover - compiled
    """For a set to solve within three guesses with the fewest codes at the third:
    ``(fit, least)``, the candidates (indices into ``cands``) whose non-win parts have at
    most ``most`` codes each and that help, and the least cost of each, ``scale * n`` plus
    ``(2s - 1) * scale + s - 1`` per part of ``s`` codes (exact when a guess of the part
    leaves single codes)."""
    n, k = len(codes), len(cands)
    # Code by code, the candidates in ascending order: a row of the table read in order.
    counts = np.zeros((k, nf), dtype=np.int32)
    for j in range(n):
        for i in range(k):
            counts[i, by_secret(rows, codes[j], cands[i])] += 1
    fit = np.empty(k, dtype=np.int64)
    least = np.empty(k, dtype=np.int64)
    m = 0
    for i in range(k):
        cost = scale * n
        ok = True
        for f in range(1, nf):
            s = np.int64(counts[i, f])
            if s > most or s == n:
                ok = False
                break
            if s > 0:
                cost += (2 * s - 1) * scale + s - 1
        if ok:
            fit[m] = i
            least[m] = cost
            m += 1
    return fit[:m], least[:m]


@njit(cache=True)
def _tiny_bound(block, g, codeidx, n, by_row):  # pragma: no cover - compiled
    """``(bound, biggest)`` when every part of s codes is bounded by 2s - 1: the bound is
    ``3n - 2 (win) - parts``, and "at most two codes per part" only needs which parts
    repeat (bit sets of feedbacks). Reads ``block[g, codeidx[j]]`` (``by_row``) or
    ``block[codeidx[j], g]``; biggest is 1, 2 or 3 (3 or more), -1 when the guess does
    not help."""
    one = np.uint64(1)
    seen = np.uint64(0)
    dup = np.uint64(0)
    tri = np.uint64(0)
    for j in range(n):
        f = feedback(block, g, codeidx[j]) if by_row else by_secret(block, codeidx[j], g)
        bit = one << np.uint64(f)
        tri |= dup & bit
        dup |= seen & bit
        seen |= bit
    win = np.int64(seen & one)
    parts = popcount(seen & ~one)
    if win == 0 and parts == 1:
        return np.int64(0), -1
    big = 3 if tri & ~one else 2 if dup & ~one else 1
    return 3 * n - 2 * win - parts, big


@njit(cache=True)
def split(rows, guess, codeidx, codes, nf):  # pragma: no cover - compiled
    """The parts of ``codes`` by their feedback to candidate row ``guess``:
    ``(grouped, sizes, label)``. ``grouped``: the non-win codes, part after part, smallest
    part first (ties by feedback), each part in the order of ``codes``; ``sizes``: the
    part sizes in that order; ``label``: per code, the index of the first code of its part
    (-1 for the win), which tells two guesses with the same partition."""
    n = len(codes)
    fb = np.empty(n, dtype=np.int64)
    counts = np.zeros(nf, dtype=np.int64)
    first = np.full(nf, -1, dtype=np.int64)
    label = np.empty(n, dtype=np.int32)
    for j in range(n):
        f = feedback(rows, guess, codeidx[j])
        fb[j] = f
        counts[f] += 1
        if f == 0:
            label[j] = -1
        else:
            if first[f] < 0:
                first[f] = j
            label[j] = first[f]
    parts = np.empty(nf, dtype=np.int64)
    p = 0
    for f in range(1, nf):
        if counts[f] > 0:
            parts[p] = f
            p += 1
    keys = np.empty(p, dtype=np.int64)
    for q in range(p):
        keys[q] = counts[parts[q]] * nf + parts[q]
    parts = parts[:p][np.argsort(keys)]
    start = np.zeros(nf, dtype=np.int64)
    sizes = np.empty(p, dtype=np.int64)
    pos = 0
    for q in range(p):
        f = parts[q]
        start[f] = pos
        sizes[q] = counts[f]
        pos += counts[f]
    grouped = np.empty(pos, dtype=codes.dtype)
    for j in range(n):
        f = fb[j]
        if f != 0:
            grouped[start[f]] = codes[j]
            start[f] += 1
    return grouped, sizes, label


@njit(cache=True)
def _candidates(codes, bound, low, game, palette):  # pragma: no cover - compiled
    """``(cands, kept, bounds, biggest, least)``: the search's candidates on ``codes``,
    scored and ordered (:func:`score`; the mixed pool's filter after)."""
    every, consistent, impossible = game[2], game[7], game[8]
    cands = codes if consistent and impossible == 0 else every
    kept, bounds, biggest, least = score(cands, codes, bound, low, game, palette)
    if impossible > 0:
        kept, bounds, biggest = mixed(kept, bounds, biggest, cands, codes, impossible)
    return cands, kept, bounds, biggest, least


@njit(cache=True)
def _below(palette, g):  # pragma: no cover - compiled
    """The palette of the nodes below guess ``g``: the symmetries that also fix it."""
    p = palette
    kp, kl = fixing(p.pis, p.luts, p.played, g, p.digits)
    return Palette(p.masks, p.distinct, p.every, p.digits, np.uint32(p.played | p.masks[g]), kp, kl)


def below(palette: Palette, g: int) -> Palette:
    """:func:`_below` for Python callers, its scalars back as ``uint32`` (numba returns
    them as Python ints, which the kernels would type as another palette)."""
    got = _below(palette, g)
    return got._replace(every=np.uint32(got.every), played=np.uint32(got.played))


@njit(cache=True, inline="always")
def scratch(candidates, n, nf):  # pragma: no cover - compiled
    """A set's work arrays in the searches' candidate loop: the partitions tried (labels
    and their hashes, see :func:`repeats`) and each part's start, size and bound."""
    tried = np.empty((min(candidates, 8), n), dtype=np.int32)
    tried_h = np.empty(candidates, dtype=np.uint64)
    starts = np.empty(nf, dtype=np.int64)
    lens = np.empty(nf, dtype=np.int64)
    lows = np.empty(nf, dtype=np.int64)
    return tried, tried_h, starts, lens, lows


@njit(cache=True, inline="always")
def repeats(tried, tried_h, ntried, label):  # pragma: no cover - compiled
    """``(tried, ntried, again)``: whether a guess splits the set as one already tried
    (``label``, each code's part; then it costs the same and is skipped), else the
    partition added to those tried (``tried`` grown when full)."""
    h = set_hash(label)
    for t in range(ntried):
        if tried_h[t] == h and np.array_equal(tried[t], label):
            return tried, ntried, True
    if ntried == len(tried):
        tried = np.concatenate((tried, np.empty_like(tried)))
    tried[ntried] = label
    tried_h[ntried] = h
    return tried, ntried + 1, False


@njit(cache=True, inline="always")
def part_bounds(n, grouped, sizes, memo, base, lb, depth, starts, lens, lows):  # pragma: no cover
    """``(total, rest, m)`` of a candidate's parts (``grouped`` by ``sizes``) on a set of
    ``n`` codes: ``total``, ``n`` and the exact cost of its parts of one or two codes;
    ``rest``, the best bounds the memo knows of its ``m`` other parts (``lows``, at
    ``starts`` with ``lens``) searched within ``depth`` guesses (-1: no limit, ``base``
    read too); ``m`` is -1 when a part is known to have no subtree within them."""
    total = np.int64(n)
    rest = np.int64(0)
    m = 0
    pos = 0
    for s in sizes:
        if s <= 2:
            total += 2 * s - 1
        else:
            part = grouped[pos : pos + s]
            if depth < 0:
                cost, guess, lower = lookup_both(memo, base, part)
            else:
                cost, guess, lower = lookup(memo, within_key(part, depth))
                if guess < 0 and lower >= MOST:
                    return total, rest, -1
            lows[m] = cost if guess >= 0 else max(lb[s], lower)
            starts[m] = pos
            lens[m] = s
            rest += lows[m]
            m += 1
        pos += s
    return total, rest, m


#: Parts of more codes than this are not looked at by :func:`fewer_parts` (it reads
#: ``s * s`` feedbacks for a part of ``s`` codes).
FEWER_PARTS_CODES = 48


@njit(cache=True, inline="always")
def perfect_codes(lb, nf):  # pragma: no cover - compiled
    """``P + 1``: the most codes a set may have for its perfect-split bound to be
    ``2s - 1``; 0 where feedbacks do not fit the bits of a word (:func:`fewer_parts` is
    then not tried)."""
    if nf > 64:
        return 0
    small = 1
    while small + 1 < len(lb) and lb[small + 1] == 2 * small + 1:
        small += 1
    return small


@njit(cache=True, inline="always")
def fewer_parts(rows, grouped, lb, small, m, starts, lens, lows):  # pragma: no cover
    """Raise the bounds of the parts (``lows``, at ``starts`` with ``lens``, as
    :func:`part_bounds` gives them) that the perfect split bounds (``LB(s)``), of 3 to
    :data:`FEWER_PARTS_CODES` codes, where their own codes split them into fewer parts
    than it counts; the sum of the raises.

    ``LB(s) = s + split(s - 1, P)``: a first guess of the part solves one code and splits
    the rest into at most ``P`` parts (``small - 1``), each bounded by ``LB``, evenly at
    best (:func:`_split_bound`). A guess of the part splits the others into at most
    ``k`` parts, the most any of its codes makes (``s - 1`` when one tells every other
    apart), so it costs at least ``s + split(s - 1, k)``; a guess from outside solves no
    code at once: ``s + split(s, P)``. The least of the two bounds the part."""
    one = np.uint64(1)
    parts = small - 1
    raised = np.int64(0)
    if small == 0:
        return raised
    for p in range(m):
        s = lens[p]
        if s > FEWER_PARTS_CODES or lows[p] != lb[s]:
            continue
        start = starts[p]
        # Enough parts for the perfect split: no raise.
        enough = min(parts, s - 1)
        most = 0
        for a in range(start, start + s):
            seen = np.uint64(0)
            for c in range(start, start + s):
                if c != a:
                    seen |= one << np.uint64(feedback(rows, grouped[a], grouped[c]))
            k = popcount(seen)
            if k > most:
                most = k
                if most >= enough:
                    break
        if most >= enough:
            continue
        low = s + min(_split_bound(s - 1, max(most, 1), lb), _split_bound(s, parts, lb))
        if low > lows[p]:
            raised += low - lows[p]
            lows[p] = low
    return raised


@njit(cache=True, inline="always")
def opening(n, bound, lower, lb, meta):  # pragma: no cover - compiled
    """``(low, go)``: a set of ``n`` codes' lower bound (its perfect split's, or ``lower``
    from the memo), and whether to search it: the bound is below ``bound`` and the node is
    counted against the budget (:func:`~evo.search.memo_kernel.counted`; else low 0)."""
    low = max(lb[n], lower)
    if low >= bound:
        return low, False
    if not counted(meta):
        return np.int64(0), False
    return low, True


@njit(cache=True, inline="always")
def next_split(q, codes, scored, best, best_g, game, memo, base, limits, work, tried, ntried):
    """From the ``q``-th candidate on (``scored``: :func:`_candidates`'), the next guess
    worth searching on ``codes``: ``(q, g, best, best_g, grouped, total, rest, m, tried,
    ntried)``, its split's parts (:func:`split`) and their bounds (:func:`part_bounds`,
    then :func:`fewer_parts`); ``q``, where to go on from, is -1 when the search of the
    set ends: a bound reaches ``best`` (the later ones do too), or a guess's parts have
    one or two codes (its bound is its cost, the least left: the new ``best``). Passed
    over: a split tried already (:func:`repeats`), one with a part of more than ``fits``
    codes or with no subtree within ``depth`` guesses, and one whose bounds reach
    ``best``. ``game``, ``memo`` and ``base`` as :func:`search` takes them; ``limits``:
    ``(depth, fits, small)``; ``work``: :func:`scratch`'s but ``tried``."""
    cands, kept, bounds, biggest = scored[0], scored[1], scored[2], scored[3]
    rows, lb, nf = game[0], game[5], game[6]
    depth, fits, small = limits
    tried_h, starts, lens, lows = work
    n = len(codes)
    while q < len(kept):
        b = bounds[q]
        if b >= best:
            break
        g = cands[kept[q]]
        if biggest[q] <= 2:
            # Parts of one or two codes cost exactly their bound, the least left.
            best, best_g = b, g
            break
        q += 1
        grouped, sizes, label = split(rows, g, codes, codes, nf)
        if len(sizes) > 0 and sizes[len(sizes) - 1] > fits:
            continue  # its largest part cannot be solved within the guesses left
        tried, ntried, again = repeats(tried, tried_h, ntried, label)
        if again:
            continue
        # m < 0: a part is known to have no subtree within the guesses left.
        total, rest, m = part_bounds(n, grouped, sizes, memo, base, lb, depth, starts, lens, lows)
        if m < 0 or total + rest >= best:
            continue
        rest += fewer_parts(rows, grouped, lb, small, m, starts, lens, lows)
        if total + rest < best:
            return q, g, best, best_g, grouped, total, rest, m, tried, ntried
    z = np.int64(0)
    return -1, best_g, best, best_g, np.empty(0, codes.dtype), z, z, 0, tried, ntried


@njit(cache=True, nogil=True)
def search(codes, bound, memo, base, game, palette, symmetry):  # pragma: no cover - compiled
    """The exact search of :class:`evo.search.exact.Solver` (no depth limit) compiled
    whole: ``cost(codes)`` (sorted) when it is below ``bound``, else a lower bound ``>=
    bound``; the memo (:mod:`evo.search.memo_kernel`) kept on the way, and ``base`` (a
    memo it only reads, which other threads read too) looked up besides. ``game``: ``(rows,
    cols, every, digits, colors, lb, nf, consistent, impossible, kinds, common)``: the
    feedback sources, each code's pegs (``colors`` of them), the perfect-split bounds, the
    feedback count, the kinds of codes (:func:`evo.search.exact.code_kinds`), and the
    candidates: ``every`` code, or with
    ``consistent`` the set's own codes (and, with ``impossible``, the other codes of the
    ``impossible`` smallest bounds); one per orbit of the symmetries of ``palette``, which
    with ``symmetry`` are those of the node's history, extended guess by guess below it
    (else the identity throughout).

    It stops early, returning 0 and saying why in the memo's ``meta[STATUS]``, when the
    memo is full, the budget of nodes ``meta[BUDGET]`` (0: none) is spent or another
    thread set ``meta[STOP]``; what it stored is right, so the same call again (or with
    a lower bound) goes on from there."""
    n = len(codes)
    if n <= 2:
        return np.int64(2 * n - 1)
    lb, nf = game[5], game[6]
    meta = memo[4]
    known, guess, lower = lookup_both(memo, base, codes)
    if guess >= 0:
        return known
    low, go = opening(n, bound, lower, lb, meta)
    if not go:
        return low
    cands, kept, bounds, biggest, least = _candidates(codes, bound, low, game, palette)
    if len(kept) > 0 and bounds[0] < bound and biggest[0] <= 2:
        # The first candidate's parts have one or two codes: its bound is its cost, the
        # least (most sets end here).
        store_both(memo, base, codes, bounds[0], cands[kept[0]], ZERO)
        return bounds[0]
    best = bound
    best_g = np.int64(-1)
    tried, tried_h, starts, lens, lows = scratch(len(kept), n, nf)
    work = (tried_h, starts, lens, lows)
    small = perfect_codes(lb, nf)
    if small < 3:
        small = 0  # nothing to raise (or feedbacks beyond a word's bits)
    limits = (-1, n, small)
    scored = (cands, kept, bounds, biggest)
    ntried = 0
    q = 0
    while True:
        q, g, best, best_g, grouped, total, rest, m, tried, ntried = next_split(
            q, codes, scored, best, best_g, game, memo, base, limits, work, tried, ntried
        )
        if q < 0:
            break
        below = _below(palette, g) if symmetry else palette
        for p in range(m):
            rest -= lows[p]
            part = grouped[starts[p] : starts[p] + lens[p]]
            total += search(part, best - total - rest, memo, base, game, below, symmetry)
            if meta[STATUS] != 0:
                return np.int64(0)
            if total + rest >= best:
                break
        else:
            best, best_g = total, g
    if best_g >= 0:
        store_both(memo, base, codes, best, best_g, ZERO)
        return best
    low = max(low, bound, least)
    store_both(memo, base, codes, ZERO, NO_GUESS, low)
    return low


@njit(cache=True)
def kind_answers(codes, kinds, common, pegs):  # pragma: no cover - compiled
    """Per kind of guess ``kk`` (color multiset; a row of ``common``, the colors two kinds
    have in common) and number ``t`` of colors in common, how many of ``codes`` share
    ``t`` colors with a guess of that kind: ``out[kk * (pegs + 1) + t]``, each kind of
    code counted at most ``pegs`` times (more changes no bound of :func:`kind_part_count`).
    ``common`` is symmetric, so each kind of code adds along one row of it (in order in
    memory)."""
    n = len(codes)
    ks = np.empty(n, dtype=np.int32)
    for j in range(n):
        ks[j] = kinds[codes[j]]
    ks.sort()
    w = pegs + 1
    per_t = np.zeros(len(common) * w, dtype=np.int32)
    j = 0
    while j < n:  # the runs of one kind in ``ks``
        k = j
        while k < n and ks[k] == ks[j]:
            k += 1
        row = common[ks[j]]
        m = min(k - j, pegs)
        for kk in range(len(common)):
            per_t[kk * w + row[kk]] += m
        j = k
    return per_t


@njit(cache=True)
def kind_part_count(per_t, kk, pegs):  # pragma: no cover - compiled
    """The most non-win parts a guess of kind ``kk`` makes of the codes counted in
    ``per_t`` (:func:`kind_answers`): the codes that share ``t`` colors with it answer it
    in at most ``t + 1`` ways (``pegs - 1`` non-win ways for ``t = pegs``)."""
    at = kk * (pegs + 1)
    u = min(per_t[at + pegs], pegs - 1)
    for t in range(pegs):
        u += min(per_t[at + t], t + 1)
    return u


@njit(cache=True)
def _kind_floors(codes, kinds, common, pegs, most, lb):  # pragma: no cover - compiled
    """Per kind of guess (color multiset), a lower bound of the bound of a guess of that
    kind that is not among ``codes``: its parts are at most :func:`kind_part_count`'s
    (and ``most``), split evenly at best. ``2n`` for every kind when ``common`` is empty
    (too many kinds to keep it)."""
    n = len(codes)
    nk = len(common)
    if nk == 0:
        return np.full(1, 2 * n, dtype=np.int64)
    per_t = kind_answers(codes, kinds, common, pegs)
    floor = np.empty(nk, dtype=np.int64)
    for kk in range(nk):
        parts = kind_part_count(per_t, kk, pegs)
        floor[kk] = n + _split_bound(n, max(min(parts, most), 1), lb)
    return floor


@njit(cache=True)
def _split_bound(k, parts, lb):  # pragma: no cover - compiled
    """The least ``sum lb[s]`` over splits of ``k`` codes into at most ``parts`` parts:
    the even split (``lb`` is convex)."""
    if k <= parts:
        return np.int64(k)
    q, r = k // parts, k % parts
    return r * lb[q + 1] + (parts - r) * lb[q]


@njit(cache=True)
def mixed(kept, bounds, biggest, cands, codes, impossible):  # pragma: no cover - compiled
    """The scored candidates of the mixed pool: the consistent ones, and the others whose
    bound is among the ``impossible`` smallest bounds of the others (every candidate of
    such a bound: the same class whatever the candidates' symmetries)."""
    m = len(kept)
    inside = np.zeros(m, dtype=np.bool_)
    out = np.empty(m, dtype=np.int64)
    k = 0
    for q in range(m):
        c = cands[kept[q]]
        i = np.searchsorted(codes, c)
        inside[q] = i < len(codes) and codes[i] == c
        if not inside[q]:
            out[k] = bounds[q]
            k += 1
    limit = -1
    if k > 0:
        distinct = np.unique(out[:k])
        limit = distinct[min(impossible, len(distinct)) - 1]
    keep = inside | (bounds <= limit)
    return kept[keep], bounds[keep], biggest[keep]


@njit(cache=True)
def harvest(codes, memo, base, rows, nf, out, pos):  # pragma: no cover - compiled
    """Write the guesses the memo (or ``base``) knows for ``codes`` and the parts below,
    in preorder (parts in :func:`split`'s order; sets of one or two codes have none: their
    lower code is guessed), to ``out`` from ``pos``; the position after them, or -1 when
    the memos miss a set."""
    n = len(codes)
    if n <= 2:
        return pos
    _, guess, _ = lookup_both(memo, base, codes)
    if guess < 0:
        return np.int64(-1)
    out[pos] = guess
    pos += 1
    grouped, sizes, _ = split(rows, guess, codes, codes, nf)
    p = 0
    for s in sizes:
        pos = harvest(grouped[p : p + s], memo, base, rows, nf, out, pos)
        if pos < 0:
            return pos
        p += s
    return pos


@njit(cache=True)
def plant(codes, guesses, pos, memo, rows, nf, m):  # pragma: no cover - compiled
    """Store in the memo the subtree whose guesses :func:`harvest` wrote (from ``pos``),
    each set with its cost: ``(cost, position after it)``; cost -1 when the guesses do not
    make a subtree of ``codes`` (too few, not codes of the game's ``m``, or one that does
    not help), -2 when the memo is full (grow it, plant again)."""
    n = len(codes)
    if n <= 2:
        return np.int64(2 * n - 1), pos
    if pos >= len(guesses) or guesses[pos] < 0 or guesses[pos] >= m:
        return np.int64(-1), pos
    g = guesses[pos]
    pos += 1
    grouped, sizes, _ = split(rows, g, codes, codes, nf)
    if len(grouped) == n and len(sizes) == 1:
        return np.int64(-1), pos  # one part, no win: the guess tells nothing
    total = np.int64(n)
    p = 0
    for s in sizes:
        cost, pos = plant(grouped[p : p + s], guesses, pos, memo, rows, nf, m)
        if cost < 0:
            return cost, pos
        total += cost
        p += s
    if not store(memo, codes, total, g, ZERO):
        return np.int64(-2), pos
    return total, pos
