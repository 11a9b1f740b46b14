"""Every key of a run config changes what a run does: each test here fails when its key
is ignored. The operators' own parameters are tested in test_operators.py; the table at
the end names the test(s) of every key of :class:`evo.config.Config`, and a test checks
that the table covers the whole model."""

from __future__ import annotations

import ast
import os
import random
import time
from pathlib import Path
from typing import Annotated, Union, get_args, get_origin

import numpy as np
import pytest
from pydantic import BaseModel

from evo.baselines import run as run_baseline
from evo.config import BUILTIN_KINDS, Config, load_config
from evo.core.game import GameTooLargeError, make_game
from evo.core.growth import random_breaker
from evo.core.treeio import save_tree
from evo.ea.fitness import evaluate_total
from evo.ea.individuals import as_individual, same_tree
from evo.ea.operators import OPERATORS
from evo.ea.state import hall_of_fame
from evo.ea.toolbox import build_toolbox
from evo.ea.workers import worker_pool
from evo.games.custom import custom_game
from evo.runs.checkpoint import read_document
from evo.runs.driver import run_config
from evo.runs.rundir import CHECKPOINT, create_run_dir, load_run

TESTS = Path(__file__).resolve().parent

#: A small, fast run: (3,4) Mastermind, 64 codes.
BASE = {
    "name": "opt",
    "seed": 3,
    "game": {"pegs": 3, "colors": 4},
    "population": {"size": 12},
    "stop": {"generations": 5},
    "crossover": {"rate": 0.5, "operator": {"kind": "graft"}},
    "mutation": {"rate": 0.8, "operators": [{"kind": "regrow"}]},
}


def config(*overrides: str, data: dict = BASE) -> Config:
    return load_config(data, list(overrides))


def run(cfg: Config, **kw):
    return run_config(cfg, progress=False, knuth=False, **kw)


def snapshots(cfg: Config) -> list[list]:
    """The population after every generation (generation 0 first)."""
    pops: list[list] = []
    run(cfg, on_generation=lambda gen, pop, logbook: pops.append(list(pop)))
    return pops


def rng_pair(seed: int = 0):
    g = make_game(3, 4)
    rng = np.random.default_rng(seed)
    return random_breaker(g, rng=rng), random_breaker(g, rng=rng)


# ----------------------------------------------------------------- name, seed
def test_name_names_the_run_directory_and_the_summary(tmp_path):
    cfg = config("name=my-study", "stop.generations=1")
    run_dir = create_run_dir(cfg, root=tmp_path)
    assert run_dir.name.startswith("my-study-")
    result = run(cfg, run_dir=run_dir)
    assert result.summary["name"] == "my-study"
    assert load_run(run_dir).summary["name"] == "my-study"


def _trees(pop):
    return sorted((ind.total, ind.guess.tobytes()) for ind in pop)


def test_seed_decides_the_run():
    one, again, two = (snapshots(config(f"seed={s}")) for s in (1, 1, 2))
    assert [_trees(p) for p in one] == [_trees(p) for p in again]
    assert _trees(one[0]) != _trees(two[0])  # the first population
    assert _trees(one[-1]) != _trees(two[-1])
    assert run(config("seed=2")).summary["seed"] == 2


def test_seed_decides_the_breeding_too():
    """Two seeds with the same first population (planted baselines only) still breed
    differently: the seed reaches selection and variation, not only the first draws."""
    names = "population.init.baselines=[knuth, kooi, irving, entropy, lc, knuth-consistent]"
    runs = [snapshots(config(f"seed={s}", "population.size=6", names)) for s in (1, 2)]
    assert _trees(runs[0][0]) == _trees(runs[1][0])
    assert [_trees(p) for p in runs[0][1:]] != [_trees(p) for p in runs[1][1:]]


def test_seed_decides_the_selection():
    """Without variation a generation is the selected parents alone: two seeds with the
    same first population differ by their tournaments."""
    names = "population.init.baselines=[knuth, kooi, irving, entropy, lc, knuth-consistent]"
    common = ["population.size=6", "crossover.rate=0", "mutation.rate=0", names]
    runs = [snapshots(config(f"seed={s}", *common)) for s in (1, 2)]
    assert _trees(runs[0][0]) == _trees(runs[1][0])
    assert [_trees(p) for p in runs[0][1:]] != [_trees(p) for p in runs[1][1:]]


