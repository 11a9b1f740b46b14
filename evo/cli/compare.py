"""``evo compare``: runs' final populations against the baselines, as a table and a plot."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evo.cli.common import OutputFile, format_table
from evo.cli.report import baseline_names
from evo.show.text import printable

DEFAULT = "knuth,kooi,optimal"


def _say(text: str) -> None:
    click.echo(f"compare: {text}...", err=True)


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--baselines", default=DEFAULT, show_default=True, help="Comma-separated names.")
@click.option(
    "--output",
    "-o",
    type=OutputFile(),
    default=Path("compare.png"),
    show_default=True,
    help="The plot to write, in the format its suffix names (png, pdf, svg, jpg...; a suffix "
    "of no picture format is refused).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Say on standard error which baseline is being computed (default: when standard "
    "error is a terminal).",
)
def compare(
    run_dirs: tuple[Path, ...], baselines: str, output: Path, progress: bool | None
) -> None:
    """Compare the last generation of each RUN_DIR (best, average and highest total) with
    the baselines of its game.

    Columns: the population's best, average and highest total, the best total per code,
    and the worst case (most guesses any code needs) of the best breaker."""
    from evo.core.files import cache_dir
    from evo.show.plots import RunFigures, figure_format, plot_comparison
    from evo.show.report import RunDirError, compare_runs

    try:
        figure_format(output)  # before the baselines, which can take long
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--output'") from None
    names = baseline_names(baselines) or []
    try:
        show = sys.stderr.isatty() if progress is None else progress
        runs = compare_runs(run_dirs, names, progress=_say if show else None, cache=cache_dir())
    except RunDirError as e:
        raise click.ClickException(str(e)) from None
    rows = []
    for r in runs:
        cells = [r.name, r.game.name, r.generations, r.best, f"{r.average:.1f}", r.highest]
        cells.append(f"{r.best / r.game.num_codes:.4f}")
        cells.append("n/a" if r.worst_case is None else r.worst_case)
        by_name = {b.name: b for b in r.baselines}
        cells += [by_name[n].total if by_name[n].total is not None else "n/a" for n in names]
        rows.append(cells)
    headers = [
        "run",
        "game",
        "gens",
        "best total",
        "average total",
        "highest total",
        "best/code",
        "worst case",
        *names,
    ]
    click.echo(format_table(headers, rows))
    missing = {(b.name, b.note) for r in runs for b in r.baselines if b.total is None}
    for name, note in sorted(missing):
        click.echo(f"{name}: not available ({note})")
    figures = [
        RunFigures(
            r.name,
            r.best / r.game.num_codes,
            r.average / r.game.num_codes,
            r.highest / r.game.num_codes,
            {b.name: None if b.total is None else b.total / r.game.num_codes for b in r.baselines},
        )
        for r in runs
    ]
    plot_comparison(figures, output)
    click.echo(f"plot written to {printable(str(output))}")
