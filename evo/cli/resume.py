"""``evo resume RUN_DIR``: continue an interrupted run from its last checkpoint."""

from __future__ import annotations

from pathlib import Path

import click

from evo.cli.run import execute


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-report", is_flag=True, help="Do not write the HTML/Markdown report.")
def resume(run_dir: Path, quiet: bool, no_report: bool) -> None:
    """Continue the run in RUN_DIR from its checkpoint (with its config.yaml): the result
    is the same as if it had not been interrupted."""
    from evo.rundir import RunDirError, load_run

    try:
        cfg = load_run(run_dir).config
    except RunDirError as e:
        raise click.ClickException(str(e)) from None
    execute(cfg, run_dir, resume=True, quiet=quiet, report=not no_report)
