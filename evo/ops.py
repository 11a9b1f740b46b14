"""The pieces an operator of one's own is made of, as DEAP's ``tools`` are for its own:
pick a node worth changing, grow or replay a subtree for its code set, and splice it
back (or offer it, keeping the current subtree when the new one is worse).

A mutation of one's own, registered and named in a config::

    import evo
    from evo.ops import grow, offer, pick_node

    def regrow_best_of_two(tree, *, rng, pool="all"):
        node = pick_node(tree, rng=rng)              # a node of 3 codes or more, or None
        if node is None:
            return tree                              # nothing to do: the same object
        codes = tree.code_set(node)
        subs = [grow(tree.game, codes, rng=rng, pool=pool) for _ in range(2)]
        return offer(tree, node, min(subs, key=lambda s: s.total), keep_current=True)

    evo.register_operator("best-of-two", regrow_best_of_two)
    evo.evolve(game, {"mutation": {"operators": [{"kind": "best-of-two"}]}})

In a game with a rule on guesses (a custom game's ``legal``, Wordle's hard mode), a
subtree's legal guesses depend on the guesses above it: pass
``history=tuple(tree.used_guesses(node))`` to :func:`grow` and :func:`replay`.

>>> import evo, numpy as np
>>> game, rng = evo.make_game(3, 3), np.random.default_rng(1)
>>> tree = grow(game, game.all_codes(), rng=rng)  # a random breaker
>>> node = pick_node(tree, rng=rng)
>>> sub = grow(tree.game, tree.code_set(node), rng=rng)
>>> new = splice(tree, node, sub)
>>> bool(new.total == tree.total - tree.subtree_totals()[node] + sub.total)
True
"""

from __future__ import annotations

from evo.core.growth import Template, build_exact, grow, replay
from evo.ea.nodes import candidate_nodes, pick_node
from evo.ea.variation import offer, splice

__all__ = [
    "Template",
    "build_exact",
    "candidate_nodes",
    "grow",
    "offer",
    "pick_node",
    "replay",
    "splice",
]
