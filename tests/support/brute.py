"""The least total and the least worst case of a game, by trying every guess at every
node (docs/DESIGN.md §2), on the game's own labels and feedback function: nothing of
evo's tables, kernels, symmetries or bounds. For games of a few dozen codes."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cache


def least(
    secrets: Sequence[Hashable],
    feedback: Callable[[Hashable, Hashable], Hashable],
    *,
    guesses: Sequence[Hashable] | None = None,
    worst: bool = False,
    legal: Callable[[Hashable, Hashable, Hashable], bool] | None = None,
    first: Hashable | None = None,
    within: int | None = None,
) -> int:
    """The least total over every breaker of ``secrets`` (with ``worst``: the least
    worst case), every guess of ``guesses`` (the secrets by default) tried at every node;
    with ``legal(guess, earlier, answer)``, only the guesses it allows after every guess
    above (asked of each guess and pair of the path; a set is memoised with the guesses
    its path allows, which is all a path decides below it);
    ``first``: only the breakers that open with this guess; ``within``: only those that
    solve every code within that many guesses (a float infinity when none does)."""
    secrets = list(secrets)
    every = list(guesses) if guesses is not None else secrets
    answers = [[feedback(g, s) for s in secrets] for g in every]
    index = {s: k for k, s in enumerate(every)}
    wins = [index[s] for s in secrets]  # the guess of each secret

    @cache
    def allowed_after(allowed: frozenset[int], g: int, answer: Hashable) -> frozenset[int]:
        """The guesses of ``allowed`` that ``legal`` still allows once ``g`` got ``answer``."""
        assert legal is not None
        return frozenset(h for h in allowed if legal(every[h], every[g], answer))

    @cache
    def cost(codes: frozenset[int], allowed: frozenset[int], only: int, left: int) -> int:
        if left <= 0:
            return float("inf")  # type: ignore[return-value]
        if len(codes) == 1 and only < 0:
            return 1
        best = None
        for g, row in enumerate(answers):
            if only >= 0 and g != only:
                continue
            if g not in allowed:
                continue
            parts: dict[Hashable, list[int]] = {}
            for s in codes:
                parts.setdefault(row[s], []).append(s)
            win = any(wins[s] == g for s in codes)
            if not win and len(parts) == 1 and only < 0:
                continue  # tells nothing (played all the same when it is the opening asked)
            rest = [
                (
                    frozenset(p),
                    allowed_after(allowed, g, row[p[0]]) if legal is not None else allowed,
                )
                for p in parts.values()
                if not (len(p) == 1 and wins[p[0]] == g)
            ]
            if worst:
                here = 1 + max((cost(*p, -1, left - 1) for p in rest), default=0)
            else:
                here = len(codes) + sum(cost(*p, -1, left - 1) for p in rest)
            if best is None or here < best:
                best = here
        assert best is not None
        return best

    only = -1 if first is None else index[first]
    everything = frozenset(range(len(every)))
    return cost(frozenset(range(len(secrets))), everything, only, within or len(secrets) + 1)
