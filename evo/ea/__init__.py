"""The evolution of breaker trees with DEAP, split by role as DEAP itself is.

- :mod:`~evo.ea.individuals`: the DEAP ``creator`` types (trees with a fitness);
- :mod:`~evo.ea.fitness`: what is minimised;
- :mod:`~evo.ea.nodes`, :mod:`~evo.ea.variation`: picking a node, splicing a subtree;
- :mod:`~evo.ea.crossover`, :mod:`~evo.ea.mutation`: the operators;
- :mod:`~evo.ea.operators`: the registry of operators by the config's kind names;
- :mod:`~evo.ea.toolbox`: the toolbox of a config and the breeding of a pair;
- :mod:`~evo.ea.workers`: the process pool and its seeded tasks;
- :mod:`~evo.ea.stats`, :mod:`~evo.runs.checkpoint`, :mod:`~evo.runs.summary`,
  :mod:`~evo.runs.progress`: what a run records and shows;
- :mod:`~evo.ea.loop`: :func:`evolve`, the generational loop.
"""

from evo.ea.loop import Result, RunInterrupted, evolve
from evo.ea.toolbox import build_toolbox
from evo.runs.checkpoint import CheckpointError

__all__ = ["CheckpointError", "Result", "RunInterrupted", "build_toolbox", "evolve"]
