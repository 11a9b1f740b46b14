"""Wordle as an evo game (issue 53 item 3): ``make_game("wordle")`` and ``--game wordle``
give a game that growth, tree files, configs, ``evo table``, ``evo play`` and the
baselines work with; its feedback checked against a letter-by-letter statement of the
rule, and a baseline's total against the published one (docs/WORDLE.md 4.2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.definitions import wordle_reference as rule

import evo
from evo.baselines import BaselineRefused, build
from evo.baselines.optimal import WORDLE_OPTIMUM_SECONDS, WORDLE_RANK_SECONDS, estimate_seconds
from evo.cli import main
from evo.cli.run import summary_table
from evo.config import Config, load_config
from evo.config.schema import game_codes
from evo.core import engine
from evo.core.game import game_from_spec, make_game, spec_key, spec_text
from evo.core.treeio import load_tree, save_tree
from evo.games.words import hard_mode_legal, hard_mode_mask, load_words


@pytest.fixture(scope="module")
def game():
    return make_game("wordle").prepare()


def test_make_game_names_wordle_and_its_sizes(game):
    words = load_words()
    assert (game.num_codes, game.num_guesses, game.num_feedbacks) == (2315, 12972, 243)
    assert make_game(variant="wordle") is game  # one per process: the table once
    assert game.format_codes(game.all_codes()) == [w.upper() for w in words.answers]
    assert sorted(game.words) == sorted(words.guesses)
    assert game.parse_code(" Salet ") == game.words.index("salet")
    assert game.table.shape == (12972, 2315) and game.rule is None
    assert make_game("wordle-hard").rule is not None and make_game("wordle-hard") != game


@pytest.mark.parametrize("bad", ["wordl", "mastermind", "custom"])
def test_make_game_refuses_another_name_alone(bad):
    with pytest.raises(ValueError, match="wordle, wordle-hard"):
        make_game(bad)


def test_a_word_not_allowed_is_refused_in_one_line(game):
    with pytest.raises(ValueError, match="not in Wordle's list"):
        game.parse_code("abcde")
    with pytest.raises(ValueError, match="not a 5-letter word"):
        game.parse_code("sal3t")


def test_the_games_feedback_is_the_rules(game):
    rng = np.random.default_rng(53)
    guesses = rng.integers(0, game.num_guesses, 3000)
    secrets = rng.integers(0, game.num_codes, 3000)
    got = game.feedback(guesses, secrets)
    for g, s, fb in zip(guesses, secrets, got):
        assert game.format_feedback(int(fb)) == rule(game.words[g], game.words[s])
    # a guess that is a secret wins on exactly itself
    assert (game.table[: game.num_codes] == 0).sum() == game.num_codes
    assert game.format_feedback(game.feedback(game.parse_code("speed"), game.parse_code("abide")))
    assert rule("speed", "abide") == "BBYBY"


def test_the_compiled_kernels_are_chosen_for_wordle_without_numba_loaded(game, monkeypatch):
    # 2,315 codes are fewer than COMPILED_ABOVE, but 12,972 guesses each: NumPy's one-step
    # trees took minutes where the kernels take seconds.
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    assert engine.compiled(game, "auto")
    assert not engine.compiled(make_game(4, 6), "auto")


def test_a_random_breaker_is_valid_and_its_file_reads_back(game, tmp_path):
    tree = evo.random_breaker(game, seed=1, pool="consistent")
    assert tree.is_valid()
    for secret in (0, 1000, 2314):  # each secret's game ends on it, answered by the rule
        steps = tree.play(secret)
        assert steps[-1] == (secret, 0)
        for guess, fb in steps:
            assert game.format_feedback(fb) == rule(game.words[guess], game.words[secret])
    path = save_tree(tree, tmp_path / "w.json")
    assert json.loads(path.read_text())["game"] == {"kind": "wordle"}
    back = load_tree(path)
    assert back.game is game and back.total == tree.total
    assert np.array_equal(back.guess, tree.guess)


def test_specs_and_configs_name_wordle(game):
    assert game_from_spec({"kind": "wordle"}) is game
    assert spec_key({"kind": "wordle-hard"}) == make_game("wordle-hard").key
    assert spec_text({"kind": "wordle-hard"}) == "Wordle in hard mode"
    cfg = Config.model_validate({"game": {"kind": "wordle"}})
    assert cfg.game.spec == {"kind": "wordle"} and game_codes(cfg.game) == 2315


def test_evo_play_walks_a_secret_and_answers_in_colours(game, tmp_path):
    tree = evo.random_breaker(game, seed=2, pool="consistent")
    path = save_tree(tree, tmp_path / "w.json")
    out = CliRunner().invoke(main, ["play", str(path), "--secret", "cigar"])
    assert out.exit_code == 0, out.output
    lines = [ln for ln in out.output.splitlines() if ln.startswith("Guess")]
    for line in lines:
        word, colours = line.split(": ")[1].split()[0], line.split("→ ")[1].split()[0]
        assert colours == rule(word.lower(), "cigar")
    assert lines[-1].endswith("CIGAR → GGGGG")
    # typed: each guess answered by the rule for secret CIGAR, as squares
    squares = str.maketrans({"G": "🟩", "Y": "🟨", "B": "⬛"})
    words = [w.split()[0].lower() for w in (ln.split(": ")[1] for ln in lines)]
    typed = "".join(rule(w, "cigar").translate(squares) + "\n" for w in words)
    out = CliRunner().invoke(main, ["play", str(path)], input=typed)
    assert out.exit_code == 0 and f"Solved in {len(words)} guesses: CIGAR" in out.output


def test_evo_table_prints_a_wordle_tree(tmp_path):
    tree = evo.random_breaker(make_game("wordle"), seed=3, pool="consistent")
    path = save_tree(tree, tmp_path / "w.json")
    out = CliRunner().invoke(main, ["table", str(path), "--min-count", "100"])
    assert out.exit_code == 0, out.output
    first = tree.game.format_code(int(tree.guess[0]))
    assert f"{first}   2315  {tree.total:>5}" in out.output


def test_pegs_do_not_apply_to_wordle():
    out = CliRunner().invoke(main, ["play", "kooi", "--game", "wordle", "--pegs", "5"])
    assert out.exit_code == 2 and "--pegs does not apply to wordle" in out.output


# ---------------------------------------------------------------- baselines


def lowest_consistent_total(game) -> int:
    """Guesses of "play the first answer (alphabetically) still possible", secret by
    secret, straight from the table."""
    total = 0
    for secret in range(game.num_codes):
        possible = np.arange(game.num_codes)
        while True:
            guess = int(possible[0])
            total += 1
            if guess == secret:
                break
            row = game.table[guess]
            possible = possible[row[possible] == row[secret]]
    return total


def test_entropy_is_the_published_total(game):
    # Lessard and Tjeng's "entropy" on all 12,972 guesses: SOARE, 8,018 (their ties are
    # entropy, a possible answer, the smaller largest part, then their word order; evo's
    # are entropy, a possible answer, the lowest id: the same tree's total).
    tree = build(game, "entropy")
    assert game.format_code(int(tree.guess[0])) == "SOARE"
    assert tree.total == 8018 and tree.is_valid()


def test_most_parts_opens_with_trace_as_published(game):
    # Published: TRACE, 7,945 with Lessard's ties (parts, entropy, a possible answer,
    # smaller largest part, his order); evo's kooi breaks ties by a possible answer, then
    # the lowest id (alphabetical): TRACE, 7,951.
    tree = build(game, "kooi")
    assert game.format_code(int(tree.guess[0])) == "TRACE"
    assert tree.total == 7951 and tree.is_valid()
    parts = np.count_nonzero(np.bincount(game.table[tree.guess[0]], minlength=243))
    assert parts == 150


def test_the_optimum_is_refused_at_once_with_its_estimate(game):
    # Decided first guess by first guess: about 16 minutes of one thread (measured: 956 s
    # of CPU); hard mode, whose search runs in Python under its rule, is not timed ahead.
    assert estimate_seconds(game, ranked=True) == WORDLE_RANK_SECONDS
    assert estimate_seconds(game) == WORDLE_OPTIMUM_SECONDS  # the whole search (a polish band)
    assert estimate_seconds(evo.make_game("wordle-hard")) == WORDLE_OPTIMUM_SECONDS
    with pytest.raises(BaselineRefused, match="exact optimum of wordle .* would take about"):
        evo.baseline(game, "optimal", time_limit=60)


def test_evo_baselines_game_wordle_lists_the_one_step_strategies(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    out = CliRunner().invoke(
        main,
        ["baselines", "--game", "wordle", "--only", "knuth-consistent,lc,optimal",
         "--time-limit", "60"],  # the optimum: about 9 minutes here, refused within 60 s
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    rows = {ln.split()[0]: ln.split()[1] for ln in out.output.splitlines()[3:] if ln.strip()}
    assert int(rows["lc"]) == lowest_consistent_total(make_game("wordle"))
    assert rows["optimal"] == "-"
    assert int(rows["knuth-consistent"]) > 7920  # no one-step tree beats the optimum
    assert "optimal: refused: the exact optimum of wordle" in out.output


# ---------------------------------------------------------------- the shipped breaker

SHIPPED = Path(__file__).resolve().parent.parent / "breakers" / "wordle.json"


def test_the_shipped_breaker_is_the_optimum_by_the_rules_own_statement():
    """breakers/wordle.json replayed for every answer by :func:`rule` (not evo's table):
    7,920 guesses, the published optimum (Selby; Bertsimas and Paskov), SALET first,
    worst case 5; and evo's own reading of it agrees."""
    tree = load_tree(SHIPPED)
    game = tree.game
    assert game == make_game("wordle") and tree.is_valid()
    assert (tree.total, tree.worst) == (7920, 5)
    words = game.words
    answers = list(load_words().answers)
    child = tree.child_table
    total, worst = 0, 0
    for secret in answers:
        node, guesses = 0, 0
        while True:
            word = words[int(tree.guess[node])]
            guesses += 1
            if word == secret:
                break
            node = int(child[node, game.parse_feedback(rule(word, secret))])
            assert node >= 0, f"no branch for {secret} after {word}"
        total, worst = total + guesses, max(worst, guesses)
    assert (total, worst) == (7920, 5)
    assert game.format_code(int(tree.guess[0])) == "SALET"


# ---------------------------------------------------------------- evolution


def test_the_shipped_config_evolves_wordle_from_random_breakers():
    """configs/wordle.yaml, cut to 3 generations of 6 breakers: a run of Wordle whose
    best beats the best random breaker of its first population, and is valid."""
    root = Path(__file__).resolve().parent.parent
    config = load_config(
        root / "configs" / "wordle.yaml",
        ["population.size=6", "stop.generations=3", "stop.seconds=null"],
    )
    game = make_game("wordle")
    assert config.game.kind == "wordle" and not config.population.init.baselines
    result = evo.evolve(game, config)
    assert result.stopped_by == "generations" and result.best.is_valid()
    first = result.logbook.select("min")[0]
    assert result.total < first and result.best.game is game
    assert result.summary["best_known_total"] == 7920
    assert summary_table(result.summary).startswith("Wordle, 2315 answers")  # not "None"


# ---------------------------------------------------------------- hard mode


def test_hard_modes_rule_is_the_and_of_the_masks_of_its_history():
    """The rule's state after two guesses allows exactly what hard_mode_mask allows
    after each of them (tests/test_wordle_rules.py checks the mask letter by letter)."""
    hard = make_game("wordle-hard")
    words, rule_ = hard.words, hard.rule
    rng = np.random.default_rng(5)
    for _ in range(40):
        secret = int(rng.integers(hard.num_codes))
        first, second = (int(g) for g in rng.integers(0, hard.num_guesses, 2))
        state = rule_.start()
        assert rule_.legal(state).all()
        masks = []
        for g in (first, second):
            fb = int(hard.feedback(g, secret))
            state = rule_.after(state, g, fb)
            masks.append(hard_mode_mask(words, words[g], fb))
        assert np.array_equal(rule_.legal(state), masks[0] & masks[1])
        assert rule_.legal(state)[secret]  # the secret is always legal


def legal_paths(tree, secrets) -> bool:
    """Every guess on the game path of each secret is allowed by hard mode after the
    guesses above it (by the string rule of evo.games.words)."""
    game = tree.game
    for secret in secrets:
        history: list[tuple[str, int]] = []
        for guess, fb in tree.play(int(secret)):
            if not hard_mode_legal(game.words[guess], history):
                return False
            history.append((game.words[guess], fb))
    return True


@pytest.mark.slow
def test_hard_mode_breakers_and_baselines_play_only_legal_guesses():
    hard = make_game("wordle-hard")
    secrets = np.random.default_rng(7).choice(hard.num_codes, 200, replace=False)
    grown = evo.random_breaker(hard, seed=1)
    assert grown.is_valid() and legal_paths(grown, secrets)
    normal = evo.random_breaker(make_game("wordle"), seed=1)
    assert not legal_paths(normal, secrets)  # so the check can fail
    kooi = build(hard, "kooi")
    assert kooi.is_valid() and legal_paths(kooi, secrets)
    assert kooi.total > 8122  # the published hard-mode optimum (within 6 guesses)


def test_hard_mode_is_its_own_game_in_files_and_configs(tmp_path):
    hard = make_game("wordle-hard")
    tree = evo.random_breaker(hard, seed=2, pool="consistent")
    path = save_tree(tree, tmp_path / "h.json")
    assert load_tree(path).game is hard
    with pytest.raises(ValueError, match="for Wordle in hard mode, not for Wordle"):
        evo.load_tree(path, game=make_game("wordle"))
    cfg = Config.model_validate({"game": {"kind": "wordle-hard"}})
    assert game_from_spec(cfg.game.spec) is hard


@pytest.mark.parametrize(
    ("name", "total", "worst"),
    [("wordle-hard.json", 8116, 7), ("wordle-hard-worst-6.json", 8122, 6)],
)
def test_the_shipped_hard_mode_breakers_replay_by_the_rules_statement(name, total, worst):
    """Every answer replayed by :func:`rule` (not evo's table), each guess checked legal
    by hard_mode_legal after the ones above: 8,122 within 6 guesses is Selby's proved
    hard-mode optimum; 8,116 his SALET without the limit."""
    tree = load_tree(SHIPPED.parent / name)
    game = tree.game
    assert game == make_game("wordle-hard") and tree.is_valid()
    words, child = game.words, tree.child_table
    moves = []
    for secret in load_words().answers:
        node, history = 0, []
        while True:
            word = words[int(tree.guess[node])]
            assert hard_mode_legal(word, history), (secret, word, history)
            reply = rule(word, secret)
            history.append((word, game.parse_feedback(reply)))
            if word == secret:
                break
            node = int(child[node, game.parse_feedback(reply)])
            assert node >= 0
        moves.append(len(history))
    assert (sum(moves), max(moves)) == (total, worst) == (tree.total, tree.worst)
