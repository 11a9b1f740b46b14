"""Breaker trees: a hand-worked tree, splicing, validation and files."""

import json

import numpy as np
import pytest

from evo.baselines import build
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.tree import InvalidTreeError
from evo.core.treeio import TreeFileError, from_nested, load_tree, save_tree, to_nested

# hand_tree, hand_nested, hand_tree_swapped: the (2,2) trees worked by hand in conftest.py.


def test_hand_worked_fitness(hand_tree):
    t = hand_tree
    assert t.total == 8
    assert t.average == 2.0
    assert t.worst == 3
    assert t.histogram == {1: 1, 2: 2, 3: 1}
    assert len(t) == 4
    t.validate()


def test_hand_worked_play_and_code_sets(hand_tree):
    g = hand_tree.game
    path = [(g.format_code(x), g.format_feedback(f)) for x, f in hand_tree.play(g.parse_code("21"))]
    assert path == [("11", "1B 0W"), ("12", "0B 2W"), ("21", "2B 0W")]
    node_12 = hand_tree.children(0)[g.parse_feedback("1,0")]
    assert sorted(g.format_code(c) for c in hand_tree.code_set(node_12)) == ["12", "21"]
    assert sorted(g.format_code(c) for c in hand_tree.code_set(0)) == ["11", "12", "21", "22"]
    assert hand_tree.used_guesses(node_12) == [g.parse_code("11")]
    # DESIGN's additive total: total(node) = |S| + sum of total(child).
    assert hand_tree.subtree_totals()[0] == 8
    assert hand_tree.subtree_totals()[node_12] == 2 + 1


def test_nested_round_trip(hand_tree, hand_nested):
    assert to_nested(hand_tree) == hand_nested


def test_older_feedback_spellings_read_as_evo_writes_them(hand_tree, hand_nested, tmp_path):
    """Files written before the one notation (``1,0``; ``1 0`` by hand) load to the same
    tree, and are written back in evo's notation."""
    old = {
        "guess": "11",
        "children": {
            "1,0": {"guess": "12", "children": {"0 2": {"guess": "21"}}},
            "0b0w": {"guess": "22"},
        },
    }
    tree = from_nested(make_game(2, 2), old)
    assert to_nested(tree) == hand_nested and tree.total == 8
    assert list(hand_nested["children"]) == ["1B 0W", "0B 0W"]
    doc = json.loads(save_tree(hand_tree, tmp_path / "t.json").read_text())
    assert set(doc["root"]["children"]) == {"1B 0W", "0B 0W"}
    game = make_game(3, 5, "bulls-cows")  # bulls and cows: 1B 2C
    nested = to_nested(build(game, "knuth"))
    keys = {k for d in _walk(nested) for k in d.get("children", {})}
    assert keys and all(k.endswith("C") and "B " in k for k in keys), keys
    assert from_nested(game, nested).total == build(game, "knuth").total


def _walk(nested):
    yield nested
    for sub in nested.get("children", {}).values():
        yield from _walk(sub)


def test_replace_splices_a_subtree(hand_tree, hand_tree_swapped):
    g = hand_tree.game
    node_12 = hand_tree.children(0)[g.parse_feedback("1,0")]
    sub = hand_tree.subtree(node_12)
    assert sub.total == 3 and sub.num_codes == 2
    # Guess 21 first instead: 21 wins in 2, 12 answers <0,2> and wins in 3: same total.
    swapped = hand_tree_swapped
    assert to_nested(swapped) != to_nested(hand_tree)
    new = hand_tree.replace(node_12, swapped.subtree(swapped.children(0)[g.parse_feedback("1,0")]))
    new.validate()
    assert to_nested(new) == to_nested(swapped)
    assert new.total == 8


def test_replace_on_random_trees_keeps_everything_consistent():
    game = make_game(3, 4)
    rng = np.random.default_rng(7)
    a, b = random_breaker(game, rng=rng), random_breaker(game, rng=rng)
    for _ in range(20):
        node = int(rng.integers(1, len(a)))
        # A node of b with the same code set, when one exists, can be swapped in as it is.
        key = tuple(sorted(a.code_set(node)))
        match = [j for j in range(len(b)) if tuple(sorted(b.code_set(j))) == key]
        if not match:
            continue
        new = a.replace(node, b.subtree(match[0]))
        new.validate()
        expected = a.total - a.subtree_totals()[node] + b.subtree_totals()[match[0]]
        assert new.total == expected


@pytest.mark.parametrize(
    "nested,message",
    [
        (
            {"guess": "11", "children": {"1,0": {"guess": "12"}, "0,0": {"guess": "22"}}},
            "code 21 has no path",
        ),
        (
            {
                "guess": "11",
                "children": {
                    "1,0": {"guess": "12", "children": {"0,2": {"guess": "21"}}},
                    "0,0": {"guess": "22"},
                    "0,1": {"guess": "21"},
                },
            },
            "reached by no code",
        ),
        (
            {
                "guess": "11",
                "children": {
                    "1,0": {
                        "guess": "11",
                        "children": {"1,0": {"guess": "12", "children": {"0,2": {"guess": "21"}}}},
                    },
                    "0,0": {"guess": "22"},
                },
            },
            "repeats on a path",
        ),
        ({"guess": "13"}, "not a color"),
        ({"guess": "11", "children": {"2,0": {"guess": "12"}}}, "child for the win"),
        ({"gues": "11"}, "should be an object with a 'guess'"),
    ],
)
def test_invalid_strategies_are_refused(nested, message):
    with pytest.raises(InvalidTreeError, match=message):
        from_nested(make_game(2, 2), nested)


