"""The tour notebook: it uses only the public API, it is stored with the outputs of a run
(which show what its text says), and it runs as a user would run it.

To store it again after a change (about a minute; in a scratch folder, so that the files
it writes stay out of examples/)::

    .venv/bin/python -c "import nbformat, tempfile; from nbclient import NotebookClient as C;
    nb = nbformat.read('examples/tour.ipynb', 4); d = tempfile.mkdtemp();
    C(nb, timeout=900, record_timing=False, resources={'metadata': {'path': d}}).execute();
    nbformat.write(nb, 'examples/tour.ipynb')"
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import evo
import evo.ops
from evo.core.treeio import load_tree

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "tour.ipynb"

#: Published totals of (4,7): Knuth's strategy and the optimum.
KNUTH, OPTIMUM = 11613, 11228


def _code(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def _texts(nb) -> str:
    return "".join(o.get("text", "") for c in _code(nb) for o in c.outputs)


def _own_operator_lines(texts: str) -> dict[str, tuple[int, bool]]:
    """The demo's last lines: each run's best total, and whether it says it is below
    Knuth's."""
    line = r"^(regrow only|with [\w-]+): (\d+) after \d+ generations, (below|not below)"
    found = re.findall(line, texts, flags=re.M)
    return {name: (int(total), said == "below") for name, total, said in found}


def test_the_notebook_uses_only_the_public_api():
    """Imports of evo are ``evo`` and ``evo.ops``, and every ``evo.NAME`` is public
    (issue 51: it imported evo.core.growth, evo.ea.nodes and evo.show.explore)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    public = {"evo", "evo.ops"}
    for cell in _code(nb):
        tree = ast.parse(cell.source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
                if node.module == "evo.ops":
                    assert {a.name for a in node.names} <= set(evo.ops.__all__), cell.source
            else:
                modules = []
            inside = [m for m in modules if m == "evo" or m.startswith("evo.")]
            assert set(inside) <= public, inside
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id == "evo":
                    assert node.attr in evo.__all__, f"evo.{node.attr} is not public"


def test_the_notebook_is_stored_with_the_outputs_of_a_run():
    """Every code cell holds the outputs of one run in order, with no error, warning or
    path of the machine that ran it; they show the published figures, an evolution from
    random breakers to the optimum, and the mutation of its own ending below Knuth's
    strategy where random regrowths alone stay above it."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cells = _code(nb)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))
    assert all(c.outputs for c in cells), [c.source[:40] for c in cells if not c.outputs]
    outputs = [o for c in cells for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o for o in outputs if o.get("name") == "stderr"]  # warnings, compiling
    assert not re.search(r"/(work|tmp|home|root)/", nbformat.writes(nb))
    texts = _texts(nb)
    assert f"Knuth: {KNUTH}, the optimum: {OPTIMUM}" in texts
    line = next(ln for ln in texts.splitlines() if ln.startswith("best total per generation"))
    best = [int(x) for x in line.split(":")[1].strip(" []").split(",")]
    assert best[0] > KNUTH and best[-1] == OPTIMUM
    assert "stopped by target_total" in texts
    runs = _own_operator_lines(texts)
    assert runs["with irving-subtree"] == (runs["with irving-subtree"][0], True)
    assert runs["with irving-subtree"][0] < KNUTH < runs["regrow only"][0]
    assert not runs["regrow only"][1]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2 and any("image/svg+xml" in o.get("data", {}) for o in outputs)


@pytest.mark.heavy
def test_the_tour_runs_and_writes_only_what_it_says(tmp_path, monkeypatch):
    """The tour on (4,7) with a 30 s budget (EVO_TOUR_SECONDS; 5 s for each run of the
    mutation's demo): the baselines' table as stored, an evolution that has work to do
    (it starts above Knuth's total and improves), the breaker saved and read back, the
    tree drawn, the explorer written, the mutation of its own below Knuth's total in its
    5 s and better than random regrowths alone; nothing else written."""
    monkeypatch.setenv("EVO_TOUR_SECONDS", "30")
    monkeypatch.setenv("MPLBACKEND", "agg")
    monkeypatch.delenv("EVO_CACHE", raising=False)
    stored = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    outputs = [o for c in _code(nb) for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    texts = _texts(nb)
    assert f"Knuth: {KNUTH}, the optimum: {OPTIMUM}" in texts  # published figures of (4,7)
    tables = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<th>optimal</th>" in t and f"{OPTIMUM}" in t and f"{KNUTH}" in t for t in tables)
    for now, then in list(zip(_code(nb), _code(stored)))[:2]:  # the game and the table
        assert [o.get("text") or o.get("data") for o in now.outputs] == [
            o.get("text") or o.get("data") for o in then.outputs
        ], now.source[:40]
    assert "stopped by seconds after" in texts or "stopped by target_total" in texts
    line = next(ln for ln in texts.splitlines() if ln.startswith("best total per generation"))
    best = [int(x) for x in line.split(":")[1].strip(" []").split(",")]
    assert best[0] > KNUTH and OPTIMUM <= best[-1] < best[0]  # random breakers, then better
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
    runs = _own_operator_lines(texts)  # the own mutation ran, and helped
    assert runs["with irving-subtree"][0] < KNUTH and runs["with irving-subtree"][1]
    assert runs["with irving-subtree"][0] < runs["regrow only"][0]
    assert os.environ.get("EVO_CACHE") is None
