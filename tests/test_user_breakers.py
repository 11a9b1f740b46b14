"""Issue 66, the user's evo: the best breakers inside the package, named by a player
(``evo play wordle``, ``evo render mastermind-4-6``), listed by ``evo breakers``; the
README's Wordle commands and refusals that point to what works; what evo says it plays."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import evo.core.shipped as shipped
from evo.cli import main
from evo.core.treeio import tree_file_document

tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "breakers"


def evo(*args: str, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def one_line_error(res) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert isinstance(res.exception, SystemExit), res.exception
    (line,) = res.stderr.strip().splitlines()
    return line


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    """Every command runs from an empty folder, as a user of the wheel would."""
    monkeypatch.chdir(tmp_path)


# ------------------------------------------------------------ 1. the breakers in the package
def test_the_package_data_is_the_breakers_folder_itself():
    """One copy: pyproject.toml maps the package to breakers/ and ships its trees and
    table, not the bounds, not the .json.gz (kept small)."""
    tools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert tools["package-dir"][shipped.PACKAGE] == "breakers"
    assert shipped.PACKAGE in tools["packages"]
    assert tools["package-data"][shipped.PACKAGE] == ["*.json", "README.md"]
    assert tools["exclude-package-data"][shipped.PACKAGE] == ["bounds.json"]
    assert shipped.breakers_folder() == FOLDER


def test_every_breaker_of_the_table_is_listed_with_its_files_figures():
    """`evo breakers` lists each file of the README's table; its total, average and
    worst case are those its file's summary states (read independently of evo: the
    standard library's JSON reader on the members the file gives before its nodes)."""
    res = evo("breakers", "--json")
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    files = {p.name for p in FOLDER.iterdir() if p.name.endswith((".json", ".json.gz"))}
    assert {r["file"] for r in rows.values()} == files - {"bounds.json"}
    for row in rows.values():
        path = FOLDER / row["file"]
        with gzip.open(path) if path.suffix == ".gz" else path.open("rb") as file:
            start = file.read(1 << 16).decode("utf-8", errors="ignore")
        # The members before the nodes (megabytes of them), by the standard library's reader.
        head = start[: start.index('"root":')].rstrip().rstrip(",") + "}"
        summary = json.loads(head)["summary"]
        assert (row["total"], row["worst"]) == (summary["total"], summary["worst"])
        assert row["average"] == pytest.approx(summary["average"], abs=5e-5)
    assert rows["wordle"]["status"].startswith("optimal")
    assert rows["mastermind-5-8"]["status"].startswith("record")
    text = evo("breakers").stdout
    row = r"^mastermind-4-6 +Mastermind 4 pegs, 6 colors +5625 +4\.3403 +6 +optimal$"
    assert re.search(row, text, re.M)


def test_a_breaker_is_named_from_any_folder():
    """By its name, its file's name, or breakers/FILE as the README writes it, with no
    such file here."""
    for name in ("mastermind-4-6", "mastermind-4-6.json", "breakers/mastermind-4-6.json"):
        res = evo("play", name, "--secret", "6543")
        assert res.exit_code == 0, res.output
        assert res.stdout.rstrip().endswith(": 6543")
    res = evo("table", "mastermind-4-7", "--min-count", "2000")
    assert res.exit_code == 0 and " 11228 " in res.stdout, res.output
    res = evo("play", "wordle", "--secret", "sissy")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[1].startswith("Guess 1: SALET")
    assert res.stdout.rstrip().endswith("Solved in 3 guesses: SISSY")


def test_a_file_here_comes_before_a_breaker_of_that_name(tmp_path):
    shutil.copy(FOLDER / "mastermind-4-7.json", tmp_path / "mastermind-4-6.json")
    res = evo("table", "mastermind-4-6.json", "--min-count", "2000")
    assert res.exit_code == 0 and " 11228 " in res.stdout, res.output


def test_a_breaker_left_out_of_the_package_says_where_it_is(tmp_path, monkeypatch):
    """A copy of evo without the .json.gz files (the wheel): one line naming where."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    shutil.copy(FOLDER / "README.md", folder)
    shutil.copy(FOLDER / "mastermind-4-6.json", folder)
    monkeypatch.setattr(shipped, "breakers_folder", lambda: folder)
    shipped.shipped_breakers.cache_clear()
    try:
        line = one_line_error(evo("play", "mastermind-6-8", "--secret", "112233"))
        assert "mastermind-6-8.json.gz" in line and shipped.SOURCE in line
        listing = evo("breakers").stdout
        assert re.search(r"^mastermind-6-8 \*", listing, re.M)
        assert (
            f"* not in this package (the biggest, gzip-compressed): in {shipped.SOURCE}" in listing
        )
        assert re.search(r"^mastermind-4-6 ", listing, re.M)
    finally:
        shipped.shipped_breakers.cache_clear()


# ------------------------------------------------------ 2. Wordle as the README writes it
def test_play_with_no_tree_plays_the_best_shipped_breaker_of_the_game():
    res = evo("play", "--game", "wordle", input="")
    assert res.exit_code == 1, res.output  # the input ends before the secret is found
    assert "Guess 1: SALET" in res.stdout
    res = evo("play", "-c", "7", "--secret", "7712")
    assert res.exit_code == 0 and res.stdout.rstrip().endswith(": 7712"), res.output
    line = one_line_error(evo("play", "-n", "3", "-c", "4"))
    assert "give TREE" in line and "evo breakers" in line


def test_the_refused_optimum_points_to_what_works():
    line = one_line_error(evo("play", "optimal", "--game", "wordle"))
    assert "`evo play wordle`" in line
    assert "`evo bound --game wordle --first salet`" in line
    assert "`evo polish salet+kooi --game wordle --band 3:300:all" in line
    assert "`evo baselines --game wordle --only optimal --time-limit SECONDS`" in line
    line = one_line_error(evo("render", "optimal", "-n", "5", "-c", "8"))
    assert "`evo render mastermind-5-8`" in line
    assert "`evo baselines -n 5 -c 8 --only optimal --time-limit SECONDS`" in line


def test_polish_writes_beside_by_default():
    """The README's `evo polish salet+kooi --game wordle --band 3:300:all` has no -o."""
    res = evo("polish", "knuth", "-n", "3", "-c", "4", "--band", "3:40:all")
    assert res.exit_code == 0, res.output
    written = Path("knuth-mastermind-3-4-polished.json")
    assert tree_file_document(written)["summary"]["total"] == 208
    res = evo("polish", "mastermind-4-6", "--max-guesses", "6")
    assert res.exit_code == 0 and Path("mastermind-4-6-polished.json").exists(), res.output


def test_evo_says_what_it_plays():
    text = evo("--help").stdout
    assert "Mastermind-family games" not in text
    assert all(word in text for word in ("Mastermind", "Wordle", "custom games"))
    description = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    assert all(word in description for word in ("Mastermind", "Wordle", "custom games"))


def test_a_breakers_provenance_by_its_name():
    res = evo("table", "wordle", "--provenance")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("`evo polish salet+kooi --game wordle --band 3:300:all")
