"""Atomic operations on NumPy array cells for compiled code that threads share.

numba has no atomics on the CPU; these emit LLVM's own (``atomicrmw``, ``cmpxchg``,
``fence``), so that threads running compiled searches at once can write one memo
(:func:`evo.search.memo_kernel.publish`) without locks and without pauses.
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _pointer(context, builder, aryty, ary, idx, idxty):
    array = context.make_array(aryty)(context, builder, ary)
    i = context.cast(builder, idx, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, array, [i], wraparound=False)


@intrinsic
def _fetch_add(typingctx, ary, idx, val):
    """``ary[idx] += val`` at once for every thread; the value before."""
    if not isinstance(ary, types.Array) or ary.ndim != 1:
        return None

    def codegen(context, builder, sig, args):
        aryty, idxty, valty = sig.args
        ptr = _pointer(context, builder, aryty, args[0], args[1], idxty)
        v = context.cast(builder, args[2], valty, aryty.dtype)
        return builder.atomic_rmw("add", ptr, v, "seq_cst")

    return ary.dtype(ary, idx, val), codegen


@intrinsic
def _compare_swap(typingctx, ary, idx, old, new):
    """``ary[idx] = new`` if it holds ``old``, at once for every thread; the value it held
    (``old`` when the swap was made)."""
    if not isinstance(ary, types.Array) or ary.ndim != 1:
        return None

    def codegen(context, builder, sig, args):
        aryty, idxty, oldty, newty = sig.args
        ptr = _pointer(context, builder, aryty, args[0], args[1], idxty)
        o = context.cast(builder, args[2], oldty, aryty.dtype)
        n = context.cast(builder, args[3], newty, aryty.dtype)
        pair = builder.cmpxchg(ptr, o, n, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return ary.dtype(ary, idx, old, new), codegen


@intrinsic
def _release(typingctx):
    """A release fence: the writes before it are seen by another thread before those
    after it (no instruction on x86, where it only keeps the compiler from reordering)."""

    def codegen(context, builder, sig, args):
        builder.fence("release")
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def _acquire(typingctx):
    """An acquire fence: the reads after it see what was written before the release
    fence whose writes the reads before it saw."""

    def codegen(context, builder, sig, args):
        builder.fence("acquire")
        return context.get_dummy_value()

    return types.void(), codegen


# The names the kernels call (typed loosely: a type checker cannot see through
# ``intrinsic``, which takes the typing context as a first argument of its own).
fetch_add: Any = _fetch_add
compare_swap: Any = _compare_swap
release: Any = _release
acquire: Any = _acquire