# ----------------------------------------------------------------------- game
@pytest.mark.parametrize(
    "pegs, colors, variant, codes, feedbacks",
    [
        (3, 3, "mastermind", 27, 10),
        (2, 4, "mastermind", 16, 6),
        (3, 4, "bulls-cows", 24, 10),
        (3, 3, "black-peg", 27, 4),
    ],
)
@pytest.mark.parametrize("key", ["kind", "variant"])  # variant: kind's older name
def test_game_options_choose_the_game(pegs, colors, variant, codes, feedbacks, key):
    cfg = config(
        f"game.pegs={pegs}",
        f"game.colors={colors}",
        f"game.{key}={variant}",
        "stop.generations=1",
    )
    assert cfg.game.kind == variant
    result = run(cfg)
    assert result.best.game.key == (pegs, colors, variant)
    assert result.best.num_codes == codes == result.summary["codes"]
    assert result.best.game.num_feedbacks == feedbacks
    for ind in result.state.population:
        assert ind.game.key == (pegs, colors, variant)


def test_game_name_and_digest_find_a_custom_game():
    words = ["ant", "bug", "cat", "dog", "elk", "fox", "gnu", "hen"]
    game = custom_game(words, lambda g, s: len(set(g) & set(s)), name="test-config-game")
    named = ["game.kind=custom", "game.name=test-config-game", "stop.generations=1"]
    result = run(config(*named, f"game.digest={game.digest}"))
    assert result.best.game is game and result.summary["game"] == game.spec
    assert run(config(*named)).best.game is game  # by its name alone
    with pytest.raises(ValueError, match="'test-config-other' is not defined in this process"):
        config("game.kind=custom", "game.name=test-config-other")
    with pytest.raises(ValueError, match="defined here is not the one named"):
        config(*named, "game.digest=0123456789abcdef")
    with pytest.raises(ValueError, match="named by game.name"):
        config("game.kind=custom")


def test_game_memory_budget_decides_the_table():
    """(4,6): a 1.6 MiB table; 1 MiB leaves it out (feedbacks computed: the same run), a
    tenth of that refuses the game before the run starts."""
    common = ["game.pegs=4", "game.colors=6", "population.size=4", "stop.generations=2"]
    full = run(config(*common))
    small = run(config(*common, "game.memory_gib=0.001"))
    assert full.best.game.use_table and not small.best.game.use_table
    assert small.state.logbook == full.state.logbook
    with pytest.raises(GameTooLargeError, match="memory budget"):
        run(config(*common, "game.memory_gib=0.0001"))


# ----------------------------------------------------------------- population
@pytest.mark.parametrize("size", [6, 14])
def test_population_size(size):
    pops = snapshots(config(f"population.size={size}", "stop.generations=2"))
    assert [len(p) for p in pops] == [size] * 3


def test_population_init_pool():
    consistent = snapshots(config("population.init.pool=consistent", "stop.generations=0"))[0]
    assert all(ind.terminal.all() for ind in consistent)  # every guess can be the secret
    free = snapshots(config("population.init.pool=all", "stop.generations=0"))[0]
    assert not all(ind.terminal.all() for ind in free)


def test_population_init_baselines_are_planted():
    cfg = config("stop.generations=0", "population.init.baselines=[knuth, lc]")
    pop = run(cfg).state.population
    assert len(pop) == 12
    game = make_game(3, 4)
    for name in ("knuth", "lc"):
        tree = run_baseline(game, name).tree
        assert any(same_tree(ind, tree) for ind in pop), name
    plain = run(config("stop.generations=0")).state.population
    assert not any(same_tree(ind, run_baseline(game, "knuth").tree) for ind in plain)


def test_population_init_trees_are_planted(tmp_path):
    game = make_game(3, 4)
    knuth = run_baseline(game, "knuth").tree
    save_tree(knuth, tmp_path / "knuth.json")
    planted = run(config("stop.generations=0", f"population.init.trees=[{tmp_path}/knuth.json]"))
    assert len(planted.state.population) == 12
    assert any(same_tree(ind, knuth) for ind in planted.state.population)
    plain = run(config("stop.generations=0")).state.population
    assert not any(same_tree(ind, knuth) for ind in plain)


def test_population_init_trees_of_another_game_are_refused_before_the_run(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main

    save_tree(run_baseline(make_game(3, 3), "knuth").tree, tmp_path / "other.json")
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "c.yaml").write_text(yaml_of(BASE))
    for name, says in [
        ("other.json", "not for mastermind with 3 pegs and 4 colors"),
        ("broken.json", "not valid JSON"),
        ("gone.json", "cannot read"),
    ]:
        out = CliRunner().invoke(
            main,
            [
                "run",
                str(tmp_path / "c.yaml"),
                "--runs",
                str(tmp_path / "runs"),
                "-q",
                "--set",
                f"population.init.trees=[{tmp_path / name}]",
            ],
        )
        assert out.exit_code == 2, out.output
        (line,) = out.output.strip().splitlines()
        assert "population.init.trees.0" in line and name in line and says in line, line
        assert not (tmp_path / "runs").exists()


