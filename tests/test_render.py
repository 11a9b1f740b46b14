"""Rendering real trees through Graphviz: valid SVG naming every drawn guess, the right
pegs, colors, feedbacks and collapsed boxes that still tell the cost."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

from evo.baselines import run
from evo.cli import main
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import save_tree
from evo.games.pegs import feedback_pair
from evo.show.render import PALETTE, TERMINAL_FILL, render_tree, text_color, tree_dot

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
COLLAPSED = re.compile(r"^(\d+) codes?, (\d+) guess(?:es)?$")


def tree_of(pegs, colors, variant="mastermind", seed=1):
    return random_breaker(make_game(pegs, colors, variant), rng=np.random.default_rng(seed))


def parse_svg(data: bytes):
    """Drawn guess nodes ``{tree node: (texts, fills, tooltip)}``, collapsed boxes
    ``{parent node: texts}`` and edges ``{(a, b): label}`` of a Graphviz SVG."""
    root = ET.fromstring(data)
    nodes, boxes, edges = {}, {}, {}
    for g in root.iter(SVG + "g"):
        cls = g.get("class")
        title = g.find(SVG + "title")
        texts = [t.text for t in g.iter(SVG + "text")]
        if cls == "node":
            name = title.text
            if name.startswith("n"):
                fills = [
                    p.get("fill")
                    for p in g.iter(SVG + "polygon")
                    if p.get("fill") not in ("white", "none")
                ]
                path = next(g.iter(SVG + "path"))
                anchor = next(g.iter(SVG + "a"))
                nodes[int(name[1:])] = (texts, fills, anchor.get(XLINK + "title"), path.get("fill"))
            else:
                boxes[int(name[1:])] = texts
        elif cls == "edge":
            a, b = title.text.split("->")
            edges[(a, b)] = texts[0] if texts else None
    return nodes, boxes, edges


def render_svg(tree, tmp_path, **kw):
    path = render_tree(tree, tmp_path / "t.svg", **kw)
    return path.read_bytes()


def test_full_3_3_tree(tmp_path):
    tree = tree_of(3, 3)
    game = tree.game
    nodes, boxes, edges = parse_svg(render_svg(tree, tmp_path))
    assert sorted(nodes) == list(range(len(tree))) and not boxes
    for i, (texts, fills, tooltip, fill) in nodes.items():
        printed = game.format_code(int(tree.guess[i]))
        assert "".join(texts[: game.pegs]) == printed  # the pegs show the color numbers
        assert tooltip.startswith(printed)  # and the SVG names the guess
        colors = [PALETTE[int(ch) - 1].lower() for ch in printed]
        assert fills == colors
        assert fill.lower() == (TERMINAL_FILL.lower() if tree.terminal[i] else "#ffffff")
    assert len(edges) == len(tree) - 1
    for child in range(1, len(tree)):
        b, w = feedback_pair(int(tree.label[child]), game.pegs)
        assert edges[(f"n{tree.parent[child]}", f"n{child}")] == f"{b}B {w}W"


def cost_from_picture(tree, nodes, boxes):
    """Codes and total guesses told by the picture alone: drawn terminal nodes at their
    depth, and each box's codes having made their parent's depth of guesses before."""
    codes = total = 0
    depth = {i: int(tree.depth[i]) for i in nodes}
    for i in nodes:
        if tree.terminal[i]:
            codes += 1
            total += depth[i]
    for parent, texts in boxes.items():
        n, g = map(int, COLLAPSED.match(texts[0]).groups())
        codes += n
        total += g + n * depth[parent]
    return codes, total


def test_depth_limited_4_6_tree(tmp_path):
    tree = tree_of(4, 6, seed=2)
    nodes, boxes, _ = parse_svg(render_svg(tree, tmp_path, depth=3))
    assert sorted(nodes) == [i for i in range(len(tree)) if tree.depth[i] <= 3]
    assert set(boxes) == {i for i in nodes if tree.depth[i] == 3 and tree.nsub[i] > 1}
    for i, (texts, *_rest) in nodes.items():
        assert "".join(texts[:4]) == tree.game.format_code(int(tree.guess[i]))
    assert cost_from_picture(tree, nodes, boxes) == (1296, tree.total)


def test_min_codes_keeps_big_subtrees(tmp_path):
    tree = tree_of(3, 4, seed=4)
    nodes, boxes, _ = parse_svg(render_svg(tree, tmp_path, min_codes=4))
    assert all(tree.count[i] >= 4 for i in nodes if i)
    assert cost_from_picture(tree, nodes, boxes) == (64, tree.total)


def test_bulls_and_cows_tree(tmp_path):
    tree = tree_of(3, 5, "bulls-cows", seed=3)
    nodes, boxes, edges = parse_svg(render_svg(tree, tmp_path))
    assert len(nodes) == len(tree)
    for i, (texts, *_rest) in nodes.items():
        assert texts[0] == tree.game.format_code(int(tree.guess[i]))  # digits, 0-based
    assert all(re.fullmatch(r"\dB \dC", label) for label in edges.values())


def test_twopi_layout_and_formats(tmp_path):
    tree = tree_of(3, 3, seed=5)
    ET.fromstring(render_svg(tree, tmp_path, layout="twopi"))
    png = render_tree(tree, tmp_path / "t.png", fmt="png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 200 and height > 100
    assert render_tree(tree, tmp_path / "t.pdf", fmt="pdf").read_bytes()[:4] == b"%PDF"


def test_bad_options_are_named():
    tree = tree_of(2, 2)
    with pytest.raises(ValueError, match="layout must be one of dot, twopi"):
        tree_dot(tree, layout="neato")
    with pytest.raises(ValueError, match="depth"):
        tree_dot(tree, depth=0)


def test_text_color_is_readable():
    assert text_color("#000000") == "#FFFFFF" and text_color("#F0E442") == "#000000"


def test_cli_render(tmp_path):
    tree = tree_of(3, 3, seed=6)
    save_tree(tree, tmp_path / "best.json")
    runner = CliRunner()
    out = tmp_path / "tree.png"
    res = runner.invoke(
        main, ["render", str(tmp_path / "best.json"), "-o", str(out), "--depth", "2"]
    )
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = runner.invoke(main, ["render", str(tmp_path), "-o", str(tmp_path / "run.svg")])
    assert res.exit_code == 0, res.output  # a run directory stands for its best.json
    nodes, _, _ = parse_svg((tmp_path / "run.svg").read_bytes())
    assert sorted(nodes) == list(range(len(tree)))
    res = runner.invoke(main, ["render", str(tmp_path / "missing.json")])
    assert res.exit_code != 0 and "missing.json" in res.output
    res = runner.invoke(main, ["render", str(tmp_path / "best.json"), "--pegs", "4"])
    assert res.exit_code != 0 and "3 pegs" in res.output


def test_cli_render_baseline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["render", "knuth", "--pegs", "3", "--colors", "3"])
    assert res.exit_code == 0, res.output
    tree = run(make_game(3, 3), "knuth").tree
    nodes, boxes, _ = parse_svg((tmp_path / "knuth-mastermind-3-3.svg").read_bytes())
    assert sorted(nodes) == list(range(len(tree))) and not boxes
    for i, (texts, *_rest) in nodes.items():
        assert "".join(texts[:3]) == tree.game.format_code(int(tree.guess[i]))
    res = CliRunner().invoke(main, ["render", "no-such-player", "--pegs", "3", "--colors", "3"])
    assert res.exit_code != 0 and "unknown baseline 'no-such-player'" in res.output


#: A file name with a terminal escape, a bell, markup, quotes, an entity, Graphviz escapes
#: (``\N`` is the node's name, ``\x`` drops its backslash) and an undecodable byte.
HOSTILE = "\x1b[2J\x07<!--&amp;\"'\\N\\x\udcff"


def test_cli_render_hostile_name_gives_valid_svg(tmp_path, monkeypatch):
    from evo.show.text import printable

    monkeypatch.chdir(tmp_path)

    path = tmp_path / f"{HOSTILE}.json"
    save_tree(tree_of(3, 3, seed=6), path)
    out = tmp_path / "t.svg"
    res = CliRunner().invoke(main, ["render", str(path), "-o", str(out)])
    assert res.exit_code == 0, res.output
    root = ET.parse(out).getroot()  # no control character: valid XML
    title = "".join(t.text or "" for t in root.find(SVG + "g").findall(SVG + "text"))
    assert title.startswith(f"{printable(HOSTILE)}: total ")
    # Without --output, the picture is named after the file, and said so printably.
    res = CliRunner().invoke(main, ["render", str(path)], catch_exceptions=False)
    assert res.exit_code == 0 and "\x1b" not in res.output
    ET.parse(tmp_path / f"{HOSTILE}.svg")


@pytest.mark.parametrize(
    ("suffix", "magic"),
    [("jpg", b"\xff\xd8\xff"), ("JPEG", b"\xff\xd8\xff"), ("pdf", b"%PDF"), ("eps", b"%!PS")],
)
def test_cli_render_writes_the_format_of_the_suffix(tmp_path, suffix, magic):
    save_tree(tree_of(2, 3), tmp_path / "best.json")
    out = tmp_path / f"tree.{suffix}"
    res = CliRunner().invoke(main, ["render", str(tmp_path / "best.json"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[: len(magic)] == magic


def test_cli_render_refuses_a_suffix_of_no_format(tmp_path):
    """A suffix of no picture format, or of another format than --format: one line naming
    the suffixes, exit status 2, and no file."""
    save_tree(tree_of(2, 3), tmp_path / "best.json")
    cases = [
        ("tree.txt", [], ".txt is none of .svg, .png, .pdf, .jpg, .jpeg, .gif, .ps, .eps"),
        ("tree.jpg", ["--format", "png"], "names jpg but --format is png"),
    ]
    for name, extra, needle in cases:
        out = tmp_path / name
        args = ["render", str(tmp_path / "best.json"), "-o", str(out), *extra]
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, res.output
        (line,) = res.stderr.strip().splitlines()
        assert line.startswith("Error: ") and "--output" in line and needle in line
        assert not out.exists()
    # --format with any other suffix: the format asked by name.
    out = tmp_path / "tree.picture"
    args = ["render", str(tmp_path / "best.json"), "-o", str(out), "--format", "png"]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_render_tree_writes_the_format_of_the_suffix(tmp_path):
    tree = tree_of(2, 3)
    assert render_tree(tree, tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match=r"t\.txt: the suffix \.txt is none of \.svg, \.png"):
        render_tree(tree, tmp_path / "t.txt")
