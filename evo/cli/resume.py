"""``evo resume RUN_DIR``: continue an interrupted run from its last checkpoint."""

from __future__ import annotations

from pathlib import Path

import click

from evo.cli.run import execute


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Extend the run or move it: e.g. --set stop.seconds=600, --set workers=4 "
    "(repeatable; only stop.*, workers and cluster.* keys can change).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-report", is_flag=True, help="Do not write the HTML/Markdown report.")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Continue the islands on this Dask scheduler (tcp://host:port).",
)
def resume(
    run_dir: Path,
    overrides: tuple[str, ...],
    quiet: bool,
    no_report: bool,
    scheduler: str | None,
) -> None:
    """Continue the run in RUN_DIR from its checkpoint (with its config.yaml): the result
    is the same as if it had not been interrupted."""
    from evo.config import extend_config
    from evo.core.files import cache_dir
    from evo.runs.driver import check_run
    from evo.runs.rundir import load_run, lock_run, write_config

    cfg = load_run(run_dir).config
    with lock_run(run_dir):  # refused at once when another process writes the run
        if overrides:
            cfg = extend_config(cfg, overrides)
        from evo.ea.cluster import check_cluster

        check_cluster(cfg, scheduler=scheduler)
        plan = check_run(cfg, cache=cache_dir(), plant=False)
        from evo.ea.engine import run_kernels
        from evo.search.kernels import ensure_compiled

        ensure_compiled(run_kernels(cfg, plan.game), say=lambda line: click.echo(line, err=True))
        execute(
            cfg,
            run_dir,
            resume=True,
            quiet=quiet,
            report=not no_report,
            scheduler=scheduler,
            plan=plan,
            on_start=(lambda: write_config(run_dir, cfg)) if overrides else None,
        )
