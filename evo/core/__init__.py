"""The core: games and their feedback (:mod:`~evo.core.game`), breaker trees
(:mod:`~evo.core.tree`), random growth (:mod:`~evo.core.growth`), tree files
(:mod:`~evo.core.treeio`) and file helpers (:mod:`~evo.core.files`). Nothing here knows
of search, evolution or presentation."""