def yaml_of(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data)


# ----------------------------------------------------------------------- stop
@pytest.mark.parametrize("generations", [0, 3])
def test_stop_generations(generations):
    result = run(config(f"stop.generations={generations}"))
    assert [r["gen"] for r in result.state.logbook] == list(range(generations + 1))
    assert result.summary["generations"] == generations
    assert result.summary["stopped_by"] == "generations"


def test_stop_seconds():
    started = time.monotonic()

    def guard(gen, pop, logbook):
        if time.monotonic() - started > 20:
            raise AssertionError("stop.seconds was not honoured")

    cfg = config("stop.seconds=0.4", "stop.generations=1000000", "population.size=6")
    result = run(cfg, on_generation=guard)
    assert result.summary["stopped_by"] == "seconds"
    assert 0.4 <= result.state.elapsed < 10
    assert result.summary["generations"] < 1000000


def test_stop_target_total():
    free = [r["min"] for r in run(config("stop.generations=12")).state.logbook]
    # A target the run first reaches at some generation after the first one.
    target = next(m for m in free if m < free[0])
    first = free.index(target)
    result = run(config("stop.generations=12", f"stop.target_total={target}"))
    assert result.summary["stopped_by"] == "target_total"
    assert result.summary["generations"] == first < 12
    assert result.best.total <= target
    # Already reached by the first population: no generation at all.
    at_once = run(config("stop.generations=12", f"stop.target_total={free[0]}"))
    assert at_once.summary["generations"] == 0


# ----------------------------------------------------------------------- pool
def test_pool_is_the_operators_guess_pool():
    ops = [
        {"kind": "regrow"},
        {"kind": "best-of-k", "k": 2},
        {"kind": "greedy", "tries": 2, "exact_below": 5},
        {"kind": "exhaustive", "max_codes": 8},
    ]
    data = {**BASE, "mutation": {"rate": 1.0, "operators": ops}}
    common = ["population.init.pool=consistent", "stop.generations=4", "crossover.rate=1"]
    kept = run(config("pool=consistent", *common, data=data)).state.population
    assert all(ind.terminal.all() for ind in kept)
    free = run(config("pool=all", *common, data=data)).state.population
    assert not all(ind.terminal.all() for ind in free)


def test_toolbox_passes_each_operator_its_config_and_the_pool():
    """Every field of every operator's config (but kind and weight) reaches the function,
    with the run's pool when the function takes one. Values differ from the defaults."""
    values = {
        "node_weight": "sqrt",
        "bias": 0.25,
        "k": 3,
        "keep_current": False,
        "heuristic": "entropy",
        "tries": 3,
        "top": 4,
        "exact_below": 7,
        "max_codes": 9,
        "keep_depth": True,
        "min_codes": 4,
        "sweep": True,
        "guesses": "mixed",
        "impossible": 3,
        "mixed_below": 20,
        "max_depth": 3,
        "shallower": True,
        "fewest_last": True,
    }
    game = make_game(3, 4)
    for kind, op in OPERATORS.items():
        if kind not in BUILTIN_KINDS:  # registered from Python: tests/test_api.py
            continue
        fields = _operator_models()[kind].model_fields
        params = {f: values[f] for f in fields if f not in ("kind", "weight")}
        for f, v in params.items():
            assert fields[f].default != v, (kind, f)
        item = {"kind": kind, **params}
        if op.role == "crossover":
            cfg = config("pool=consistent", data={**BASE, "crossover": {"operator": item}})
            tb = build_toolbox(cfg, game)
            registered = tb.mate
        else:
            cfg = config("pool=consistent", data={**BASE, "mutation": {"operators": [item]}})
            tb = build_toolbox(cfg, game)
            registered = getattr(tb, tb.mutation_names[0])
        assert registered.func is op.function
        expect = dict(params)
        if "pool" in op.function.__kwdefaults__:
            expect["pool"] = "consistent"
        if "time_limit" in op.function.__kwdefaults__:
            expect["time_limit"] = tb.time_limit  # the run's, checked between tries
        if "max_guesses" in op.function.__kwdefaults__:
            expect["max_guesses"] = None  # the run's worst case: tests/test_worst_case.py
        assert registered.keywords == expect, kind


# ------------------------------------------------------------------ crossover
def _count_calls(tb, name):
    """Replace the toolbox's ``name`` by a spy: the list of ``(first argument, result)``
    of its calls."""
    calls = []
    real = getattr(tb, name)

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append((args[0], out))
        return out

    tb.register(name, spy)
    return calls


