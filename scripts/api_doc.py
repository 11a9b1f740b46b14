"""The API reference, generated from the docstrings by pdoc: the one page of ``import evo``
first, then the packages inside for those who extend evo. ``make docs`` writes it into
``docs/api/``::

    .venv/bin/python scripts/api_doc.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import pdoc

#: What the reference covers: the public API, then the layers from the bottom up.
MODULES = [
    "evo",
    "evo.core",
    "evo.search",
    "evo.baselines",
    "evo.ea",
    "evo.runs",
    "evo.show",
    "evo.config",
]


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/api")
    pdoc.render.configure(docformat="restructuredtext", show_source=False)
    pdoc.pdoc(*MODULES, output_directory=out)
    print(out / "index.html")


if __name__ == "__main__":
    main()
