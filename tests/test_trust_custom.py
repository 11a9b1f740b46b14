"""Custom games to trust (issue 63, items 5 to 7): the feedback order, text and digest are
the same in every process whatever its hash seed; a game too big for the memory budget is
refused, with the estimate, before any answer is asked for, and a big one is built without
a Python object per pair; a game of two feedbacks (or of every feedback possible) gets
the one-step players' trees that their definition, played here by brute force, gives."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import evo
from evo.core.game import GameTooLargeError
from evo.core.treeio import TreeFileError, load_tree, save_tree
from evo.games.custom import build_bytes, custom_game, written
from evo.search import lookahead

WORDS = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen", "owl", "yak"]


def common(guess: str, secret: str):
    """The letters in common, as a set: a feedback Python writes in hash order."""
    return "win" if guess == secret else frozenset(set(guess) & set(secret))


def mixed(guess: str, secret: str):
    """The count of letters in common, odd ones as ints, even ones as text: no order."""
    k = len(set(guess) & set(secret))
    return k if k % 2 else str(k)


def first_appearances(labels, feedback) -> list:
    """The answers as they first appear, guess by guess, each against the codes in order."""
    seen: list = []
    for g in labels:
        for s in labels:
            a = feedback(g, s)
            if a not in seen:
                seen.append(a)
    return seen


# ------------------------------------------------------------ item 5: the hash seed
SCRIPT = """
import json, sys
import evo

WORDS = {words!r}
{functions}
letters = evo.custom_game(WORDS, common, name="letters")
numbers = evo.custom_game(WORDS, mixed, name="mixed")
out = {{
    game.name: [
        [game.format_feedback(f) for f in range(game.num_feedbacks)],
        game.digest,
        game.table.tolist(),
    ]
    for game in (letters, numbers)
}}
if sys.argv[1:2] == ["save"]:
    evo.save_tree(evo.baseline(letters, "knuth"), sys.argv[2])
elif sys.argv[1:2] == ["load"]:
    out["total"] = evo.load_tree(sys.argv[2]).total
print(json.dumps(out))
"""


def _run(tmp_path: Path, seed: int, *args: str) -> dict:
    """The script above in a process of hash seed ``seed``: its JSON line."""
    script = tmp_path / "seeded.py"
    functions = inspect.getsource(common) + "\n\n" + inspect.getsource(mixed)
    script.write_text(SCRIPT.format(words=WORDS, functions=functions), encoding="utf-8")
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_feedback_order_text_and_digest_do_not_depend_on_the_hash_seed(tmp_path):
    """Sets and mixed answers have no order: they come as they first appear, written with
    a set's members in order, so seeds 1 to 4 give one order, one text, one digest."""
    seen = [_run(tmp_path, seed) for seed in (1, 2, 3, 4)]
    assert all(s == seen[0] for s in seen[1:])
    letters = custom_game(WORDS, common, name="t-letters")
    numbers = custom_game(WORDS, mixed, name="t-mixed")
    assert list(letters.feedbacks) == first_appearances(WORDS, common)
    assert list(numbers.feedbacks) == first_appearances(WORDS, mixed)
    assert seen[0]["letters"][0] == [written(a) for a in letters.feedbacks]
    assert "frozenset({'a', 't'})" in seen[0]["letters"][0]  # ant and cat, in order


def test_a_tree_saved_under_one_seed_loads_under_another(tmp_path):
    path = tmp_path / "letters.json"
    _run(tmp_path, 1, "save", str(path))
    totals = {_run(tmp_path, seed, "load", str(path))["total"] for seed in (2, 3, 4)}
    assert totals == {evo.baseline(custom_game(WORDS, common, name="letters"), "knuth").total}


def chain_answer(g: int, s: int):
    """Sets that hold one another: a total order by inclusion."""
    return "win" if g == s else frozenset(range(5 - abs(g - s)))


def test_answers_in_a_total_order_are_sorted_others_as_they_first_appear():
    ints = custom_game(["ab", "ba", "aa"], lambda g, s: sum(x == y for x, y in zip(g, s)))
    assert ints.feedbacks == (2, 0, 1)
    # Sets in a chain are totally ordered by inclusion: sorted, against their appearance.
    chain = custom_game(list(range(5)), chain_answer, name="t-chain")
    assert chain.feedbacks[1:] == tuple(frozenset(range(k)) for k in range(1, 5))
    assert chain.feedbacks[1] == first_appearances(range(5), chain_answer)[-1]
    for f in range(chain.num_feedbacks):  # the table follows the new ids
        for g in range(5):
            for s in range(5):
                if chain.table[g, s] == f:
                    assert chain_answer(g, s) == chain.feedbacks[f]