def test_file_round_trip(tmp_path, hand_tree, hand_nested):
    path = save_tree(hand_tree, tmp_path / "t.json")
    back = load_tree(path)
    assert to_nested(back) == hand_nested and back.total == 8
    doc = json.loads(path.read_text())
    assert doc["format"] == "evo-breaker" and doc["game"]["pegs"] == 2
    assert doc["summary"]["total"] == 8


def test_random_tree_file_round_trip(tmp_path):
    game = make_game(4, 6)
    tree = random_breaker(game, rng=np.random.default_rng(3))
    back = load_tree(save_tree(tree, tmp_path / "r.json"), game=game)
    assert back.total == tree.total
    assert np.array_equal(back.guess, tree.guess)


def test_corrupted_files_say_what_is_wrong(tmp_path, hand_tree):
    path = save_tree(hand_tree, tmp_path / "t.json")
    text = path.read_text()
    cases = {
        "truncated.json": (text[: len(text) // 2], "not valid JSON"),
        "edited.json": (text.replace('"total": 8', '"total": 7'), "says total 7"),
        "format.json": (text.replace("evo-breaker", "something"), "not an evo breaker file"),
        "version.json": (text.replace('"version": 1', '"version": 9'), "version 9"),
    }
    for name, (content, message) in cases.items():
        (tmp_path / name).write_text(content)
        with pytest.raises(TreeFileError, match=message) as e:
            load_tree(tmp_path / name)
        assert name in str(e.value)
    with pytest.raises(TreeFileError, match="not for mastermind with 2 pegs and 3 colors"):
        load_tree(path, game=make_game(2, 3))
    with pytest.raises(TreeFileError, match="cannot read"):
        load_tree(tmp_path / "missing.json")


def test_validate_catches_a_broken_array(hand_tree):
    broken = hand_tree.subtree(0)
    broken.guess[3] = broken.guess[0]
    with pytest.raises(InvalidTreeError):
        broken.validate()


# ------------------------------------------------------- compact tree files
def test_a_compact_file_holds_the_same_tree(tmp_path):
    game = make_game(4, 6)
    tree = random_breaker(game, rng=np.random.default_rng(3))
    path = save_tree(tree, tmp_path / "r.npz", note="kept")
    assert path.read_bytes()[:4] == b"PK\x03\x04"
    back = load_tree(path)
    assert np.array_equal(back.guess, tree.guess) and np.array_equal(back.codes, tree.codes)
    assert back.total == tree.total and back.worst == tree.worst
    assert path.stat().st_size < save_tree(tree, tmp_path / "r.json").stat().st_size / 3


def test_a_compact_file_is_checked_as_a_json_file_is(tmp_path, hand_tree):
    import io

    path = save_tree(hand_tree, tmp_path / "t.npz")
    arrays = dict(np.load(path))
    meta = json.loads(arrays["meta"].tobytes())

    def write(name: str, **changes) -> str:
        buffer = io.BytesIO()
        np.savez(buffer, **{**arrays, **changes})
        (tmp_path / name).write_bytes(buffer.getvalue())
        return name

    edited = {**meta, "summary": {**meta["summary"], "total": 7}}
    as_bytes = lambda d: np.frombuffer(json.dumps(d).encode(), dtype=np.uint8)  # noqa: E731
    guess = arrays["guess"].copy()
    guess[1] = guess[0]  # a guess repeated on a path
    cases = {
        write("edited.npz", meta=as_bytes(edited)): "says total 7",
        write("repeat.npz", guess=guess): "repeat",
        write("pickle.npz", guess=np.array([object()], dtype=object)): "corrupted",
        write("extra.npz", more=np.zeros(3)): "its arrays differ",
    }
    (tmp_path / "cut.npz").write_bytes(path.read_bytes()[:60])
    cases["cut.npz"] = "corrupted or truncated"
    for name, message in cases.items():
        with pytest.raises(TreeFileError, match=message) as e:
            load_tree(tmp_path / name)
        assert name in str(e.value)
    with pytest.raises(TreeFileError, match="not for mastermind with 2 pegs and 3 colors"):
        load_tree(path, game=make_game(2, 3))


@pytest.mark.parametrize("pegs, colors, variant", [(4, 6, "mastermind"), (4, 10, "bulls-cows")])
def test_codes_are_printed_and_parsed_many_at_once_as_one_by_one(pegs, colors, variant):
    game = make_game(pegs, colors, variant)
    codes = np.random.default_rng(0).choice(game.num_codes, size=200)
    printed = game.format_codes(codes)
    assert printed == [game.format_code(int(c)) for c in codes]
    assert game.parse_codes([p.lower() for p in printed]).tolist() == codes.tolist()
    bad = [*printed[:3], "0" * (pegs + 1)]
    assert game.parse_codes(bad) is None
