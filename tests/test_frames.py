"""Trees and logbooks as pandas DataFrames: the rows checked against the game played
literally, logbooks from a run in memory, a run directory and DEAP's own, and one clear
error without pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from deap import tools
from support.definitions import all_code_tuples, design_feedback_number
from support.reference_growth import brute_feedback

import evo
from evo.show.frames import PANDAS_MISSING, PandasMissing, logbook_dataframe, tree_dataframe


def played_rows(tree) -> dict[int, dict]:
    """Per node, by playing every code literally: the feedback that leads there (as
    ``(b, w)``), its depth, how many codes pass, their guesses from the node on, and the
    most guesses any of them needs from the node on."""
    game = tree.game
    rows: dict[int, dict] = {}
    for code in all_code_tuples(game.pegs, game.colors, game.variant):
        node, path, answers = 0, [0], [None]
        while True:
            b, w = brute_feedback(tuple(int(x) for x in game.digits[int(tree.guess[node])]), code)
            if (b, w) == (game.pegs, 0):
                break
            node = tree.children(node)[design_feedback_number(b, w, game.pegs)]
            path.append(node)
            answers.append((b, w))
        for depth, (x, said) in enumerate(zip(path, answers), 1):
            row = rows.setdefault(x, {"said": said, "depth": depth, "codes": 0, "sub": 0, "h": 0})
            row["codes"] += 1
            row["sub"] += len(path) - depth + 1
            row["h"] = max(row["h"], len(path) - depth + 1)
    return rows


@pytest.mark.parametrize(
    "pegs,colors,variant,seed",
    [(3, 3, "mastermind", 1), (3, 4, "mastermind", 2), (3, 5, "bulls-cows", 3)],
)
def test_tree_rows_are_the_game_played(pegs, colors, variant, seed):
    game = evo.make_game(pegs, colors, variant)
    tree = evo.random_breaker(game, seed=seed)
    frame = tree.to_dataframe()
    assert frame.index.name == "node" and frame.index.tolist() == list(range(len(tree)))
    assert frame.columns.tolist() == [
        "parent", "depth", "feedback", "guess", "code", "codes", "terminal", "children",
        "subtotal", "height",
    ]  # fmt: skip
    played = played_rows(tree)
    letter = "W" if variant == "mastermind" else "C"
    for node, row in frame.iterrows():
        want = played[node]
        assert row["depth"] == want["depth"] and row["codes"] == want["codes"]
        assert row["subtotal"] == want["sub"] and row["height"] == want["h"]
        assert game.parse_code(row["guess"]) == row["code"] == tree.guess[node]
        if node == 0:
            assert row["parent"] == -1 and pd.isna(row["feedback"])
        else:
            b, w = want["said"]
            assert row["feedback"] == f"{b}B {w}{letter}"
            assert tree.children(row["parent"])[game.parse_feedback(row["feedback"])] == node
        kids = frame.index[frame.parent == node]
        assert row["children"] == len(kids)
        # A node's guess can be the secret when one of its codes stops there.
        assert row["terminal"] == (row["codes"] > frame.codes[kids].sum())
    assert frame.subtotal[0] == tree.total and frame.height[0] == tree.worst
    assert frame.terminal.sum() == game.num_codes


def test_hand_worked_rows(hand_tree):
    """(2,2) by hand: 11; 1B 0W -> 12, then 0B 2W -> 21; 0B 0W -> 22 (conftest)."""
    frame = tree_dataframe(hand_tree)
    got = frame[["parent", "feedback", "guess", "codes", "subtotal", "height"]].fillna("")
    assert got.values.tolist() == [
        [-1, "", "11", 4, 8, 3],
        [0, "1B 0W", "12", 2, 3, 2],
        [1, "0B 2W", "21", 1, 1, 1],
        [0, "0B 0W", "22", 1, 1, 1],
    ]


def test_logbook_frames_of_a_run_in_memory_and_on_disk(tmp_path):
    game = evo.make_game(3, 3)
    result = evo.evolve(game, seed=1, generations=3, run_dir=tmp_path / "run")
    frame = evo.logbook_dataframe(result.logbook)
    assert frame.index.name == "gen" and frame.index.tolist() == [0, 1, 2, 3]
    records = list(result.logbook)
    assert frame.reset_index().to_dict("records") == records
    assert frame["min"].tolist() == result.logbook.select("min")
    on_disk = logbook_dataframe(tmp_path / "run")
    assert on_disk.reset_index().to_dict("records") == records
    assert logbook_dataframe(str(tmp_path / "run")).equals(on_disk)
    listed = logbook_dataframe([dict(r) for r in records])
    assert listed.equals(frame)


def test_deap_logbooks_with_chapters():
    """A DEAP logbook of MultiStatistics: each chapter's keys as ``chapter.key``."""
    stats = tools.MultiStatistics(size=tools.Statistics(len), first=tools.Statistics(min))
    stats.register("max", max)
    book = tools.Logbook()
    for gen, pop in enumerate([[[1, 2], [3]], [[5, 6, 7], [0, 1]]]):
        book.record(gen=gen, nevals=len(pop), **stats.compile(pop))
    frame = logbook_dataframe(book)
    assert frame.index.tolist() == [0, 1]
    assert frame["nevals"].tolist() == [2, 2]
    assert frame["size.max"].tolist() == book.chapters["size"].select("max") == [2, 3]
    assert frame["first.max"].tolist() == [3, 5]
    no_gen = logbook_dataframe([{"x": 1}, {"x": 2}])
    assert no_gen.index.tolist() == [0, 1] and no_gen["x"].tolist() == [1, 2]
    assert logbook_dataframe([]).empty


def test_without_pandas_one_clear_error(monkeypatch, hand_tree):
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now fails
    breaker = evo.Breaker.of(hand_tree)
    for call in (breaker.to_dataframe, lambda: evo.logbook_dataframe([{"gen": 0}])):
        with pytest.raises(PandasMissing) as e:
            call()
        assert str(e.value) == PANDAS_MISSING
        assert 'pip install "evo-breakers[pandas]"' in str(e.value)
        assert isinstance(e.value, ImportError) and e.value.__cause__ is None


def test_pandas_is_imported_only_when_a_frame_is_asked_for():
    code = (
        "import sys, evo\n"
        "t = evo.random_breaker(evo.make_game(3, 3), seed=1)\n"
        "t.to_networkx(); evo.logbook_dataframe\n"
        "print('pandas' in sys.modules)\n"
        "t.to_dataframe()\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_a_4_6_tree_frame_adds_up():
    """DESIGN §2: the total is the sum of every node's code count."""
    game = evo.make_game(4, 6)
    tree = evo.random_breaker(game, seed=1)
    frame = tree.to_dataframe()
    assert len(frame) == len(tree) and frame.codes.sum() == tree.total
    assert np.array_equal(frame.subtotal.to_numpy(), tree.subtree_totals())
