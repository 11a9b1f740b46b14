"""``evo table``: the decision points of a strategy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evo.baselines import build, lookahead
from evo.cli import main
from evo.core.game import make_game
from evo.core.treeio import save_tree
from evo.show.strategy_table import feedback_letters, table_rows


def test_feedback_letters():
    assert feedback_letters(make_game(4, 6).parse_feedback("1,2"), 4) == "RWW"
    assert feedback_letters(make_game(4, 6).parse_feedback("0,0"), 4) == ""
    assert feedback_letters(0, 4) == "RRRR"


def test_hand_worked_rows(hand_tree):
    """(2,2) by hand: 11 first; <1,0> -> 12, then <0,2> -> 21; <0,0> -> 22."""
    rows = table_rows(hand_tree)
    got = [(r["move"], r["history"], r["guess"], r["count"], r["total"], r["worst"]) for r in rows]
    assert got == [
        (1, "", "11", 4, 8, 3),
        (2, "1B 0W", "12", 2, 5, 3),
        (3, "1B 0W | 0B 2W", "21", 1, 3, 3),
        (2, "0B 0W", "22", 1, 2, 2),
    ]
    assert rows[1]["average"] == 2.5
    writeup = [r["history"] for r in table_rows(hand_tree, style="writeup")]
    assert writeup == ["", "|R", "|R|WW", "|"]  # no peg: a bare bar, not the root's history
    with pytest.raises(ValueError):
        table_rows(hand_tree, style="nope")
    with pytest.raises(ValueError):
        table_rows(hand_tree, style="pairs")  # the former name of the feedback style


def test_knuth_rows_add_up():
    game = make_game(4, 6)
    tree = lookahead(game, "knuth")
    rows = table_rows(tree)
    assert len(rows) == len(tree)
    root = rows[0]
    assert (root["history"], root["guess"], root["count"], root["total"], root["worst"]) == (
        "",
        "1122",
        1296,
        5801,
        5,
    )
    counts = [r["count"] for r in rows]
    assert counts == sorted(counts, reverse=True)
    by_node = {r["node"]: r for r in rows}
    for i in range(len(tree)):
        kids = tree.children(i).values()
        own = int(tree.depth[i]) if tree.terminal[i] else 0
        assert by_node[i]["total"] == own + sum(by_node[k]["total"] for k in kids)
        assert by_node[i]["count"] == int(tree.terminal[i]) + sum(by_node[k]["count"] for k in kids)
    big = table_rows(tree, min_count=100)
    assert big and all(r["count"] >= 100 for r in big)
    assert {r["node"] for r in big} < {r["node"] for r in rows}


@pytest.fixture
def knuth_file(tmp_path):
    path = tmp_path / "knuth.json"
    save_tree(lookahead(make_game(4, 6), "knuth"), path)
    return path


def test_cli_table(knuth_file):
    r = CliRunner().invoke(main, ["table", str(knuth_file), "--min-count", "50"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split() == ["move", "history", "guess", "count", "total", "average", "worst"]
    assert lines[2].split() == ["1", "1122", "1296", "5801", "4.476", "5"]
    assert lines[4].split()[:3] == ["2", "0B", "0W"]
    assert "hidden" in lines[-1]
    deeper = CliRunner().invoke(main, ["table", str(knuth_file), "--min-count", "40"]).output
    third = [line for line in deeper.splitlines() if line.split()[:1] == ["3"]]
    assert third and all(" | " in line for line in third)
    r = CliRunner().invoke(
        main, ["table", str(knuth_file), "--style", "writeup", "--min-count", "50"]
    )
    lines = r.output.splitlines()
    assert lines[0].split() == ["History", "Guess", "Count", "Total", "Avg", "Max"]
    assert lines[1].split() == ["1122", "1,296", "5,801", "4.48", "5"]
    assert lines[3].split()[0] == "|"  # 0B 0W, written as the write-up writes it
    r = CliRunner().invoke(main, ["table", str(knuth_file), "--json", "--min-count", "200"])
    rows = json.loads(r.output)
    assert rows[0]["guess"] == "1122" and all(x["count"] >= 200 for x in rows)
    assert {x["history"] for x in rows[1:]} <= {
        make_game(4, 6).format_feedback(f) for f in range(15)
    }


def test_cli_table_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = CliRunner().invoke(main, ["table", str(bad)])
    assert r.exit_code != 0 and "bad.json" in r.output


def test_cli_table_takes_a_run_directory_and_a_baseline_name(tmp_path, knuth_file):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "best.json").write_bytes(knuth_file.read_bytes())
    from_dir = CliRunner().invoke(main, ["table", str(run_dir), "--min-count", "200"])
    assert from_dir.exit_code == 0, from_dir.output
    assert from_dir.output.splitlines()[2].split()[:2] == ["1", "1122"]
    named = CliRunner().invoke(main, ["table", "knuth", "--min-count", "200"])
    assert named.exit_code == 0, named.output
    assert named.output == from_dir.output
    bad = CliRunner().invoke(main, ["table", "nope"])
    assert bad.exit_code != 0 and "nope" in bad.output


def test_cli_styles_are_the_modules():
    from evo.cli.table import STYLES as CLI_STYLES
    from evo.show.strategy_table import STYLES

    assert CLI_STYLES == STYLES


def test_bulls_and_cows_histories_use_bulls_and_cows():
    game = make_game(3, 5, "bulls-cows")
    for style in ("feedback", "writeup"):
        rows = table_rows(lookahead(game, "knuth"), style=style)
        assert any("B" in r["history"] and "C" in r["history"] for r in rows)
        assert not any("R" in r["history"] or "W" in r["history"] for r in rows)


def test_averages_round_halves_up():
    from evo.show.strategy_table import writeup_table

    row = {"history": "||RWW", "guess": "3454", "count": 40, "total": 189, "worst": 5}
    assert writeup_table([{**row, "average": 189 / 40}]).splitlines()[1].split()[-2] == "4.73"


def test_departures_from_the_class_of_the_published_5_8_record():
    """The (4,6) optimum (5625) completed within the class "impossible codes only at the
    second guess" cannot beat that class's published optimum, 5636; a tree that guesses
    only possible codes has no departure."""
    from evo.core.treeio import load_tree
    from evo.show.strategy_table import departures

    best = load_tree(Path(__file__).resolve().parent.parent / "breakers" / "mastermind-4-6.json")
    rows = departures(best)
    assert rows and all(r["move"] >= 3 and r["guess"] for r in rows)
    completed = best.total + sum(r["saved"] for r in rows)
    assert completed >= 5636 > best.total
    for r in rows:
        assert best.code_set(r["node"]).size == r["count"]
        assert not best.terminal[r["node"]]  # its guess cannot be the secret
    later = departures(best, from_move=4)
    assert sum(r["saved"] for r in later) <= sum(r["saved"] for r in rows)
    assert departures(build(make_game(4, 6), "knuth-consistent")) == []
