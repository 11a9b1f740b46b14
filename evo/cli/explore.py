"""``evo explore``: an interactive page to walk a breaker tree, or two side by side."""

from __future__ import annotations

from pathlib import Path

import click

from evo.cli.common import OutputFile, game_options, load_breaker, tree_path


def _name(source: str) -> str:
    from evo.core.treeio import tree_stem

    path = Path(source)
    if path.is_dir():
        return path.name
    found = tree_path(source)  # a file, or a breaker evo ships
    return tree_stem(found) if found is not None else source


@click.command()
@click.argument("tree", metavar="TREE")
@click.argument("tree2", metavar="[TREE2]", required=False)
@click.option(
    "--output",
    "-o",
    type=OutputFile(),
    default=None,
    help="Page to write (default: explore-TREE[-TREE2].html, here).",
)
@game_options
@click.pass_context
def explore(ctx, tree, tree2, output, pegs, colors, variant):
    """Write an HTML page to walk TREE (a tree file, a run directory, or a baseline name
    with --pegs/--colors) in a browser, offline: click a guess to see the next guesses,
    type a secret to see its game, compare with TREE2 to see where and what they differ.
    TREE may name a breaker evo ships (`evo breakers` lists them)."""
    from evo.core.files import check_output
    from evo.show.explore import write_explorer
    from evo.show.text import printable

    name_a, name_b = _name(tree), _name(tree2) if tree2 else ""
    if output is None:  # checked before the work, as --output is
        output = check_output(f"explore-{name_a}" + (f"-{name_b}" if tree2 else "") + ".html")
    a = load_breaker(ctx, tree, pegs, colors, variant)
    b = load_breaker(ctx, tree2, pegs, colors, variant) if tree2 else None
    if b is not None and b.game != a.game:
        raise click.UsageError(f"{tree} plays {a.game.name} but {tree2} plays {b.game.name}")
    page = write_explorer(output, a, name_a, b, name_b)
    size = page.stat().st_size
    nodes = f"{len(a)} nodes" + (f" and {len(b)}" if b is not None else "")
    click.echo(f"{printable(str(page))} ({nodes}, {size // 1024} KiB)")
