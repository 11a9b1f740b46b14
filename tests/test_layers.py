"""The house's order (docs/DESIGN.md §6, "Layers"): every import inside evo, at the top of a
module or inside a function (the lazy ones count: they run), goes to a module of the same
layer or a lower one, and no modules import each other in a circle. Read from the code's
own imports (``ast``), so that the picture in the docs cannot drift from the code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EVO = ROOT / "evo"


def documented_layers() -> dict[str, int]:
    """The layers DESIGN.md §6 lists, bottom up: each folder (``evo/core/``) or module
    (``evo/api.py``) to its layer's number."""
    text = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    block = re.search(r"\*\*Layers\*\*.*?```\n(.*?)```", text, re.S)
    assert block, "DESIGN.md §6 has no **Layers** block"
    layers = {}
    for line in block.group(1).splitlines():
        number, *places = line.split()
        for place in places:
            layers[place] = int(number)
    return layers


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in EVO.rglob("*.py")}


def place(module: str) -> str:
    """The folder (``evo/core/``) or top-level module (``evo/api.py``) of a module."""
    parts = module.split(".")
    if len(parts) > 1 and (EVO / parts[1]).is_dir():
        return f"evo/{parts[1]}/"
    return "evo/__init__.py" if module == "evo" else f"evo/{parts[1]}.py"


def _target(name: str) -> str | None:
    """The evo module an imported name lies in (a package's names: its ``__init__``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str) -> set[str]:
    """The evo modules ``module`` imports, anywhere in it but under ``TYPE_CHECKING``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    typing_only = {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }
    out: set[str | None] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {_target(a.name) for a in node.names if a.name.split(".")[0] == "evo"}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "evo":
                continue
            for a in node.names:
                full = f"{node.module}.{a.name}"
                out.add(_target(full if full in MODULES else node.module))
    out -= {None, module}
    return {m for m in out if m is not None}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Every evo module to the evo modules it imports: read when a test asks for it, not
    at collection (which every xdist worker does, most of them running none of these)."""
    return {m: imports(m) for m in MODULES}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_modules_import_each_other_in_a_circle(graph):
    assert circles(graph) == []


def test_every_import_goes_down_the_documented_layers(graph):
    layers = documented_layers()
    unplaced = sorted({place(m) for m in MODULES} - set(layers))
    assert not unplaced, f"not in DESIGN.md's layers: {unplaced}"
    upward = [
        f"{m} -> {t}"
        for m, targets in graph.items()
        for t in sorted(targets)
        if layers[place(t)] > layers[place(m)]
    ]
    assert upward == []


def test_the_games_sit_in_their_room_and_core_imports_none(graph):
    assert (EVO / "games").is_dir()
    core = [m for m in MODULES if m.startswith("evo.core")]
    assert all(not t.startswith("evo.games") for m in core for t in graph[m])


def test_the_checker_sees_a_circle_and_an_upward_import():
    # The checks themselves can fail: a circle of two, and a core module importing a game.
    assert circles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    layers = documented_layers()
    assert layers["evo/core/"] < layers["evo/games/"] < layers["evo/cli/"]


@pytest.mark.parametrize("line", ["from evo.games import pegs", "import evo.games.words"])
def test_an_import_inside_a_function_counts(tmp_path, line, monkeypatch):
    source = f"def f():\n    {line}\n"
    monkeypatch.setitem(MODULES, "evo.core.probe", tmp_path / "probe.py")
    (tmp_path / "probe.py").write_text(source)
    assert any(t.startswith("evo.games") for t in imports("evo.core.probe"))