@pytest.mark.parametrize("rate", [0.0, 0.3, 1.0])
def test_crossover_rate(rate):
    tb = build_toolbox(config(f"crossover.rate={rate}", "mutation.rate=0"), make_game(3, 4))
    calls = _count_calls(tb, "mate")
    parents = rng_pair()
    n = 400
    for k in range(n):
        tb.breed(parents, (3, 1, k))
    sd = np.sqrt(rate * (1 - rate) / n)
    assert abs(len(calls) / n - rate) <= 4 * sd + 1e-9


def test_crossover_operator_kind():
    game = make_game(3, 4)
    for kind in ("graft", "exchange"):
        tb = build_toolbox(config(f"crossover.operator.kind={kind}"), game)
        assert tb.mate.func is OPERATORS[kind].function


# ------------------------------------------------------------------- mutation
@pytest.mark.parametrize("rate", [0.0, 0.3, 1.0])
def test_mutation_rate(rate):
    tb = build_toolbox(config(f"mutation.rate={rate}", "crossover.rate=0"), make_game(3, 4))
    calls = _count_calls(tb, "mutate")
    parents = rng_pair()
    n = 300
    for k in range(n):
        tb.breed(parents, (3, 1, k))
    sd = np.sqrt(rate * (1 - rate) / (2 * n))
    assert abs(len(calls) / (2 * n) - rate) <= 4 * sd + 1e-9


@pytest.mark.parametrize("repeat", [1, 3])
def test_mutation_repeat(repeat):
    cfg = config("mutation.rate=1", "crossover.rate=0", f"mutation.repeat={repeat}")
    tb = build_toolbox(cfg, make_game(3, 4))
    calls = _count_calls(tb, "mutate")
    parents = rng_pair()
    for k in range(10):
        calls.clear()
        kids = tb.breed(parents, (3, 1, k))
        assert len(calls) == 2 * repeat  # each child, repeat times
        for child in range(2):
            chain = calls[child * repeat : (child + 1) * repeat]
            assert chain[0][0] is parents[child]
            # Each mutation works on the result of the one before.
            for (_, before), (after, _) in zip(chain, chain[1:]):
                assert after is before
            assert kids[child][0].total == chain[-1][1].total


def test_mutation_operators_are_drawn_by_weight():
    ops = [
        {"kind": "regrow", "weight": 3},
        {"kind": "best-of-k", "weight": 1},
        {"kind": "greedy", "weight": 0},
    ]
    cfg = config(data={**BASE, "mutation": {"operators": ops}})
    tb = build_toolbox(cfg, make_game(3, 4))
    assert tb.mutation_names == ["mutate_regrow", "mutate_best_of_k", "mutate_greedy"]
    counts = {name: 0 for name in tb.mutation_names}
    for name in tb.mutation_names:

        def spy(tree, *, rng, _name=name):
            counts[_name] += 1
            return tree

        tb.register(name, spy)
    rng = np.random.default_rng(0)
    tree = rng_pair()[0]
    n = 2000
    for _ in range(n):
        tb.mutate(tree, rng=rng)
    assert counts["mutate_greedy"] == 0
    share = counts["mutate_regrow"] / n
    assert abs(share - 0.75) < 4 * np.sqrt(0.75 * 0.25 / n)


def test_mutation_operators_same_kind_twice_are_both_registered():
    ops = [{"kind": "best-of-k", "k": 1}, {"kind": "best-of-k", "k": 6}]
    tb = build_toolbox(config(data={**BASE, "mutation": {"operators": ops}}), make_game(3, 4))
    assert [getattr(tb, n).keywords["k"] for n in tb.mutation_names] == [1, 6]


# ------------------------------------------------------------------ selection
def _population(tb, size=30, seed=0):
    rng = np.random.default_rng(seed)
    trees = [random_breaker(tb.game, rng=rng) for _ in range(size)]
    return [as_individual(tb.cls, t, tb.evaluate(t)) for t in trees]


def _expected_tournament_mean(totals, t):
    """The mean total of the winner of ``t`` draws (with replacement) from ``totals``."""
    x = np.sort(np.asarray(totals, dtype=float))
    n = len(x)
    i = np.arange(1, n + 1)
    p = ((n - i + 1) / n) ** t - ((n - i) / n) ** t
    mean = float(p @ x)
    return mean, float(np.sqrt(p @ (x - mean) ** 2))


