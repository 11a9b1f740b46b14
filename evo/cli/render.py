"""``evo render``: draw a breaker tree (a tree file or a baseline) with Graphviz."""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from evo.cli.common import game_options, open_game
from evo.render import FORMATS, LAYOUTS, RANKDIRS, render_tree
from evo.report import baseline_run
from evo.tree import Tree
from evo.treeio import TreeFileError, load_tree


def load_breaker(ctx: click.Context, source: str, pegs: int, colors: int, variant: str) -> Tree:
    """The tree of a file (or a run directory's best.json), or of a baseline named
    ``source`` for the game of ``--pegs``, ``--colors`` and ``--variant`` (a file is
    checked against them when they are given)."""
    path = Path(source)
    if path.is_dir():
        path = path / "best.json"
    given = any(
        ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT)
        for p in ("pegs", "colors", "variant")
    )
    if path.exists() or source.endswith(".json"):
        game = open_game(pegs, colors, variant) if given else None
        try:
            return load_tree(path, game)
        except TreeFileError as e:
            raise click.ClickException(str(e)) from None
    game = open_game(pegs, colors, variant)
    try:
        return baseline_run(game, source)[0]
    except Exception as e:  # an unknown name, or an optimum refused as too long
        raise click.ClickException(
            f"{source!r} is neither a tree file nor a baseline of this game: {e}"
        ) from None


@click.command()
@click.argument("tree", metavar="TREE")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Picture to write (default: TREE's name with the format's suffix, here).",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="Draw K levels; what lies below a node becomes one box (its codes and guesses).",
)
@click.option(
    "--min-codes",
    type=click.IntRange(min=1),
    default=None,
    help="Collapse subtrees of fewer than N codes into one box per parent.",
)
@click.option("--layout", type=click.Choice(LAYOUTS), default="dot", show_default=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Picture format (default: from --output's suffix, else svg).",
)
@click.option(
    "--direction",
    type=click.Choice(RANKDIRS),
    default="auto",
    show_default=True,
    help="dot layout: top to bottom, left to right, or LR for wide trees.",
)
@game_options
@click.pass_context
def render(ctx, tree, output, depth, min_codes, layout, fmt, direction, pegs, colors, variant):
    """Draw TREE (a tree file such as best.json, a run directory, or a baseline name such
    as knuth with --pegs/--colors) through Graphviz: pegs as colored cells, terminal nodes
    in yellow, edges labelled with the black and white pegs."""
    breaker = load_breaker(ctx, tree, pegs, colors, variant)
    if fmt is None:
        suffix = output.suffix.lstrip(".").lower() if output else ""
        fmt = suffix if suffix in FORMATS else "svg"
    if output is None:
        stem = Path(tree).stem if Path(tree).exists() else f"{tree}-{breaker.game.name}"
        output = Path(f"{stem}.{fmt}")
    title = (
        f"{Path(tree).stem if Path(tree).exists() else tree}: total {breaker.total}, "
        f"average {breaker.average:.4f}, worst {breaker.worst} (yellow: can be the secret)"
    )
    render_tree(breaker, output, depth, min_codes, layout, fmt, direction, title)
    click.echo(f"{output} ({len(breaker)} nodes, total {breaker.total})")
