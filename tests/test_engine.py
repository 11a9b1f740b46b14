"""The engine choice (evo.core.engine): ``auto`` keeps small games on NumPy until numba is
loaded, the named engines are obeyed, and both give the same trees."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from evo.core import engine
from evo.core.engine import compiled
from evo.core.game import make_game
from evo.games.pegs import PegGame
from evo.search import lookahead


def test_auto_keeps_a_small_game_on_numpy_until_numba_is_loaded(monkeypatch):
    small = make_game(4, 6)
    import numba  # noqa: F401  (loaded: the compiled engine costs nothing more)

    assert compiled(small, "auto")
    monkeypatch.delitem(sys.modules, "numba")
    assert not compiled(small, "auto")
    assert compiled(small, "auto", small=False)  # growth: a population repays the load
    assert compiled(small, "compiled") and not compiled(small, "numpy")


def test_auto_compiles_a_big_game_and_the_kernels_serve_a_game_without_a_table(monkeypatch):
    """Every kernel reads the table or computes the feedbacks: no table, no reason to
    leave the compiled engine."""
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    big = make_game(4, 8)
    assert big.num_codes > engine.COMPILED_ABOVE >= make_game(4, 7).num_codes
    assert compiled(big, "auto")
    assert not compiled(make_game(4, 7), "auto")
    no_table = PegGame(4, 6, use_table=False)
    assert compiled(no_table, "compiled") and not compiled(no_table, "numpy")


def test_the_default_engine_serves_calls_that_name_none(monkeypatch):
    game = make_game(4, 6)
    monkeypatch.setattr(engine, "DEFAULT", "numpy")
    assert not compiled(game)
    monkeypatch.setattr(engine, "DEFAULT", "compiled")
    assert compiled(game)
    with pytest.raises(ValueError, match="engine must be one of"):
        compiled(game, "gpu")  # type: ignore[arg-type]


@pytest.mark.parametrize("heuristic", ["knuth", "entropy"])
def test_the_engine_keyword_is_obeyed_and_gives_the_same_tree(monkeypatch, heuristic):
    game = make_game(4, 6)
    monkeypatch.setattr(engine, "DEFAULT", "compiled")
    by_kernel = lookahead.lookahead_tree(game, heuristic)

    def kernel_called(*args, **kwargs):
        raise AssertionError("the compiled kernel ran on engine='numpy'")

    monkeypatch.setattr(lookahead, "_compiled_choice", kernel_called)
    by_numpy = lookahead.lookahead_tree(game, heuristic, engine="numpy")
    assert by_numpy.total == by_kernel.total
    assert np.array_equal(by_numpy.guess, by_kernel.guess)
    assert np.array_equal(by_numpy.codes, by_kernel.codes)


@pytest.mark.parametrize("heuristic", range(4))
def test_threaded_scoring_chooses_the_guess_of_the_serial_kernel(heuristic):
    """The threaded kernel scores each candidate as the serial one and keeps the best in
    the same order: the same guess on random code sets, ties included."""
    from evo.search.lookahead import _nlogn
    from evo.search.lookahead_kernel import best_guess, best_guess_threads
    from evo.search.palette import palette

    game = make_game(4, 6)
    rng = np.random.default_rng(5)
    cands = np.arange(game.num_codes, dtype=np.int64)
    args = (game.num_feedbacks, _nlogn(game.num_codes), palette(game), 0)
    for size in (3, 20, 150, 600, 1296):
        codes = np.sort(rng.choice(game.num_codes, size, replace=False)).astype(np.int64)
        for pool in (cands, codes):
            serial = best_guess(game.feedback_source, codes, pool, heuristic, *args)
            assert best_guess_threads(game.feedback_source, codes, pool, heuristic, *args) == serial


def test_threads_option_reaches_the_threaded_kernel(monkeypatch):
    """Above THREADED_WORK with more than one thread the threaded kernel chooses (the same
    tree); with one thread it never runs."""
    from evo.search import lookahead_kernel

    game = make_game(4, 6)
    monkeypatch.setattr(lookahead, "THREADED_WORK", 0)
    monkeypatch.setattr(lookahead, "WHOLE_TREE_CODES", 0)  # node by node, as big games
    calls = []
    threaded = lookahead_kernel.best_guess_threads

    def counted(*args):
        calls.append(len(args[1]))
        return threaded(*args)

    monkeypatch.setattr(lookahead_kernel, "best_guess_threads", counted)
    engine.set_threads(1)
    try:
        one = lookahead.lookahead_tree(game, "irving", engine="compiled")
        assert calls == []
        engine.set_threads(2)
        two = lookahead.lookahead_tree(game, "irving", engine="compiled")
    finally:
        engine.set_threads(None)
    assert calls and calls[0] == game.num_codes
    assert two.total == one.total == 5696 and np.array_equal(two.guess, one.guess)


def test_threads_come_from_the_setting_then_the_environment(monkeypatch):
    monkeypatch.setattr(engine, "THREADS", None)
    monkeypatch.setenv("EVO_THREADS", "3")
    assert engine.threads() == 3
    monkeypatch.setenv("EVO_THREADS", "")
    assert engine.threads() >= 1
    engine.set_threads(1)
    assert engine.threads() == 1
    with pytest.raises(ValueError):
        engine.set_threads(0)


@pytest.mark.parametrize("command", ["baselines", "polish"])
def test_the_threads_option_sets_the_threads(tmp_path, monkeypatch, command):
    from click.testing import CliRunner

    from evo.cli import main

    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    monkeypatch.setattr(engine, "THREADS", None)
    args = ["-n", "3", "-c", "3", "--threads", "2"]
    if command == "baselines":
        args = ["baselines", *args, "--only", "knuth"]
    else:
        args = ["polish", "knuth", *args, "--band", "3:27:all", "-o", str(tmp_path / "p.json")]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert engine.THREADS == 2
    res = CliRunner().invoke(main, [args[0], "--threads", "0"])
    assert res.exit_code == 2 and "--threads" in res.output


@pytest.mark.parametrize(
    "pegs,colors,variant", [(4, 6, "mastermind"), (3, 7, "mastermind"), (4, 7, "bulls-cows")]
)
def test_compiled_table_rows_equal_numpys_and_the_pegs(pegs, colors, variant):
    """The compiled build of a big table (here forced on small games, in uneven blocks)
    gives NumPy's rows, and both agree with feedbacks computed from the pegs."""
    game = PegGame(pegs, colors, variant)
    by_numpy = np.concatenate(list(game._table_blocks()))
    by_kernel = np.concatenate(list(game._compiled_blocks(block=97)))
    assert by_kernel.shape == by_numpy.shape == (game.num_codes, game.num_codes)
    assert np.array_equal(by_kernel, by_numpy)
    rng = np.random.default_rng(1)
    g, s = rng.integers(game.num_codes, size=(2, 500))
    assert np.array_equal(by_kernel[g, s], game.compute_feedback(g, s))


def test_a_big_table_is_built_by_the_compiled_kernel(monkeypatch):
    from evo.games import pegs as game_module

    game = PegGame(4, 6)
    monkeypatch.setattr(game_module, "TABLE_FILE_BYTES", game.num_codes**2)
    calls = []
    monkeypatch.setattr(PegGame, "_compiled_blocks", lambda self, block: calls.append(block) or [])
    list(game._table_blocks())
    assert calls