@pytest.mark.parametrize("size", [1, 3, 8])
def test_selection_tournament_size(size):
    tb = build_toolbox(config(f"selection.tournament_size={size}"), make_game(3, 4))
    pop = _population(tb)
    totals = [ind.total for ind in pop]
    n = 1500
    got = np.mean([ind.total for ind in tb.select(pop, n, rng=random.Random(0))])
    mean, sd = _expected_tournament_mean(totals, size)
    tolerance = 4 * sd / np.sqrt(n)
    assert abs(got - mean) < tolerance
    for other in {1, 3, 8} - {size}:
        assert abs(got - _expected_tournament_mean(totals, other)[0]) > tolerance


def test_selection_method_nsga2():
    data = {**BASE, "selection": {"method": "nsga2"}, "population": {"size": 12}}
    result = run(config(data=data))
    assert all(len(ind.fitness.values) == 2 for ind in result.state.population)
    front = result.summary["pareto_front"]
    assert front and all(len(p) == 2 for p in front)
    worsts = [w for _, w in front]
    totals = [t for t, _ in front]
    assert worsts == sorted(worsts) and totals == sorted(totals, reverse=True)
    assert "pareto_front" not in run(config()).summary
    assert all(len(ind.fitness.values) == 1 for ind in run(config()).state.population)


# ---------------------------------------------------------- elitism, hall of fame
@pytest.mark.parametrize("elitism", [0, 1, 3])
def test_elitism_keeps_the_best_of_the_last_generation(elitism):
    """Mutation changes every child, so the individuals carried over from one generation
    to the next are the elites alone: exactly the ``elitism`` best."""
    cfg = config(f"elitism={elitism}", "crossover.rate=0", "mutation.rate=1", "stop.generations=4")
    pops = snapshots(cfg)
    for before, after in zip(pops, pops[1:]):
        kept = [x for x in after if any(x is y for y in before)]
        assert len(kept) == elitism
        best = sorted(ind.fitness.values[0] for ind in before)[:elitism]
        assert sorted(ind.fitness.values[0] for ind in kept) == best
    bred = 12 - elitism + (12 - elitism) % 2  # pairs of parents: one more when odd
    log = run(cfg).state.logbook
    assert [r["nevals"] for r in log[1:]] == [bred] * 4


@pytest.mark.parametrize("size", [2, 7])
def test_hall_of_fame_size(size):
    result = run(config(f"hall_of_fame={size}"))
    hof = result.state.halloffame
    assert len(hof) == size
    totals = [ind.total for ind in hof]
    assert totals == sorted(totals)
    assert totals[0] == result.best.total == min(r["min"] for r in result.state.logbook)
    assert len(hall_of_fame(config(f"hall_of_fame={size}")).items) == 0


def test_max_guesses_is_a_hard_limit():
    cfg = config("max_guesses=4", "stop.generations=10", "population.size=16")
    result = run(cfg)
    assert result.state.logbook[0]["worst"] > 4  # the best random breaker breaks the limit
    assert result.best.worst <= 4
    within = [ind.worst <= 4 for ind in result.state.halloffame]
    assert within == sorted(within, reverse=True)  # within the limit first, whatever the total
    free = run(config("stop.generations=10", "population.size=16"))
    assert free.best.worst > 4 and free.best.total < result.best.total  # the limit costs


def test_max_guesses_penalty_ranks_every_breaker_within_the_limit_first():
    g = make_game(3, 4)
    rng = np.random.default_rng(0)
    trees = [random_breaker(g, rng=rng) for _ in range(40)]
    ok = [t for t in trees if t.worst <= 5]
    over = [t for t in trees if t.worst > 5]
    assert ok and over
    assert max(evaluate_total(t, max_guesses=5)[0] for t in ok) < min(
        evaluate_total(t, max_guesses=5)[0] for t in over
    )
    assert all(evaluate_total(t, max_guesses=5) == (t.total,) for t in ok)
    assert all(evaluate_total(t) == (t.total,) for t in over)
    tb = build_toolbox(config("max_guesses=5"), g)
    assert [tb.evaluate(t) for t in trees] == [evaluate_total(t, max_guesses=5) for t in trees]


# -------------------------------------------------------- workers, checkpoints
def _pid(_):
    return os.getpid()


def test_workers_run_the_tasks_in_other_processes():
    game = make_game(3, 4)
    cfg = config("workers=2")
    tb = build_toolbox(cfg, game)
    assert tb.map.func == tb.time_limit.map
    with worker_pool(cfg, tb):
        pids = set(tb.map(_pid, range(32)))
    assert os.getpid() not in pids and len(pids) >= 1
    assert tb.map.func == tb.time_limit.map  # the pool is gone with the run
    one = config("workers=1")
    tb = build_toolbox(one, game)
    with worker_pool(one, tb):
        assert set(tb.map(_pid, range(4))) == {os.getpid()}


