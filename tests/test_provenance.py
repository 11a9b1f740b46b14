"""How each shipped breaker was made: its provenance document (breakers/provenance/), the
same text in its tree file (``provenance``), printed by ``evo table FILE --provenance``;
and breakers/README.md's tables short enough to read (no cell over 30 words)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from evo.baselines import lookahead
from evo.cli import main
from evo.core.game import make_game
from evo.core.tree import InvalidTreeError
from evo.core.treeio import (
    PROVENANCE,
    TreeFileError,
    from_nested,
    is_tree_name,
    load_tree,
    provenance,
    save_tree,
    tree_file_document,
    tree_from_document,
    tree_stem,
)

ROOT = Path(__file__).resolve().parent.parent
BREAKERS = ROOT / "breakers"
SECTION = "## How it was found"
HAND = {
    "guess": "11",
    "children": {
        "1B 0W": {"guess": "12", "children": {"0B 2W": {"guess": "21"}}},
        "0B 0W": {"guess": "22"},
    },
}  # (2,2) by hand, as tests/conftest.py's


def readme_rows() -> dict[str, list[str]]:
    """File name -> the cells of its row in breakers/README.md's first table."""
    found = {}
    for line in (BREAKERS / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and is_tree_name(cells[0]):
            found[cells[0]] = cells
    return found


def documented(name: str) -> str:
    """The text under "## How it was found" in tree file ``name``'s provenance document."""
    text = (BREAKERS / "provenance" / f"{tree_stem(name)}.md").read_text(encoding="utf-8")
    assert text.startswith(f"# {name}"), f"{name}: its provenance document's title"
    assert f"\n{SECTION}\n" in text, f"{name}: no {SECTION!r} in its provenance document"
    return text.split(f"\n{SECTION}\n", 1)[1].split("\n## ", 1)[0].strip()


@pytest.fixture
def tree():
    return from_nested(make_game(2, 2), HAND)


# ------------------------------------------------------------------ the shipped breakers
def test_every_listed_breaker_has_its_provenance_document_and_the_same_text_in_it():
    rows = readme_rows()
    assert len(rows) >= 20
    for name, cells in rows.items():
        text = documented(name)
        assert len(text.split()) >= 3, name
        assert provenance(BREAKERS / name) == text, (
            f"{name}'s provenance differs from breakers/provenance/{tree_stem(name)}.md: "
            "run `python scripts/provenance.py`"
        )
        assert f"(provenance/{tree_stem(name)}.md)" in cells[-1], f"{name}: no link to it"
    documents = {p.stem for p in (BREAKERS / "provenance").glob("*.md")}
    assert documents == {tree_stem(n) for n in rows}  # none of a file not shipped


def test_the_provenance_is_before_the_nodes():
    """So that it is read without the nodes (the big files' first bytes), as save_tree
    writes extra keys."""
    for name in readme_rows():
        data = (BREAKERS / name).read_bytes()
        head = gzip.decompress(data)[:100_000] if name.endswith(".gz") else data[:100_000]
        assert head.index(b'"provenance": ') < head.index(b'"root": '), name


def test_table_provenance_prints_it():
    name = "mastermind-5-8.json"
    res = CliRunner().invoke(main, ["table", str(BREAKERS / name), "--provenance"])
    assert res.exit_code == 0, res.output
    assert res.output == documented(name) + "\n"
    assert len(res.output.split()) > 400  # the whole chain, not a summary of it
    as_json = CliRunner().invoke(main, ["table", str(BREAKERS / name), "--provenance", "--json"])
    assert json.loads(as_json.output) == {
        "file": str(BREAKERS / name),
        "provenance": documented(name),
    }


def test_table_provenance_of_a_big_gzipped_breaker():
    name = "mastermind-6-8.json.gz"
    res = CliRunner().invoke(main, ["table", str(BREAKERS / name), "--provenance"])
    assert res.exit_code == 0, res.output
    assert res.output == documented(name) + "\n"


# ------------------------------------------------------------------ the option and the key
def test_a_file_without_provenance_says_so(tmp_path, tree):
    path = save_tree(tree, tmp_path / "plain.json")
    assert provenance(path) is None
    res = CliRunner().invoke(main, ["table", str(path), "--provenance"])
    assert res.exit_code == 0, res.output
    assert res.output == f"{path} records no provenance: nothing in it says how its tree was made\n"
    as_json = CliRunner().invoke(main, ["table", str(path), "--provenance", "--json"])
    assert json.loads(as_json.output) == {"file": str(path), "provenance": None}


def test_a_run_directory_is_read_as_its_best_json(tmp_path, tree):
    save_tree(tree, tmp_path / "best.json", provenance="evo run configs/quick.yaml")
    res = CliRunner().invoke(main, ["table", str(tmp_path), "--provenance"])
    assert res.exit_code == 0 and res.output == "evo run configs/quick.yaml\n", res.output


@pytest.mark.parametrize("suffix", [".json", ".json.gz", ".npz"])
def test_save_tree_keeps_it_in_every_form(tmp_path, tree, suffix):
    text = "evo polish IN --band 3:12:all -o OUT\n(then `--resume`: -3, 20 s)"
    path = save_tree(tree, tmp_path / f"t{suffix}", provenance=text)
    assert provenance(path) == text
    assert tree_file_document(path)[PROVENANCE] == text
    assert load_tree(path).total == tree.total
    res = CliRunner().invoke(main, ["table", str(path), "--provenance"])
    assert res.output == text + "\n"


def test_a_long_file_is_read_only_as_far_as_its_nodes(tmp_path, monkeypatch):
    """A file longer than the document before its nodes: its provenance is read from the
    start (a big breaker's says so at once); one without it is read whole and says so."""
    from evo.core import treeio

    big = lookahead(make_game(4, 5), "knuth")
    monkeypatch.setattr(treeio, "MAX_META_BYTES", 2000)  # the file is longer than that
    told = save_tree(big, tmp_path / "told.json.gz", provenance="made by hand")
    assert treeio._document_head(told) is not None
    assert provenance(told) == "made by hand"
    untold = save_tree(big, tmp_path / "untold.json")
    assert provenance(untold) is None


@pytest.mark.parametrize("value", [["evo", "run"], {"command": "evo run"}, 3, None, True], ids=repr)
@pytest.mark.parametrize("suffix", [".json", ".json.gz", ".npz"])
def test_a_bad_provenance_is_refused_in_one_line_naming_the_file(tmp_path, tree, value, suffix):
    path = save_tree(tree, tmp_path / f"bad{suffix}", provenance="fine")
    if suffix == ".npz":  # write the bad value into the compact file's document
        import io

        import numpy as np

        arrays = dict(np.load(path))
        doc = json.loads(arrays["meta"].tobytes())
        doc[PROVENANCE] = value
        arrays["meta"] = np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        path.write_bytes(buffer.getvalue())
    else:
        raw = path.read_bytes()
        doc = json.loads(gzip.decompress(raw) if suffix == ".json.gz" else raw)
        doc[PROVENANCE] = value
        text = json.dumps(doc).encode()
        path.write_bytes(gzip.compress(text) if suffix == ".json.gz" else text)
    for read in (load_tree, provenance, tree_file_document):
        with pytest.raises(TreeFileError) as e:
            read(path)
        message = str(e.value)
        assert len(message.splitlines()) == 1, message
        assert message.startswith(f"{path}: 'provenance' should be text"), message
    res = CliRunner().invoke(main, ["table", str(path), "--provenance"])
    assert res.exit_code == 2  # a user error
    assert res.stderr.strip().splitlines() == [f"Error: {message}"]
    res = CliRunner().invoke(main, ["table", str(path)])
    assert res.exit_code == 2 and "'provenance' should be text" in res.stderr


def test_a_bad_provenance_is_not_written(tmp_path, tree):
    with pytest.raises(ValueError, match="'provenance' should be text"):
        save_tree(tree, tmp_path / "t.json", provenance=["evo", "run"])
    assert not (tmp_path / "t.json").exists()
    with pytest.raises(
        InvalidTreeError, match=r"'provenance' should be text \(how the tree was made\), not 3"
    ):
        doc = {"format": "evo-breaker", "version": 1, "game": {"pegs": 2, "colors": 2},
               "provenance": 3, "root": HAND}  # fmt: skip
        tree_from_document(doc)


def test_provenance_is_of_a_tree_file(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"format": "x", "provenance": "made"}')
    with pytest.raises(TreeFileError, match="not an evo breaker file"):
        provenance(other)
    res = CliRunner().invoke(main, ["table", "knuth", "--provenance"])
    assert res.exit_code == 2 and "'knuth' is none" in res.stderr
    res = CliRunner().invoke(main, ["table", str(other), "--provenance", "--departures"])
    assert res.exit_code == 2 and "--provenance and --departures" in res.stderr


def test_the_option_is_documented():
    res = CliRunner().invoke(main, ["table", "--help"])
    assert "--provenance" in res.output and "how the tree file was made" in res.output
    assert "`--provenance`" in (ROOT / "README.md").read_text()
    assert "`provenance`" in (ROOT / "docs" / "DESIGN.md").read_text()


# ------------------------------------------------------------------ breakers/README.md
def test_no_table_cell_of_the_breakers_readme_is_over_30_words():
    cells = 0
    for line in (BREAKERS / "README.md").read_text().splitlines():
        if not line.startswith("|") or re.fullmatch(r"[|\-\s:]+", line):
            continue
        for cell in line.strip().strip("|").split("|"):
            words = len(cell.split())
            assert words <= 30, f"{words} words in a cell: {cell.strip()[:80]}..."
            cells += 1
    assert cells >= 7 * 25  # both tables were read
