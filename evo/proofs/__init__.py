"""The proofs: lower bounds of the least total that no breaker beats, above the search.

- :mod:`~evo.proofs.bound`: the proved lower bound of a code set and of a first guess's
  part (the tasks), the whole game's bound, its certificates and their check;
- :mod:`~evo.proofs.refine`: the tasks' schedule (``evo bound``): best first, or where
  the gap to a breaker is;
- :mod:`~evo.proofs.bound_kernel`: its compiled helpers (the most parts a guess makes);
- :mod:`~evo.proofs.floors`: first guesses' floors planted in the exact search's memo.

Imports point one way: the proofs use :mod:`evo.search` and :mod:`evo.core`; neither
imports them.
"""
