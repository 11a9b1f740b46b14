"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import functools
import sys

import click

from evo.game import VARIANTS, Game, GameTooLargeError, make_game
from evo.growth import POOLS


def game_options(f):
    """``--pegs``, ``--colors`` and ``--variant``."""

    @click.option("--pegs", "-n", type=int, default=4, show_default=True, help="Pegs (N).")
    @click.option("--colors", "-c", type=int, default=6, show_default=True, help="Colors (C).")
    @click.option(
        "--variant",
        type=click.Choice(VARIANTS),
        default="mastermind",
        show_default=True,
        help="mastermind (repetition allowed) or bulls-cows (no repetition).",
    )
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    return wrapper


pool_option = click.option(
    "--pool",
    type=click.Choice(POOLS),
    default="all",
    show_default=True,
    help="Guess pool of the growth: every code, or only the node's consistent codes.",
)


def open_game(pegs: int, colors: int, variant: str, trees: int = 1) -> Game:
    """``make_game`` with its errors turned into clean command-line errors."""
    try:
        return make_game(pegs, colors, variant, trees=trees)
    except GameTooLargeError as e:
        raise click.ClickException(f"refused: {e}") from None
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def progress_bar(total: int, desc: str, enabled: bool = True):
    """A tqdm progress bar on standard error, silent when not a terminal or disabled."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="tree",
        file=sys.stderr,
        disable=not enabled or not sys.stderr.isatty(),
        leave=False,
    )


def format_table(headers: list[str], rows: list[list], align: str | None = None) -> str:
    """A plain-text table with right-aligned numbers (``align``: one of l/r per column)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "".join("l" if i == 0 else "r" for i in range(len(headers)))
    lines = []
    for k, r in enumerate(cells):
        lines.append(
            "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align))
        )
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
