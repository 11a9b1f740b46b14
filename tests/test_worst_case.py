"""Records with guarantees: the operators rebuild within the worst case a run asks for
(``max_guesses``), so that a run at a worst-case limit improves inside it."""

from __future__ import annotations

import numpy as np

from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.ea.mutation import depth_budget, exhaustive_mutation
from evo.ea.toolbox import build_toolbox


def _tree():
    return random_breaker(make_game(4, 6), rng=np.random.default_rng(3))  # total 7111, worst 9


def test_the_depth_budget_is_what_the_limit_leaves_below_the_guesses_above():
    tree = _tree()
    for node in (0, 1, int(np.argmax(tree.depth))):
        above = int(tree.depth[node]) - 1
        assert depth_budget(tree, node, max_guesses=6) == 6 - above
        height = tree.height(node)
        assert depth_budget(tree, node, keep_depth=True) == height
        assert depth_budget(tree, node, keep_depth=True, max_guesses=6) == min(height, 6 - above)
    assert depth_budget(tree, 0) is None


def test_exhaustive_rebuilds_within_the_runs_worst_case():
    """A sweep of exact rebuilds of the nodes of up to 60 codes: optimal subtrees put a
    code at 7 guesses; within max_guesses 6, the same total at worst case 6."""
    tree = _tree()
    free = exhaustive_mutation(tree, rng=np.random.default_rng(0), max_codes=60, sweep=True)
    held = exhaustive_mutation(
        tree, rng=np.random.default_rng(0), max_codes=60, sweep=True, max_guesses=6
    )
    assert free.worst == 7 and held.worst == 6
    assert held.total == free.total == 5879
    held.validate()


def test_the_toolbox_gives_the_operators_the_runs_limit():
    from evo.config import load_config

    cfg = load_config(
        {
            "game": {"pegs": 4, "colors": 6},
            "max_guesses": 6,
            "mutation": {"operators": [{"kind": "exhaustive", "max_codes": 60, "sweep": True}]},
        }
    )
    tb = build_toolbox(cfg, make_game(4, 6))
    mutated = tb.mutate(_tree(), rng=np.random.default_rng(0))
    assert mutated.worst == 6 and mutated.total == 5879


def test_a_tree_is_brought_within_a_worst_case():
    from evo.ea.polish import within_worst_case

    tree = _tree()  # worst case 9
    held = within_worst_case(tree, 6)
    held.validate()
    assert held.worst <= 6 and tree.worst == 9
    assert held.total <= tree.total + 50  # only the deep nodes change, to their best within
    import pytest

    with pytest.raises(ValueError, match="within 4"):
        within_worst_case(tree, 4)  # (4,6) needs 5 guesses for some code


def test_bringing_a_tree_within_tells_each_fix(tmp_path, monkeypatch):
    """``on_fix`` gets the tree after each rebuild, ending with the tree returned; the
    command prints how many codes are still too deep (each minute; here at once)."""
    from click.testing import CliRunner

    from evo.cli import main
    from evo.cli import polish as command
    from evo.core.treeio import save_tree
    from evo.ea.polish import within_worst_case

    tree = _tree()
    seen = []
    held = within_worst_case(tree, 6, on_fix=seen.append)
    deeper = [sum(c for d, c in t.histogram.items() if d > 6) for t in seen]
    assert len(seen) > 1 and seen[-1] is held
    assert deeper == sorted(deeper, reverse=True) and deeper[-1] == 0 and deeper[0] > 0
    monkeypatch.setattr(command, "PROGRESS_SECONDS", 0.0)
    save_tree(tree, tmp_path / "t.json")
    args = [
        "polish",
        str(tmp_path / "t.json"),
        "--max-guesses",
        "6",
        "-o",
        str(tmp_path / "p.json"),
    ]
    said = CliRunner().invoke(main, args)
    assert said.exit_code == 0, said.output
    assert f"within 6 guesses: {deeper[0]} codes deeper left, total {seen[0].total}" in said.output


