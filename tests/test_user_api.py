"""Issue 66: ``evo.polish`` and ``evo.table``, the functions behind ``evo polish`` and
``evo table``, checked against independent definitions (a replay of every code)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import evo
from evo.cli import main
from evo.ea.polish import TooShortError


def depths(tree) -> dict[int, int]:
    """Each secret's guesses, by playing it from the root with the game's own scoring."""
    game = tree.game
    out = {}
    for secret in range(game.num_codes):
        node, move = 0, 1
        while int(tree.guess[node]) != secret:
            fb = int(game.compute_feedback(np.array([tree.guess[node]]), np.array([secret]))[0])
            node = int(tree.child_table[node, fb])
            move += 1
        out[secret] = move
    return out


@pytest.fixture(scope="module")
def knuth():
    return evo.baseline(evo.make_game(3, 4), "knuth")


def test_polish_returns_the_better_tree_and_each_bands_outcome(knuth):
    result = evo.polish(knuth, ["3:40:all"])
    assert isinstance(result, evo.Polish) and isinstance(result.best, evo.Breaker)
    assert result.start_total == knuth.total == 216
    assert result.total == sum(depths(result.best).values()) == 208
    assert result.best.is_valid()
    ((band,),) = [result.bands]
    assert (str(band.band), band.before, band.after) == ("3:40:all", 216, 208)
    # 208 is not the optimum (206): only the nodes of the band were rebuilt
    assert evo.baseline(knuth.game, "optimal").total == 206


def test_polish_keeps_max_guesses_and_refuses_nothing_to_do(knuth):
    deep = evo.baseline(knuth.game, "lc")
    assert deep.worst > 4
    kept = evo.polish(deep, max_guesses=4)
    assert max(depths(kept.best).values()) == kept.best.worst <= 4
    assert kept.bands and kept.bands[0].band is None
    with pytest.raises(ValueError, match="give bands"):
        evo.polish(knuth)
    with pytest.raises(ValueError, match="should read MIN:MAX:SEARCH"):
        evo.polish(knuth, ["3-40"])
    with pytest.raises(TooShortError):
        evo.polish(knuth, max_guesses=2)


def test_the_command_writes_what_the_function_returns(tmp_path, knuth):
    out = tmp_path / "p.json"
    res = CliRunner().invoke(
        main, ["polish", "knuth", "-n", "3", "-c", "4", "--band", "3:40:mixed", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert evo.load_tree(out).total == evo.polish(knuth, ["3:40:mixed"]).total


def test_table_rows_against_a_replay(knuth):
    rows = evo.table(knuth)
    assert all(isinstance(r, evo.TableRow) for r in rows)
    assert len(rows) == knuth.num_nodes
    played = depths(knuth)
    for r in rows[:10]:
        reached = [s for s in played if _reaches(knuth, s, r.node)]
        assert r.count == len(reached)
        assert r.total == sum(played[s] for s in reached)
        assert r.worst == max(played[s] for s in reached)
        assert r.average == pytest.approx(r.total / r.count)
        assert r.guess == knuth.game.format_code(int(knuth.guess[r.node]))
    assert [r.count for r in rows] == sorted((r.count for r in rows), reverse=True)
    big = evo.table(knuth, min_count=10)
    assert big and all(r.count >= 10 for r in big) and len(big) < len(rows)
    written = evo.table(knuth, style="writeup")
    assert written[1].history != rows[1].history and "|" in written[1].history
    with pytest.raises(ValueError, match="style must be one of"):
        evo.table(knuth, style="tabular")


def _reaches(tree, secret: int, node: int) -> bool:
    """Whether playing ``secret`` passes through ``node``."""
    game, at = tree.game, 0
    while True:
        if at == node:
            return True
        if int(tree.guess[at]) == secret:
            return False
        fb = int(game.compute_feedback(np.array([tree.guess[at]]), np.array([secret]))[0])
        at = int(tree.child_table[at, fb])


def test_the_command_prints_what_the_function_returns(knuth):
    res = CliRunner().invoke(main, ["table", "knuth", "-n", "3", "-c", "4", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [r.__dict__ for r in evo.table(knuth)]


def test_both_are_public_and_documented():
    assert {"polish", "table", "Polish", "TableRow"} <= set(evo.__all__)
    text = (Path(__file__).resolve().parent.parent / "docs" / "API.md").read_text("utf-8")
    assert "### evo.polish" in text and "### evo.table" in text
