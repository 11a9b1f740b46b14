"""Trust, third round (issue 33), the inputs: compact tree files and checkpoints are read
only as far as a tree of their game can go (item 6), a feedback given twice under a node
or a summary that disagrees with its tree is refused (item 10), and mutated tree files
of every kind end in a tree or in one :class:`TreeFileError` (the fuzz test)."""

from __future__ import annotations

import copy
import functools
import io
import json
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import event, given, settings
from hypothesis import strategies as st

import evo
from evo.cli import main
from evo.config import load_config
from evo.core.game import make_game
from evo.core.tree import InvalidTreeError
from evo.core.treeio import TreeFileError, from_nested, load_tree, save_tree, tree_document
from evo.runs.checkpoint import CheckpointError, load_checkpoint
from evo.runs.driver import run_config
from evo.runs.rundir import CHECKPOINT, create_run_dir
from tests.conftest import HAND
from tests.test_cli_fuzz import SETTINGS, check
from tests.test_cli_fuzz import VALUES as CLI_VALUES
from tests.test_trust import assert_one_line_error
from tests.test_trust_outputs import TINY


def evo_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def npy(dtype, shape, data: bytes = b"") -> bytes:
    """A ``.npy`` member: a header claiming ``dtype`` and ``shape``, then ``data``."""
    buffer = io.BytesIO()
    header = {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": tuple(shape)}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + data


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


def archive(parts: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buffer.getvalue()


def bomb(parts: dict[str, bytes], name: str, mib: int) -> bytes:
    """``parts`` with member ``name`` an int32 array of ``mib`` MiB of zeros, deflated as
    it is written (about 1 KiB of archive per MiB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for member, data in parts.items():
            if member != name:
                z.writestr(member, data)
        with z.open(name, "w", force_zip64=True) as f:
            f.write(npy("<i4", (mib * 2**18,)))
            zeros = bytes(2**20)
            for _ in range(mib):
                f.write(zeros)
    return buffer.getvalue()


def peak_bytes(call) -> int:
    """The most memory (Python's and NumPy's) ``call`` held at once."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def hand_npz(tmp_path, hand_tree) -> Path:
    return save_tree(hand_tree, tmp_path / "hand.npz")


# ------------------------------------------------ 6. compact tree files are bounded
def test_6_an_archive_of_a_gigabyte_of_zeros_is_refused_before_it_is_read(tmp_path, hand_npz):
    path = tmp_path / "bomb.npz"
    path.write_bytes(bomb(members(hand_npz.read_bytes()), "guess.npy", 128))
    assert path.stat().st_size < 1 << 20

    errors: list[str] = []

    def load() -> None:
        with pytest.raises(TreeFileError, match="bomb.npz") as e:
            load_tree(path)
        errors.append(str(e.value))

    assert peak_bytes(load) < 16 << 20  # not the 128 MiB it holds
    assert "nodes" in errors[0] and "mastermind-2-2" in errors[0]


HUGE = {"guess.npy": npy("<i4", (10**13,)), "parent.npy": npy("<i4", (10**13,))}


@pytest.mark.parametrize("member", list(HUGE))
def test_6_a_header_claiming_a_huge_shape_is_one_line_everywhere(tmp_path, hand_npz, member):
    parts = {**members(hand_npz.read_bytes()), member: HUGE[member]}
    path = tmp_path / "huge.npz"
    path.write_bytes(archive(parts, zipfile.ZIP_STORED))
    with pytest.raises(TreeFileError, match="huge.npz"):
        evo.load_tree(path)
    with pytest.raises(TreeFileError, match="huge.npz"):
        load_tree(path, game=make_game(2, 2))
    assert_one_line_error(evo_cli("table", path), "huge.npz")
    config = tmp_path / "c.yaml"
    data = {"game": {"pegs": 2, "colors": 2}, "population": {"size": 4, "init": {}}}
    data["population"]["init"]["trees"] = [str(path)]
    config.write_text(json.dumps(data))
    res = evo_cli("run", config, "--runs", tmp_path / "runs", "-q")
    assert_one_line_error(res, "population.init.trees.0", "huge.npz")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "parts, needle",
    [
        ({"guess.npy": npy("<i4", (3, 3), bytes(36))}, "guess"),
        ({"guess.npy": npy("<f8", (4,), bytes(32))}, "guess"),
        ({"guess.npy": npy("<i4", (4,), bytes(8))}, "guess"),  # shorter than its header says
        ({"meta.npy": npy("|u1", (2**40,))}, "meta"),
    ],
    ids=["two-dimensional", "floats", "truncated", "huge-meta"],
)
def test_6_members_are_checked_by_their_headers(tmp_path, hand_npz, parts, needle):
    path = tmp_path / "bad.npz"
    path.write_bytes(archive({**members(hand_npz.read_bytes()), **parts}))
    with pytest.raises(TreeFileError, match="bad.npz") as e:
        load_tree(path)
    assert needle in str(e.value)


def test_6_the_largest_archive_of_a_game_still_loads(tmp_path):
    """The bound is what a tree of the game can hold: a real (4,6) tree is far below it."""
    from evo.core.population import random_breaker

    tree = random_breaker(make_game(4, 6), rng=np.random.default_rng(1))
    path = save_tree(tree, tmp_path / "r.npz")
    assert load_tree(path).total == tree.total


# ------------------------------------------------------------ 6. the run checkpoint
@pytest.fixture
def checkpointed(tmp_path):
    cfg = load_config(TINY, ["stop.generations=2"])
    run_dir = create_run_dir(cfg, root=tmp_path / "runs")
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    return cfg, run_dir


def test_6_a_checkpoint_claiming_a_huge_array_is_refused(checkpointed):
    cfg, run_dir = checkpointed
    path = run_dir / CHECKPOINT
    parts = members(path.read_bytes())
    parts["guess.npy"] = npy("<i4", (10**13,))
    path.write_bytes(archive(parts, zipfile.ZIP_STORED))
    with pytest.raises(CheckpointError, match="checkpoint.npz"):
        load_checkpoint(path, cfg, make_game(3, 3))
    assert_one_line_error(evo_cli("resume", run_dir, "-q", "--no-report"), "checkpoint.npz")


def test_6_a_checkpoint_holding_a_compressed_bomb_is_refused_unread(checkpointed):
    cfg, run_dir = checkpointed
    path = run_dir / CHECKPOINT
    path.write_bytes(bomb(members(path.read_bytes()), "guess.npy", 128))

    def load() -> None:
        with pytest.raises(CheckpointError, match="checkpoint.npz"):
            load_checkpoint(path, cfg, make_game(3, 3))

    assert peak_bytes(load) < 16 << 20


def test_6_a_checkpoint_that_is_a_fifo_is_refused_without_waiting(checkpointed):
    import os

    cfg, run_dir = checkpointed
    path = run_dir / CHECKPOINT
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(CheckpointError, match="not a regular file"):
        load_checkpoint(path, cfg, make_game(3, 3))


# ------------------------------------------------- 10. one feedback, two spellings
def test_10_a_feedback_spelled_two_ways_under_one_node_is_refused(tmp_path, hand_tree):
    doc = tree_document(hand_tree)
    other = {"guess": "21", "children": {"0,2": {"guess": "12"}}}  # also a right subtree
    doc["root"]["children"]["1 0"] = other  # an older spelling of 1B 0W
    path = tmp_path / "two.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(TreeFileError, match="two.json") as e:
        load_tree(path)
    assert "root" in str(e.value) and "'1B 0W'" in str(e.value) and "'1 0'" in str(e.value)
    deeper = tree_document(hand_tree)
    deeper["root"]["children"]["1B 0W"]["children"]["0 2"] = {"guess": "21"}
    path.write_text(json.dumps(deeper))
    with pytest.raises(TreeFileError, match=r"root > 1B 0W") as e:
        load_tree(path)
    assert "'0B 2W'" in str(e.value) and "'0 2'" in str(e.value)
    assert_one_line_error(evo_cli("table", path), "two.json", "root > 1B 0W")
    old = {"guess": "11", "children": {"1,0": other, "1b0w": other, "0,0": {"guess": "22"}}}
    with pytest.raises(InvalidTreeError, match=r"two children for feedback 1B 0W \('1,0'"):
        from_nested(make_game(2, 2), old)  # two spellings, neither of them evo's own


def test_10_a_feedback_given_twice_with_one_spelling_is_refused_too(tmp_path, hand_tree):
    text = json.dumps(tree_document(hand_tree))
    twice = text.replace(
        '"0B 0W": {"guess": "22"}', '"0B 0W": {"guess": "22"}, "0B 0W": {"guess": "22"}'
    )
    assert twice != text
    path = tmp_path / "dup.json"
    path.write_text(twice)
    with pytest.raises(TreeFileError, match="dup.json") as e:
        load_tree(path)
    assert "'0B 0W'" in str(e.value) and "twice" in str(e.value)


def test_10_from_nested_refuses_a_feedback_given_as_text_and_as_a_number(hand_nested):
    hand_nested["children"][3] = hand_nested["children"]["0B 0W"]  # feedback 3 is <0,0>
    with pytest.raises(InvalidTreeError, match="two children for feedback 0B 0W"):
        from_nested(make_game(2, 2), hand_nested)


@pytest.mark.parametrize(
    "key, value, needle",
    [
        ("average", 1.5, "average 1.5"),
        ("average", "2.0", "summary.average"),
        ("histogram", {"1": 1, "2": 3}, "histogram"),
        ("histogram", {"1": 1, "2": 2, "3": 1, "4": 0}, "histogram"),
        ("histogram", {"x": 1}, "summary.histogram"),
        ("histogram", [1, 2, 1], "summary.histogram"),
        ("nodes", 5, "nodes 5"),
        ("nodes", True, "summary.nodes"),
        ("worst", 3.0, "summary.worst"),
    ],
)
@pytest.mark.parametrize("form", ["json", "npz"])
def test_10_every_summary_field_is_checked(tmp_path, hand_tree, key, value, needle, form):
    path = save_tree(hand_tree, tmp_path / f"t.{form}")
    if form == "json":
        doc = json.loads(path.read_text())
        doc["summary"][key] = value
        path.write_text(json.dumps(doc))
    else:
        parts = members(path.read_bytes())
        meta = json.loads(np.load(io.BytesIO(parts["meta.npy"])).tobytes())
        meta["summary"][key] = value
        encoded = json.dumps(meta).encode()
        parts["meta.npy"] = npy("|u1", (len(encoded),), encoded)
        path.write_bytes(archive(parts))
    with pytest.raises(TreeFileError, match=path.name) as e:
        load_tree(path)
    assert needle in str(e.value)


def test_10_a_summary_that_is_not_an_object_is_refused(tmp_path, hand_tree):
    doc = tree_document(hand_tree)
    doc["summary"] = [8, 3]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(TreeFileError, match="'summary' should be an object"):
        load_tree(path)


def test_10_a_right_summary_of_any_spelling_loads(tmp_path, hand_tree):
    """The average as the file writes it or to fewer places, the histogram with whole
    numbers as keys, and the fields left out: all agree with the tree."""
    for summary in (
        {"total": 8, "average": 2.0, "worst": 3, "histogram": {"1": 1, "2": 2, "3": 1}},
        {"average": 2, "nodes": 4},
        {},
    ):
        doc = {**tree_document(hand_tree), "summary": summary}
        path = tmp_path / "ok.json"
        path.write_text(json.dumps(doc))
        assert load_tree(path).total == 8


# --------------------------------------------------------------------- the fuzz test
@functools.cache
def documents() -> list[dict]:
    """Valid documents to mutate: the hand-worked (2,2) tree and a (3,3) Knuth tree."""
    from evo.baselines import run

    hand = tree_document(from_nested(make_game(2, 2), HAND))
    knuth = tree_document(run(make_game(3, 3), "knuth", rc_seeds=0).tree)
    return [hand, knuth]


#: The command line fuzz test's values of every type, and huge numbers and spellings of
#: codes and feedbacks.
VALUES = st.one_of(
    CLI_VALUES,
    st.sampled_from([10**13, 10**400, "11", "12", "1,0", "1 0", "0,2", "2 0", "1B", "x"]),
    st.dictionaries(st.sampled_from(["guess", "children", "1", "1,0", "x"]), st.integers(0, 3)),
)

GAMES = st.fixed_dictionaries(
    {
        "pegs": st.one_of(st.integers(-1, 4), st.sampled_from([10**30, 2.0, "2", None])),
        "colors": st.one_of(st.integers(-1, 4), st.sampled_from([10**30, 2.5, True])),
        "variant": st.sampled_from(["mastermind", "bulls-cows", "chess", 3]),
    }
)


def _nodes(doc: dict) -> list[dict]:
    out, stack = [], [doc.get("root")]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            kids = node.get("children")
            if isinstance(kids, dict):
                stack.extend(kids.values())
    return out


def mutate(doc: dict, data) -> dict:
    """``doc`` with a few random edits: a value replaced anywhere, a key deleted, a child
    copied under another spelling, another game, deep nesting."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(0, 3))):
        what = data.draw(st.sampled_from(["node", "doc", "summary", "game", "respell", "deep"]))
        nodes = _nodes(doc)
        if what == "node" and nodes:
            node = data.draw(st.sampled_from(nodes))
            key = data.draw(st.sampled_from(["guess", "children", "x"]))
            if data.draw(st.booleans()) and key in node:
                del node[key]
            else:
                node[key] = data.draw(VALUES)
        elif what == "doc":
            key = data.draw(st.sampled_from(["format", "version", "game", "summary", "root"]))
            doc[key] = data.draw(VALUES)
        elif what == "summary" and isinstance(doc.get("summary"), dict):
            key = data.draw(st.sampled_from(["total", "average", "worst", "histogram", "nodes"]))
            doc["summary"][key] = data.draw(VALUES)
        elif what == "game":
            doc["game"] = data.draw(GAMES)
        elif what == "respell" and nodes:
            kids = [n["children"] for n in nodes if isinstance(n.get("children"), dict)]
            if kids:
                children = data.draw(st.sampled_from(kids))
                if children:
                    key = data.draw(st.sampled_from(sorted(map(str, children))))
                    spelled = data.draw(st.sampled_from([" ", "B", ";", ""]))
                    children[key.replace(",", spelled)] = copy.deepcopy(children[key])
        elif what == "deep" and nodes:
            data.draw(st.sampled_from(nodes))["children"] = {"0,0": DEEP}
    return doc


#: Where :func:`mutate` puts nodes nested thousands deep (spliced into the JSON text).
DEEP = "@deep@"


def json_bytes(doc: dict, depth: int) -> bytes:
    """The JSON text of ``doc``, its :data:`DEEP` placeholders replaced by ``depth`` nodes
    nested inside each other."""
    deep = '{"guess": "11", "children": {"1,0": ' * depth + '{"guess": "11"}' + "}}" * depth
    return json.dumps(doc).replace(json.dumps(DEEP), deep).encode()


def damage(raw: bytes, data) -> bytes:
    """``raw`` cut short, with bytes changed or inserted, or as it is."""
    how = data.draw(st.sampled_from(["none", "none", "cut", "flip", "insert"]))
    if how == "cut":
        return raw[: data.draw(st.integers(0, len(raw)))]
    if how == "flip" and raw:
        at = data.draw(st.integers(0, len(raw) - 1))
        return raw[:at] + bytes([data.draw(st.integers(0, 255))]) + raw[at + 1 :]
    if how == "insert":
        at = data.draw(st.integers(0, len(raw)))
        return raw[:at] + data.draw(st.binary(max_size=12)) + raw[at:]
    return raw


def npz_of(doc: dict, data) -> bytes:
    """The compact file of ``doc`` (a mutated document may have no tree: then its members
    are invented), with members replaced by random headers and arrays."""
    try:
        if doc["game"] not in [d["game"] for d in documents()]:
            raise ValueError("another game")
        tree = from_nested(make_game(**doc["game"]), doc["root"])
        parts = members(save_tree_bytes(tree))
    except (ValueError, KeyError, TypeError):  # a document with no tree: invent the arrays
        parts = {
            name: npy("<i4", (3,), np.array([0, 0, 1], "<i4").tobytes())
            for name in ("guess.npy", "parent.npy", "label.npy")
        }
    doc = {k: v for k, v in doc.items() if k != "root"}
    try:
        meta = json.dumps(doc).encode()
    except ValueError:
        meta = b"{"
    parts["meta.npy"] = npy("|u1", (len(meta),), meta)
    for _ in range(data.draw(st.integers(0, 2))):
        name = data.draw(st.sampled_from(["guess.npy", "parent.npy", "label.npy", "meta.npy",
                                          "more.npy"]))  # fmt: skip
        if data.draw(st.booleans()) and name in parts:
            del parts[name]
            continue
        dtype = data.draw(st.sampled_from(["<i4", ">i8", "<i2", "|u1", "<f8", "|O", "<U3",
                                           "|V8", "<c16", "|b1"]))  # fmt: skip
        shape = data.draw(
            st.one_of(
                st.tuples(st.integers(0, 6)),
                st.sampled_from([(), (2, 2), (10**13,), (2**62,), (-1,)]),
            )
        )
        body = data.draw(st.binary(max_size=48))
        try:
            parts[name] = npy(dtype, shape, body)
        except (ValueError, TypeError):
            parts[name] = body
    stored = data.draw(st.booleans())
    return archive(parts, zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED)


def save_tree_bytes(tree) -> bytes:
    from evo.core.treeio import _archive

    return _archive(tree)


#: A few seconds: more examples than the command line's fuzz test, each much faster.
FUZZ = settings(SETTINGS, max_examples=60)


@FUZZ
@given(data=st.data())
def test_fuzz_tree_files_end_in_a_tree_or_a_tree_file_error(tmp_path_factory, data):
    """Mutated JSON documents and archives, damaged byte by byte, loaded by
    ``evo.load_tree`` (with and without the game) and by ``evo table``: a tree (whose
    figures are the file's), or TreeFileError naming the file; nothing else."""
    tmp = tmp_path_factory.mktemp("fuzz")
    doc = mutate(documents()[data.draw(st.integers(0, 1))], data)
    form = data.draw(st.sampled_from(["json", "json", "npz"]))
    if form == "json":
        raw = json_bytes(doc, data.draw(st.sampled_from([10, 3000])))
    else:
        raw = npz_of(doc, data)
    path = Path(tmp) / f"t.{form}"
    path.write_bytes(damage(raw, data))
    game = data.draw(st.sampled_from([None, make_game(2, 2), make_game(3, 3)]))
    loaded_or_refused(path, game, form)
    if data.draw(st.integers(0, 4)) == 0:
        check(CliRunner().invoke(main, ["table", str(path)]))


def loaded_or_refused(path: Path, game, label: str):
    """``evo.load_tree(path, game=game)``: a valid tree (of ``game`` when given), or None
    for a TreeFileError naming the file on one line; which, counted as an event."""
    try:
        tree = evo.load_tree(path, game=game)
    except TreeFileError as e:
        assert str(path) in str(e) and "\n" not in str(e)
        event(f"{label}: " + " ".join(str(e).replace(str(path), "").split()[:5]))
        return None
    event(f"{label}: a tree")
    tree.validate()
    assert game is None or tree.game == game
    return tree
