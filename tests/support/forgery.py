"""How a forger keeps an edited certificate of `evo bound` consistent: each class's
total and the lower bound computed again from the parts' bounds, so that only the
re-proof of a part can catch the edit."""

from __future__ import annotations


def consistent_totals(data: dict) -> dict:
    """``data`` with each class total (the codes plus its parts' bounds) and the lower
    bound (the least class total) computed again from its entries, in place."""
    for c in data["classes"]:
        c["total"] = data["codes"] + sum(p["bound"] for p in c["parts"])
    data["lower_bound"] = min(c["total"] for c in data["classes"])
    return data
