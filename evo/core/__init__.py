"""The core: the game's interface and feedback (:mod:`~evo.core.game`) with the registry
of game families (:mod:`~evo.core.families`; the games are in :mod:`evo.games`), breaker
trees (:mod:`~evo.core.tree`), random growth (:mod:`~evo.core.growth`), tree files
(:mod:`~evo.core.treeio`) and file helpers (:mod:`~evo.core.files`). Nothing here knows
of a game, search, evolution or presentation."""
