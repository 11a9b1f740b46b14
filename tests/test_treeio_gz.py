"""Compressed tree files (issue 36, item 4): a name ending in ``.json.gz`` is the JSON tree
file gzip-compressed, written and read by every command that writes or takes a tree; a
gzip bomb and a corrupt file are refused in one line; the big shipped breakers are
compressed and load to their stated totals."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from evo.cli import main
from evo.config import load_config
from evo.core.files import MAX_READ_BYTES, gunzip
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import (
    TreeFileError,
    from_nested,
    is_tree_name,
    load_tree,
    save_tree,
    tree_document,
    tree_stem,
)
from evo.runs.driver import check_run
from tests.conftest import HAND
from tests.test_trust import assert_one_line_error
from tests.test_trust_archives import peak_bytes
from tests.test_trust_outputs import TINY

BREAKERS = Path(__file__).resolve().parent.parent / "breakers"


def evo(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def same(a, b) -> bool:
    return (
        a.game == b.game
        and np.array_equal(a.guess, b.guess)
        and np.array_equal(a.parent, b.parent)
        and np.array_equal(a.label, b.label)
        and a.summary() == b.summary()
    )


@pytest.fixture(scope="module")
def tree():
    """A random (3,4) breaker: big enough that compression shows."""
    return random_breaker(make_game(3, 4), rng=np.random.default_rng(3))


@pytest.fixture
def hand_gz(tmp_path) -> Path:
    return save_tree(from_nested(make_game(2, 2), HAND), tmp_path / "hand.json.gz")


def gz_bomb(mib: int, *, trailer: int | None = None, start: bytes = b"") -> bytes:
    """A gzip file of ``start`` then ``mib`` MiB of spaces (valid JSON padding), about 1
    KiB a MiB; ``trailer``: the size its trailer states instead of the true one."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    spaces = b" " * 2**20
    data = packer.compress(start)
    data += b"".join(packer.compress(spaces) for _ in range(mib)) + packer.flush()
    if trailer is not None:
        data = data[:-4] + trailer.to_bytes(4, "little")
    return data


# ------------------------------------------------------------------ the format
def test_a_tree_goes_through_json_gz_unchanged(tmp_path, tree):
    path = save_tree(tree, tmp_path / "t.json.gz", note="x")
    data = path.read_bytes()
    assert data[:2] == b"\x1f\x8b"  # gzip, not JSON
    doc = json.loads(gzip.decompress(data))
    assert doc == json.loads(json.dumps(tree_document(tree, note="x")))
    assert same(load_tree(path), tree)
    assert same(load_tree(path, game=tree.game), tree)
    plain = save_tree(tree, tmp_path / "t.json", note="x")
    assert gzip.decompress(data) == plain.read_bytes()  # the JSON file, compressed
    assert len(data) * 4 < plain.stat().st_size


def test_the_suffix_is_read_in_any_case_and_the_bytes_are_reproducible(tmp_path, tree):
    a = save_tree(tree, tmp_path / "A.JSON.GZ").read_bytes()
    b = save_tree(tree, tmp_path / "b.json.gz").read_bytes()
    assert a[:2] == b"\x1f\x8b" and a == b  # no time or name in the header
    assert a[3] == 0 and a[4:8] == bytes(4)  # no name, no time


def test_a_file_is_read_by_what_it_holds_whatever_its_name(tmp_path, tree):
    gz = save_tree(tree, tmp_path / "t.json.gz")
    renamed = tmp_path / "t.json"
    renamed.write_bytes(gz.read_bytes())
    assert same(load_tree(renamed), tree)
    two = tmp_path / "two.json.gz"  # members one after the other, as `cat a.gz b.gz` makes
    text = gzip.decompress(gz.read_bytes())
    two.write_bytes(gzip.compress(text[:100]) + gzip.compress(text[100:]))
    assert same(load_tree(two), tree)


def test_the_tree_suffixes_have_one_definition():
    names = ("a.json", "a.json.gz", "A.NPZ", "a.gz", "a.yaml", "a.bz2")
    assert [is_tree_name(n) for n in names] == [True, True, True, True, False, False]
    assert [tree_stem(n) for n in ("x/m-6-8.json.gz", "m.json", "m.npz", "m.gz", "best")] == [
        "m-6-8",
        "m",
        "m",
        "m",
        "best",
    ]


# ------------------------------------------------------------------ refusals
#: The start of a tree document of the biggest game a tree file can be read for whole.
BIG_GAME = b'{"format": "evo-breaker", "version": 1, "game": {"pegs": 6, "colors": 8}, "root":'