def test_polish_keeps_a_worst_case(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main
    from evo.core.treeio import load_tree, save_tree

    src, out = tmp_path / "t.json", tmp_path / "p.json"
    save_tree(_tree(), src)
    args = ["polish", str(src), "--band", "3:60:all", "-o", str(out)]
    free = CliRunner().invoke(main, args)
    assert free.exit_code == 0 and load_tree(out).worst == 7, free.output
    held = CliRunner().invoke(main, [*args, "--max-guesses", "6"])
    assert held.exit_code == 0 and "within 6 guesses" in held.output, held.output
    tree = load_tree(out)
    assert tree.worst == 6 and tree.total == 5879


def test_polish_within_a_worst_case_alone(tmp_path):
    """--max-guesses without a band brings the tree within it and searches nothing more;
    neither is a usage error."""
    from click.testing import CliRunner

    from evo.cli import main
    from evo.core.treeio import load_tree, save_tree

    src, out = tmp_path / "t.json", tmp_path / "p.json"
    save_tree(_tree(), src)
    held = CliRunner().invoke(main, ["polish", str(src), "--max-guesses", "6", "-o", str(out)])
    assert held.exit_code == 0, held.output
    tree = load_tree(out)
    assert tree.worst == 6 and tree.total <= _tree().total + 50
    bare = CliRunner().invoke(main, ["polish", str(src), "-o", str(out)])
    assert bare.exit_code == 2 and "--band" in bare.output and "--max-guesses" in bare.output


def test_climbing_brings_a_tree_within_a_worst_case_for_less():
    """(4,6) by the entropy rule (5722, worst case 6) within 5 guesses: the deepest nodes
    that fit cost 5704; searching the nodes above them too finds 5690. Neither is below
    5626, the least total of worst case 5 (Koyama & Lai)."""
    import evo
    from evo.ea.polish import within_worst_case

    tree = evo.baseline(make_game(4, 6), "entropy")
    assert (tree.total, tree.worst) == (5722, 6)
    deepest = within_worst_case(tree, 5)
    climbed = within_worst_case(tree, 5, climb=1296)
    for t in (deepest, climbed):
        t.validate()
        assert t.worst == 5
    assert (deepest.total, climbed.total) == (5704, 5690)
    # climbing only as far as the nodes of a few codes finds what the deepest fit does
    assert within_worst_case(tree, 5, climb=3).total == 5704


def _impossible_guesses(tree) -> int:
    """Nodes whose guess is not among their own codes."""
    return sum(
        int(tree.guess[n]) not in set(tree.code_set(n).tolist())
        for n in range(len(tree.guess))
        if not tree.terminal[n]
    )


def test_fixes_searched_in_a_narrower_class():
    """(4,6) by the entropy rule within 5 guesses: fixes in the mixed class (the possible
    codes and the impossible ones of the 2 best bounds) fit higher up than fixes of every
    guess, and here cost less (5628 against 5704), with fewer impossible guesses; no
    subtree of consistent guesses alone brings every code within 5."""
    import pytest

    import evo
    from evo.ea.polish import TooShortError, within_worst_case

    tree = evo.baseline(make_game(4, 6), "entropy")
    wide = within_worst_case(tree, 5)
    narrow = within_worst_case(tree, 5, fit="mixed")
    for t in (wide, narrow):
        t.validate()
        assert t.worst == 5
    assert (wide.total, narrow.total) == (5704, 5628)
    assert (_impossible_guesses(tree), _impossible_guesses(wide)) == (84, 65)
    assert _impossible_guesses(narrow) == 24
    with pytest.raises(TooShortError, match="consistent class"):
        within_worst_case(tree, 5, fit="consistent")


def test_polish_fits_in_the_class_asked(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main
    from evo.core.treeio import load_tree

    out = tmp_path / "p.json"
    args = ["polish", "entropy", "-n", "4", "-c", "6", "--max-guesses", "5", "-o", str(out)]
    narrow = CliRunner().invoke(main, [*args, "--fit", "mixed"])
    assert narrow.exit_code == 0 and load_tree(out).total == 5628, narrow.output
    none = CliRunner().invoke(main, [*args, "--fit", "consistent"])
    assert none.exit_code == 2 and "consistent class" in none.output, none.output
    alone = CliRunner().invoke(
        main, ["polish", "entropy", "--band", "3:9:all", "--fit", "mixed", "-o", str(out)]
    )
    assert alone.exit_code == 2 and "--fit" in alone.output and "--max-guesses" in alone.output


def test_polish_climbs_when_asked(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main
    from evo.core.treeio import load_tree

    out = tmp_path / "p.json"
    args = ["polish", "entropy", "-n", "4", "-c", "6", "--max-guesses", "5", "-o", str(out)]
    deepest = CliRunner().invoke(main, args)
    assert deepest.exit_code == 0 and load_tree(out).total == 5704, deepest.output
    climbed = CliRunner().invoke(main, [*args, "--climb", "1296"])
    assert climbed.exit_code == 0 and load_tree(out).total == 5690, climbed.output
    alone = CliRunner().invoke(
        main, ["polish", "entropy", "--band", "3:9:all", "--climb", "9", "-o", str(out)]
    )
    assert alone.exit_code == 2 and "--climb" in alone.output and "--max-guesses" in alone.output


def test_polish_refuses_a_worst_case_no_breaker_meets_in_one_line(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main

    out = tmp_path / "p.json"
    args = ["polish", "lc", "-n", "4", "-c", "6", "--max-guesses", "2", "-o", str(out)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    assert "--max-guesses" in r.output and "within 2" in r.output
    assert "Traceback" not in r.output and not out.exists()
