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


def proves_no_more(game, doc: dict, optimum: int) -> None:
    """An edited certificate ``doc`` of ``game``: ``--check`` refuses it or proves at most
    ``optimum``, and so does going on from it (optimal only at the optimum)."""
    from evo.proofs.bound import CertificateError, check_certificate
    from evo.proofs.refine import lower_bound

    try:
        assert check_certificate(doc, game=game).lower_bound <= optimum
    except CertificateError:
        pass
    try:
        resumed = lower_bound(game, resume=doc)
    except CertificateError:
        return
    assert resumed.lower_bound <= optimum
    assert not resumed.optimal or resumed.lower_bound == optimum