def test_a_set_is_written_with_its_members_in_order():
    assert written(frozenset({"b", "a"})) == "frozenset({'a', 'b'})"
    assert written((1, frozenset({"t", "a"}), "x")) == "(1, frozenset({'a', 't'}), 'x')"
    assert written(frozenset()) == "frozenset()" and written((2,)) == "(2,)"
    assert written("GY.") == "GY." and written((1, "a")) == str((1, "a"))


def test_a_tree_of_another_game_of_the_name_is_refused_naming_both_digests(tmp_path):
    path = tmp_path / "t.json"
    save_tree(evo.baseline(custom_game(WORDS, common, name="t-twice"), "knuth"), path)
    other = custom_game(WORDS[:-1], common, name="t-twice")
    with pytest.raises(TreeFileError) as e:
        load_tree(path, game=other)
    message = str(e.value)
    assert f"not for the one of digest {other.digest}" in message and "\n" not in message


# ------------------------------------------------------------ item 6: memory
def test_a_game_beyond_the_memory_budget_is_refused_before_any_answer():
    calls = []

    def answer(g, s):
        calls.append((g, s))
        return g == s

    with pytest.raises(GameTooLargeError) as e:
        custom_game(list(range(1000)), answer, memory=2**20, name="t-big")
    message = str(e.value)
    assert "\n" not in message and calls == []
    need = build_bytes(1000, 1000)
    assert need > 1000 * 1000
    assert f"need about {need / 2**20:.1f} MiB" in message
    assert "more than the memory budget of 1.0 MiB" in message
    assert isinstance(e.value, ValueError)
    with pytest.raises(ValueError, match="memory \\(bytes\\) must be a whole number") as e:
        custom_game(["a", "b"], answer, memory=0)
    assert "\n" not in str(e.value)


@pytest.mark.slow
def test_the_build_takes_about_its_table_and_no_more_than_the_estimate():
    """No list of Python answers per pair: the peak is the table and a row's work,
    within the estimate (lists of every answer took about 20 bytes a pair)."""
    n = 1500

    def answer(g, s):
        return 0 if g == s else 1 + (g * 31 + s) % 200

    tracemalloc.start()
    try:
        game = custom_game(list(range(n)), answer, name="t-peak")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert game.table.nbytes == n * n
    assert peak <= build_bytes(n, n) < 3 * n * n
    assert game.table[7, 9] == game.feedbacks.index(answer(7, 9))


def test_a_table_over_the_cap_is_refused_with_its_size():
    with pytest.raises(ValueError, match=r"too big a table \(2,147,488,281 bytes, at most 2,1"):
        custom_game(list(range(46341)), lambda g, s: g == s, name="t-cap")


# ------------------------------------------------------------ item 7: few feedbacks
def one_step(secrets, guesses, feedback, heuristic: str, consistent: bool) -> dict:
    """Each secret's guesses under the one-step player, by its definition on labels: one
    or two codes: the lower; a consistent guess that leaves every other code alone; else
    the helpful candidate of the least score, a consistent one first, then the lowest."""

    def score(sizes: list[int]) -> float:
        if heuristic == "knuth":
            return max(sizes)
        if heuristic == "irving":
            return sum(c * c for c in sizes)
        return -len(sizes)  # kooi

    def choose(codes: list[int]) -> int:
        if len(codes) <= 2:
            return min(codes)
        for c in codes:
            if len({feedback(guesses[c], secrets[s]) for s in codes}) == len(codes):
                return c
        best = None
        for g in codes if consistent else range(len(guesses)):
            parts = Counter(feedback(guesses[g], secrets[s]) for s in codes)
            if g not in codes and len(parts) == 1:
                continue  # tells nothing
            key = (score(list(parts.values())), g not in codes, g)
            best = key if best is None else min(best, key)
        assert best is not None
        return best[2]

    paths = {}
    for s in range(len(secrets)):
        codes, path = list(range(len(secrets))), []
        while True:
            g = choose(codes)
            path.append(guesses[g])
            if g == s:
                break
            said = feedback(guesses[g], secrets[s])
            codes = [c for c in codes if c != g and feedback(guesses[g], secrets[c]) == said]
        paths[secrets[s]] = path
    return paths


