"""How Wordle's first guesses split the 2,315 answers: a check of evo's feedback table
against published figures (issue 53; the figures and their sources are in
docs/WORDLE.md).

For each word given (default: SALET TRACE CRANE SLATE CRATE ROATE SOARE RAISE), prints the
number of parts (distinct feedbacks), the largest part and its feedback, the expected
size of the part that holds the secret, and the entropy of the feedback in bits; then
the best first guesses over all 12,972 allowed guesses by each of these measures (the
first guesses of the one-step heuristics: most parts, minimax, expected size, entropy),
ties listed in full::

    .venv/bin/python scripts/wordle_partition.py [WORD ...]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from evo.games.words import FEEDBACKS, feedback_table, format_feedback, load_words

DEFAULT = ["salet", "trace", "crane", "slate", "crate", "roate", "soare", "raise"]


def part_sizes(table: np.ndarray) -> np.ndarray:
    """``(guesses, 243)`` counts of answers per feedback, from a feedback table."""
    rows = np.arange(table.shape[0])[:, None]
    sizes = np.zeros((table.shape[0], FEEDBACKS), dtype=np.int64)
    np.add.at(sizes, (np.broadcast_to(rows, table.shape), table), 1)
    return sizes


def measures(sizes: np.ndarray) -> dict[str, np.ndarray]:
    """Parts, largest part, expected part size and entropy (bits) per guess."""
    n = sizes.sum(axis=1, keepdims=True)
    p = np.where(sizes > 0, sizes / n, 1.0)
    return {
        "parts": (sizes > 0).sum(axis=1),
        "largest": sizes.max(axis=1),
        "expected": (sizes * sizes).sum(axis=1) / n[:, 0],
        "entropy": -(p * np.log2(p)).sum(axis=1),
    }


def main(argv: list[str]) -> int:
    words = load_words()
    start = time.perf_counter()
    table = feedback_table(words.guesses, words.answers)
    seconds = time.perf_counter() - start
    print(f"feedback table {table.shape[0]} x {table.shape[1]} in {seconds:.2f} s")
    sizes = part_sizes(table)
    m = measures(sizes)
    index = {w: i for i, w in enumerate(words.guesses)}
    asked = [w.lower() for w in argv] or DEFAULT
    print(f"{'guess':6} {'parts':>5} {'largest':>7} {'(feedback)':>10} {'expected':>9} {'bits':>6}")
    for word in asked:
        if word not in index:
            print(f"{word!r} is not an allowed guess", file=sys.stderr)
            return 2
        i = index[word]
        big = format_feedback(int(sizes[i].argmax()))
        print(
            f"{word.upper():6} {m['parts'][i]:5d} {m['largest'][i]:7d} {big:>10} "
            f"{m['expected'][i]:9.3f} {m['entropy'][i]:6.3f}"
        )
    for label, key, best in [
        ("most parts", "parts", np.max),
        ("smallest largest part", "largest", np.min),
        ("smallest expected size", "expected", np.min),
        ("most entropy", "entropy", np.max),
    ]:
        value = best(m[key])
        tied = np.flatnonzero(np.isclose(m[key], value, rtol=0, atol=1e-9))
        names = " ".join(words.guesses[i].upper() for i in tied)
        print(f"{label}: {value:.4f} by {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
