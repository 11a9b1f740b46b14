"""Run management: run directories (:mod:`~evo.runs.rundir`), checkpoints
(:mod:`~evo.runs.checkpoint`), progress, summaries. The evolution engine
(:mod:`evo.ea`) knows nothing of them."""