def test_workers_give_the_same_run():
    one = run(config("workers=1"))
    two = run(config("workers=2"))
    assert [dict(r) for r in one.state.logbook] == [dict(r) for r in two.state.logbook]
    assert two.summary["workers"] == 2


@pytest.mark.parametrize("interval", [1, 3])
def test_checkpoint_interval(tmp_path, interval):
    cfg = config(f"checkpoint_interval={interval}", "stop.generations=7")
    run_dir = create_run_dir(cfg, root=tmp_path)
    seen = []

    def hook(gen, pop, logbook):
        doc = read_document(run_dir / CHECKPOINT)
        seen.append((gen, doc["generation"]))

    run(cfg, run_dir=run_dir, on_generation=hook)
    assert seen == [(g, g - g % interval) for g in range(8)]


# ------------------------------------------------------------- the key table
#: Each key of the config (operator fields as ``<list>.<kind>.<field>``) and the tests
#: that fail when it is ignored.
@pytest.mark.parametrize(
    "operator",
    [
        {"kind": "exhaustive", "max_codes": 300},
        {"kind": "greedy", "exact_below": 300, "tries": 1, "keep_current": False},
    ],
)
def test_keep_depth_keeps_the_worst_case(operator):
    """On Knuth's (4,6) breaker (worst case 5), the exact search inside the operator
    deepens some subtrees to save guesses (worst case 6); with ``keep_depth`` it keeps
    within each subtree's depth, and the greedy rebuild of the root then finds the
    least total of worst case 5, 5626."""
    game = make_game(4, 6)
    game.prepare()
    knuth = run_baseline(game, "knuth", rc_seeds=0).tree
    results = {}
    for keep in (False, True):
        cfg = load_config({"mutation": {"operators": [{**operator, "keep_depth": keep}]}})
        tb = build_toolbox(cfg, game)
        trees = [tb.mutate(knuth, rng=np.random.default_rng(i)) for i in range(24)]
        results[keep] = {(t.total, t.worst) for t in trees}
    assert any(worst > 5 for _, worst in results[False])
    if operator["kind"] == "exhaustive":
        assert all(worst <= 5 for _, worst in results[True])
    else:
        assert (5626, 5) in results[True] and (5625, 6) in results[False]


def test_auto_values_adapt_to_the_game():
    """``auto`` (population size, exact-search thresholds) follows the game, also when
    the game is changed from the command line: the quick config, written for (4,6),
    finds the optimum of (4,4) at once (it stalled at 906 with fixed thresholds)."""
    quick = TESTS.parent / "configs" / "quick.yaml"
    small = load_config(quick, ["game.colors=4", "stop.seconds=null", "stop.generations=3"])
    big = load_config(quick, ["game.pegs=5", "game.colors=8"])
    assert (small.population.size, big.population.size) == (40, 24)
    greedy, exhaustive = small.mutation.operators[0], small.mutation.operators[1]
    assert (greedy.exact_below, exhaustive.max_codes) == (300, 300)
    assert (big.mutation.operators[0].exact_below, big.mutation.operators[1].max_codes) == (46, 46)
    result = run(small.model_copy(update={"workers": 1}))
    assert result.best.total == 905  # the optimum of (4,4) (Goddard)


