"""The tour notebook runs as a user would run it, and is stored without outputs."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from evo.core.treeio import load_tree

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "tour.ipynb"


def test_the_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.slow
def test_the_tour_runs_and_writes_only_what_it_says(tmp_path, monkeypatch):
    """The tour on (4,7) with an 8 s budget (EVO_TOUR_SECONDS): the baselines' table,
    an evolution that has work to do (it starts above Knuth's total and improves), the
    breaker saved and read back, the tree drawn, the explorer written; nothing else."""
    monkeypatch.setenv("EVO_TOUR_SECONDS", "8")
    monkeypatch.setenv("MPLBACKEND", "agg")
    monkeypatch.delenv("EVO_CACHE", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    texts = "".join(o.get("text", "") for o in outputs)
    assert "Knuth: 11613, the optimum: 11228" in texts  # published figures of (4,7)
    tables = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<th>optimal</th>" in t and "11228" in t and "11613" in t for t in tables)
    assert "stopped by seconds after" in texts or "stopped by target_total" in texts
    line = next(ln for ln in texts.splitlines() if ln.startswith("best total per generation"))
    best = [int(x) for x in line.split(":")[1].strip(" []").split(",")]
    assert best[0] > 11613 and 11228 <= best[-1] < best[0]  # random breakers, then better
    assert best == sorted(best, reverse=True)
    drawn = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert drawn, "the best tree did not draw itself"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best-4-7.json", "explore.html"]
    saved = load_tree(tmp_path / "best-4-7.json")
    assert f"read back with total {saved.total}, the same tree: True" in texts
    assert saved.total == best[-1]
    page = (tmp_path / "explore.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and '"name":"knuth"' in page.replace('": "', '":"')
    assert any('src="explore.html"' in o["data"].get("text/html", "") for o in outputs
               if "data" in o)  # fmt: skip
    assert "regrow only:" in texts and "with best-of-three:" in texts  # the own mutation ran
    assert os.environ.get("EVO_CACHE") is None
