"""What each part of one first guess costs to solve exactly, and to bound by ``V_d`` (issue
52): the timings that decide how ``evo bound --against`` spends its time.

    .venv/bin/python benchmarks/bench_parts.py                   # (4,8), the breaker's first guess
    .venv/bin/python benchmarks/bench_parts.py --game 4x8 --first 1123 --depth 3
    .venv/bin/python benchmarks/bench_parts.py --game 5x6 --first 11223

Per part, largest first: its size, its perfect-split bound, the upper bound (the shipped
breaker's subtree when it opens with that class, else the one-step entropy tree's), the
least total by the exact search (``Solver(policy="symmetry")`` after the first guess) and
its seconds; with ``--depth D``, ``V_D`` and its seconds too.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    from evo.core.game import make_game
    from evo.core.treeio import load_tree
    from evo.proofs.bound import (
        Bounder,
        class_guess,
        first_guess_part,
        lookahead_uppers,
        perfect_split,
        tree_uppers,
    )
    from evo.search.build import Node
    from evo.search.exact import UNBOUNDED, Solver

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="4x8", help="PxC (Mastermind)")
    ap.add_argument("--first", help="the first guess (default: the shipped breaker's)")
    ap.add_argument("--depth", type=int, help="also V_DEPTH of each part")
    args = ap.parse_args(argv if argv is not None else [])
    pegs, colors = (int(x) for x in args.game.lower().split("x"))
    game = make_game(pegs, colors)
    breaker = load_tree(HERE.parent / "breakers" / f"mastermind-{pegs}-{colors}.json", game=game)
    uppers = tree_uppers(breaker)
    guess = next(iter(uppers.parts))
    if args.first is not None:
        guess = class_guess(game, game.parse_code(args.first))
    if guess not in uppers.parts:
        uppers = lookahead_uppers(game, first=guess)
    parts = uppers.parts[guess]
    sizes = np.bincount(game.feedback_row(guess), minlength=game.num_feedbacks)
    print(f"### Parts of {game.format_code(guess)} in {game.name} ({machine_line()})\n")
    extra = f" | V_{args.depth} | seconds" if args.depth is not None else ""
    print(f"| feedback | codes | perfect split | upper | least total | seconds{extra} |")
    print("|---|---|---|---|---|---" + ("|---|---" if extra else "") + "|")
    node = Node.after(game, (guess,))
    smallest = min(parts, key=lambda f: int(sizes[f]))
    Solver(game, policy="symmetry").solve(first_guess_part(game, guess, smallest), node, UNBOUNDED)
    total = 0.0  # the kernels loaded above, off the clock
    for f in sorted(parts, key=lambda f: -int(sizes[f])):
        codes = first_guess_part(game, guess, f)
        start = time.perf_counter()
        least = Solver(game, policy="symmetry").solve(codes, node, UNBOUNDED)
        took = time.perf_counter() - start
        total += took
        row = (
            f"| {game.format_feedback(f)} | {len(codes)} | {perfect_split(game, len(codes))} "
            f"| {parts[f]} | {least} | {took:.2f}"
        )
        if args.depth is not None:
            start = time.perf_counter()
            v = Bounder(game).bound(codes, node, depth=args.depth)
            row += f" | {v} | {time.perf_counter() - start:.2f}"
        print(row + " |", flush=True)
    print(f"\nThe exact search of every part: {total:.1f} s.")


if __name__ == "__main__":
    main(sys.argv[1:])
