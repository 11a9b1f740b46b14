"""Trees and logbooks as pandas DataFrames, for analysis in a notebook.

pandas is an optional extra (``pip install "evo-breakers[pandas]"``): it is imported
only when a DataFrame is asked for, and its absence is one clear error
(:class:`PandasMissing`) saying how to install it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from evo.core.tree import Tree

if TYPE_CHECKING:
    import pandas as pd

#: What :class:`PandasMissing` says.
PANDAS_MISSING = (
    "pandas is needed for DataFrames and is not installed: "
    'pip install "evo-breakers[pandas]" (or pip install pandas)'
)


class PandasMissing(ImportError):
    """pandas, which DataFrames need, is not installed (the message says how to get it)."""


def pandas() -> Any:
    """The pandas module, or :class:`PandasMissing`."""
    try:
        import pandas as pd
    except ImportError:
        raise PandasMissing(PANDAS_MISSING, name="pandas") from None
    return pd


def tree_dataframe(tree: Tree) -> pd.DataFrame:
    """One row per node of ``tree``, indexed by node number (preorder, root 0):
    ``parent`` (-1 at the root), ``depth`` (root = 1), ``feedback`` (the answer that
    leads there, as evo writes it, ``1B 2W``; missing at the root), ``guess`` (printed,
    ``1122``), ``code`` (the guess as an integer), ``codes`` (how many codes reach the
    node), ``terminal`` (its guess can be the secret), ``children``, ``subtotal``
    (guesses its codes make from this node on: the additive total of docs/DESIGN.md §2)
    and ``height`` (guesses its worst code needs from this node on).

    >>> import evo
    >>> frame = evo.baseline(evo.make_game(3, 3), "knuth").to_dataframe()
    >>> frame.loc[0, "guess"], int(frame.loc[0, "subtotal"]), int(frame.loc[0, "height"])
    ('112', 74, 4)
    >>> frame.loc[1, "feedback"], frame.loc[1, "guess"], int(frame.loc[1, "codes"])
    ('2B 0W', '113', 6)
    >>> len(frame[frame.terminal])  # one node per code guesses it
    27
    """
    pd = pandas()
    game = tree.game
    texts = np.array([None] + [game.format_feedback(f) for f in range(game.num_feedbacks)])
    n = len(tree)
    children = np.bincount(tree.parent[1:], minlength=n) if n > 1 else np.zeros(n, np.int64)
    frame = pd.DataFrame(
        {
            "parent": tree.parent.astype(np.int64),
            "depth": tree.depth.astype(np.int64),
            "feedback": texts[tree.label.astype(np.int64) + 1],
            "guess": game.format_codes(tree.guess),
            "code": tree.guess.astype(np.int64),
            "codes": tree.count.astype(np.int64),
            "terminal": tree.terminal.astype(bool),
            "children": children.astype(np.int64),
            "subtotal": tree.subtree_totals().astype(np.int64),
            "height": (tree.deepest() - tree.depth + 1).astype(np.int64),
        }
    )
    frame.index.name = "node"
    return frame


def logbook_dataframe(logbook: Iterable[Mapping[str, Any]] | str | os.PathLike) -> pd.DataFrame:
    """A logbook as a DataFrame, one row per record, indexed by generation (``gen``) when
    every record has one: DEAP's :class:`deap.tools.Logbook` (``Evolution.logbook``, a
    state's of :func:`evo.steps`; the keys of a chapter as ``chapter.key``), a list of
    records, or a run directory (its ``logbook.jsonl``).

    >>> import evo
    >>> result = evo.evolve(evo.make_game(3, 3), seed=1, generations=3)
    >>> frame = evo.logbook_dataframe(result.logbook)
    >>> frame.columns.tolist()[:5], frame.index.name, len(frame)
    (['nevals', 'min', 'avg', 'max', 'std'], 'gen', 4)
    >>> bool((frame["min"] <= frame["avg"]).all())
    True
    """
    pd = pandas()
    if isinstance(logbook, str | os.PathLike):
        from evo.runs.rundir import load_run

        logbook = load_run(logbook).logbook
    records = [dict(r) for r in logbook]
    for chapter, book in (getattr(logbook, "chapters", None) or {}).items():
        for row, sub in zip(records, book, strict=False):
            row.update({f"{chapter}.{k}": v for k, v in sub.items() if k not in row})
    frame = pd.DataFrame.from_records(records)
    if records and "gen" in frame and frame["gen"].notna().all():
        frame = frame.set_index("gen")
    return frame
