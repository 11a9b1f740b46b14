"""to_networkx: an arborescence with the tree's guesses, code sets and fitness."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from support.definitions import all_code_tuples
from support.reference_growth import brute_feedback

from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.show.graph import node_pegs, to_networkx


def total_by_playing_graph(graph: nx.DiGraph, pegs: int, colors: int, variant: str) -> int:
    """Play every code on the graph alone, with feedback from the definition."""
    total = 0
    for code in all_code_tuples(pegs, colors, variant):
        node, depth = 0, 1
        while True:
            a = graph.nodes[node]
            b, w = brute_feedback(node_pegs(a), code)
            if b == pegs:
                assert a["terminal"]
                total += depth
                break
            (node,) = [
                c
                for c in graph.successors(node)
                if (graph.edges[node, c]["black"], graph.edges[node, c]["white"]) == (b, w)
            ]
            depth += 1
    return total


def test_hand_tree_graph(hand_tree):
    """(2,2): 11 first; 1B0W leaves {12, 21}: guess 12, then 21 on 0B2W; 0B0W leaves 22.
    Guesses: 11 -> 1, 12 -> 2, 21 -> 3, 22 -> 2: total 8."""
    g = to_networkx(hand_tree)
    assert nx.is_arborescence(g)
    labels = {g.nodes[n]["label"]: n for n in g}
    assert set(labels) == {"11", "12", "21", "22"}
    assert g.nodes[labels["11"]]["codes"] == 4
    assert g.nodes[labels["12"]]["codes"] == 2
    assert g.nodes[labels["12"]]["subtotal"] == 3  # 12 in one guess from here, 21 in two
    assert g.nodes[labels["21"]]["depth"] == 3
    assert g.nodes[labels["11"]]["subtotal"] == 8
    edge = g.edges[labels["12"], labels["21"]]
    assert (edge["black"], edge["white"], edge["label"]) == (0, 2, "0B 2W")
    assert g.nodes[labels["12"]]["pegs"] == "0,1" and node_pegs(g.nodes[labels["12"]]) == (0, 1)
    assert g.graph["total"] == 8
    assert total_by_playing_graph(g, 2, 2, "mastermind") == 8


@pytest.mark.parametrize(
    "pegs,colors,variant,seed",
    [
        (3, 3, "mastermind", 1),
        (3, 3, "mastermind", 2),
        (2, 4, "mastermind", 5),
        (3, 5, "bulls-cows", 3),
    ],
)
def test_graph_of_random_tree(pegs, colors, variant, seed):
    game = make_game(pegs, colors, variant)
    tree = random_breaker(game, rng=np.random.default_rng(seed))
    g = to_networkx(tree)
    assert nx.is_arborescence(g)
    assert g.number_of_nodes() == len(tree)
    assert [n for n in g if g.in_degree(n) == 0] == [0]
    # the fitness recomputed from the graph: by playing it, by terminal depths, by code sets
    assert total_by_playing_graph(g, pegs, colors, variant) == tree.total
    depth = nx.shortest_path_length(g, 0)
    assert sum(depth[n] + 1 for n in g if g.nodes[n]["terminal"]) == tree.total
    assert sum(g.nodes[n]["codes"] for n in g) == tree.total  # total = sum of |S| over nodes
    assert g.nodes[0]["subtotal"] == tree.total
    assert sum(1 for n in g if g.nodes[n]["terminal"]) == game.num_codes
    for n in g:
        kids = list(g.successors(n))
        assert g.nodes[n]["codes"] == g.nodes[n]["terminal"] + sum(
            g.nodes[c]["codes"] for c in kids
        )
        assert len({g.edges[n, c]["feedback"] for c in kids}) == len(kids)


PLAIN = (str, int, float, bool)


@pytest.mark.parametrize("variant,pegs,colors", [("mastermind", 3, 3), ("bulls-cows", 3, 5)])
def test_graphml_and_gexf_keep_every_attribute(tmp_path, variant, pegs, colors):
    """Every attribute is a plain value that GraphML and GEXF write; networkx's readers
    give the same nodes, edges and attributes back, and the graph read back plays the
    game to the tree's total (GEXF keeps no graph attributes: the format has none)."""
    game = make_game(pegs, colors, variant)
    tree = random_breaker(game, rng=np.random.default_rng(4))
    g = to_networkx(tree)
    attrs = [*g.graph.values()] + [v for _, d in g.nodes(data=True) for v in d.values()]
    attrs += [v for _, _, d in g.edges(data=True) for v in d.values()]
    assert all(type(v) in PLAIN for v in attrs), {type(v) for v in attrs}
    nx.write_graphml(g, tmp_path / "t.graphml")
    nx.write_gexf(g, tmp_path / "t.gexf")
    ml = nx.read_graphml(tmp_path / "t.graphml", node_type=int)
    gexf = nx.read_gexf(tmp_path / "t.gexf", node_type=int)
    assert {k: ml.graph[k] for k in g.graph} == g.graph
    for back in (ml, gexf):
        assert dict(back.nodes(data=True)) == dict(g.nodes(data=True))
        assert sorted(back.edges) == sorted(g.edges)
        for u, v, d in g.edges(data=True):
            assert {k: back.edges[u, v][k] for k in d} == d
        assert total_by_playing_graph(back, pegs, colors, variant) == tree.total
    labels = {d["label"] for _, _, d in gexf.edges(data=True)}
    assert labels <= {game.format_feedback(f) for f in range(game.num_feedbacks)}
    assert all(("W" if variant == "mastermind" else "C") in x for x in labels)
