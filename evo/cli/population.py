"""``evo population``: grow random breakers and tabulate their fitness."""

from __future__ import annotations

import json

import click

from evo.cli.common import (
    SEED,
    OutputFolder,
    format_table,
    game_options,
    open_game,
    pool_option,
    progress_bar,
)


@click.command()
@game_options
@click.option(
    "--size",
    "-s",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="How many random breakers to grow.",
)
@click.option("--seed", type=SEED, default=None, help="Seed of every random draw.")
@pool_option
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option(
    "--save",
    type=OutputFolder(),
    default=None,
    help="Write the best breaker to DIR/best.json.",
)
def population(pegs, colors, variant, size, seed, pool, as_json, save) -> None:
    """Grow SIZE random breakers and print min, max, average and standard deviation of
    their fitness (average number of guesses)."""
    from evo.core.population import timed_population
    from evo.core.treeio import save_tree

    game = open_game(pegs, colors, variant, trees=size)
    from evo.search.kernels import ensure_compiled, kernels_for

    # The growth kernels compiled (once per machine) before the time is taken.
    ensure_compiled(kernels_for(game, ("growth",)), say=lambda line: click.echo(line, err=True))
    with progress_bar(size, "growing", enabled=not as_json) as bar:
        trees, stats = timed_population(game, size, seed=seed, pool=pool, progress=bar.update)
    if save is not None:
        best = min(trees, key=lambda t: t.total)
        save_tree(best, save / "best.json", seed=seed, pool=pool)
    if as_json:
        click.echo(json.dumps(stats.as_dict()))
        return
    click.echo(
        format_table(
            ["variant", "N", "C", "size", "min", "max", "average", "std", "best total", "time (s)"],
            [
                [
                    variant,
                    pegs,
                    colors,
                    size,
                    f"{stats.min:.4f}",
                    f"{stats.max:.4f}",
                    f"{stats.avg:.4f}",
                    f"{stats.std:.4f}",
                    stats.min_total,
                    f"{stats.seconds:.2f}",
                ]
            ],
        )
    )
    if save is not None:
        click.echo(f"best breaker written to {save / 'best.json'}")
