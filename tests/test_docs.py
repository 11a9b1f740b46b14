"""The API reference of `make docs` builds, and documents the public names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_api_reference_builds(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "api_doc.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "evo.html").read_text()
    for name in ("make_game", "baseline", "random_breaker", "evolve", "load_tree", "save_tree",
                 "register_operator", "Breaker", "Evolution"):  # fmt: skip
        assert f'id="{name}"' in page, name
    assert (tmp_path / "evo" / "ea" / "operators.html").exists()
    assert (tmp_path / "index.html").exists()
