"""evo as a library, round two: configs as dicts, Config objects or YAML paths (shipped
ones by name), the last population and the Pareto front, selections and operators of
one's own from the pieces of evo.ops, trees planted from memory, and a run stepped by
hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import evo
from evo.ea.operators import OperatorError

ROOT = Path(__file__).resolve().parent.parent

SMALL = {"population": {"size": 8}, "stop": {"generations": 3}}


def _records(logbook) -> list[dict]:
    return [dict(r) for r in logbook]


# ------------------------------------------------------------------------- configs
@pytest.mark.slow
def test_evolve_takes_a_yaml_path_a_shipped_name_a_config_and_a_dict():
    game = evo.make_game(4, 6)
    by_path = evo.evolve(game, ROOT / "configs" / "quick.yaml", generations=1)
    by_text = evo.evolve(game, str(ROOT / "configs" / "quick.yaml"), generations=1)
    by_name = evo.evolve(game, "quick", generations=1)
    loaded = evo.evolve(game, evo.load_config("quick"), generations=1)
    as_dict = evo.evolve(game, evo.load_config("quick").model_dump(), generations=1)
    first = _records(by_path.logbook)
    for other in (by_text, by_name, loaded, as_dict):
        assert _records(other.logbook) == first
    assert by_path.config.name == "quick" and by_path.config.seed == 1


def test_a_yaml_config_of_another_game_or_no_file_is_refused():
    with pytest.raises(ValueError, match="not the game evolved"):
        evo.evolve(evo.make_game(3, 3), "quick", generations=1)
    with pytest.raises(ValueError, match="no config of evo's is called 'nope'"):
        evo.evolve(evo.make_game(3, 3), "nope", generations=1)


def test_shipped_configs_are_found_by_name_from_any_folder(tmp_path, monkeypatch):
    from evo.config import shipped_configs

    monkeypatch.chdir(tmp_path)
    names = shipped_configs()
    assert {"quick", "mastermind-4-7", "bulls-cows-4"} <= set(names)
    assert evo.load_config("quick").name == "quick"
    assert evo.load_config("quick.yaml").name == "quick"
    (tmp_path / "quick").write_text("name: mine\ngame: {pegs: 3, colors: 3}\n")
    assert evo.load_config("quick").name == "mine"  # a file of the user's comes first


# ------------------------------------------------------------------ what comes back
def test_the_last_population_and_its_fitness_come_back():
    r = evo.evolve(evo.make_game(3, 3), SMALL, seed=2)
    assert len(r.population) == 8 and r.fitness.shape == (8, 1)
    assert [int(f[0]) for f in r.fitness] == [t.total for t in r.population]
    assert all(isinstance(t, evo.Breaker) for t in r.population)
    assert r.best.total == min(t.total for t in r.population + r.hall_of_fame)


def test_the_breakers_of_a_run_carry_their_fitness_as_steps_individuals_do():
    """``Evolution.population`` (and the best, the hall of fame, the Pareto front) hold
    breakers with DEAP's ``fitness``, the same values as the individuals of ``steps`` for
    the same run (issue 51: they had none); with NSGA-II, both objectives."""
    game = evo.make_game(3, 4)
    r = evo.evolve(game, SMALL, seed=2)
    *_, last = evo.steps(game, SMALL, seed=2)
    assert [b.fitness.values for b in r.population] == [i.fitness.values for i in last.population]
    assert [b.fitness.values for b in r.population] == [tuple(map(float, f)) for f in r.fitness]
    for b in [r.best, *r.hall_of_fame, *r.pareto_front]:
        assert b.fitness.values == (b.total,) and b.fitness.valid
    assert all(r.best.fitness >= b.fitness for b in r.population)  # DEAP's order: the best
    nsga = evo.evolve(game, {**SMALL, "selection": {"method": "nsga2"}}, seed=2)
    assert all(b.fitness.values == (b.total, b.worst) for b in nsga.population)
    assert evo.baseline(game, "knuth").fitness is None  # not a breaker of a run


def test_the_pareto_front_is_what_no_other_breaker_beats_on_total_and_worst_case():
    r = evo.evolve(evo.make_game(4, 4), {**SMALL, "stop": {"generations": 4}}, seed=3)
    front = r.pareto_front
    seen = r.population + r.hall_of_fame
    assert front and front[0].total == r.best.total
    for f in front:
        assert not any(
            (t.total <= f.total and t.worst <= f.worst) and (t.total, t.worst) != (f.total, f.worst)
            for t in seen
        )
    for t in seen:  # every breaker seen is matched or beaten by one of the front
        assert any(f.total <= t.total and f.worst <= t.worst for f in front)
    nsga = evo.evolve(evo.make_game(4, 4), {**SMALL, "selection": {"method": "nsga2"}}, seed=3)
    assert sorted((t.total, t.worst) for t in nsga.pareto_front) == sorted(
        tuple(p[:2]) for p in nsga.summary["pareto_front"]
    )


# ---------------------------------------------------------------------- selections
def _rank_roulette(individuals, k, *, rng: np.random.Generator, pressure: float = 2.0):
    """A roulette wheel on ranks (less total, more slots): DEAP's selRoulette maximises."""
    ranked = sorted(individuals, key=lambda i: i.fitness.values[0], reverse=True)
    weights = np.arange(1, len(ranked) + 1, dtype=float) ** pressure
    return [ranked[i] for i in rng.choice(len(ranked), size=k, p=weights / weights.sum())]


