"""The evolution engine: breaker trees evolved with DEAP, split by role as DEAP itself is.

- :mod:`~evo.ea.individuals`: the DEAP ``creator`` types (trees with a fitness);
- :mod:`~evo.ea.fitness`: what is minimised;
- :mod:`~evo.ea.nodes`, :mod:`~evo.ea.variation`: picking a node, splicing a subtree;
- :mod:`~evo.ea.crossover`, :mod:`~evo.ea.mutation`: the operators;
- :mod:`~evo.ea.operators`: the registry of operators by name, and registration from Python;
- :mod:`~evo.ea.toolbox`: the toolbox of a config and the breeding of a pair;
- :mod:`~evo.ea.workers`: the process pool and its seeded tasks;
- :mod:`~evo.ea.stats`, :mod:`~evo.ea.state`, :mod:`~evo.ea.deadline`: what a generation
  records, what a run carries, and its time limit;
- :mod:`~evo.ea.loop`: the generational loop; :mod:`~evo.ea.islands` and
  :mod:`~evo.ea.cluster`: islands, and where their tasks run.

Run directories, checkpoints and progress are not here: :mod:`evo.runs` drives the engine.
"""
