"""Cost of each mutation's subtree rebuild by the size of the node's code set, on the big
games (issue 11). Prints a markdown section for benchmarks/RESULTS.md.

For each game, a random breaker (seed 0) and up to ``--nodes`` of its nodes per size
band; each operator rebuilds the subtree of each node once, cold (empty caches and exact
memo), in this process. Reported: the median seconds per band, and how much the
rebuilt subtree saves on the random one (median, in guesses). Then the exact search of
the parts of (4,7) after its first guess, with and without the history's symmetries.

    .venv/bin/python benchmarks/bench_operators.py [--nodes 3] [--games 4x6,4x7,bc4,5x8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine_line  # noqa: E402
from evo.core.game import Game, make_game  # noqa: E402
from evo.core.growth import grow, random_breaker  # noqa: E402
from evo.core.tree import Tree  # noqa: E402
from evo.ea import mutation  # noqa: E402
from evo.search import exact  # noqa: E402
from evo.search.build import Node  # noqa: E402
from evo.search.lookahead import ranked_guesses  # noqa: E402

GAMES = {
    "4x6": (4, 6, "mastermind"),
    "4x7": (4, 7, "mastermind"),
    "4x8": (4, 8, "mastermind"),
    "bc4": (4, 10, "bulls-cows"),
    "5x8": (5, 8, "mastermind"),
}
BANDS = [(3, 30), (31, 100), (101, 300), (301, 1000), (1001, 3000), (3001, 10000), (10001, 10**6)]

#: A rebuild: (game, codes, history, rng) -> subtree; None when the operator does not apply.
Rebuild = Callable[[Game, np.ndarray, tuple[int, ...], np.random.Generator], Tree | None]


def _greedy(exact_below: int) -> Rebuild:
    def rebuild(game, codes, history, rng):
        node = Node.after(game, history)
        ranked, _ = ranked_guesses(game, codes, heuristic="kooi", node=node)
        return mutation.greedy_subtree(
            game, codes, root=int(ranked[0]), exact_below=exact_below, history=history
        )

    return rebuild


def _exhaustive(max_codes: int) -> Rebuild:
    def rebuild(game, codes, history, rng):
        if len(codes) > max_codes:
            return None
        solver = exact.shared_solver(game, policy="symmetry")
        return solver.subtree(codes, history=history)

    return rebuild


OPERATORS: dict[str, Rebuild] = {
    "regrow": lambda game, codes, history, rng: grow(game, codes, rng=rng),
    "greedy (look-ahead only)": _greedy(0),
    "greedy, exact <= 100": _greedy(100),
    "greedy, exact <= 300": _greedy(300),
    "exhaustive <= 300": _exhaustive(300),
}


def _cold() -> None:
    mutation.clear_greedy_cache()
    exact._SHARED.clear()


def measure(key: str, nodes_per_band: int, budget: float) -> list[str]:
    pegs, colors, variant = GAMES[key]
    game = make_game(pegs, colors, variant)
    game.prepare()
    tree = random_breaker(game, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    lines = []
    slow: set[str] = set()  # operators that took more than budget/10 on a smaller band
    for low, high in BANDS:
        nodes = np.flatnonzero((tree.count >= low) & (tree.count <= high))
        if len(nodes) == 0:
            continue
        picked = rng.choice(nodes, size=min(nodes_per_band, len(nodes)), replace=False)
        cells = []
        for name, rebuild in OPERATORS.items():
            if name in slow:
                cells.append("(skipped)")
                continue
            times, saved = [], []
            for node in picked.tolist():
                codes = tree.code_set(node)
                history = tuple(tree.used_guesses(node))
                _cold()
                t = time.perf_counter()
                sub = rebuild(game, codes, history, np.random.default_rng(node))
                took = time.perf_counter() - t
                if sub is None:
                    break
                times.append(took)
                saved.append(int(tree.subtree_totals()[node]) - sub.total)
                if took > budget:
                    break
            if times and statistics.median(times) > budget / 10:
                slow.add(name)
            if times:
                cells.append(f"{statistics.median(times):.3g} s ({statistics.median(saved):+.0f})")
            else:
                cells.append("-")
        sizes = f"{int(tree.count[picked].min())}-{int(tree.count[picked].max())}"
        lines.append(f"| {key} | {sizes} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def policies(max_codes: int) -> list[str]:
    """The exact search of each part of (4,7) after the first guess 1123, with candidates
    reduced by the symmetries of that history and without (the evolution's search before
    the operators knew a node's history): seconds, cold, and the guess chosen."""
    from evo.search.partition import split

    game = make_game(4, 7)
    game.prepare()
    first = game.parse_code("1123")
    node = Node.after(game, (first,))
    rows = []
    for _, part in sorted(split(game, first, game.all_codes()), key=lambda p: len(p[1])):
        if not 3 <= len(part) <= max_codes:
            continue
        cells = []
        for policy in ("symmetry", "path-independent"):
            solver = exact.Solver(game, policy=policy)
            t = time.perf_counter()
            total = solver.total(part, node)
            guess = solver.best_guess(part, node)
            cells.append((time.perf_counter() - t, total, game.format_code(guess)))
        (fast, total, g1), (slow, _, g2) = cells
        rows.append(f"| {len(part)} | {total} | {fast:.2f} s | {slow:.2f} s | {g1} / {g2} |")
        print(rows[-1], flush=True)
    return rows


#: The shipped breakers whose nodes the class table searches.
BREAKERS = {"5x8": "breakers/mastermind-5-8.json", "bc4": "breakers/bulls-cows-4.json"}
CLASS_BANDS = [(20, 60), (61, 120), (121, 250), (251, 500), (501, 1000), (1001, 1500)]
CLASSES = {
    "possible codes": dict(pool="consistent"),
    "mixed (2 best impossible)": dict(pool="consistent", impossible=2),
    "all codes": dict(pool="all"),
}


def classes(key: str, nodes_per_band: int, budget: float) -> list[str]:
    """The exact search of nodes of a shipped breaker among the possible codes, the mixed
    class and all codes: seconds (cold, with the node's history) and the least total
    found, beside the breaker's own subtree (issue 19)."""
    from evo.core.files import cache_dir
    from evo.core.treeio import load_tree

    tree = load_tree(ROOT / BREAKERS[key], cache=cache_dir())
    game = tree.game.prepare()
    rng = np.random.default_rng(2)
    rows = []
    slow: set[str] = set()
    for low, high in CLASS_BANDS:
        nodes = np.flatnonzero((tree.count >= low) & (tree.count <= high) & (tree.depth >= 2))
        if len(nodes) == 0:
            continue
        for node in rng.choice(nodes, size=min(nodes_per_band, len(nodes)), replace=False):
            codes, history = tree.code_set(int(node)), tuple(tree.used_guesses(int(node)))
            cells = []
            for name, kw in CLASSES.items():
                if name in slow:
                    cells.append("(skipped)")
                    continue
                solver = exact.Solver(
                    game, policy="symmetry", deadline=time.monotonic() + budget, **kw
                )
                t = time.perf_counter()
                try:
                    total = solver.total(codes, Node.after(game, history))
                    cells.append(f"{time.perf_counter() - t:.2f} s: {total}")
                except exact.SearchTimeout:
                    cells.append(f"over {budget:.0f} s")
                    slow.add(name)
            own = int(tree.subtree_totals()[node])
            rows.append(
                f"| {key} | {len(codes)} | {len(history) + 1} | {own} | " + " | ".join(cells) + " |"
            )
            print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=3, help="nodes per size band")
    ap.add_argument("--games", default="4x6,4x7,bc4,5x8")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds before a band stops")
    ap.add_argument(
        "--policy-max", type=int, default=300, help="largest (4,7) part in the policy table"
    )
    ap.add_argument(
        "--classes", default="", help="only the class table, of these breakers (5x8,bc4)"
    )
    args = ap.parse_args([] if argv is None else argv)
    if args.classes:
        rows = [r for key in args.classes.split(",") for r in classes(key, args.nodes, args.budget)]
        print("\n### Exact search among restricted classes of guesses (issue 19)\n")
        print(machine_line() + "\n")
        print(
            "Nodes of the shipped breakers (below the first guess), searched cold with their"
            " history's symmetries: seconds and the least total of each class, beside the"
            " breaker's own subtree.\n"
        )
        print("| breaker | codes | move | breaker's subtree | " + " | ".join(CLASSES) + " |")
        print("|" + "---|" * (4 + len(CLASSES)))
        print("\n".join(rows))
        return
    table = policies(args.policy_max) if args.policy_max >= 3 else []
    head = "| game | codes at the nodes | " + " | ".join(OPERATORS) + " |"
    rows = []
    for key in args.games.split(","):
        rows += measure(key, args.nodes, args.budget)
    print("\n### Cost of a subtree rebuild by node size (issue 11)\n")
    print(machine_line() + "\n")
    print(
        "Median seconds per rebuild, cold (empty caches), with the median saving in guesses"
        " against the random subtree in brackets; `-`: the operator does not take nodes"
        " that big; `(skipped)`: over a tenth of the budget on a smaller band.\n"
    )
    print(head)
    print("|" + "---|" * (2 + len(OPERATORS)))
    print("\n".join(rows))
    if table:
        print(
            "\nExact search of the parts of (4,7) after the first guess 1123, with the"
            " history's symmetries and without (seconds, cold; the guesses chosen):\n"
        )
        print("| codes | least total | with the history | without | guess (with / without) |")
        print("|---|---|---|---|---|")
        print("\n".join(table))


if __name__ == "__main__":
    main(sys.argv[1:])