def test_every_operator_of_ones_own_gets_a_numpy_generator():
    """A selection registered from Python draws from the same kind of generator as a
    mutation or a crossover (issue 51: it got a ``random.Random``), the same draws for the
    same seed, with one worker or two."""
    seen: dict[str, list] = {"mutation": [], "crossover": [], "selection": []}

    def mutation(tree, *, rng):
        seen["mutation"].append(type(rng))
        return tree

    def crossover(a, b, *, rng):
        seen["crossover"].append(type(rng))
        return a, b

    def selection(individuals, k, *, rng):
        seen["selection"].append(type(rng))
        return [individuals[i] for i in rng.integers(len(individuals), size=k)]

    evo.register_operator("spy-mutation", mutation)
    evo.register_operator("spy-crossover", crossover, role="crossover")
    evo.register_selection("spy-selection", selection)
    cfg = {
        **SMALL,
        "crossover": {"rate": 1.0, "operator": {"kind": "spy-crossover"}},
        "mutation": {"rate": 1.0, "operators": [{"kind": "spy-mutation"}]},
        "selection": {"method": "spy-selection"},
    }
    one = evo.evolve(evo.make_game(3, 3), cfg, seed=4)
    assert {k: set(v) for k, v in seen.items()} == {
        role: {np.random.Generator} for role in ("mutation", "crossover", "selection")
    }
    again = evo.evolve(evo.make_game(3, 3), cfg, seed=4)
    assert _records(again.logbook) == _records(one.logbook)


def test_a_registered_selection_resumes_with_the_same_draws(tmp_path):
    """A selection's NumPy generator is seeded from the run's selection state, which the
    checkpoint keeps: two generations, then two more from the run directory, give the
    logbook of four in one go."""
    evo.register_selection("rank-roulette", _rank_roulette)
    game = evo.make_game(3, 4)
    cfg = {**SMALL, "selection": {"method": "rank-roulette"}}
    straight = evo.evolve(game, cfg, seed=7, generations=4)
    evo.evolve(game, cfg, seed=7, generations=2, run_dir=tmp_path / "run")
    resumed = evo.evolve(game, cfg, seed=7, generations=4, run_dir=tmp_path / "run")
    assert _records(resumed.logbook) == _records(straight.logbook)
    assert len(straight.logbook) == 5


def test_register_operator_takes_every_role_its_type_names():
    """``role="selection"`` (in the type of ``role``) registers a selection, as
    register_selection does; a role outside the type is refused naming the three."""
    from typing import get_args, get_type_hints

    from evo.ea.operators import OPERATORS, register_operator

    roles = get_args(get_type_hints(register_operator)["role"])
    assert sorted(roles) == ["crossover", "mutation", "selection"]
    evo.register_operator("roulette-by-role", _rank_roulette, role="selection", pressure=1.0)
    assert OPERATORS["roulette-by-role"].role == "selection"
    assert OPERATORS["roulette-by-role"].defaults == {"pressure": 1.0}
    cfg = {**SMALL, "stop": {"generations": 3}, "selection": {"method": "roulette-by-role"}}
    by_role = evo.evolve(evo.make_game(3, 4), cfg, seed=5)
    evo.register_selection("roulette-by-role", _rank_roulette, pressure=1.0)
    assert _records(evo.evolve(evo.make_game(3, 4), cfg, seed=5).logbook) == _records(
        by_role.logbook
    )
    with pytest.raises(ValueError, match="'crossover', 'mutation', 'selection'.*'replacement'"):
        evo.register_operator("mine", _rank_roulette, role="replacement")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="built-in selection"):
        evo.register_operator("tournament", _rank_roulette, role="selection")
    with pytest.raises(TypeError, match="no parameter depth"):
        evo.register_operator("roulette-by-role", _rank_roulette, role="selection", depth=2)


