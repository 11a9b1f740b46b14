"""A breaker tree that shows itself: what the public API hands out.

:class:`Breaker` is a :class:`~evo.core.tree.Tree` (same arrays, same figures) that can
also be turned into a networkx graph, drawn by Graphviz into a file, and drawn inline by
Jupyter. The core tree knows nothing of drawing; this class adds it on top.
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

from evo.core.tree import Tree

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd

_FIELDS = [f.name for f in fields(Tree) if f.name != "_cache"]

#: How many nodes an inline drawing shows at most (deeper levels are collapsed).
INLINE_NODES = 60


class Breaker(Tree):
    """A breaker tree: ``total``, ``average``, ``worst``, ``histogram`` (guesses: codes),
    ``to_networkx()``, ``to_dataframe()``, ``render(path, depth=...)``, and an SVG of
    its top levels in Jupyter."""

    @classmethod
    def of(cls, tree: Tree) -> Breaker:
        """``tree`` as a Breaker (sharing its arrays and figures)."""
        if type(tree) is cls:
            return tree
        out = cls(**{k: getattr(tree, k) for k in _FIELDS})
        out._cache = dict(tree._cache)
        return out

    def to_networkx(self) -> nx.DiGraph:
        """The tree as a networkx ``DiGraph`` (its attributes:
        :func:`evo.show.graph.to_networkx`)."""
        from evo.show.graph import to_networkx

        return to_networkx(self)

    def to_dataframe(self) -> pd.DataFrame:
        """The tree as a pandas DataFrame, one row per node (its columns:
        :func:`evo.show.frames.tree_dataframe`); needs pandas (``pip install
        "evo-breakers[pandas]"``)."""
        from evo.show.frames import tree_dataframe

        return tree_dataframe(self)

    def render(
        self,
        path: str | os.PathLike,
        *,
        depth: int | None = None,
        min_codes: int | None = None,
        title: str | None = None,
    ) -> Path:
        """Draw the tree into ``path`` (its suffix says the format: ``.svg``, ``.png``,
        ``.pdf``…), down to ``depth`` levels and nodes of at least ``min_codes`` codes (the
        rest collapsed into boxes saying how many codes and guesses they hold). A path
        that is not a regular file (a link, a FIFO, a device) is refused, never replaced;
        without Graphviz, :class:`evo.show.render.GraphvizMissing`."""
        from evo.show.render import render_tree

        return render_tree(self, path, depth=depth, min_codes=min_codes, title=title)

    def svg(self, *, depth: int | None = None, min_codes: int | None = None) -> str:
        """The drawing as SVG text (by default the top levels, at most
        :data:`INLINE_NODES` nodes)."""
        from evo.show.render import auto_depth, draw, tree_dot

        if depth is None and min_codes is None:
            depth = auto_depth(self, max_nodes=INLINE_NODES)
        return draw(tree_dot(self, depth=depth, min_codes=min_codes), "svg").decode()

    def _repr_svg_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:
        g = self.game
        return (
            f"Breaker({g.variant} {g.pegs} pegs {g.colors} colors: total {self.total}, "
            f"average {self.average:.4f}, worst {self.worst}, {len(self)} nodes)"
        )
