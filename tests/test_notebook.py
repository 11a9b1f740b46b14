"""The tour notebook runs as a user would run it, and is stored without outputs."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "tour.ipynb"


def test_the_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def test_the_tour_runs_and_leaves_no_file(tmp_path, monkeypatch):
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
    assert "Knuth: 5801" in texts
    drawn = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert drawn, "the best tree did not draw itself"
    assert list(tmp_path.iterdir()) == []
    assert os.environ.get("EVO_CACHE") is None