def test_a_registered_selection_is_used_and_its_parameters_too():
    evo.register_selection("rank-roulette", _rank_roulette)
    game = evo.make_game(3, 4)
    cfg = {**SMALL, "stop": {"generations": 4}}
    tournament = evo.evolve(game, cfg, seed=5)
    roulette = evo.evolve(game, {**cfg, "selection": {"method": "rank-roulette"}}, seed=5)
    assert _records(roulette.logbook) != _records(tournament.logbook)
    evo.register_selection("rank-roulette", _rank_roulette, pressure=0.0)  # uniform
    flat = evo.evolve(game, {**cfg, "selection": {"method": "rank-roulette"}}, seed=5)
    assert _records(flat.logbook) != _records(roulette.logbook)


def test_a_registered_selection_gives_the_same_logbook_with_two_workers():
    evo.register_selection("rank-roulette", _rank_roulette)
    cfg = {**SMALL, "selection": {"method": "rank-roulette"}}
    one = evo.evolve(evo.make_game(3, 4), cfg, seed=6, workers=1)
    two = evo.evolve(evo.make_game(3, 4), cfg, seed=6, workers=2)
    assert _records(one.logbook) == _records(two.logbook)


def test_selections_are_checked():
    with pytest.raises(ValueError, match="not known.*'tournament', 'nsga2'"):
        evo.load_config({"selection": {"method": "roulette"}})
    with pytest.raises(ValueError, match="built-in"):
        evo.register_selection("nsga2", _rank_roulette)
    evo.register_selection("too-few", lambda individuals, k, *, rng: individuals[:1])
    with pytest.raises(OperatorError, match="'too-few'.*not a list of"):
        evo.evolve(evo.make_game(3, 3), {**SMALL, "selection": {"method": "too-few"}})


# ------------------------------------------------------------------ planting trees
def test_trees_in_memory_are_planted():
    game = evo.make_game(4, 6)
    knuth = evo.baseline(game, "knuth")
    cfg = {**SMALL, "stop": {"generations": 0}}
    r = evo.evolve(game, cfg, seed=1, plant=[knuth])
    assert r.logbook[0]["min"] == 5801 and any(t.total == 5801 for t in r.population)
    bare = evo.evolve(game, cfg, seed=1)
    assert bare.logbook[0]["min"] > 5801  # random breakers alone are far worse


def test_a_planted_tree_must_be_a_whole_breaker_of_the_game():
    game = evo.make_game(3, 3)
    with pytest.raises(ValueError, match=r"plant\[0\] is a tree of mastermind-4-6"):
        evo.evolve(game, SMALL, plant=[evo.baseline(evo.make_game(4, 6), "knuth")])
    with pytest.raises(ValueError, match=r"plant\[0\] is str"):
        evo.evolve(game, SMALL, plant=["knuth"])


# ----------------------------------------------------------------- stepping by hand
def test_steps_yield_every_generation_as_evolve_records_them():
    game = evo.make_game(3, 4)
    seen = []
    for state in evo.steps(game, SMALL, seed=7):
        seen.append((state.generation, state.logbook[-1]["min"]))
    whole = evo.evolve(game, SMALL, seed=7)
    assert seen == [(r["gen"], r["min"]) for r in whole.logbook]


def _grandchildren() -> set[int]:
    """This process's grandchildren: a pool's workers (children of its fork server)."""
    import os

    def children(pid: int) -> list[int]:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                return [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return []

    return {g for c in children(os.getpid()) for g in children(c)}


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_steps_stop_when_the_loop_does_and_the_workers_with_them():
    game = evo.make_game(3, 4)
    before = _grandchildren()
    gen = evo.steps(game, {**SMALL, "stop": {"generations": 100}}, seed=7, workers=2)
    for state in gen:
        workers = _grandchildren() - before
        if state.generation == 2:
            break
    assert state.generation == 2 and len(workers) == 2
    gen.close()
    assert not (_grandchildren() & workers)


def test_an_engine_driven_by_hand():
    from evo.ea.engine import make_engine

    config = evo.default_config(evo.make_game(3, 3), seed=1)
    engine = make_engine(config, evo.make_game(3, 3))
    with engine.running():
        state = engine.first()
        gens = [state.generation] + [s.generation for s in engine.steps(state)]
    assert gens == list(range(config.stop.generations + 1))
    assert engine.stop_reason(state) == "generations"
    assert np.all(np.diff([r["min"] for r in state.logbook]) <= 0)  # elitism: never worse