KEY_TESTS: dict[str, list[str]] = {
    "name": ["test_name_names_the_run_directory_and_the_summary"],
    "seed": [
        "test_seed_decides_the_run",
        "test_seed_decides_the_breeding_too",
        "test_seed_decides_the_selection",
    ],
    "game.pegs": ["test_game_options_choose_the_game"],
    "game.colors": ["test_game_options_choose_the_game"],
    "game.kind": ["test_game_options_choose_the_game"],
    "game.name": ["test_game_name_and_digest_find_a_custom_game"],
    "game.digest": ["test_game_name_and_digest_find_a_custom_game"],
    "game.memory_gib": ["test_game_memory_budget_decides_the_table"],
    "population.size": ["test_population_size", "test_auto_values_adapt_to_the_game"],
    "population.init.pool": ["test_population_init_pool"],
    "population.init.baselines": ["test_population_init_baselines_are_planted"],
    "population.init.trees": [
        "test_population_init_trees_are_planted",
        "test_population_init_trees_of_another_game_are_refused_before_the_run",
    ],
    "stop.generations": ["test_stop_generations"],
    "stop.seconds": ["test_stop_seconds"],
    "stop.target_total": ["test_stop_target_total"],
    "pool": [
        "test_pool_is_the_operators_guess_pool",
        "test_toolbox_passes_each_operator_its_config_and_the_pool",
        "test_consistent_pool_keeps_rebuilt_subtrees_consistent",
        "test_consistent_pool_on_a_consistent_breaker",
    ],
    "crossover.rate": ["test_crossover_rate"],
    "crossover.operator.kind": ["test_crossover_operator_kind"],
    "crossover.operator.node_weight": [
        "test_operators_pick_nodes_by_their_node_weight",
        "test_pick_node_draws_with_the_weight_it_is_given",
        "test_toolbox_passes_each_operator_its_config_and_the_pool",
    ],
    "crossover.operator.exchange.bias": [
        "test_exchange_bias_one_gives_the_first_offspring_every_better_subtree",
        "test_toolbox_passes_each_operator_its_config_and_the_pool",
    ],
    "mutation.rate": ["test_mutation_rate"],
    "mutation.repeat": ["test_mutation_repeat"],
    "mutation.operators.kind": ["test_toolbox_registers_the_operators"],
    "mutation.operators.weight": ["test_mutation_operators_are_drawn_by_weight"],
    "mutation.operators.node_weight": [
        "test_operators_pick_nodes_by_their_node_weight",
        "test_pick_node_draws_with_the_weight_it_is_given",
        "test_toolbox_passes_each_operator_its_config_and_the_pool",
    ],
    "mutation.operators.best-of-k.k": ["test_best_of_k_grows_k_subtrees_and_keeps_the_best"],
    "mutation.operators.best-of-k.keep_current": ["test_best_of_k_keep_current"],
    "mutation.operators.greedy.heuristic": [
        "test_greedy_builds_the_look_ahead_subtree_of_its_heuristic"
    ],
    "mutation.operators.greedy.tries": ["test_greedy_tries_the_given_number_of_root_guesses"],
    "mutation.operators.greedy.top": ["test_greedy_draws_root_guesses_among_the_top_only"],
    "mutation.operators.greedy.exact_below": [
        "test_greedy_solves_code_sets_up_to_exact_below_exactly",
        "test_auto_values_adapt_to_the_game",
    ],
    "mutation.operators.greedy.keep_current": ["test_greedy_keep_current"],
    "mutation.operators.greedy.max_codes": ["test_max_codes_limits_the_nodes_rebuilt"],
    "mutation.operators.greedy.keep_depth": ["test_keep_depth_keeps_the_worst_case"],
    "mutation.operators.exhaustive.keep_depth": ["test_keep_depth_keeps_the_worst_case"],
    "mutation.operators.exhaustive.min_codes": ["test_min_codes_picks_only_big_enough_nodes"],
    "mutation.operators.greedy.min_codes": ["test_min_codes_picks_only_big_enough_nodes"],
    "mutation.operators.greedy.max_depth": ["test_max_depth_picks_only_nodes_near_the_root"],
    "mutation.operators.exhaustive.max_depth": ["test_max_depth_picks_only_nodes_near_the_root"],
    "mutation.operators.exhaustive.shallower": ["test_shallower_takes_codes_off_the_worst_case"],
    "mutation.operators.exhaustive.fewest_last": [
        "test_a_runs_exhaustive_operator_takes_the_option"
    ],
    "selection.at_worst": ["test_selection_at_worst_is_a_third_objective"],
    "mutation.operators.exhaustive.sweep": [
        "test_a_sweep_rebuilds_every_outermost_node_of_the_band"
    ],
    "mutation.operators.greedy.sweep": ["test_a_greedy_sweep_rebuilds_every_outermost_node"],
    "mutation.operators.exhaustive.guesses": ["test_exhaustive_guesses_choose_the_class"],
    "mutation.operators.exhaustive.impossible": [
        "test_exhaustive_impossible_widens_the_mixed_class"
    ],
    "mutation.operators.greedy.mixed_below": [
        "test_greedy_mixed_below_solves_the_middle_sizes_in_the_mixed_class"
    ],
    "mutation.operators.greedy.impossible": ["test_greedy_impossible_widens_the_mixed_class"],
    "mutation.operators.exhaustive.max_codes": [
        "test_auto_values_adapt_to_the_game",
        "test_max_codes_limits_the_nodes_rebuilt",
        "test_exhaustive_puts_an_optimal_subtree",
    ],
    "selection.method": ["test_selection_method_nsga2"],
    "selection.tournament_size": ["test_selection_tournament_size"],
    "elitism": ["test_elitism_keeps_the_best_of_the_last_generation"],
    "max_guesses": [
        "test_max_guesses_is_a_hard_limit",
        "test_max_guesses_penalty_ranks_every_breaker_within_the_limit_first",
    ],
    "hall_of_fame": ["test_hall_of_fame_size"],
    "workers": [
        "test_workers_run_the_tasks_in_other_processes",
        "test_workers_give_the_same_run",
    ],
    "checkpoint_interval": ["test_checkpoint_interval"],
    # islands and cluster: tests/test_islands.py
    "islands.count": ["test_evo_run_with_islands_from_the_command_line"],
    "islands.migration.interval": [
        "test_epochs_follow_the_migration_interval_and_the_generation_limit"
    ],
    "islands.migration.migrants": [
        "test_ring_migration_moves_the_best_to_the_next_island_replacing_its_worst",
        "test_no_migrants_means_islands_evolve_apart",
    ],
    "islands.migration.replace": ["test_random_replacement_is_seeded_and_differs_from_worst"],
    "islands.overrides": [
        "test_island_configs_take_their_overrides_and_own_seeds",
        "test_an_island_override_changes_that_island_only",
    ],
    "cluster.address": ["test_a_lost_scheduler_stops_the_run_and_resume_finishes_it"],
    "cluster.workers": ["test_the_same_logbooks_in_process_and_on_a_local_dask_cluster"],
    "cluster.wait": ["test_1_a_scheduler_without_workers_is_refused_after_cluster_wait"],
}

