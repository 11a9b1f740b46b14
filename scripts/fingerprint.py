"""Fingerprints of runs and baseline trees: a restructuring must leave them unchanged.

Runs a few shipped configs for a fixed number of generations (one worker, no run
directory) and builds a few baseline trees; prints one SHA-256 per item, of the logbook
and the best tree's arrays. Compare the output before and after a change::

    .venv/bin/python scripts/fingerprint.py > before.txt   # on the old commit
    .venv/bin/python scripts/fingerprint.py | diff before.txt -
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np

from evo.config import load_config

try:
    from evo.core.game import make_game
    from evo.runs.driver import run_config
except ImportError:  # older layouts, to fingerprint an earlier commit
    from evo.game import make_game  # type: ignore[no-redef]

    from evo.ea import evolve as run_config  # type: ignore[no-redef]

RUNS = [
    ("configs/quick.yaml", 12),
    ("configs/mastermind-3-3.yaml", 20),
    ("configs/mastermind-4-6.yaml", 3),
    ("configs/mastermind-4-6-pareto.yaml", 4),
    ("configs/bulls-cows-3.yaml", 8),
]
BASELINES = [
    ((4, 6, "mastermind"), ["knuth", "irving", "kooi", "entropy", "knuth-consistent", "lc", "rc"]),
    ((3, 4, "mastermind"), ["optimal"]),
    ((4, 4, "mastermind"), ["optimal"]),
    ((3, 6, "bulls-cows"), ["optimal", "least-frequent", "separating"]),
]


def tree_digest(tree) -> str:
    h = hashlib.sha256()
    for a in (tree.guess, tree.label, tree.parent, tree.count, tree.codes, tree.terminal):
        h.update(np.ascontiguousarray(a).astype(np.int64).tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    only = sys.argv[1:]
    for path, gens in RUNS:
        if only and not any(o in path for o in only):
            continue
        cfg = load_config(path, [f"stop.generations={gens}", "stop.seconds=null", "workers=1"])
        res = run_config(cfg, progress=False, knuth=False)
        records = [{k: v for k, v in dict(r).items()} for r in res.state.logbook]
        lb = hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()[:16]
        best = tree_digest(res.best)
        print(f"run {path} gens={gens} total={res.best.total} logbook={lb} best={best}")
    if only:
        return
    from evo.baselines import run as run_baseline

    for (p, c, v), names in BASELINES:
        game = make_game(p, c, v)
        for name in names:
            b = run_baseline(game, name, use_cache=False)
            print(f"baseline {v} {p},{c} {name} total={b.tree.total} tree={tree_digest(b.tree)}")


if __name__ == "__main__":
    main()
