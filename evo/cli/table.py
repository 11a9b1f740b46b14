"""``evo table``: a breaker tree as the table of its decision points."""

from __future__ import annotations

import json
from pathlib import Path

import click

from evo.cli.common import format_table


@click.command()
@click.argument("tree_file", metavar="TREE.json", type=click.Path(path_type=Path))
@click.option(
    "--min-count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Hide nodes reached by fewer codes.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as a JSON list.")
def table(tree_file, min_count, as_json) -> None:
    """Print the strategy of TREE.json, one row per decision point: the move, the feedback history
    (R: right in place, W: right in color only, | between moves, blank for no peg), the
    guess, how many codes reach it, their total and average guesses from the start, and
    the worst case; largest nodes first."""
    from evo.strategy_table import table_rows
    from evo.treeio import TreeFileError, load_tree

    try:
        tree = load_tree(tree_file)
    except TreeFileError as e:
        raise click.ClickException(str(e)) from None
    rows = table_rows(tree, min_count=min_count)
    if as_json:
        click.echo(json.dumps(rows))
        return
    click.echo(
        format_table(
            ["move", "history", "guess", "count", "total", "average", "worst"],
            [
                [
                    r["move"],
                    r["history"],
                    r["guess"],
                    r["count"],
                    r["total"],
                    f"{r['average']:.3f}",
                    r["worst"],
                ]
                for r in rows
            ],
            align="rllrrrr",
        )
    )
    hidden = tree.num_nodes - len(rows)
    if hidden:
        click.echo(f"({hidden} node(s) reached by fewer than {min_count} codes hidden)")
