"""A strategy as a table of its decision points (what ``evo table`` prints).

One row per node: the feedback history that leads to it, the guess, how many codes
reach it, their total and average number of guesses from the start, and the worst case
among them. Rows are sorted by count, largest first (ties in tree order). This is the
table players memorize.

Two history notations (``style``):

* ``feedback`` (evo's notation, as everywhere else): the answers so far as ``1B 1W``
  (``1B 1C`` in Bulls and Cows) joined by `` | ``: ``1B 1W | 0B 1W``.
* ``writeup`` (the Mastermind write-up's, to compare with its published tables): each
  answer written as ``|`` followed by its letters, ``R`` for a peg right in place and
  ``W`` for one right in color only (``B`` and ``C``, bulls and cows, in Bulls and
  Cows): ``|RW|W``. An answer with no peg is a bare ``|``, so ``|`` (no peg on the first
  guess) differs from the root's empty history. Games of the Mastermind family only.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from evo.core.tree import Tree
from evo.games.pegs import feedback_pair, peg_game

Style = Literal["feedback", "writeup"]
STYLES: tuple[str, ...] = ("feedback", "writeup")

#: What joins the answers of a history in the ``feedback`` style.
SEPARATOR = " | "


def feedback_letters(fb: int, pegs: int, *, letters: str = "RW") -> str:
    """``<b, w>`` as ``R`` * b + ``W`` * w (empty for no peg); ``letters`` names the two."""
    b, w = feedback_pair(int(fb), pegs)
    return letters[0] * b + letters[1] * w


def node_histories(tree: Tree, *, style: Style = "feedback") -> list[str]:
    """The feedback history of every node in ``style`` (the root's is empty)."""
    game = tree.game
    pegs = peg_game(game)
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
    if style == "writeup" and pegs is None:
        raise ValueError(f"the writeup style writes pegs: {game.name} has none (use feedback)")
    letters = "BC" if game.kind == "bulls-cows" else "RW"
    out = [""] * len(tree)
    for i in range(1, len(tree)):  # preorder: the parent comes first
        p = int(tree.parent[i])
        fb = int(tree.label[i])
        if style == "writeup":
            assert pegs is not None
            b, w = pegs.black_white(fb)
            out[i] = f"{out[p]}|{letters[0] * b + letters[1] * (w or 0)}"
        else:
            said = game.format_feedback(fb)
            out[i] = said if p == 0 else f"{out[p]}{SEPARATOR}{said}"
    return out


def table_rows(tree: Tree, *, min_count: int = 1, style: Style = "feedback") -> list[dict]:
    """The rows of nodes reached by at least ``min_count`` codes, as plain data:
    ``node``, ``move``, ``history`` (in ``style``), ``guess``, ``count``, ``total``,
    ``average``, ``worst``."""
    game = tree.game
    cum = np.concatenate(([0], np.cumsum(tree.terminal_depths, dtype=np.int64)))
    totals = cum[tree.start + tree.count] - cum[tree.start]
    worst = tree.deepest()
    histories = node_histories(tree, style=style)
    keep = np.flatnonzero(tree.count >= min_count)
    order = keep[np.lexsort((keep, -tree.count[keep]))]
    return [
        {
            "node": int(i),
            "move": int(tree.depth[i]),
            "history": histories[i],
            "guess": game.format_code(int(tree.guess[i])),
            "count": int(tree.count[i]),
            "total": int(totals[i]),
            "average": float(totals[i]) / int(tree.count[i]),
            "worst": int(worst[i]),
        }
        for i in order
    ]


def departures(tree: Tree, *, from_move: int = 3) -> list[dict]:
    """Where the tree leaves the class of strategies that guess only codes still possible
    from move ``from_move`` on (the class of the best published (5,8) total, 179274: an
    impossible code only at the second guess): its outermost nodes at that move or later
    whose guess cannot be the secret, each with its subtree's total (guesses counted from
    the node), the least total of a subtree there that guesses only possible codes (exact
    search), and what the tree saves on it. Rows: ``node``, ``move``, ``history``,
    ``guess``, ``count``, ``total``, ``within_class``, ``saved``; largest saving first."""
    from evo.search.build import Node
    from evo.search.exact import Solver

    game = tree.game
    solver = Solver(game, pool="consistent", policy="symmetry", max_memo=500_000)
    outside = np.flatnonzero((tree.depth >= from_move) & ~tree.terminal)
    histories = node_histories(tree, style="feedback")
    totals = tree.subtree_totals()
    rows, reach = [], -1
    for x in outside.tolist():
        if x < reach:
            continue  # inside a departure already listed
        reach = x + int(tree.nsub[x])
        best = solver.total(tree.code_set(x), Node.after(game, tuple(tree.used_guesses(x))))
        rows.append(
            {
                "node": x,
                "move": int(tree.depth[x]),
                "history": histories[x],
                "guess": game.format_code(int(tree.guess[x])),
                "count": int(tree.count[x]),
                "total": int(totals[x]),
                "within_class": int(best),
                "saved": int(best) - int(totals[x]),
            }
        )
    return sorted(rows, key=lambda r: (-r["saved"], r["node"]))


def _hundredths(total: int, count: int) -> str:
    """``total / count`` to two decimals, halves rounded up (189 / 40 prints 4.73)."""
    h = (200 * total + count) // (2 * count)
    return f"{h // 100}.{h % 100:02d}"


def writeup_table(rows: list[dict]) -> str:
    """The rows as the write-up prints them: ``History Guess Count Total Avg Max``,
    counts and totals with thousands separators, averages to two decimals (halves up)."""
    cells = [["History", "Guess", "Count", "Total", "Avg", "Max"]] + [
        [
            r["history"],
            r["guess"],
            f"{r['count']:,}",
            f"{r['total']:,}",
            _hundredths(r["total"], r["count"]),
            str(r["worst"]),
        ]
        for r in rows
    ]
    widths = [max(len(row[k]) for row in cells) for k in range(6)]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        parts += [row[k].rjust(widths[k]) for k in (2, 3)]
        parts += [row[4].ljust(widths[4]), row[5]]
        lines.append(" ".join(parts).rstrip())
    return "\n".join(lines)
