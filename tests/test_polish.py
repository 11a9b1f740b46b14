"""Polishing a breaker (``evo polish``): every node of a band rebuilt by a search, only a
better subtree kept; each option changes what it does."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from evo.cli import main
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import load_tree, save_tree
from evo.ea import polish as polish_module
from evo.ea.nodes import outermost_nodes
from evo.ea.polish import Band, polish
from evo.search.build import Node
from evo.search.exact import Solver


@pytest.fixture(scope="module")
def tree():
    return random_breaker(make_game(4, 6).prepare(), rng=np.random.default_rng(11))


def test_a_band_of_exact_search_gives_each_outermost_node_its_optimum(tree):
    game = tree.game
    solver = Solver(game, policy="symmetry")
    band = outermost_nodes(tree, min_codes=8, max_codes=60)
    gain = sum(
        int(tree.subtree_totals()[x])
        - solver.total(tree.code_set(int(x)), Node.after(game, tuple(tree.used_guesses(int(x)))))
        for x in band
    )
    polished, [done] = polish(tree, [Band(8, 60, "all")])
    assert (
        (done.before, done.after) == (tree.total, polished.total) == (tree.total, tree.total - gain)
    )
    assert gain > 0


def test_bands_run_in_order_and_the_total_never_grows(tree):
    seen = []
    polished, steps = polish(
        tree, [Band(30, 300, "consistent"), Band(5, 29, "all")], on_band=seen.append
    )
    assert seen == steps and [s.band.search for s in steps] == ["consistent", "all"]
    assert steps[0].before == tree.total and steps[1].before == steps[0].after
    assert tree.total > steps[0].after > steps[1].after == polished.total


def test_greedy_and_mixed_options_change_the_result(tree):
    def total(band: str, **kw) -> int:
        return polish(tree, [Band.parse(band)], **kw)[0].total

    assert total("20:500:mixed", impossible=1) != total("20:500:mixed", impossible=6)
    base = {"tries": 2, "top": 8, "exact_below": 0, "mixed_below": 0, "seed": 0}
    greedy = total("100:1295:greedy", **base)
    for key, value in [("tries", 6), ("top", 2), ("exact_below", 60), ("mixed_below", 200),
                       ("seed", 5)]:  # fmt: skip
        assert total("100:1295:greedy", **{**base, key: value}) != greedy, key


@pytest.mark.parametrize(
    "text, message",
    [("81-400", "MIN:MAX:SEARCH"), ("2:10:all", "3 <= MIN <= MAX"), ("5:10:best", "not one of")],
)
def test_a_bad_band_is_one_line(tmp_path, tree, text, message):
    save_tree(tree, tmp_path / "t.json")
    out = CliRunner().invoke(main, ["polish", str(tmp_path / "t.json"), "--band", text, "-o",
                                    str(tmp_path / "p.json")])  # fmt: skip
    assert out.exit_code == 2 and message in out.output
    assert not (tmp_path / "p.json").exists()


def test_the_command_passes_every_option_and_writes_the_tree(tmp_path, tree, monkeypatch):
    save_tree(tree, tmp_path / "t.json")
    seen = {}
    real = polish_module.polish

    def spy(t, bands, **kw):
        seen.update(kw, bands=bands)
        return real(t, bands, **kw)

    monkeypatch.setattr(polish_module, "polish", spy)
    args = ["polish", str(tmp_path / "t.json"), "--band", "8:60:all", "--band", "61:90:mixed"]
    args += ["--impossible", "3", "--tries", "5", "--top", "7", "--exact-below", "40"]
    args += ["--mixed-below", "90", "--seed", "4", "-o", str(tmp_path / "p.npz")]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert seen["bands"] == [Band(8, 60, "all"), Band(61, 90, "mixed")]
    want = {"impossible": 3, "tries": 5, "top": 7, "exact_below": 40, "mixed_below": 90, "seed": 4}
    assert {k: seen[k] for k in want} == want
    back = load_tree(tmp_path / "p.npz")
    assert back.total < tree.total and f"total {back.total}" in out.output
    doc = json.loads(np.load(tmp_path / "p.npz")["meta"].tobytes())
    assert doc["bands"] == ["8:60:all", "61:90:mixed"]


def test_each_node_of_a_band_is_told_and_the_command_shows_a_long_bands_progress(
    tmp_path, tree, monkeypatch
):
    seen = []
    band = Band(8, 60, "all")
    polished, _ = polish(tree, [band], on_node=lambda *a: seen.append(a))
    nodes = len(outermost_nodes(tree, min_codes=8, max_codes=60))
    assert [(at.band, at.done, of) for at, of, _ in seen] == [
        (0, tuple(range(i)), nodes) for i in range(1, nodes + 1)
    ]
    assert seen[-1][2].total == polished.total < seen[0][2].total + 1
    from evo.cli import polish as command

    save_tree(tree, tmp_path / "t.json")
    args = [
        "polish",
        str(tmp_path / "t.json"),
        "--band",
        "8:60:all",
        "-o",
        str(tmp_path / "p.json"),
    ]
    quiet = CliRunner().invoke(main, args)
    assert quiet.exit_code == 0 and "nodes, total" not in quiet.output
    monkeypatch.setattr(command, "PROGRESS_SECONDS", 0.0)
    import evo.core.treeio as treeio

    written, real = [], treeio.save_tree

    def spy(t, path, **extra):
        written.append((t.total, extra.get("partial", False)))
        return real(t, path, **extra)

    monkeypatch.setattr(treeio, "save_tree", spy)
    told = CliRunner().invoke(main, args)
    assert told.exit_code == 0 and f"band 8:60:all: 1 of {nodes} nodes, total" in told.output
    # The tree so far written at each progress line, then the polished one.
    assert [p for _, p in written] == [True] * (nodes - 1) + [False]
    totals = [t for t, _ in written]
    assert tree.total >= totals[0] and totals == sorted(totals, reverse=True)
    assert load_tree(tmp_path / "p.json").total == polished.total == totals[-1]
