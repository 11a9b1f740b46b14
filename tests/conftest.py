"""Shared fixtures: every test gets its own baseline cache, and the small trees worked by
hand. Oracles (the game's definitions played literally) are in ``tests/support/``."""

from __future__ import annotations

import copy
import sys
from collections import Counter

import pytest

from evo.core.game import make_game
from evo.core.treeio import from_nested

#: The (2,2) game worked by hand: codes 11, 12, 21, 22.
#:   guess 11: 11 wins (1 guess); 12 and 21 answer <1,0>; 22 answers <0,0>.
#:   <1,0> -> guess 12: 12 wins (2); 21 answers <0,2> -> guess 21 (3).
#:   <0,0> -> guess 22 (2).
#: Total 1 + 2 + 3 + 2 = 8, average 2.0, worst 3, histogram {1: 1, 2: 2, 3: 1}.
#: Feedbacks are written as evo writes them (``1B 0W``); older files wrote ``1,0``.
HAND = {
    "guess": "11",
    "children": {
        "1B 0W": {"guess": "12", "children": {"0B 2W": {"guess": "21"}}},
        "0B 0W": {"guess": "22"},
    },
}

#: The same strategy with 21 guessed before 12 under <1,0>: another tree of the same total.
HAND_SWAPPED = {
    "guess": "11",
    "children": {
        "1B 0W": {"guess": "21", "children": {"0B 2W": {"guess": "12"}}},
        "0B 0W": {"guess": "22"},
    },
}


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory, monkeypatch):
    """Baselines are cached under a fresh directory for each test, never in ~/.cache/evo."""
    cache = tmp_path_factory.mktemp("evo-cache")
    monkeypatch.setenv("EVO_CACHE", str(cache))
    return cache


@pytest.fixture
def hand_nested() -> dict:
    """The hand-worked (2,2) strategy as a nested document (see :data:`HAND`)."""
    return copy.deepcopy(HAND)


@pytest.fixture
def hand_tree():
    """The hand-worked (2,2) tree: total 8, worst case 3 (see :data:`HAND`)."""
    return from_nested(make_game(2, 2), HAND)


@pytest.fixture
def hand_tree_swapped():
    """The hand-worked tree with 12 and 21 exchanged below <1,0>: the same total, 8."""
    return from_nested(make_game(2, 2), HAND_SWAPPED)


# ------------------------------------------------------------------ test order
def pytest_collection_modifyitems(config, items):
    """The modules holding the most slow tests (each over about 2 s) first, each module
    kept whole and in its own order: pytest-xdist hands tests out in this order, so the
    long ones start early and the workers end together on short ones, not one worker on a
    long test left last while the other waits idle."""
    slow = Counter(item.module for item in items if item.get_closest_marker("slow"))
    items[:] = sorted(items, key=lambda item: -slow[item.module])


# ------------------------------------------------------- kernels compiled in tests
#: Tests that compiled one of evo's kernels in their own process: after ``make setup``
#: none should (each such compile is a kind of argument the set-up missed, paid again in
#: every fresh clone); ``make test`` names them at the end.
_COMPILED: list[tuple[str, float, list[str]]] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Watch what numba compiles of evo's kernels while the test runs (once numba is
    loaded: a test that loads it first is not watched)."""
    if "numba" not in sys.modules:
        yield
        return
    from evo.search.kernels import watch_compiling

    with watch_compiling() as seen:
        yield
    if seen.kernels:
        item.user_properties.append(("evo_compiled", (round(seen.seconds, 1), seen.kernels)))


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "evo_compiled":
                _COMPILED.append((report.nodeid, value[0], list(value[1])))


def pytest_terminal_summary(terminalreporter):
    if not _COMPILED:
        return
    total = sum(s for _, s, _ in _COMPILED)
    tests = f"{len(_COMPILED)} test{'s' if len(_COMPILED) > 1 else ''}"
    terminalreporter.write_sep("-", f"evo's kernels compiled inside {tests} ({total:.0f} s)")
    for nodeid, seconds, names in sorted(_COMPILED, key=lambda c: -c[1])[:15]:
        shown = ", ".join(n.rsplit(".", 1)[-1] for n in names[:4])
        terminalreporter.write_line(f"{seconds:6.1f} s {nodeid} ({shown})")
