"""Drawing breaker trees with Graphviz (DOT built with the ``graphviz`` package).

Mastermind guesses are drawn as a row of colored pegs, each showing its color number,
in a fixed color-blind-safe palette; Bulls and Cows guesses as digits. Terminal nodes
(their guess can be the secret) are filled in a bright yellow, as in the classic
pictures of Knuth's tree. Edges carry the feedback as black and white peg counts
(``1B 2W``; bulls and cows ``1B 2C``). Deep or small subtrees can be collapsed: the
collapsed children of a node become one box saying how many codes they hold and how
many guesses those codes make there, so the picture still tells the cost.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import graphviz
import networkx as nx
from graphviz.backend.dot_command import DOT_BINARY

from evo.core.files import atomic_write_bytes, check_target
from evo.core.tree import Tree
from evo.show.graph import node_pegs, to_networkx
from evo.show.text import printable, suffix_format

#: Okabe & Ito's eight colors (color-blind safe), then Paul Tol's muted scheme for games
#: with more colors; beyond 18 colors the palette repeats and the numbers tell them apart.
PALETTE: tuple[str, ...] = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#F0E442",  # yellow
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#000000",  # black
    "#332288",  # indigo
    "#88CCEE",  # cyan
    "#44AA99",  # teal
    "#117733",  # green
    "#999933",  # olive
    "#DDCC77",  # sand
    "#CC6677",  # rose
    "#882255",  # wine
    "#AA4499",  # purple
    "#DDDDDD",  # pale grey
)

TERMINAL_FILL = "#FFD700"  # bright yellow: the guess can be the secret
INNER_FILL = "#FFFFFF"
COLLAPSED_FILL = "#EEEEEE"
FONT = "DejaVu Sans,Helvetica,Arial,sans-serif"
LAYOUTS: tuple[str, ...] = ("dot", "twopi")
#: Formats Graphviz writes with its core and cairo renderers (the suffixes ``render_tree``
#: takes).
FORMATS: tuple[str, ...] = ("svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps")
RANKDIRS: tuple[str, ...] = ("auto", "TB", "LR")

#: With ``rankdir="auto"``, trees drawing more leaves than this are laid out left to right.
_WIDE = 40


def peg_color(color: int) -> str:
    """The fill of a 0-based color."""
    return PALETTE[color % len(PALETTE)]


def text_color(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (WCAG relative luminance)."""
    rgb = [int(fill[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#000000" if lum > 0.179 else "#FFFFFF"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def guess_label(pegs: tuple[int, ...], printed: str, variant: str, *, note: str = "") -> str:
    """The HTML-like label of a guess: one colored cell per peg with its printed symbol
    (Mastermind, black-peg too), or the printed code (Bulls and Cows' digits, a custom
    game's label), and an optional small note below."""
    if variant in ("mastermind", "black-peg"):
        cells = "".join(
            f'<TD BGCOLOR="{peg_color(p)}" WIDTH="18" HEIGHT="18" FIXEDSIZE="FALSE">'
            f'<FONT COLOR="{text_color(peg_color(p))}" POINT-SIZE="12"><B>{_escape(s)}</B></FONT>'
            "</TD>"
            for p, s in zip(pegs, printed, strict=True)
        )
        row = f"<TR>{cells}</TR>"
        span = len(pegs)
        table = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3" CELLPADDING="2" BGCOLOR="white">'
    else:
        font = '<FONT FACE="DejaVu Sans Mono,monospace" POINT-SIZE="14">'
        row = f"<TR><TD>{font}<B>{_escape(printed)}</B></FONT></TD></TR>"
        span = 1
        table = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" BGCOLOR="white">'
    if note:
        small = '<FONT POINT-SIZE="8" COLOR="#444444">'
        row += f'<TR><TD COLSPAN="{span}" BORDER="0">{small}{_escape(note)}</FONT></TD></TR>'
    return f"<{table}{row}</TABLE>>"


def collapsed_text(codes: int, guesses: int) -> str:
    """The label of a collapsed box: how many codes it holds and their guesses there."""
    return f"{codes} code{'s' if codes != 1 else ''}, {guesses} guess{'es' if guesses != 1 else ''}"


@dataclass(frozen=True)
class Cut:
    """Which nodes are drawn: every node of depth ``<= depth`` whose code set holds at least
    ``min_codes`` codes (the root always); the rest is collapsed under the nearest drawn
    ancestor."""

    depth: int | None = None
    min_codes: int | None = None

    def keeps(self, attrs: dict) -> bool:
        if attrs["depth"] == 1:
            return True
        if self.depth is not None and attrs["depth"] > self.depth:
            return False
        return self.min_codes is None or attrs["codes"] >= self.min_codes


def drawn_nodes(graph: nx.DiGraph, cut: Cut) -> list[int]:
    """The nodes the picture shows, in preorder."""
    kept, stack = [], [0]
    while stack:
        node = stack.pop()
        kept.append(node)
        stack.extend(c for c in reversed(list(graph.successors(node))) if cut.keeps(graph.nodes[c]))
    return kept


def tree_dot(
    tree: Tree,
    *,
    depth: int | None = None,
    min_codes: int | None = None,
    layout: str = "dot",
    rankdir: str = "auto",
    title: str | None = None,
) -> graphviz.Digraph:
    """The Graphviz picture of a breaker tree (see the module docstring)."""
    return graph_dot(
        to_networkx(tree),
        depth=depth,
        min_codes=min_codes,
        layout=layout,
        rankdir=rankdir,
        title=title,
    )


def graph_dot(
    graph: nx.DiGraph,
    *,
    depth: int | None = None,
    min_codes: int | None = None,
    layout: str = "dot",
    rankdir: str = "auto",
    title: str | None = None,
) -> graphviz.Digraph:
    """The Graphviz picture of a tree's networkx graph (:func:`evo.show.graph.to_networkx`)."""
    _check_choice("layout", layout, LAYOUTS)
    _check_choice("rankdir", rankdir, RANKDIRS)
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    if min_codes is not None and min_codes < 1:
        raise ValueError(f"min_codes must be at least 1, not {min_codes}")
    cut = Cut(depth, min_codes)
    variant = str(graph.graph.get("variant", graph.graph.get("kind", "")))
    kept = drawn_nodes(graph, cut)
    kept_set = set(kept)

    boxes: dict[int, list[int]] = {}  # drawn node -> its collapsed children
    for node in kept:
        hidden = [c for c in graph.successors(node) if c not in kept_set]
        if hidden:
            boxes[node] = hidden
    leaves = sum(1 for n in kept if not any(c in kept_set for c in graph.successors(n)))
    if rankdir == "auto":
        rankdir = "LR" if leaves > _WIDE else "TB"

    dot = graphviz.Digraph(
        "breaker",
        engine=layout,
        graph_attr={
            "rankdir": rankdir,
            "bgcolor": "white",
            "fontname": FONT,
            "nodesep": "0.12",
            "ranksep": "0.5" if layout == "dot" else "1.6",
            "overlap": "true" if layout == "dot" else "false",
            # An HTML-like label, where backslashes are no Graphviz escapes; unprintable
            # characters, which XML forbids, shown escaped.
            "label": f"<{_escape(printable(title))}>" if title else "",
            "labelloc": "t",
            "fontsize": "14",
        },
        node_attr={"fontname": FONT, "shape": "box", "style": "rounded,filled", "margin": "0.07"},
        edge_attr={"fontname": FONT, "fontsize": "9", "color": "#555555", "arrowsize": "0.6"},
    )
    for node in kept:
        a = graph.nodes[node]
        note = f"{a['codes']} codes" if a["codes"] > 1 else ""
        dot.node(
            f"n{node}",
            label=guess_label(node_pegs(a) if "pegs" in a else (), a["label"], variant, note=note),
            fillcolor=TERMINAL_FILL if a["terminal"] else INNER_FILL,
            color="#8A6D00" if a["terminal"] else "#555555",
            penwidth="1.6" if a["terminal"] else "1",
            tooltip=(
                f"{a['label']}: {a['codes']} code(s), {a['subtotal']} guesses, depth {a['depth']}"
                + (", can be the secret" if a["terminal"] else "")
            ),
            id=f"node{node}-{a['label']}",
        )
        parent = next(iter(graph.predecessors(node)), None)
        if parent is not None:
            e = graph.edges[parent, node]
            dot.edge(f"n{parent}", f"n{node}", label=e["label"])
    for node, hidden in boxes.items():
        codes = sum(graph.nodes[c]["codes"] for c in hidden)
        guesses = sum(graph.nodes[c]["subtotal"] for c in hidden)
        if len(hidden) == 1:
            label = graph.edges[node, hidden[0]]["label"]
        else:
            label = f"{len(hidden)} answers"
        dot.node(
            f"c{node}",
            label=collapsed_text(codes, guesses),
            shape="box",
            style="rounded,filled,dashed",
            fillcolor=COLLAPSED_FILL,
            color="#777777",
            fontsize="10",
            tooltip=f"{len(hidden)} collapsed subtree(s): {collapsed_text(codes, guesses)}",
        )
        dot.edge(f"n{node}", f"c{node}", label=label, style="dashed")
    return dot


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


class GraphvizMissing(RuntimeError):
    """Graphviz's ``dot`` program, which draws the pictures, cannot be found."""


#: What :class:`GraphvizMissing` says: what is missing and how to get it.
GRAPHVIZ_MISSING = (
    "Graphviz's dot program, which draws the trees, was not found on PATH: install "
    "Graphviz (https://graphviz.org/download/; e.g. apt install graphviz, brew install "
    "graphviz or conda install graphviz)"
)


def graphviz_missing() -> str | None:
    """Why no picture can be drawn here (Graphviz's ``dot`` is not on PATH), or None."""
    return None if shutil.which(os.fspath(DOT_BINARY)) else GRAPHVIZ_MISSING


def draw(dot: graphviz.Digraph, fmt: str) -> bytes:
    """The picture ``dot`` describes, in ``fmt``, drawn by Graphviz (raises
    :class:`GraphvizMissing` when its ``dot`` program cannot be found)."""
    missing = graphviz_missing()
    if missing is not None:
        raise GraphvizMissing(missing)
    try:
        return dot.pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissing(GRAPHVIZ_MISSING) from None


def render_tree(
    tree: Tree,
    path: str | os.PathLike,
    *,
    depth: int | None = None,
    min_codes: int | None = None,
    layout: str = "dot",
    fmt: str | None = None,
    rankdir: str = "auto",
    title: str | None = None,
) -> Path:
    """Draw a tree into ``path``, written atomically, in ``fmt`` (one of :data:`FORMATS`),
    by default the format of the path's suffix (SVG without one; a ValueError for a suffix
    naming none of them). A path that is not a regular file is refused
    (:class:`~evo.core.files.FileWriteError`), and so is a machine without Graphviz
    (:class:`GraphvizMissing`), before the drawing."""
    if fmt is None:
        fmt = suffix_format(path, FORMATS, default="svg")
    _check_choice("format", fmt, FORMATS)
    check_target(path)  # before the work (the writer checks again)
    missing = graphviz_missing()
    if missing is not None:
        raise GraphvizMissing(missing)
    dot = tree_dot(
        tree, depth=depth, min_codes=min_codes, layout=layout, rankdir=rankdir, title=title
    )
    return atomic_write_bytes(path, draw(dot, fmt))


def drawn_count(
    tree: Tree, *, depth: int | None = None, min_codes: int | None = None
) -> tuple[int, int]:
    """How many of ``tree``'s nodes a picture with these limits draws (:class:`Cut`), and
    how many boxes of collapsed subtrees it adds (one per drawn node with a child not
    drawn), from its arrays: a node is drawn when it and every node above it are kept."""
    import numpy as np

    keep = np.ones(len(tree), dtype=bool)
    if depth is not None:
        keep &= tree.depth <= depth
    if min_codes is not None:
        keep &= tree.count >= min_codes
    keep[0] = True
    for d in range(2, int(tree.depth.max()) + 1):  # level by level, from the root down
        level = np.flatnonzero(tree.depth == d)
        keep[level] &= keep[tree.parent[level]]
    hidden = np.flatnonzero(~keep)
    boxes = np.unique(tree.parent[hidden][keep[tree.parent[hidden]]])
    return int(keep.sum()), len(boxes)


def auto_depth(tree: Tree, *, max_nodes: int = 150) -> int | None:
    """The largest depth limit that draws at most ``max_nodes`` nodes (None: draw it all);
    at least 2, so the root and its answers always show."""
    if len(tree) <= max_nodes:
        return None
    drawn = 0
    for d in range(1, tree.worst + 1):
        drawn += int((tree.depth == d).sum())
        if drawn > max_nodes:
            return max(2, d - 1)
    return None
