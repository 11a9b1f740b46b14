"""The breaker explorer: one self-contained HTML page to walk a breaker tree, or two side
by side, in a browser without any network.

The page holds the tree as columnar JSON (guess, feedback, parent and per-node figures)
and a small script of our own (``evo/show/explore_assets/explore.js``) that builds the nodes
only when they are expanded, so a (5,8) tree of 30 000+ nodes opens at once. With two
trees, each node of one tree is paired with the *aligned* node of the other (reached by
the same guesses and feedbacks, so with the same code set); where aligned nodes guess
differently the trees diverge, and by additivity (DESIGN §2) the difference of the two
subtrees' totals there is exactly what that divergence costs.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import atomic_write_text, check_target
from evo.core.tree import Tree
from evo.games.pegs import peg_game
from evo.show.render import PALETTE, text_color
from evo.show.text import printable

#: The page's script and style sheet, shipped as package data and inlined in the page.
ASSETS = "explore_assets"

#: What the embedded JSON writes as ``\uXXXX``: nothing in the data can then end its
#: script block or open a comment there (``</script>``, ``<!--``), whatever the names.
#: ``json.dumps`` already writes every non-ASCII character so (U+2028 and U+2029 too).
_JSON_IN_HTML = {ord(c): f"\\u{ord(c):04x}" for c in "<>&"}


@dataclass(frozen=True)
class Divergence:
    """Aligned nodes (same code set) where two trees guess differently, and the guesses
    the first tree's subtree makes there minus the second's (negative: the first is
    better)."""

    node_a: int
    node_b: int
    codes: int
    cost: int


def aligned_nodes(a: Tree, b: Tree) -> np.ndarray:
    """For every node of ``a``, the node of ``b`` reached by the same guesses and feedbacks
    (the alignment of ``evo.ea.crossover.aligned_node``, for all nodes at once), or -1."""
    out = np.full(len(a), -1, dtype=np.int64)
    if a.game != b.game:
        return out
    out[0] = 0
    child_b = b.child_table
    guess_a, guess_b = a.guess.astype(np.int64), b.guess.astype(np.int64)
    depth = a.depth
    for d in range(2, int(depth.max()) + 1 if len(a) else 0):
        nodes = np.flatnonzero(depth == d)
        par = a.parent[nodes]
        up = out[par]
        ok = up >= 0
        ok[ok] = guess_a[par[ok]] == guess_b[up[ok]]
        out[nodes[ok]] = child_b[up[ok], a.label[nodes[ok]]]
    return out


def divergences(a: Tree, b: Tree) -> list[Divergence]:
    """Where ``a`` and ``b`` first guess differently on the same code set, most costly
    first (by absolute cost); the costs add up to ``a.total - b.total``."""
    al = aligned_nodes(a, b)
    nodes = np.flatnonzero((al >= 0) & (a.guess != b.guess[np.maximum(al, 0)]))
    sub_a, sub_b = a.subtree_totals(), b.subtree_totals()
    out = [
        Divergence(int(x), int(al[x]), int(a.count[x]), int(sub_a[x] - sub_b[al[x]])) for x in nodes
    ]
    out.sort(key=lambda d: (-abs(d.cost), d.node_a))
    return out


def worst_depths(tree: Tree) -> np.ndarray:
    """Per node, the deepest terminal node of its subtree (guesses of its worst code,
    counted from the start of the game)."""
    w = np.where(tree.terminal, tree.depth, 0).astype(np.int64)
    for d in range(int(tree.depth.max()), 1, -1):
        nodes = np.flatnonzero(tree.depth == d)
        np.maximum.at(w, tree.parent[nodes], w[nodes])
    return w


def tree_data(tree: Tree, name: str, *, other: Tree | None = None) -> dict[str, Any]:
    """The JSON the page reads for one tree: per node its guess (printed), feedback from
    its parent, parent, codes, total and worst counted from the start of the game, and,
    with ``other``, the aligned node of the other tree."""
    game = tree.game
    guesses = np.unique(tree.guess)
    index = {int(g): k for k, g in enumerate(guesses)}
    sub = tree.subtree_totals()
    totals = sub + (tree.depth.astype(np.int64) - 1) * tree.count
    data: dict[str, Any] = {
        "name": printable(name),
        "total": int(tree.total),
        "average": float(tree.average),
        "worst": int(tree.worst),
        "guesses": [game.format_code(int(g)) for g in guesses],
        "guess": [index[int(g)] for g in tree.guess],
        "label": tree.label.astype(int).tolist(),
        "parent": tree.parent.astype(int).tolist(),
        "codes": tree.count.astype(int).tolist(),
        "total_from_start": totals.astype(int).tolist(),
        "worst_depth": worst_depths(tree).astype(int).tolist(),
        "terminal": tree.terminal.astype(int).tolist(),
    }
    if other is not None:
        data["aligned"] = aligned_nodes(tree, other).astype(int).tolist()
    if peg_game(game) is None:  # the page cannot compute this game's feedbacks
        win = np.full(game.num_codes, -1, dtype=np.int64)
        win[tree.codes] = tree.terminal_node
        data["win_node"] = win.tolist()  # the node where each code is guessed
    return data


def page_data(a: Tree, name_a: str, b: Tree | None = None, name_b: str = "") -> dict[str, Any]:
    """Everything the page shows: the game, one or two trees, and their divergences."""
    game = a.game
    if b is not None and b.game != game:
        raise ValueError(f"{name_a} plays {game.name} but {name_b} plays {b.game.name}")
    pegs = peg_game(game)
    shown: dict[str, Any] = {
        "name": game.name,
        "title": game.description,
        "kind": game.kind,
        "codes": game.num_codes,
        "feedbacks": [game.format_feedback(f) for f in range(game.num_feedbacks)],
        "palette": [[c, text_color(c)] for c in PALETTE],
    }
    if pegs is not None:  # the page plays a secret itself
        shown.update(pegs=pegs.pegs, colors=pegs.colors, variant=pegs.variant, offset=pegs._offset)
    else:  # the page finds a secret's node by its label
        shown["labels"] = game.format_codes(game.all_codes())
    data: dict[str, Any] = {"game": shown, "trees": [tree_data(a, name_a, other=b)]}
    if b is not None:
        data["trees"].append(tree_data(b, name_b, other=a))
        data["divergences"] = [[d.node_a, d.node_b, d.codes, d.cost] for d in divergences(a, b)]
    return data


def _asset(name: str) -> str:
    return resources.files("evo.show").joinpath(ASSETS).joinpath(name).read_text(encoding="utf-8")


def script_hash(script: str) -> str:
    """The Content-Security-Policy source that allows this inline script and no other."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def explorer_html(a: Tree, name_a: str, b: Tree | None = None, name_b: str = "") -> str:
    """The explorer page: data, style and script inlined, no external resource. Only the
    page's own script may run (allowed by its hash), and the names are data, never markup."""
    data = page_data(a, name_a, b, name_b)
    title = f"evo explorer: {name_a}" + (f" vs {name_b}" if b is not None else "")
    payload = json.dumps(data, separators=(",", ":")).translate(_JSON_IN_HTML)
    script = _asset("explore.js")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src {script_hash(script)}; style-src 'unsafe-inline'">
<title>{html.escape(printable(title))}</title>
<style>{_asset("explore.css")}</style>
</head>
<body>
<noscript>This page needs JavaScript (no network: everything is in the page).</noscript>
<div id="app"></div>
<script id="evo-data" type="application/json">{payload}</script>
<script>{script}</script>
</body>
</html>
"""


def write_explorer(
    path: str | os.PathLike,
    a: Tree,
    name_a: str,
    b: Tree | None = None,
    name_b: str = "",
) -> Path:
    """Write the explorer page atomically; return its path. A path that is not a regular
    file is refused before the page is made (:func:`evo.core.files.check_target`)."""
    check_target(path)
    return atomic_write_text(path, explorer_html(a, name_a, b, name_b))
