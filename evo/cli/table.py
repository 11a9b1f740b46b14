"""``evo table``: a breaker tree as the table of its decision points."""

from __future__ import annotations

import json

import click

from evo.cli.common import format_table, game_options, load_breaker

#: The choices of evo.show.strategy_table.STYLES, repeated so that the option is declared
#: without importing it; a test keeps them equal.
STYLES: tuple[str, ...] = ("feedback", "writeup")


@click.command()
@click.argument("tree", metavar="TREE")
@click.option(
    "--min-count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Hide nodes reached by fewer codes.",
)
@click.option(
    "--style",
    type=click.Choice(STYLES),
    default="feedback",
    show_default=True,
    help="feedback: histories in evo's notation, such as '1B 1W | 0B 1W'; writeup: the "
    "Mastermind write-up's table, to compare with its published tables, histories such as "
    "|RW|W (R a peg right in place, W right in color only; a bare | for no peg).",
)
@click.option(
    "--departures",
    is_flag=True,
    help="Instead, where the tree leaves the class of the best published (5,8) strategy "
    "(from the third guess on, only codes that can still be the secret): its outermost "
    "guesses of impossible codes from move --from-move on, and what each saves on the best "
    "subtree of that class there (exact search).",
)
@click.option(
    "--from-move",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="With --departures: the first move from which impossible codes count.",
)
@click.option(
    "--provenance",
    is_flag=True,
    help="Instead, print how the tree file was made, as it records it (the chain of "
    "commands: each file of breakers/ has it), or say that it records none; read from the "
    "file's document, without building its tree.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the rows as a JSON list (with --provenance: the file and its text).",
)
@game_options
@click.pass_context
def table(
    ctx, tree, min_count, style, departures, from_move, provenance, as_json, pegs, colors, variant
) -> None:
    """Print the strategy of TREE (a tree file, a run directory, or a baseline name with
    --pegs/--colors) as a table, one row per decision point: the feedback history, the
    guess, how many codes reach it, their total and average guesses from the start, and
    the worst case; largest nodes first. TREE may name a breaker evo ships (`evo
    breakers` lists them)."""
    from dataclasses import asdict

    from evo.api import table as strategy
    from evo.show.strategy_table import writeup_table

    if provenance:
        if departures:
            raise click.UsageError("--provenance and --departures are two different tables")
        _provenance(tree, as_json=as_json)
        return
    breaker = load_breaker(ctx, tree, pegs, colors, variant)
    if departures:
        _departures(breaker, from_move=from_move, as_json=as_json)
        return
    rows = [asdict(row) for row in strategy(breaker, min_count=min_count, style=style)]
    if as_json:
        click.echo(json.dumps(rows))
        return
    if style == "writeup":
        click.echo(writeup_table(rows))  # the write-up's layout as well as its notation
    else:
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
    hidden = breaker.num_nodes - len(rows)
    if hidden:
        click.echo(f"({hidden} node(s) reached by fewer than {min_count} codes hidden)")


def _provenance(source: str, *, as_json: bool) -> None:
    """``--provenance``: the text a tree file (or a run directory's best.json) records of
    how it was made, or a line saying it records none."""
    from evo.cli.common import tree_path
    from evo.core.treeio import TreeFileError, provenance

    path = tree_path(source)  # a file, a run directory's best.json, a breaker evo ships
    if path is None:
        raise click.UsageError(
            f"--provenance is recorded in a tree file, and {source!r} is none (a baseline "
            "is computed by evo: `evo baselines --help` says how)"
        )
    try:
        text = provenance(path)
    except TreeFileError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps({"file": str(path), "provenance": text}))
    elif text is None:
        click.echo(f"{path} records no provenance: nothing in it says how its tree was made")
    else:
        click.echo(text)


def _departures(breaker, *, from_move: int, as_json: bool) -> None:
    """``--departures``: the table, then the whole tree against its completion within the
    class."""
    from evo.show.strategy_table import departures

    rows = departures(breaker, from_move=from_move)
    if as_json:
        click.echo(json.dumps(rows))
        return
    click.echo(
        format_table(
            ["move", "history", "guess", "codes", "total", "possible codes only", "saved"],
            [
                [
                    r["move"],
                    r["history"],
                    r["guess"],
                    r["count"],
                    r["total"],
                    r["within_class"],
                    r["saved"],
                ]
                for r in rows
            ],
            align="rllrrrr",
        )  # fmt: skip
    )
    saved = sum(r["saved"] for r in rows)
    click.echo(
        f"{len(rows)} guess(es) of impossible codes from move {from_move} on (outermost); "
        f"total {breaker.total}, or {breaker.total + saved} with possible codes only there "
        f"(they save {saved})"
    )
