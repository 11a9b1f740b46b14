"""Run every benchmarks/bench_*.py (its ``main()``), or those named on the command line.

    python benchmarks/run_all.py            # all of them
    python benchmarks/run_all.py growth     # benchmarks/bench_growth.py only

Each script prints a markdown section; copy it into benchmarks/RESULTS.md with the date.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(HERE.parent))
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    for script in scripts:
        spec = importlib.util.spec_from_file_location(script.stem, script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(f"\n<!-- {script.name} -->", flush=True)
        module.main()


if __name__ == "__main__":
    main(sys.argv[1:])
