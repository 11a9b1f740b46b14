"""Exhaustive-search primitives shared by the baselines and the evolution's operators.

- :mod:`~evo.search.partition`: feedback blocks, part sizes, candidate guesses of a pool;
- :mod:`~evo.search.symmetry`: the symmetries that fix a history (one guess per orbit);
- :mod:`~evo.search.build`: a player (a rule choosing a guess) turned into a tree;
- :mod:`~evo.search.lookahead`: one-step look-ahead scores and the look-ahead player;
- :mod:`~evo.search.exact`: the exact branch and bound (least total subtree).
"""
