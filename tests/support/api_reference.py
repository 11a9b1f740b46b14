"""Build the API reference (``scripts/api_doc.py``: its HTML into a folder, its Markdown
into a file) and print, one JSON line each, the warnings raised meanwhile: category, the
file that raised it, message (api_doc's own output goes to stderr).

    python tests/support/api_reference.py HTML_DIR MARKDOWN
"""

from __future__ import annotations

import contextlib
import json
import runpy
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_doc = runpy.run_path(str(ROOT / "scripts" / "api_doc.py"))
        with contextlib.redirect_stdout(sys.stderr):
            api_doc["main"](sys.argv[1:])
    for w in caught:
        record = {"category": w.category.__name__, "filename": w.filename}
        print(json.dumps({**record, "message": str(w.message)}))
