"""``evo render``: draw a breaker tree (a tree file or a baseline) with Graphviz."""

from __future__ import annotations

from pathlib import Path

import click

from evo.cli.common import OutputFile, game_options, load_breaker, open_game, tree_path
from evo.show.text import printable, suffix_format

#: The choices of evo.show.render (LAYOUTS, FORMATS, RANKDIRS), repeated here so that the
#: options can be declared without importing Graphviz and networkx; a test keeps them equal.
LAYOUTS: tuple[str, ...] = ("dot", "twopi")
FORMATS: tuple[str, ...] = ("svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps")
RANKDIRS: tuple[str, ...] = ("auto", "TB", "LR")

#: Nodes above which a tree is drawn cut to a depth unless --whole (as a run's report
#: draws its best breaker, evo.show.report.MAX_DRAWN_NODES).
MAX_NODES = 150


@click.command()
@click.argument("tree", metavar="TREE")
@click.option(
    "--output",
    "-o",
    type=OutputFile(),
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
    "--whole",
    is_flag=True,
    help=f"Draw every node however big the tree. Without it, and without --depth or "
    f"--min-codes, a tree of over {MAX_NODES} nodes is drawn to the depth that keeps within "
    f"{MAX_NODES} (said on standard error): the whole (4,6) tree is a 925 x 36,437 pt SVG of "
    "3.6 MB, which no screen shows.",
)
@click.option(
    "--min-codes",
    type=click.IntRange(min=1),
    default=None,
    help="Collapse subtrees of fewer than N codes into one box per parent.",
)
@click.option(
    "--layout",
    type=click.Choice(LAYOUTS),
    default="dot",
    show_default=True,
    help="Graphviz layout: dot (levels, top down or left to right) or twopi (radial, the "
    "root in the middle).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Picture format (default: from --output's suffix, else svg); a suffix naming "
    "another format is refused.",
)
@click.option(
    "--direction",
    type=click.Choice(RANKDIRS),
    default="auto",
    show_default=True,
    help="dot layout: TB (top to bottom), LR (left to right), or auto (LR for wide trees).",
)
@game_options
@click.pass_context
def render(
    ctx, tree, output, depth, whole, min_codes, layout, fmt, direction, pegs, colors, variant
):
    """Draw TREE (a tree file such as best.json, a run directory, or a baseline name such
    as knuth with --pegs/--colors) through Graphviz: pegs as colored cells, terminal nodes
    in yellow, edges labelled with the black and white pegs. TREE may name a breaker evo
    ships (`evo breakers` lists them), and a tree of over 150 nodes is drawn to a depth
    unless --whole."""
    from evo.core.files import check_output
    from evo.core.treeio import tree_stem
    from evo.show.render import auto_depth, drawn_count, graphviz_missing, render_tree

    if whole and (depth is not None or min_codes is not None):
        raise click.UsageError("--whole draws every node: not with --depth or --min-codes")
    fmt = picture_format(output, fmt)
    missing = graphviz_missing()
    if missing is not None:
        raise click.ClickException(missing)
    path = tree_path(tree)
    name = tree if path is None else tree_stem(tree if Path(tree).is_dir() else path)
    if output is None:  # checked before the work, as --output is
        stem = name if path is not None else f"{tree}-{open_game(pegs, colors, variant).name}"
        output = check_output(f"{stem}.{fmt}")
    breaker = load_breaker(ctx, tree, pegs, colors, variant)
    if not whole and depth is None and min_codes is None:
        depth = auto_depth(breaker, max_nodes=MAX_NODES)
        if depth is not None:
            click.echo(
                f"{printable(name)} has {len(breaker):,} nodes: drawing {depth} levels "
                f"(--depth K for more, --whole for every node)",
                err=True,
            )
    title = (
        f"{name}: total {breaker.total}, "
        f"average {breaker.average:.4f}, worst {breaker.worst} (yellow: can be the secret)"
    )
    render_tree(
        breaker,
        output,
        depth=depth,
        min_codes=min_codes,
        layout=layout,
        fmt=fmt,
        rankdir=direction,
        title=title,
    )
    drawn, boxes = drawn_count(breaker, depth=depth, min_codes=min_codes)
    of = "" if drawn == len(breaker) else f" of {len(breaker):,}"
    cut = f" and {boxes:,} box{'es' * (boxes != 1)} of the rest" if boxes else ""
    click.echo(f"{printable(str(output))} ({drawn:,}{of} nodes drawn{cut}, total {breaker.total})")


def picture_format(output: Path | None, fmt: str | None) -> str:
    """The format to write: ``--format``, else the one ``--output``'s suffix names, else
    SVG; a suffix naming no format, or another one than ``--format``, is a usage error."""
    try:
        asked = suffix_format(output, FORMATS, default="") if output is not None else ""
    except ValueError as e:
        if fmt is None:
            raise click.BadParameter(str(e), param_hint="'--output'") from None
        return fmt  # any suffix for a format given by name
    if fmt is not None and asked and asked.replace("jpeg", "jpg") != fmt.replace("jpeg", "jpg"):
        raise click.BadParameter(
            f"{output} names {asked} but --format is {fmt}", param_hint="'--output'"
        )
    return fmt or asked or "svg"
