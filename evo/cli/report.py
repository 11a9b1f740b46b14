"""``evo report``: write a run directory's plots, tree picture and report pages."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evo.show.text import printable


def _say(text: str) -> None:
    click.echo(f"report: {text}...", err=True)


def left_out(text: str) -> None:
    """Say on standard error, in one line, what the report left out (and why)."""
    click.echo(f"report: {printable(text)}", err=True)


def baseline_names(text: str | None) -> list[str] | None:
    """``knuth,kooi`` as a list (None: the default list)."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise click.BadParameter("give at least one baseline name", param_hint="--baselines")
    return names


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--baselines",
    default=None,
    help="Comma-separated baselines to compare with (default: every baseline of the game).",
)
@click.option(
    "--log-time",
    is_flag=True,
    help="Fitness plot with a logarithmic generation axis (for long runs).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Say on standard error what is being computed (default: when standard error is a "
    "terminal).",
)
def report(run_dir: Path, baselines: str | None, log_time: bool, progress: bool | None) -> None:
    """Write fitness.png, depths.png, best.svg, report.html and report.md into RUN_DIR.

    Also explore.html: the best breaker to walk in a browser, beside Knuth's when it can
    be had."""
    from evo.core.files import cache_dir
    from evo.core.treeio import TreeFileError
    from evo.show.report import RunDirError, write_report

    try:
        page = write_report(
            run_dir,
            baseline_names(baselines),
            log_time=log_time,
            progress=_say if (sys.stderr.isatty() if progress is None else progress) else None,
            cache=cache_dir(),
            warn=left_out,
        )
    except (RunDirError, TreeFileError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(printable(str(page)))
