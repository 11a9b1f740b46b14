"""``evo breakers``: the best breakers evo ships, by the names a command takes."""

from __future__ import annotations

import json

import click

from evo.cli.common import format_table


@click.command()
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print them as a JSON list (with each one's whole status and file).",
)
def breakers(as_json: bool) -> None:
    """List the best breakers evo ships, by name: each one's game, total, average, worst
    case and status (optimal, record, best known; breakers/README.md says more). A name
    is a TREE for play, render, table, explore and polish: `evo play wordle`, `evo render
    mastermind-5-8 --depth 2`. The biggest (.json.gz) are left out of the package: the
    list says where they are."""
    from dataclasses import asdict

    from evo.core.shipped import SOURCE, shipped_breakers

    found = shipped_breakers()
    if not found:
        raise click.ClickException("this copy of evo has no breakers (its evo.data.breakers)")
    if as_json:
        rows = [{**asdict(b), "path": None if b.path is None else str(b.path)} for b in found]
        click.echo(json.dumps(rows))
        return
    table = format_table(
        ["name", "game", "total", "average", "worst", "status"],
        [
            [
                b.name + ("" if b.path is not None else " *"),
                b.game.split(" (")[0],
                b.total,
                f"{b.average:.4f}",
                b.worst,
                b.short_status,
            ]
            for b in found
        ],
        align="llrrrl",
    )
    click.echo("\n".join(line.rstrip() for line in table.splitlines()))
    if any(b.path is None for b in found):
        click.echo(f"* not in this package (the biggest, gzip-compressed): in {SOURCE}")
