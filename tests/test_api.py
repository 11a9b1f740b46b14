"""evo from Python (``import evo``): the public names, their defaults, library calls that
leave no trace, operators registered from Python, and Ctrl-C returning what was reached."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from support.definitions import fresh_total

import evo
from evo.config import ConfigError
from evo.core.population import random_population
from evo.core.tree import Tree
from evo.ea.nodes import pick_node
from evo.ea.variation import splice

ROOT = Path(__file__).resolve().parent.parent


def test_the_public_names_are_those_of_the_one_page():
    for name in ("make_game", "baseline", "random_breaker", "evolve", "load_tree", "save_tree"):
        assert callable(getattr(evo, name))
    assert set(evo.__all__) <= set(dir(evo))
    with pytest.raises(AttributeError):
        evo.no_such_name  # noqa: B018


def test_one_default_time_limit_for_the_library_and_the_command_line():
    """A baseline may take as long by default from Python as from the command line
    (issue 51: 600 s in the API, 60 s for ``evo baselines``): one definition."""
    import inspect

    from evo.baselines import DEFAULT_TIME_LIMIT, optimal, run
    from evo.cli.baselines import baselines
    from evo.cli.run import run as run_command

    defaults = {
        f.__name__: inspect.signature(f).parameters["time_limit"].default
        for f in (evo.baseline, evo.evolve, evo.steps, run, optimal)
    }
    for command in (baselines, run_command):
        (option,) = [p for p in command.params if p.name == "time_limit"]
        defaults[f"evo {command.name} --time-limit"] = option.default
    assert defaults == dict.fromkeys(defaults, DEFAULT_TIME_LIMIT)


def test_import_evo_loads_nothing_heavy():
    code = (
        "import sys, evo; print(sorted(m for m in ('numpy', 'deap', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_make_game_and_baseline_give_knuths_published_total():
    game = evo.make_game(pegs=4, colors=6)
    knuth = evo.baseline(game, "knuth")
    assert isinstance(knuth, evo.Breaker) and isinstance(knuth, Tree)
    assert (knuth.total, knuth.worst) == (5801, 5)  # Knuth (1977)
    assert knuth.average == pytest.approx(5801 / 1296)
    assert knuth.histogram == {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}
    bc = evo.make_game(pegs=4, colors=10, variant="bulls-cows")
    assert bc.num_codes == 5040


def test_random_breaker_is_the_first_of_a_seeded_population():
    game = evo.make_game(pegs=3, colors=4)
    a = evo.random_breaker(game, seed=7)
    b = random_population(game, 3, seed=7)[0]
    assert np.array_equal(a.guess, b.guess) and a.total == b.total
    assert a.total == fresh_total(a)  # the figure, played code by code
    assert not np.array_equal(evo.random_breaker(game, seed=8).guess, a.guess)
    consistent = evo.random_breaker(game, seed=7, pool="consistent")
    assert consistent.terminal.all()  # every guess could be the secret
    with pytest.raises(ValueError, match="pool"):
        evo.random_breaker(game, pool="any")


def test_a_tree_shows_itself(tmp_path):
    tree = evo.baseline(evo.make_game(pegs=3, colors=3), "knuth")
    graph = tree.to_networkx()
    assert isinstance(graph, nx.DiGraph) and graph.number_of_nodes() == len(tree)
    assert nx.is_arborescence(graph)
    svg = tree._repr_svg_()
    ET.fromstring(svg)  # well-formed SVG that Jupyter draws
    path = tree.render(tmp_path / "top.svg", depth=2)
    drawn = path.read_text()
    assert drawn.count('<g id="node') < len(tree)  # cut at depth 2
    assert tree.render(tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match=r"is none of \.svg, \.png, \.pdf"):
        tree.render(tmp_path / "t.txt")
    assert "total 74" in repr(tree)


def test_a_tree_writes_its_explorer_beside_another(tmp_path):
    """``Breaker.explore``: the page ``evo explore`` writes (the same HTML as the explorer
    module makes of the two trees and their names), from Python without an internal
    import; a tree of another game beside it is refused."""
    from evo.show.explore import explorer_html

    game = evo.make_game(3, 3)
    knuth, optimum = evo.baseline(game, "knuth"), evo.baseline(game, "optimal")
    page = optimum.explore(tmp_path / "pair.html", name="optimal", beside=knuth,
                           beside_name="knuth")  # fmt: skip
    assert page.read_text() == explorer_html(optimum, "optimal", knuth, "knuth")
    alone = optimum.explore(tmp_path / "alone.html", name="optimal")
    assert alone.read_text() == explorer_html(optimum, "optimal")
    assert alone.read_text() != page.read_text()
    with pytest.raises(ValueError, match="beside must be a breaker of mastermind-3-3"):
        optimum.explore(tmp_path / "x.html", beside=evo.baseline(evo.make_game(3, 4), "knuth"))
    assert not (tmp_path / "x.html").exists()


def test_save_and_load_tree(tmp_path):
    tree = evo.random_breaker(evo.make_game(pegs=3, colors=3), seed=2)
    evo.save_tree(tree, tmp_path / "t.json", note="mine")
    back = evo.load_tree(tmp_path / "t.json")
    assert isinstance(back, evo.Breaker)
    assert np.array_equal(back.guess, tree.guess) and back.total == tree.total
    assert json.loads((tmp_path / "t.json").read_text())["note"] == "mine"
    with pytest.raises(ValueError, match="not for"):
        evo.load_tree(tmp_path / "t.json", game=evo.make_game(pegs=4, colors=6))


# ------------------------------------------------------------------ evolve
_NO_TRACE = """
import os, sys, evo
r = evo.evolve(evo.make_game(pegs=3, colors=3), seed=1, generations=30)
print(r.best.total, len(r.logbook), r.stopped_by)
"""


def test_evolve_finds_the_optimum_of_3_3_and_leaves_no_trace(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "EVO_CACHE"}
    env["HOME"] = str(home)
    out = subprocess.run(
        [sys.executable, "-c", _NO_TRACE], cwd=work, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["73", "31", "generations"]  # Goddard: 73 is the optimum
    assert list(home.iterdir()) == [] and list(work.iterdir()) == []


def test_evolve_takes_a_config_mapping_over_the_defaults():
    game = evo.make_game(pegs=3, colors=4)
    r = evo.evolve(game, {"population": {"size": 12}, "stop": {"generations": 3}}, seed=2)
    assert r.config.population.size == 12 and len(r.logbook) == 4
    assert r.config.mutation.operators[0].kind == "greedy"  # the defaults' operators
    assert r.config.seed == 2
    assert r.best.total == min(r.logbook.select("min"))
    assert [t.total for t in r.hall_of_fame] == sorted(t.total for t in r.hall_of_fame)
    default = evo.default_config(game)
    assert default.population.size == 40  # auto: 40 up to 5040 codes
    with pytest.raises(ValueError, match="not the game evolved"):
        evo.evolve(game, {"game": {"pegs": 4}})


def test_evolve_limits_replace_the_stop_rule():
    game = evo.make_game(pegs=3, colors=4)
    r = evo.evolve(game, {"stop": {"generations": 100}}, seed=1, generations=2)
    assert len(r.logbook) == 3 and r.stopped_by == "generations"
    r = evo.evolve(game, seed=1, seconds=0.5, generations=None)
    assert r.stopped_by == "seconds" and r.summary["seconds"] < 5


def test_the_callback_sees_every_generation_and_can_stop_the_run():
    seen = []

    def callback(gen, population, logbook):
        seen.append((gen, len(population), logbook[-1]["gen"]))
        return gen == 3

    r = evo.evolve(evo.make_game(pegs=3, colors=4), seed=1, generations=10, on_generation=callback)
    assert [g for g, _, _ in seen] == [0, 1, 2, 3]
    assert all(n == r.config.population.size and g == last for g, n, last in seen)
    assert r.stopped_by == "callback" and len(r.logbook) == 4


def test_ctrl_c_returns_the_result_so_far():
    def interrupt(gen, population, logbook):
        if gen == 2:
            os.kill(os.getpid(), signal.SIGINT)

    r = evo.evolve(evo.make_game(pegs=3, colors=4), seed=1, generations=50, on_generation=interrupt)
    assert r.stopped_by == "SIGINT"
    assert 3 <= len(r.logbook) <= 4  # the generation under way is finished, then it stops
    assert r.best.total == min(r.logbook.select("min"))


def test_evolve_writes_a_run_directory_and_a_cache_only_when_asked(tmp_path):
    game = evo.make_game(pegs=3, colors=3)
    planted = {"population": {"size": 8, "init": {"baselines": ["knuth"]}}}
    where = {"run_dir": tmp_path / "run", "cache": tmp_path / "c"}
    r = evo.evolve(game, planted, seed=1, generations=2, **where)
    assert (tmp_path / "c" / "mastermind-3-3" / "knuth.json").exists()
    run = tmp_path / "run"
    assert {"config.yaml", "logbook.jsonl", "checkpoint.npz", "best.json", "summary.json"} <= {
        p.name for p in run.iterdir()
    }
    assert json.loads((run / "summary.json").read_text())["knuth_total"] == 74
    # the same directory again, with a longer limit: resumed from its checkpoint
    more = evo.evolve(game, planted, seed=1, generations=4, **where)
    assert len(more.logbook) == 5 and [dict(x) for x in more.logbook][:3] == [
        dict(x) for x in r.logbook
    ]
    assert evo.load_tree(run / "best.json").total == more.best.total


# --------------------------------------------------------------- operators
def swap_root_branches(tree, *, rng, pool="all", tries: int = 1):
    """A mutation of one's own: a node's subtree replaced by a random regrowth, the best
    of ``tries`` (the same as evo's best-of-k, written from the public pieces)."""
    from evo.core.growth import grow

    node = pick_node(tree, rng=rng)
    if node is None:
        return tree
    codes = tree.code_set(node)
    subs = [grow(tree.game, codes, rng=rng, pool=pool) for _ in range(tries)]
    return splice(tree, node, min(subs, key=lambda s: s.total))


def _with_mine(weight: float, **params) -> dict:
    return {
        "population": {"size": 10},
        "stop": {"generations": 4},
        "mutation": {
            "rate": 1.0,
            "operators": [{"kind": "regrow"}, {"kind": "mine", "weight": weight, **params}],
        },
    }


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_mutation_registered_from_python_changes_the_logbook(workers):
    evo.register_operator("mine", swap_root_branches, tries=2)
    game = evo.make_game(pegs=3, colors=4)
    without = evo.evolve(game, _with_mine(0.0), seed=3, workers=workers)
    with_it = evo.evolve(game, _with_mine(5.0), seed=3, workers=workers)
    assert [dict(r) for r in without.logbook] != [dict(r) for r in with_it.logbook]
    more = evo.evolve(game, _with_mine(5.0, tries=6), seed=3, workers=workers)
    assert [dict(r) for r in more.logbook] != [dict(r) for r in with_it.logbook]  # params


def test_a_registered_mutation_gives_the_same_logbook_with_one_and_two_workers():
    evo.register_operator("mine", swap_root_branches)
    game = evo.make_game(pegs=3, colors=4)
    one = evo.evolve(game, _with_mine(5.0), seed=4, workers=1)
    two = evo.evolve(game, _with_mine(5.0), seed=4, workers=2)
    assert [dict(r) for r in one.logbook] == [dict(r) for r in two.logbook]


def test_a_registered_crossover_is_used():
    calls = []

    def keep(a, b, *, rng):
        calls.append(1)
        return a, b

    evo.register_operator("keep-parents", keep, role="crossover")
    cfg = {"crossover": {"rate": 1.0, "operator": {"kind": "keep-parents"}}}
    evo.evolve(evo.make_game(pegs=3, colors=3), cfg, seed=1, generations=2)
    assert calls


def test_registration_and_configs_are_checked():
    evo.register_operator("mine", swap_root_branches)
    with pytest.raises(ConfigError, match=r"mutation.operators.1: mine takes no parameter depth"):
        evo.default_config(evo.make_game(3, 3), mutation=_with_mine(1.0, depth=2)["mutation"])
    with pytest.raises(ConfigError, match="kind 'theirs' is not known; allowed kinds: .*'mine'"):
        evo.default_config(evo.make_game(3, 3), mutation={"operators": [{"kind": "theirs"}]})
    with pytest.raises(ValueError, match="built-in"):
        evo.register_operator("greedy", swap_root_branches)
    with pytest.raises(TypeError, match="rng"):
        evo.register_operator("bad", lambda tree: tree)
    with pytest.raises(TypeError, match="no parameter"):
        evo.register_operator("bad", swap_root_branches, depth=3)