#: Fields shared by every operator of a list, tested once for all of them.
_SHARED_FIELDS = {"kind", "weight", "node_weight"}


def _operator_models() -> dict[str, type[BaseModel]]:
    import evo.config as c

    out = {}
    for union in (c.CrossoverOp, c.MutationOp):
        for model in _models_in(union):
            out[_kind(model)] = model
    return out


def _kind(model: type[BaseModel]) -> str:
    """An operator model's kind: its literal, or ``registered`` for operators registered
    from Python (any name)."""
    kinds = get_args(model.model_fields["kind"].annotation)
    return kinds[0] if kinds else "registered"


def _models_in(tp) -> list[type[BaseModel]]:
    """The pydantic models a field's annotation holds (through lists, unions, Annotated)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    if get_origin(tp) in (list, Annotated, Union) or type(tp).__name__ == "UnionType":
        return [m for a in get_args(tp) for m in _models_in(a)]
    return []


def config_keys(model=Config, prefix: str = "") -> set[str]:
    """Every leaf key of the config, operator fields as ``<path>.<kind>.<field>`` (the
    shared ones as ``<path>.<field>``)."""
    keys = set()
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        models = _models_in(field.annotation)
        if not models:
            keys.add(path)
        elif len(models) == 1:
            keys |= config_keys(models[0], f"{path}.")
        else:  # a union of operator models, told apart by their kind
            for m in models:
                kind = _kind(m)
                for f in m.model_fields:
                    keys.add(f"{path}.{f}" if f in _SHARED_FIELDS else f"{path}.{kind}.{f}")
    return keys


def _test_names() -> set[str]:
    names = set()
    for path in TESTS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


def test_every_config_key_has_a_test_that_fails_when_it_is_ignored():
    keys = config_keys()
    assert "mutation.operators.greedy.tries" in keys and "crossover.operator.kind" in keys
    assert keys == set(KEY_TESTS), (keys - set(KEY_TESTS), set(KEY_TESTS) - keys)
    existing = _test_names()
    for key, names in KEY_TESTS.items():
        for name in names:
            assert name in existing, f"{key}: no test named {name}"


def test_selection_at_worst_is_a_third_objective(tmp_path):
    data = {**BASE, "selection": {"method": "nsga2", "at_worst": True}, "population": {"size": 12}}
    cfg = config("stop.generations=3", data=data)
    run_dir = create_run_dir(cfg, root=tmp_path)
    result = run(cfg, run_dir=run_dir)
    front = result.summary["pareto_front"]
    assert front and all(len(p) == 3 for p in front)
    for ind in result.state.population:
        assert ind.fitness.values == (ind.total, ind.worst, ind.at_worst)
    resumed = run(cfg.model_copy(update={"stop": cfg.stop.model_copy(update={"generations": 4})}),
                  run_dir=run_dir, resume=True)  # fmt: skip
    assert len(resumed.state.logbook) == 5  # its checkpoint holds three values a breaker
    two = run(config("stop.generations=3", data={**data, "selection": {"method": "nsga2"}}))
    assert all(len(p) == 2 for p in two.summary["pareto_front"])
    with pytest.raises(Exception, match="at_worst is a third objective of nsga2"):
        config(data={**BASE, "selection": {"at_worst": True}})