def _paths(game, tree) -> dict:
    return {
        game.format_code(c): [game.format_code(g) for g, _ in tree.play(c)]
        for c in range(game.num_codes)
    }


def _random_games():
    """Small games of 2 to 4 feedbacks, every one of them possible, some with guesses
    that are not codes."""
    rng = np.random.default_rng(63)
    out = []
    for k in range(24):
        n, extra, answers = int(rng.integers(3, 10)), int(rng.integers(0, 3)), k % 3 + 1
        table = rng.integers(1, answers + 1, size=(n + extra, n))
        table[np.arange(n), np.arange(n)] = 0
        secrets = [f"c{i}" for i in range(n)]
        guesses = secrets + [f"x{i}" for i in range(extra)]

        def answer(g, s, table=table, guesses=guesses, secrets=secrets):
            return int(table[guesses.index(g), secrets.index(s)])

        out.append((secrets, guesses, answer))
    return out


@pytest.mark.parametrize("whole", [True, False])
@pytest.mark.parametrize("heuristic", ["knuth", "irving", "kooi"])
def test_one_step_players_follow_their_definition_on_every_feedback_count(
    monkeypatch, heuristic, whole
):
    """Two feedbacks once divided by zero (``nfb - 2``); with every feedback possible the
    scan stopped at a score Mastermind's missing feedback allows, and chose another
    guess. Built whole and node by node (small sets in one call)."""
    if not whole:
        monkeypatch.setattr(lookahead, "WHOLE_TREE_CODES", 0)
        monkeypatch.setattr(lookahead, "SUBTREE_CODES", 4)
    for k, (secrets, guesses, answer) in enumerate(_random_games()):
        game = custom_game(secrets, answer, guesses=guesses, name=f"t-few-{k}")
        for pool in ("all", "consistent"):
            tree = lookahead.lookahead_tree(game, heuristic, pool=pool, engine="compiled")
            want = one_step(secrets, guesses, answer, heuristic, pool == "consistent")
            assert _paths(game, tree) == want, (k, game.num_feedbacks, pool)


def yes_no(g: str, s: str) -> str:
    """Two feedbacks: the win, or not."""
    return "win" if g == s else "no"


def test_a_two_feedback_game_gets_its_baselines():
    """``knuth`` after ``optimal`` in one process (numba loaded: the compiled kernel), and
    ``knuth-consistent``: every guess a code, the total 1 + 2 + ... + n."""
    secrets = list("abcdefg")
    game = custom_game(secrets, yes_no, name="t-two")
    assert game.num_feedbacks == 2
    n = len(secrets)
    assert evo.baseline(game, "optimal").total == n * (n + 1) // 2
    for name in ("knuth", "knuth-consistent", "irving", "irving-consistent"):
        tree = evo.baseline(game, name)
        assert tree.total == n * (n + 1) // 2
        heuristic = name.split("-")[0]
        want = one_step(secrets, secrets, yes_no, heuristic, name.endswith("consistent"))
        assert _paths(game, tree) == want


@pytest.mark.parametrize("heuristic", ["knuth", "irving", "kooi", "entropy"])
def test_black_peg_one_step_trees_are_numpys(heuristic):
    """Black-peg Mastermind can give every feedback: the compiled scan's stop follows."""
    game = evo.make_game(3, 4, "black-peg")
    for pool in ("all", "consistent"):
        a = lookahead.lookahead_tree(game, heuristic, pool=pool, engine="compiled")
        b = lookahead.lookahead_tree(game, heuristic, pool=pool, engine="numpy")
        assert np.array_equal(a.guess, b.guess) and a.total == b.total


def test_most_parts():
    assert lookahead.most_parts(evo.make_game(4, 6)) == 14  # no 3 black 1 white
    assert lookahead.most_parts(evo.make_game(4, 6, "black-peg")) == 5
    assert lookahead.most_parts(custom_game(WORDS, mixed, name="t-parts")) == 4
    assert lookahead.most_parts(evo.make_game(3, 5, "bulls-cows")) == 9  # no 2 bulls 1 cow
