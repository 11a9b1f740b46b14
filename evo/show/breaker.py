"""A breaker tree that shows itself: what the public API hands out.

:class:`Breaker` is a :class:`~evo.core.tree.Tree` (same arrays, same figures) that can
also be turned into a networkx graph, drawn by Graphviz into a file, and drawn inline by
Jupyter. The core tree knows nothing of drawing; this class adds it on top.
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evo.core.tree import Tree

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd

_FIELDS = [f.name for f in fields(Tree) if f.name != "_cache"]

#: How many nodes an inline drawing shows at most (deeper levels are collapsed).
INLINE_NODES = 60


class Breaker(Tree):
    """A breaker tree: ``total``, ``average``, ``worst``, ``histogram`` (guesses: codes),
    ``to_networkx()``, ``to_dataframe()``, ``render(path, depth=...)``, ``explore(path,
    beside=...)``, and an SVG of its top levels in Jupyter (and every method of
    :class:`~evo.core.tree.Tree`). A breaker of a run also has its DEAP ``fitness``.

    >>> import evo
    >>> knuth = evo.baseline(evo.make_game(4, 6), "knuth")
    >>> knuth
    Breaker(mastermind-4-6: total 5801, average 4.4761, worst 5, 1378 nodes)
    >>> knuth.total, knuth.worst, knuth.histogram
    (5801, 5, {1: 1, 2: 6, 3: 62, 4: 533, 5: 694})
    """

    #: The DEAP fitness of a breaker of a run (the best, the last population, the hall of
    #: fame and the Pareto front of :func:`evo.evolve`), as :func:`evo.steps`'
    #: individuals have it: ``fitness.values`` is ``(total,)`` (with a penalty past
    #: ``max_guesses``), or NSGA-II's objectives; None for a breaker from elsewhere.
    fitness: Any = None

    @classmethod
    def of(cls, tree: Tree) -> Breaker:
        """``tree`` as a Breaker (sharing its arrays and figures).

        >>> import evo, numpy as np
        >>> tree = evo.ops.grow(evo.make_game(3, 3), np.arange(27), rng=np.random.default_rng(1))
        >>> type(tree).__name__, type(evo.Breaker.of(tree)).__name__
        ('Tree', 'Breaker')
        """
        if type(tree) is cls:
            return tree
        out = cls(**{k: getattr(tree, k) for k in _FIELDS})
        out._cache = dict(tree._cache)
        return out

    def to_networkx(self) -> nx.DiGraph:
        """The tree as a networkx ``DiGraph`` (its attributes:
        :func:`evo.show.graph.to_networkx`): plain values, which GraphML and GEXF keep.

        >>> import evo
        >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> graph = knuth.to_networkx()
        >>> graph.number_of_nodes(), graph.nodes[0]["label"], graph.edges[0, 1]["label"]
        (27, '112', '2B 0W')
        >>> import networkx as nx
        >>> nx.write_graphml(graph, "knuth.graphml")  # or nx.write_gexf(graph, "knuth.gexf")
        """
        from evo.show.graph import to_networkx

        return to_networkx(self)

    def to_dataframe(self) -> pd.DataFrame:
        """The tree as a pandas DataFrame, one row per node (its columns:
        :func:`evo.show.frames.tree_dataframe`); needs pandas (``pip install
        "evo-breakers[pandas]"``).

        >>> import evo
        >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> frame = knuth.to_dataframe()
        >>> frame.loc[[1, 2], ["feedback", "guess", "codes", "height"]].to_dict("records")
        [{'feedback': '2B 0W', 'guess': '113', 'codes': 6, 'height': 3},
         {'feedback': '2B 0W', 'guess': '111', 'codes': 1, 'height': 1}]
        """
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
        without Graphviz, :class:`evo.show.render.GraphvizMissing`.

        >>> import evo
        >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> knuth.render("knuth.svg", depth=2).name
        'knuth.svg'
        """
        from evo.show.render import render_tree

        return render_tree(self, path, depth=depth, min_codes=min_codes, title=title)

    def explore(
        self,
        path: str | os.PathLike,
        *,
        name: str = "this tree",
        beside: Tree | None = None,
        beside_name: str = "the other",
    ) -> Path:
        """Write the explorer into ``path``: one HTML page (offline, nothing fetched) to
        walk the tree, a click per answer, a secret typed to see its game; ``beside``,
        another breaker of the game, pairs each line with what it does on the same codes
        and lists where the two first guess differently, most costly first (what
        ``evo explore`` writes). A path that is not a regular file is refused.

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> knuth, optimum = evo.baseline(game, "knuth"), evo.baseline(game, "optimal")
        >>> page = optimum.explore("explore.html", name="optimal", beside=knuth,
        ...                        beside_name="knuth")
        >>> page.name, page.read_text().startswith("<!DOCTYPE html>")
        ('explore.html', True)
        """
        from evo.show.explore import write_explorer

        if beside is not None and (not isinstance(beside, Tree) or beside.game != self.game):
            what = beside.game.name if isinstance(beside, Tree) else type(beside).__name__
            raise ValueError(f"beside must be a breaker of {self.game.name}, not {what}")
        return write_explorer(path, self, name, beside, beside_name if beside is not None else "")

    def svg(self, *, depth: int | None = None, min_codes: int | None = None) -> str:
        """The drawing as SVG text (by default the top levels, at most
        :data:`INLINE_NODES` nodes).

        >>> import evo
        >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
        >>> knuth.svg(depth=1).startswith("<?xml")
        True
        """
        from evo.show.render import auto_depth, draw, tree_dot

        if depth is None and min_codes is None:
            depth = auto_depth(self, max_nodes=INLINE_NODES)
        return draw(tree_dot(self, depth=depth, min_codes=min_codes), "svg").decode()

    def _repr_svg_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:
        return (
            f"Breaker({self.game.name}: total {self.total}, "
            f"average {self.average:.4f}, worst {self.worst}, {len(self)} nodes)"
        )
