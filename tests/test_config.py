"""Run configs: validation with key paths and allowed values, --set overrides, the
shipped configs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evo.config import Config, ConfigError, load_config, parse_override

CONFIGS = sorted((Path(__file__).parent.parent / "configs").glob("*.yaml"))


def error_of(data=None, overrides=()) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(data if data is not None else {}, overrides)
    return str(e.value)


def test_defaults_are_valid():
    c = load_config({})
    assert c == Config()
    assert c.population.size == 100
    assert c.crossover.operator.kind == "graft"
    assert c.stop.generations == 50


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    c = load_config(path)
    assert c.name == path.stem  # its runs are named after the file
    # Every shipped config explains its choices.
    assert path.read_text().count("#") >= 5


def test_the_shipped_configs_are_all_there():
    names = {p.name for p in CONFIGS}
    assert {
        "quick.yaml",
        "mastermind-3-3.yaml",
        "mastermind-4-6.yaml",
        "mastermind-4-6-pareto.yaml",
        "bulls-cows-3.yaml",
        "bulls-cows-4.yaml",
    } <= names


@pytest.mark.parametrize(
    "path", [p for p in CONFIGS if p.stem.endswith(("-pareto", "-worst"))], ids=lambda p: p.name
)
def test_the_two_objective_configs_plant_breakers_of_their_own_game(path):
    """The configs of the best total at each worst case: NSGA-II, the worst case an
    objective (not a limit), and every planted file shipped and named for the game."""
    c = load_config(path)
    root = Path(__file__).parent.parent
    assert c.selection.method == "nsga2" and c.max_guesses is None
    assert c.population.size % 4 == 0
    game = f"{c.game.variant}-{c.game.pegs}"
    if c.game.variant == "mastermind":
        game += f"-{c.game.colors}"
    for tree in c.population.init.trees:
        assert (root / tree).is_file(), tree
        assert Path(tree).name.replace(".", "-").startswith(game + "-"), tree


def test_unknown_key_names_its_path_and_the_allowed_keys():
    msg = error_of({"population": {"size": 10, "sise": 3}})
    assert "population.sise: unknown key" in msg
    assert "size, init" in msg
    msg = error_of({"mutation": {"operators": [{"kind": "greedy", "trys": 2}]}})
    assert "mutation.operators.0.trys: unknown key" in msg
    assert "tries" in msg and "heuristic" in msg


def test_bad_values_name_the_path_and_what_is_allowed():
    msg = error_of({"selection": {"method": "tourney"}})
    assert "selection.method" in msg and "'tournament', 'nsga2'" in msg
    msg = error_of({"mutation": {"operators": [{"kind": "mutate-all"}]}})
    assert "mutation.operators.0" in msg and "'regrow'" in msg and "'exhaustive'" in msg
    msg = error_of({"population": {"size": 1}})
    assert "population.size" in msg and "greater than or equal to 2" in msg
    msg = error_of({"game": {"variant": "bulls-cows", "pegs": 4, "colors": 3}})
    assert "game:" in msg and "pegs <= colors" in msg
    msg = error_of({"stop": {"generations": None}})
    assert "stop" in msg and "at least one" in msg
    msg = error_of({"elitism": 200, "population": {"size": 100}})
    assert "elitism" in msg


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("population:\n  size: [1\n")
    with pytest.raises(ConfigError, match="bad.yaml is not valid YAML"):
        load_config(bad)
    bad.write_text("pool: everything\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: pool: 'everything' is not allowed"):
        load_config(bad)
    with pytest.raises(ConfigError, match="no config file .*missing.yaml.*evo config list"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="cannot read config .*folder.yaml"):
        (tmp_path / "folder.yaml").mkdir()
        load_config(tmp_path / "folder.yaml")


def test_overrides_are_yaml_scalars():
    assert parse_override("population.size=200") == (["population", "size"], 200)
    assert parse_override("max_guesses=null") == (["max_guesses"], None)
    assert parse_override("crossover.rate=0.25") == (["crossover", "rate"], 0.25)
    assert parse_override("name=my-run") == (["name"], "my-run")
    with pytest.raises(ConfigError, match="KEY.PATH=VALUE"):
        parse_override("population.size")


def test_overrides_reach_any_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: base\nstop:\n  seconds: 30\n")
    c = load_config(
        path,
        [
            "population.size=200",
            "stop.generations=7",
            "mutation.operators.0.weight=3",
            "crossover.operator.kind=exchange",
            "crossover.operator.bias=0.5",
            "game.variant=bulls-cows",
            "game.colors=10",
        ],
    )
    assert c.population.size == 200
    assert c.stop.generations == 7 and c.stop.seconds == 30
    assert c.mutation.operators[0].weight == 3
    assert c.crossover.operator.kind == "exchange" and c.crossover.operator.bias == 0.5
    assert c.game.variant == "bulls-cows"


def test_bad_overrides_fail_with_the_path():
    assert "population.sise: unknown key" in error_of({}, ["population.sise=3"])
    assert "not an item of the list" in error_of({}, ["mutation.operators.5.weight=1"])
    assert "'lots'" in error_of({}, ["population.size=lots"])


def test_resolved_config_round_trips(tmp_path):
    c = load_config({"name": "x", "mutation": {"operators": [{"kind": "greedy", "tries": 3}]}})
    path = tmp_path / "config.yaml"
    path.write_text(c.to_yaml())
    back = load_config(path)
    assert back == c
    assert back.mutation.operators[0].kind == "greedy" and back.mutation.operators[0].tries == 3
    assert yaml.safe_load(path.read_text()) == c.model_dump(mode="json")


def test_a_huge_number_of_pegs_is_refused_at_once(tmp_path):
    """``pegs: 2**63`` was counted (``3 ** 2**63``) before its bound was checked: the
    config never loaded (found by test_cli_fuzz). Now one line, at once."""
    import subprocess
    import sys

    path = tmp_path / "huge.yaml"
    path.write_text("game: {colors: 3, pegs: 9223372036854775808}\n")
    code = "import sys; from evo.cli import main; sys.argv = ['evo'] + sys.argv[1:]; main()"
    out = subprocess.run(
        [sys.executable, "-c", code, "config", "show", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "game.pegs" in out.stderr, out.stderr
