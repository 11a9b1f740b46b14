"""The exact optimum seeded with an upper bound (``Where(upper=...)``, ``against=...``;
``evo baselines --upper``, ``--against``): the same tree when the optimum is below it,
the breaker when nothing is, a proved lower bound otherwise."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from evo.baselines import KNOWN_OPTIMA, NoneBelow, Where, optimal, run_all
from evo.cli import main
from evo.core.game import make_game
from evo.core.treeio import load_tree, save_tree
from evo.search.build import build_tree
from tests.test_optimal import brute_costs


def _arrays(tree) -> tuple:
    return tuple(a.tolist() for a in (tree.guess, tree.label, tree.parent, tree.codes))


@pytest.mark.parametrize(
    "pegs, colors, variant", [(2, 3, "mastermind"), (3, 3, "mastermind"), (3, 4, "bulls-cows")]
)
def test_an_upper_bound_keeps_the_tree_and_proves_the_optimum_against_brute_force(
    pegs, colors, variant
):
    """Against an independent brute force: with the optimum plus one as the bound, the
    tree is the unbounded search's; with the optimum itself, nothing is below it (a
    search that ignored the bound would return a tree)."""
    game = make_game(pegs, colors, variant)
    codes, cost = brute_costs(pegs, colors, variant)
    best = cost(tuple(codes))
    plain = optimal(game, time_limit=None)
    seeded = optimal(game, time_limit=None, where=Where(upper=best + 1))
    assert seeded.total == best and _arrays(seeded) == _arrays(plain)
    with pytest.raises(NoneBelow) as e:
        optimal(game, time_limit=None, where=Where(upper=best))
    assert e.value.lower == best and f"at least {best:,}" in str(e.value)
    assert "time_limit" not in str(e.value)  # a proof, not a limit


@pytest.mark.parametrize("results", [False, True])
def test_nothing_below_the_breaker_returns_the_breaker(tmp_path, results):
    """(4,5): a breaker of the optimal total is the answer when nothing costs less, on
    the compiled search and on the spread search with a results file."""
    game = make_game(4, 5)
    plain = optimal(game, time_limit=None)
    where = Where(against=plain, results=tmp_path / "r.jsonl" if results else None)
    assert optimal(game, time_limit=None, where=where) is plain


@pytest.mark.parametrize("results", [False, True])
def test_a_breaker_above_the_optimum_gives_the_optimal_tree(tmp_path, results):
    """Against Knuth's tree (above the optimum), the search finds the optimum below it:
    the same tree as without a bound."""
    from evo.baselines import build

    game = make_game(4, 5)
    knuth = build(game, "knuth")
    plain = optimal(game, time_limit=None)
    assert knuth.total > plain.total == KNOWN_OPTIMA[(4, 5, "mastermind")]
    where = Where(against=knuth, results=tmp_path / "r.jsonl" if results else None)
    got = optimal(game, time_limit=None, where=where)
    assert _arrays(got) == _arrays(plain)


def test_the_least_of_upper_and_the_breaker_is_the_bound():
    game = make_game(3, 3)
    tree = optimal(game, time_limit=None)
    assert Where(upper=80, against=tree).bound(game) == 73
    assert Where(upper=60, against=tree).bound(game) == 60
    with pytest.raises(NoneBelow):
        optimal(game, time_limit=None, where=Where(upper=73, against=build_tree_of(game, 80)))


def build_tree_of(game, at_least: int):
    """A valid breaker of ``game`` totalling at least ``at_least`` (the lowest consistent
    code each time, checked)."""
    tree = build_tree(game, lambda s, node: int(s[0]))
    assert tree.total >= at_least
    return tree


def test_a_breaker_of_another_game_or_a_bound_below_one_is_refused():
    with pytest.raises(ValueError, match="of mastermind-3-3, not of mastermind-3-4"):
        Where(against=optimal(make_game(3, 3), time_limit=None)).bound(make_game(3, 4))
    with pytest.raises(ValueError, match="1 or more"):
        Where(upper=0).bound(make_game(3, 3))


def test_run_all_records_the_proved_lower_bound():
    game = make_game(3, 3)
    (got,) = run_all(game, ["optimal"], use_cache=False, where=Where(upper=73))
    assert got.lower == 73 and got.estimate_seconds is None


def test_the_cli_options(tmp_path):
    args = ["baselines", "-n", "3", "-c", "3", "--only", "optimal", "--no-cache"]
    res = CliRunner().invoke(main, [*args, "--upper", "73"])
    assert res.exit_code == 0, res.output
    assert "the optimum is at least 73" in res.output and "--time-limit" not in res.output
    res = CliRunner().invoke(main, [*args, "--upper", "73", "--json"])
    assert json.loads(res.output)[0]["lower_bound"] == 73
    res = CliRunner().invoke(main, [*args, "--upper", "74", "--json"])
    assert json.loads(res.output)[0]["total"] == 73
    lc = build_tree_of(make_game(3, 3), 74)
    path = save_tree(lc, tmp_path / "lc.json")
    res = CliRunner().invoke(main, [*args, "--against", str(path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)[0]["total"] == 73
    best = save_tree(optimal(make_game(3, 3), time_limit=None), tmp_path / "best.json")
    res = CliRunner().invoke(main, [*args, "--against", str(best), "--save", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert load_tree(tmp_path / "o" / "optimal.json").total == 73
    other = save_tree(optimal(make_game(2, 3), time_limit=None), tmp_path / "other.json")
    res = CliRunner().invoke(main, [*args, "--against", str(other)])
    assert res.exit_code == 2 and "--against" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(main, [*args, "--against", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "missing.json" in res.output


# Goddard 2004, "Mastermind revisited": the published optima, not evo's own search.
PUBLISHED = {(3, 4): 206, (4, 5): 2463}


@pytest.mark.parametrize("pegs, colors", sorted(PUBLISHED))
@pytest.mark.parametrize("breaker", ["optimal", "worse"])
@pytest.mark.parametrize("floors, results", [("none", False), (2, True)])
def test_against_the_optimal_or_a_worse_breaker_gives_the_published_optimum(
    tmp_path, pegs, colors, breaker, floors, results
):
    """Seeded with an optimal breaker (it is the answer) or a worse one (the lowest
    consistent code each time: the search finds the optimum below it), with and without
    the first guesses' floors and the spread search's results file: the published total."""
    game = make_game(pegs, colors)
    best = PUBLISHED[(pegs, colors)]
    against = (
        optimal(game, time_limit=None) if breaker == "optimal" else build_tree_of(game, best + 1)
    )
    where = Where(against=against, floors=floors, results=tmp_path / "r.jsonl" if results else None)
    got = optimal(game, time_limit=None, where=where)
    assert got.total == best
    assert (got is against) == (breaker == "optimal")
