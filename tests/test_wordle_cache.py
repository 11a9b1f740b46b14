"""Wordle's baselines kept on disk as Mastermind's are (issue 53 item 3): ``evo baselines
--game wordle`` a second time reads its trees from ``$EVO_CACHE`` instead of building them
again (a few seconds each: 5 s for kooi here), each mode under its own name."""

from __future__ import annotations

import json
import pickle

import pytest
from click.testing import CliRunner

import evo.baselines.runner as runner
from evo.cli import main
from evo.core.game import game_from_spec, make_game
from evo.core.seal import is_sealed, seal


def _rows(output: str) -> dict[str, tuple[str, bool]]:
    """Each strategy's total in ``evo baselines``'s table, and whether it came from the
    cache (its time marked ``*``)."""
    rows = {}
    for line in output.splitlines()[3:]:
        parts = line.split()
        if len(parts) > 1 and parts[0] in ("kooi", "lc"):
            rows[parts[0]] = (parts[1], parts[-1].endswith("*"))
    return rows


def test_a_game_with_a_cache_is_its_own_and_shares_the_table(tmp_path):
    plain = make_game("wordle")
    kept = make_game("wordle", cache=tmp_path)
    assert plain.cache is None and kept.cache == str(tmp_path)
    assert kept is make_game("wordle", cache=str(tmp_path)) and kept is not plain
    assert kept == plain and kept.table is plain.table  # one table in the process
    assert game_from_spec({"kind": "wordle-hard"}, cache=tmp_path).cache == str(tmp_path)
    assert pickle.loads(pickle.dumps(kept)) is kept  # a worker's game keeps its cache


@pytest.mark.slow
def test_evo_baselines_game_wordle_a_second_time_reads_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    args = ["baselines", "--game", "wordle", "--only", "kooi,lc"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert (tmp_path / "wordle" / "kooi.json").is_file()
    built = _rows(first.output)
    assert built == {"kooi": ("7951", False), "lc": (built["lc"][0], False)}  # WORDLE.md 4.2
    # Hard mode is another game: nothing of normal mode's is read for it.
    hard = CliRunner().invoke(main, ["baselines", "--game", "wordle-hard", "--only", "lc"])
    assert hard.exit_code == 0 and _rows(hard.output)["lc"][1] is False, hard.output
    assert (tmp_path / "wordle-hard" / "lc.json").is_file()

    def no_build(*_, **__):
        raise AssertionError("built again instead of read from the cache")

    monkeypatch.setattr(runner, "build", no_build)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert _rows(again.output) == {"kooi": ("7951", True), "lc": (built["lc"][0], True)}
    assert "from the cache" in again.output


def test_no_cache_recomputes_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    out = CliRunner().invoke(main, ["baselines", "--game", "wordle", "--only", "lc", "--no-cache"])
    assert out.exit_code == 0, out.output
    assert not (tmp_path / "wordle").exists() and _rows(out.output)["lc"][1] is False


@pytest.mark.parametrize("kind", ["wordle", "wordle-hard"])
def test_a_tree_edited_in_the_cache_is_built_again(kind, tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    args = ["baselines", "--game", kind, "--only", "lc"]
    assert CliRunner().invoke(main, args).exit_code == 0
    path = tmp_path / kind / "lc.json"
    text = path.read_text()
    path.write_text(text.replace('"ABACK"', '"ABASE"', 1))  # the first guess changed
    assert path.read_text() != text
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and _rows(again.output)["lc"][1] is False, again.output


def test_a_seal_holds_for_what_reads_back_with_integer_keys_from_ten_up():
    # A histogram {1: .., 2: .., 10: ..} is written with text keys; sealed as integers,
    # sorted 1, 2, 10, it read back as "1", "10", "2" and its seal failed: every baseline
    # with a worst case of 10 or more (Wordle's rc) was never taken from the cache.
    result = {"histogram": {1: 1, 2: 97, 10: 1}, "total": 9591}
    assert is_sealed(json.loads(json.dumps(result)), seal(result))


def test_wordle_rc_whose_worst_case_is_ten_is_read_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    args = ["baselines", "--game", "wordle", "--only", "rc"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0 and first.output.splitlines()[3].split()[3] == "10"
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and again.output.splitlines()[3].endswith("*"), again.output