def test_a_gzip_bomb_is_refused_in_one_line_without_being_held(tmp_path):
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gz_bomb(MAX_READ_BYTES // 2**20 + 1, start=BIG_GAME))
    assert path.stat().st_size < 1 << 20
    errors: list[str] = []

    def load() -> None:
        with pytest.raises(TreeFileError, match="bomb.json.gz") as e:
            load_tree(path)
        errors.append(str(e.value))

    assert peak_bytes(load) < 16 << 20  # not the 257 MiB it holds
    assert "too big" in errors[0] and "decompressed" in errors[0]
    assert_one_line_error(evo("table", path), "bomb.json.gz", "too big")


def test_a_bomb_whose_trailer_lies_stops_at_the_limit(tmp_path):
    data = gz_bomb(8, trailer=100)  # claims 100 bytes, holds 8 MiB
    with pytest.raises(TreeFileError, match="b.json.gz is too big.*2,097,152"):
        gunzip(data, path="b.json.gz", what="tree file", error=TreeFileError, max_bytes=2**21)
    assert len(gunzip(gz_bomb(1), path="b", what="tree file", error=TreeFileError)) == 2**20


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d[: len(d) // 2],  # truncated
        lambda d: d[:40] + bytes(b ^ 0xFF for b in d[40:60]) + d[60:],  # bytes changed
        lambda d: d[:-8] + bytes(4) + d[-4:],  # a wrong check sum
        lambda d: d + b"junk",  # something after it
    ],
    ids=["truncated", "flipped", "crc", "trailing"],
)
def test_a_corrupt_gzip_is_one_line_with_status_2(tmp_path, tree, damage):
    good = save_tree(tree, tmp_path / "t.json.gz").read_bytes()
    path = tmp_path / "bad.json.gz"
    path.write_bytes(damage(good))
    with pytest.raises(TreeFileError, match="bad.json.gz is not a valid gzip file"):
        load_tree(path)
    for command in ("table", "render", "explore", "play"):
        assert_one_line_error(evo(command, path), "bad.json.gz", "not a valid gzip file")


def test_a_missing_json_gz_is_named_as_a_file_not_taken_for_a_baseline(tmp_path):
    line = assert_one_line_error(evo("table", tmp_path / "gone.json.gz"), "gone.json.gz")
    assert "cannot read tree file" in line and "baseline" not in line


# ------------------------------------------------------------------ the commands
def test_table_and_play_read_json_gz(tmp_path, tree):
    plain = save_tree(tree, tmp_path / "t.json")
    gz = save_tree(tree, tmp_path / "t.json.gz")
    for args in (["table", "--json"], ["play", "--secret", "123"]):
        a, b = evo(*args[:1], plain, *args[1:]), evo(*args[:1], gz, *args[1:])
        assert a.exit_code == 0 and b.exit_code == 0, (a.output, b.output)
        assert a.output == b.output and a.output


def test_render_and_explore_name_their_outputs_without_the_suffix(tmp_path, tree, monkeypatch):
    gz = save_tree(tree, tmp_path / "mastermind-3-4.json.gz")
    monkeypatch.chdir(tmp_path)
    out = evo("render", gz.name, "--depth", "2")
    assert out.exit_code == 0, out.output
    svg = (tmp_path / "mastermind-3-4.svg").read_text().replace("&#45;", "-")
    assert f"mastermind-3-4: total {tree.total}," in svg  # the title names the tree
    out = evo("explore", gz.name)
    assert out.exit_code == 0, out.output
    page = (tmp_path / "explore-mastermind-3-4.html").read_text()
    assert f'"total":{tree.total}' in page.replace(" ", "")


def test_polish_writes_json_gz(tmp_path):
    start = random_breaker(make_game(4, 6).prepare(), rng=np.random.default_rng(11))
    src = save_tree(start, tmp_path / "t.json.gz")
    out = evo("polish", src, "--band", "8:60:all", "-o", tmp_path / "p.json.gz")
    assert out.exit_code == 0, out.output
    data = (tmp_path / "p.json.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b"
    doc = json.loads(gzip.decompress(data))
    back = load_tree(tmp_path / "p.json.gz")
    assert back.total < start.total and doc["summary"]["total"] == back.total
    assert doc["polished_from"] == str(src)


def test_a_run_plants_a_json_gz(tmp_path, tree):
    gz = save_tree(tree, tmp_path / "t.json.gz")
    population = {"size": 4, "init": {"trees": [str(gz)]}}
    config = load_config({**TINY, "game": {"pegs": 3, "colors": 4}, "population": population})
    plan = check_run(config, cache=tmp_path / "cache")
    assert len(plan.trees) == 1 and same(plan.trees[0], tree)


def test_the_library_reads_and_writes_json_gz(tmp_path, tree):
    import evo as lib

    path = lib.save_tree(tree, tmp_path / "lib.json.gz")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert lib.load_tree(path).total == tree.total


# ------------------------------------------------------------------ the shipped breakers
def test_big_shipped_breakers_are_compressed_reproducibly():
    gz = sorted(BREAKERS.glob("*.json.gz"))
    assert gz, "no compressed breaker shipped"
    for path in gz:
        data = path.read_bytes()
        assert data[:2] == b"\x1f\x8b" and data[3] == 0 and data[4:8] == bytes(4), path  # -n
        assert len(gzip.decompress(data)) > 3_000_000, f"{path.name} is small: ship it as .json"
    for path in BREAKERS.glob("*.json"):
        assert path.stat().st_size < 3_000_000, f"{path.name} is big: ship it as .json.gz"


def test_the_shipped_68_breaker_loads_to_its_stated_total():
    """Its figures checked against the README's row (tests/test_breakers.py replays every
    code of it too)."""
    row = next(
        line
        for line in (BREAKERS / "README.md").read_text().splitlines()
        if line.startswith("| mastermind-6-8.json.gz |")
    )
    cells = [c.strip() for c in row.strip("|").split("|")]
    tree = load_tree(BREAKERS / "mastermind-6-8.json.gz")
    assert (tree.game.pegs, tree.game.colors) == (6, 8)
    assert (tree.total, tree.worst) == (int(cells[2]), int(cells[4]))
    assert tree.worst == 8 and tree.total <= 1_556_000  # issue 36's bar at worst case 8
