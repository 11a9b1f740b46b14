"""Every public name has a short example in its docstring, and the examples run
(doctest): the names of ``evo.__all__`` and ``evo.ops``, and the public methods of the
classes among them (those evo defines: a pydantic model's own methods are pydantic's)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import io
import sys
from typing import Any

import pytest

import evo
import evo.ops

#: What an example may print loosely: ``...`` for the rest of a line, and line breaks.
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def public_objects() -> dict[str, Any]:
    """Qualified name -> the function, class or method whose docstring needs an example."""
    out: dict[str, Any] = {}
    for module, names in ((evo, evo.__all__), (evo.ops, evo.ops.__all__)):
        for name in names:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            where = f"{module.__name__}.{name}"
            out[where] = obj
            if not inspect.isclass(obj):
                continue
            for klass in obj.__mro__:
                if not klass.__module__.startswith("evo."):
                    continue
                for attr, value in vars(klass).items():
                    if isinstance(value, classmethod | staticmethod):
                        value = value.__func__
                    if not attr.startswith("_") and inspect.isfunction(value):
                        out.setdefault(f"{where}.{attr}", value)
    return out


PUBLIC = public_objects()


def test_the_list_covers_the_api():
    """The names checked include the functions, the classes and their methods."""
    for name in ("evo.evolve", "evo.steps", "evo.Breaker", "evo.Breaker.to_dataframe",
                 "evo.Breaker.play", "evo.Game.parse_feedback", "evo.Config.to_yaml",
                 "evo.Evolution", "evo.State.snapshot", "evo.ops.splice",
                 "evo.ops.Template.single", "evo.logbook_dataframe"):  # fmt: skip
        assert name in PUBLIC, name
    assert len(PUBLIC) > 60


def examples(name: str, obj: Any) -> list[doctest.DocTest]:
    module = sys.modules[getattr(obj, "__module__", "evo")]
    finder = doctest.DocTestFinder(recurse=False)
    return finder.find(obj, name, module=module, globs=dict(vars(module)))


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_example_runs(name, tmp_path, monkeypatch):
    """The docstring has an example that is not skipped, and it prints what it says (in
    a folder of its own: examples may write files)."""
    monkeypatch.chdir(tmp_path)
    tests = examples(name, PUBLIC[name])
    run = [e for t in tests for e in t.examples if not e.options.get(doctest.SKIP)]
    assert run, f"{name} has no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = io.StringIO()
    for t in tests:
        runner.run(t, out=out.write)
    assert runner.failures == 0, out.getvalue()


#: Modules whose every example runs too (their module docstrings and the functions
#: behind the public methods).
MODULES = ("evo.ops", "evo.show.graph", "evo.show.frames")


@pytest.mark.parametrize("module", MODULES)
def test_module_examples_run(module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mod = importlib.import_module(module)
    tests = doctest.DocTestFinder().find(mod, module)
    assert sum(len(t.examples) for t in tests) > 0, module
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = io.StringIO()
    for t in tests:
        runner.run(t, out=out.write)
    assert runner.failures == 0, out.getvalue()
