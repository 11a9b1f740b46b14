"""`evo population`: the table, the JSON, the saved best tree, reproducibility."""

import json

import numpy as np
from click.testing import CliRunner

from evo.cli import main
from evo.core.game import make_game
from evo.core.population import random_population
from evo.core.treeio import load_tree


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result


def test_population_json_matches_the_trees_it_grows(tmp_path):
    result = run(
        "population",
        "-n",
        "3",
        "-c",
        "3",
        "--size",
        "50",
        "--seed",
        "4",
        "--json",
        "--save",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    for key in ("pegs", "colors", "size", "min", "max", "avg", "std"):
        assert key in stats
    # Recompute from the trees themselves, grown again from the same seed.
    trees = random_population(make_game(3, 3), 50, seed=4)
    averages = np.array([t.total for t in trees]) / 27
    assert stats["size"] == 50 and (stats["pegs"], stats["colors"]) == (3, 3)
    assert np.isclose(stats["min"], averages.min()) and np.isclose(stats["max"], averages.max())
    assert np.isclose(stats["avg"], averages.mean()) and np.isclose(stats["std"], averages.std())
    best = load_tree(tmp_path / "best.json")
    assert best.total == min(t.total for t in trees)


def test_population_table_and_bulls_cows():
    result = run(
        "population", "-n", "3", "-c", "6", "--variant", "bulls-cows", "--size", "20", "--seed", "1"
    )
    assert result.exit_code == 0, result.output
    header, rule, row = result.output.splitlines()[:3]
    assert header.split()[:6] == ["variant", "N", "C", "size", "min", "max"]
    assert row.split()[:4] == ["bulls-cows", "3", "6", "20"]


def test_population_is_reproducible_and_seed_dependent():
    a = run("population", "-n", "3", "-c", "4", "--size", "30", "--seed", "9", "--json")
    b = run("population", "-n", "3", "-c", "4", "--size", "30", "--seed", "9", "--json")
    c = run("population", "-n", "3", "-c", "4", "--size", "30", "--seed", "10", "--json")
    strip = lambda r: {k: v for k, v in json.loads(r.output).items() if k != "seconds"}  # noqa: E731
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


def test_population_refuses_a_game_too_large():
    result = run("population", "-n", "12", "-c", "10", "--size", "10")
    assert result.exit_code != 0
    assert "refused" in result.output and "GiB" in result.output


def test_population_bad_option_names_allowed_values():
    result = run("population", "--variant", "chess")
    assert result.exit_code != 0
    assert "mastermind" in result.output and "bulls-cows" in result.output
