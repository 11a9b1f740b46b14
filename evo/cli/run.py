"""``evo run CONFIG``: evolve breakers as a YAML config says, into a new run directory."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from evo.cli.common import format_table


@click.command()
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a config key, e.g. --set population.size=200 (repeatable).",
)
@click.option(
    "--runs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Where run directories are created.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-report", is_flag=True, help="Do not write the HTML/Markdown report.")
def run(config: Path, overrides: tuple[str, ...], runs: Path, quiet: bool, no_report: bool) -> None:
    """Evolve breakers as CONFIG (a YAML file, see configs/) says. Writes
    runs/<name>-<timestamp>/ and ends with a summary against Knuth's strategy."""
    from evo.config import ConfigError, load_config

    try:
        cfg = load_config(config, overrides)
    except ConfigError as e:
        raise click.ClickException(str(e)) from None
    from evo.rundir import create_run_dir

    run_dir = create_run_dir(cfg, root=runs)
    click.echo(f"run directory: {run_dir}", err=True)
    execute(cfg, run_dir, resume=False, quiet=quiet, report=not no_report)


def execute(cfg, run_dir: Path, resume: bool, quiet: bool, report: bool) -> None:
    """Run or resume, then print the summary and write the report (shared with resume)."""
    from evo.ea import CheckpointError, RunInterrupted, evolve

    try:
        result = evolve(cfg, run_dir=run_dir, resume=resume, progress=not quiet)
    except RunInterrupted as e:
        if e.generation < 0:
            raise click.ClickException(
                "interrupted before the first population was complete"
            ) from None
        raise click.ClickException(
            f"interrupted after generation {e.generation}; continue with: evo resume {run_dir}"
        ) from None
    except CheckpointError as e:
        raise click.ClickException(str(e)) from None
    click.echo(summary_table(result.summary))
    if report:
        from evo.report import write_report

        path = write_report(run_dir)
        click.echo(f"report: {path}")
    click.echo(f"run directory: {run_dir}")


def summary_table(s: Mapping[str, Any]) -> str:
    """The end-of-run summary as a small table."""
    m = s["codes"]

    def gap(key: str) -> str:
        v = s.get(key)
        return "n/a" if v is None else f"{v:+d} ({v / m:+.4f})"

    def opt(key: str) -> str:
        v = s.get(key)
        return "n/a" if v is None else f"{v} ({v / m:.4f})"

    rows = [
        ["best total (average)", f"{s['best_total']} ({s['best_average']:.4f})"],
        ["worst case", f"{s['best_worst']} guesses"],
        ["Knuth's total (average)", opt("knuth_total")],
        ["gap to Knuth", gap("gap_to_knuth")],
        ["best known total", opt("best_known_total")],
        ["gap to best known", gap("gap_to_best_known")],
        ["generations", f"{s['generations']} (stopped by {s['stopped_by']})"],
        ["evaluations", s["evaluations"]],
        ["time", f"{s['seconds']:.1f} s on {s['workers']} worker(s)"],
    ]
    if s.get("pareto_front"):
        front = ", ".join(f"{t}/{w}" for t, w in s["pareto_front"])
        rows.append(["Pareto front (total/worst)", front])
    game = s["game"]
    title = f"{game['variant']} {game['pegs']} pegs, {game['colors']} colors, {m} codes"
    return format_table([title, ""], rows, align="lr")
