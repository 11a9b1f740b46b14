"""The numbers users give (counts, seeds, seconds, GiB), checked in one place: a bool is
not a number, NumPy's scalars are, and NaN or infinity is refused with a line naming the
argument (NaN compares false with every limit: it would turn a limit off)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

#: The largest memory budget taken as given, in bytes (larger ones mean "no budget", as
#: the machine's own limit applies anyway); keeps ``GiB * 2**30`` a finite integer.
MAX_BUDGET_BYTES = 1 << 62


def whole(value: Any, *, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int (a Python or NumPy integer, not a bool); ValueError naming
    ``what`` and the range otherwise."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if ok:
        value = int(value)
        ok = (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        span = (
            f" from {low} to {high}"
            if low is not None and high is not None
            else f" from {low} up"
            if low is not None
            else ""
        )
        raise ValueError(f"{what} must be a whole number{span}, not {value!r}")
    return int(value)


def positive(value: Any, *, what: str, unit: str = "") -> float:
    """``value`` as a finite float above 0 (an int, a float or a NumPy number; not a
    bool, NaN or infinity); ValueError naming ``what`` otherwise."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    number = float(value) if ok else math.nan
    if not (math.isfinite(number) and number > 0):
        units = f" of {unit}" if unit else ""
        raise ValueError(f"{what} must be a finite number{units} above 0, not {value!r}")
    return number


def budget_bytes(gib: Any, *, what: str) -> int:
    """A memory budget given in GiB, as bytes (at least 1; at most
    :data:`MAX_BUDGET_BYTES`); ValueError naming ``what`` unless a finite number above 0."""
    gib = positive(gib, what=what, unit="GiB")
    return max(1, min(MAX_BUDGET_BYTES, math.ceil(min(gib, 2.0**32) * 2**30)))


def env_count(name: str, environ: Mapping[str, str], *, high: int) -> int | None:
    """A count from the environment variable ``name`` (None when unset or empty);
    ValueError naming it when it is not a whole number from 1 to ``high``."""
    text = environ.get(name, "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit() and len(text) < 19 and 1 <= int(text) <= high):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f"{name} must be a whole number from 1 to {high}, not {shown!r}")
    return int(text)
