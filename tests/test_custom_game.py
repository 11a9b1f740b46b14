"""Custom games from Python (docs/DESIGN.md §1): a list of codes and a feedback function
become a game that evo evolves, bounds, searches and draws; checked against the function
itself and against a brute force over every guess (tests/support/brute.py)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.brute import least

import evo
from evo.core.feedback_kernel import feedback_pairs
from evo.core.game import UnknownGameError, game_from_spec
from evo.core.treeio import TreeFileError, load_tree, save_tree
from evo.games.custom import custom_game
from evo.search.exact import UNBOUNDED, Solver

REPO = Path(__file__).resolve().parent.parent

#: Secrets of three distinct letters of ``abcd``; guesses: any three letters.
SECRETS = ["".join(p) for p in itertools.permutations("abcd", 3)]
GUESSES = SECRETS + ["".join(p) for p in itertools.product("abcd", repeat=3) if len(set(p)) < 3]


def marks(guess: str, secret: str) -> str:
    """A Wordle-like answer: G in place, Y elsewhere in the secret, . absent."""
    return "".join("G" if g == s else "Y" if g in secret else "." for g, s in zip(guess, secret))


@pytest.fixture(scope="module")
def words():
    return custom_game(SECRETS, marks, guesses=GUESSES, name="test-words")


def test_the_table_is_the_function_on_every_pair(words):
    assert (words.num_codes, words.num_guesses) == (24, 64)
    assert words.format_codes(words.all_guesses()) == GUESSES  # the secrets first
    for g, guess in enumerate(GUESSES):
        for s, secret in enumerate(SECRETS):
            said = words.format_feedback(int(words.feedback(g, s)))
            assert said == marks(guess, secret)
    assert words.format_feedback(words.win) == "GGG"
    assert not words.symmetric_feedback  # abc answers bcd .YY, bcd answers abc YY.


def test_the_kernels_read_both_ways(words):
    src = words.feedback_source
    assert isinstance(src, tuple) and len(src) == 2
    g = np.repeat(np.arange(words.num_guesses), words.num_codes)
    s = np.tile(np.arange(words.num_codes), words.num_guesses)
    assert np.array_equal(feedback_pairs(src, g, s), words.table.ravel())
    assert np.array_equal(feedback_pairs(src, g, s, False), words.table.ravel())


def test_codes_and_feedbacks_print_and_parse(words):
    assert words.parse_code("dcb") == SECRETS.index("dcb")
    assert words.parse_code(" D C B ") == SECRETS.index("dcb")  # case and spaces
    assert words.parse_feedback("gy.") == words.parse_feedback("GY.")
    with pytest.raises(ValueError, match="'abz' is not a guess of test-words"):
        words.parse_code("abz")
    with pytest.raises(ValueError, match="not one of test-words"):
        words.parse_feedback("GGGG")


@pytest.mark.parametrize(
    ("args", "kw", "message"),
    [
        ((["a", "b"], lambda g, s: 0), {}, "answers the secret 'b' as a win"),
        ((["ab", "abc"], lambda g, s: len(g)), {}, "answers itself 3, not 2"),
        ((["a", "a"], lambda g, s: g == s), {}, "given twice"),
        ((["a", 1, "1"], lambda g, s: g == s), {}, "written alike"),
        ((["a", "b"], lambda g, s: [g == s]), {}, "not hashable"),
        ((["a", "b"], lambda g, s: g == s), {"guesses": ["a"]}, "must hold every code"),
        ((["a", "b"], lambda g, s: g == s), {"name": "no/slash"}, "name must be"),
        ((list(range(300)), lambda g, s: "w" if g == s else (g - s) % 300), {}, "more than 256"),
        (("abc", lambda g, s: g == s), {}, "non-empty list"),
    ],
)
def test_bad_games_are_refused_in_one_line(args, kw, message):
    with pytest.raises(ValueError, match=message) as e:
        custom_game(*args, **kw)
    assert "\n" not in str(e.value)


def test_the_optimum_is_the_brute_forces(words):
    solver = Solver(words)
    codes = words.all_codes()
    assert solver.total(codes) == least(SECRETS, marks, guesses=GUESSES)
    wc = least(SECRETS, marks, guesses=GUESSES, worst=True)
    assert solver.total(codes, depth=wc) < UNBOUNDED
    assert solver.total(codes, depth=wc - 1) == UNBOUNDED
    secrets_only = custom_game(SECRETS, marks, name="test-words-secrets")  # G = M
    assert not secrets_only.symmetric_feedback
    assert Solver(secrets_only).total(codes) == least(SECRETS, marks)


def test_more_guesses_can_beat_the_secrets_alone():
    # Three secrets answered 0 or 1 by each other: no secret splits the other two, the
    # extra guess "x" tells all three apart at once.
    secrets = ["a", "b", "c"]

    def answer(g, s):
        return "win" if g == s else {"x": {"a": 0, "b": 1, "c": 2}}.get(g, {}).get(s, 0)

    game = custom_game(secrets, answer, guesses=["a", "b", "c", "x"], name="test-extra")
    assert least(secrets, answer) == 6  # a; then b; then c
    assert least(secrets, answer, guesses=["a", "b", "c", "x"]) == 6
    assert evo.baseline(game, "optimal").total == 6
    five = custom_game(
        ["a", "b", "c", "d"],
        lambda g, s: "win" if g == s else {"a": 0, "b": 1, "c": 2, "d": 3}[s] if g == "x" else 0,
        guesses=["a", "b", "c", "d", "x"],
        name="test-extra-4",
    )
    assert evo.baseline(five, "optimal").total == least(
        ["a", "b", "c", "d"],
        lambda g, s: "win" if g == s else {"a": 0, "b": 1, "c": 2, "d": 3}[s] if g == "x" else 0,
        guesses=["a", "b", "c", "d", "x"],
    )
    assert evo.baseline(five, "optimal").total == 4 + 4  # x, then each code at once
    best = evo.baseline(five, "optimal")
    assert five.format_code(int(best.guess[0])) == "x"


@pytest.mark.parametrize("name", ["knuth", "irving", "kooi", "entropy", "lc", "rc", "optimal"])
def test_baselines_are_valid_breakers(words, name):
    tree = evo.baseline(words, name)
    tree.validate()
    assert tree.total >= least(SECRETS, marks, guesses=GUESSES)


def test_a_custom_game_evolves_and_draws_in_a_few_lines(tmp_path):
    # The notebook's cell: any codes, any feedback function.
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen", "owl", "pig", "ram", "yak"]
    game = evo.custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-animals")
    result = evo.evolve(game, seed=1, generations=4)
    result.best.validate()
    optimum = least(words, lambda g, s: len(set(g) & set(s)))
    assert result.best.total >= optimum and result.logbook.select("min")[-1] == result.total
    assert evo.evolve(game, seed=1, generations=4).total == result.total  # reproducible
    svg = result.best.svg(depth=2)
    assert ">" + result.best.game.format_code(int(result.best.guess[0])) + "<" in svg
    graph = result.best.to_networkx()
    assert "pegs" not in graph.nodes[0] and graph.graph["kind"] == "custom"
    assert graph.graph["name"] == "test-animals"


def test_tree_files_name_the_game_and_reload_it(words, tmp_path):
    tree = evo.baseline(words, "entropy")
    path = save_tree(tree, tmp_path / "words.json")
    doc = json.loads(path.read_text())
    assert doc["game"] == words.spec and doc["game"]["digest"] == words.digest
    assert load_tree(path).total == tree.total  # found by its name in this process
    assert game_from_spec(doc["game"]) is words
    again = save_tree(tree, tmp_path / "words.npz")
    assert load_tree(again).total == tree.total
    with pytest.raises(TreeFileError, match="is for the custom game 'test-words'"):
        load_tree(path, game=evo.make_game(3, 4))


def test_a_file_of_another_game_of_the_name_is_refused(tmp_path):
    first = custom_game(["a", "b", "c"], lambda g, s: g == s, name="test-renamed")
    path = save_tree(evo.baseline(first, "lc"), tmp_path / "t.json")
    custom_game(["a", "b", "c", "d"], lambda g, s: g == s, name="test-renamed")
    with pytest.raises(TreeFileError, match="defined here is not the one named"):
        load_tree(path)
    with pytest.raises(UnknownGameError, match="not defined in this process"):
        game_from_spec({"kind": "custom", "name": "test-never-made", "digest": "0"})


def test_the_command_line_refuses_a_custom_game_it_cannot_know(words, tmp_path):
    path = save_tree(evo.baseline(words, "lc"), tmp_path / "words.json")
    done = subprocess.run(
        [sys.executable, "-c", "from evo.cli import main; main()", "table", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "custom game 'test-words' is not defined in this process" in lines[0]


def test_worker_processes_get_the_game(tmp_path):
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen"]
    game = evo.custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-workers")
    one = evo.evolve(game, seed=2, generations=2)
    two = evo.evolve(game, seed=2, generations=2, workers=2)
    assert one.logbook.select("min") == two.logbook.select("min")


def test_a_run_directory_and_its_report(tmp_path):
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen"]
    game = evo.custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-run-dir")
    result = evo.evolve(game, seed=3, generations=2, run_dir=tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["game"] == game.spec and summary["best_total"] == result.total
    assert load_tree(tmp_path / "run" / "best.json").total == result.total


# ------------------------------------------------------------------- rules on guesses
def hard(guess: str, earlier: str, answer: str) -> bool:
    """Wordle's hard mode on these words: a letter marked G stays in its place, a letter
    marked Y is played again."""
    for i, (e, a) in enumerate(zip(earlier, answer, strict=True)):
        if (a == "G" and guess[i] != e) or (a == "Y" and e not in guess):
            return False
    return True


def legal_everywhere(tree, rule) -> bool:
    """Every guess of ``tree`` allowed by ``rule`` after every guess above it, walked on
    the labels (not evo's tabulated rule)."""
    game = tree.game
    for i in range(len(tree)):
        guess = game.format_code(int(tree.guess[i]))
        j = i
        while tree.parent[j] >= 0:
            p = int(tree.parent[j])
            said = game.format_feedback(int(tree.label[j]))
            if not rule(guess, game.format_code(int(tree.guess[p])), said):
                return False
            j = p
    return True


#: Two distinct letters of ``abcdef`` (30 secrets), guessed by any two letters: a game
#: where the hard mode costs guesses (99 against 95, by the brute force).
PAIRS = ["".join(p) for p in itertools.permutations("abcdef", 2)]
PAIR_GUESSES = PAIRS + [c + c for c in "abcdef"]


@pytest.fixture(scope="module")
def hard_words():
    return custom_game(PAIRS, marks, guesses=PAIR_GUESSES, legal=hard, name="test-hard-words")


@pytest.fixture(scope="module")
def free_words():
    return custom_game(PAIRS, marks, guesses=PAIR_GUESSES, name="test-free-words")


def test_a_rule_is_kept_by_the_optimum_and_costs_what_the_brute_force_says(hard_words, free_words):
    best = evo.baseline(hard_words, "optimal")
    best.validate()
    assert legal_everywhere(best, hard)
    assert best.total == least(PAIRS, marks, guesses=PAIR_GUESSES, legal=hard)
    free = evo.baseline(free_words, "optimal")
    assert free.total == least(PAIRS, marks, guesses=PAIR_GUESSES)
    assert best.total > free.total and not legal_everywhere(free, hard)  # the rule costs
    solver = Solver(hard_words)
    codes = hard_words.all_codes()
    worst = least(PAIRS, marks, guesses=PAIR_GUESSES, legal=hard, worst=True)
    assert solver.total(codes, depth=worst) < UNBOUNDED
    assert solver.total(codes, depth=worst - 1) == UNBOUNDED


def test_the_strictest_rule_is_the_consistent_pool():
    # Every guess a code still possible: the exact search under that rule is the search
    # among consistent guesses of the game without it.
    strict = custom_game(PAIRS, marks, legal=lambda g, e, a: marks(e, g) == a, name="test-strict")
    free = custom_game(PAIRS, marks, name="test-free")
    codes = free.all_codes()
    assert Solver(strict).total(codes) == Solver(free, pool="consistent").total(codes)
    assert Solver(strict).total(codes) > Solver(free).total(codes)


@pytest.mark.parametrize(
    "name", ["knuth", "entropy", "kooi-consistent", "lc", "rc", "optimal-consistent"]
)
def test_baselines_keep_the_rule(hard_words, name):
    tree = evo.baseline(hard_words, name)
    tree.validate()
    assert legal_everywhere(tree, hard)


def test_evolution_keeps_the_rule(hard_words):
    for operator in ("exchange", "graft"):
        config = {"crossover": {"rate": 0.9, "operator": {"kind": operator}}}
        result = evo.evolve(hard_words, config, seed=4, generations=3)
        for tree in (*result.population, result.best):
            tree.validate()
            assert legal_everywhere(tree, hard)
        assert result.total >= evo.baseline(hard_words, "optimal").total


def test_random_breakers_keep_the_rule(hard_words):
    for seed in range(5):
        for pool in ("all", "consistent"):
            tree = evo.random_breaker(hard_words, seed=seed, pool=pool)
            tree.validate()
            assert legal_everywhere(tree, hard)


def test_a_rule_that_forbids_a_possible_code_is_refused():
    with pytest.raises(ValueError, match="legal forbids 'b' after 'a' answered") as e:
        custom_game(["a", "b", "c"], lambda g, s: g == s, legal=lambda g, e, a: g != "b")
    assert "\n" not in str(e.value)


def test_a_tree_breaking_the_rule_is_refused(hard_words, free_words, tmp_path):
    free = evo.baseline(free_words, "optimal")
    assert not legal_everywhere(free, hard)
    doc = json.loads(save_tree(free, tmp_path / "free.json").read_text())
    doc["game"] = hard_words.spec
    (tmp_path / "hard.json").write_text(json.dumps(doc))
    with pytest.raises(TreeFileError, match="is not legal there under test-hard-words's rule"):
        load_tree(tmp_path / "hard.json")


def test_a_helpful_guess_is_drawn_among_every_guess(monkeypatch):
    # When rejection sampling gives up, the exact list is of the guesses (not the codes'
    # rows read as columns, which only a symmetric feedback allows).
    from evo.ea import mutation

    def answer(g, s):
        return "win" if g == s else {"a": 0, "b": 1, "c": 2, "d": 3}[s] if g == "x" else 0

    game = custom_game(["a", "b", "c", "d"], answer, guesses=["a", "b", "c", "d", "x"])
    monkeypatch.setattr(mutation, "_REJECTION_TRIES", 0)
    codes = game.parse_codes(["a", "b", "c"]).astype(np.int64)
    rng = np.random.default_rng(0)
    drawn = {mutation.helpful_guess(game, codes, rng=rng, pool="all") for _ in range(60)}
    assert {game.format_code(g) for g in drawn} == {"a", "b", "c", "x"}  # not d: no help


def test_bounds_of_custom_games(words, hard_words):
    from evo.proofs.bound import check_certificate
    from evo.proofs.refine import lower_bound

    optimum = least(SECRETS, marks, guesses=GUESSES)
    for depth in (0, 1, None):
        bound = lower_bound(words, depth=depth)
        assert bound.lower_bound <= optimum
        check_certificate(bound.to_json(), game=words)
    assert lower_bound(words).lower_bound == optimum  # no depth: the optimum itself
    # A rule only forbids breakers: the bound of the game without it holds.
    assert lower_bound(hard_words, depth=1).lower_bound <= evo.baseline(hard_words, "optimal").total


def test_more_than_64_feedbacks():
    # Wordle has 243: the kernels' 64-bit sets of feedbacks (Kooi's parts met, tiny
    # sets' bounds) give way to their general loops.
    codes = list(range(30))

    def answer(g, s):
        return "win" if g == s else (g * 31 + s * 17 + (g * s) % 7) % 80

    game = custom_game(codes, answer, name="test-many-feedbacks")
    assert game.num_feedbacks > 64
    assert evo.baseline(game, "optimal").total == least(codes, answer)
    for name in ("knuth", "kooi", "entropy", "irving"):
        evo.baseline(game, name).validate()
    evo.evolve(game, seed=1, generations=2).best.validate()
