"""``evo run CONFIG``: evolve breakers as a YAML config says, into a new run directory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from evo.baselines.limits import DEFAULT_TIME_LIMIT
from evo.cli.common import FINITE_POSITIVE, Interrupted, OutputFolder, format_table
from evo.core.game import spec_text
from evo.core.kinds import WORDLE_KINDS
from evo.show.text import printable


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
    type=OutputFolder(),
    default=Path("runs"),
    show_default=True,
    help="Where run directories are created.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-report", is_flag=True, help="Do not write the HTML/Markdown report.")
@click.option(
    "--time-limit",
    type=FINITE_POSITIVE,
    default=DEFAULT_TIME_LIMIT,
    show_default=True,
    help="Seconds a planted baseline (population.init.baselines) may take to compute: one "
    "estimated beyond is refused before any work.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run the islands on this Dask scheduler (tcp://host:port; default: cluster.address, "
    "then DASK_SCHEDULER_ADDRESS, else on this machine).",
)
def run(
    config: Path,
    overrides: tuple[str, ...],
    runs: Path,
    quiet: bool,
    no_report: bool,
    time_limit: float,
    scheduler: str | None,
) -> None:
    """Evolve breakers as CONFIG says: a YAML file, or the name of a config shipped with
    evo, such as quick or mastermind-4-7 (`evo config list` lists them, `evo config show
    NAME` prints one to copy and change). Writes runs/<name>-<timestamp>/ and ends with a
    summary against Knuth's strategy."""
    from evo.config import load_config
    from evo.core.files import cache_dir
    from evo.ea.cluster import check_cluster
    from evo.runs.driver import check_run

    cfg = load_config(config, overrides)
    check_cluster(cfg, scheduler=scheduler)  # a scheduler that does not answer, or no worker
    # What can fail before a run, before its directory: the planted baselines too.
    plan = check_run(cfg, cache=cache_dir(), time_limit=time_limit)
    from evo.ea.engine import run_kernels
    from evo.search.kernels import ensure_compiled

    # Off the clock: what this run calls (quick's never searches within a depth).
    ensure_compiled(run_kernels(cfg, plan.game), say=lambda line: click.echo(line, err=True))
    from evo.runs.rundir import create_run_dir

    run_dir = create_run_dir(cfg, root=runs)
    click.echo(f"run directory: {printable(str(run_dir))}", err=True)
    execute(
        cfg,
        run_dir,
        resume=False,
        quiet=quiet,
        report=not no_report,
        scheduler=scheduler,
        plan=plan,
        said=True,
    )


def execute(
    cfg,
    run_dir: Path,
    *,
    resume: bool,
    quiet: bool,
    report: bool,
    scheduler: str | None = None,
    plan=None,
    on_start: Callable[[], None] | None = None,
    said: bool = False,
) -> None:
    """Run or resume (one population or islands) with the run directory locked, then
    print the summary and write the report (shared with resume); ``on_start`` is called
    once the run has started (a resume's checkpoint loaded); ``said``: the run directory
    was named as the run began (``evo run``), so it is not named again at the end."""
    from evo.core.files import cache_dir
    from evo.runs.driver import RunInterrupted, run_config

    try:
        result = run_config(
            cfg,
            run_dir=run_dir,
            resume=resume,
            progress=not quiet,
            scheduler=scheduler,
            cache=cache_dir(),
            plan=plan,
            on_start=on_start,
        )
    except RunInterrupted as e:
        if e.reason is not None and e.generation < 0:
            raise click.ClickException(
                f"{e.reason}; nothing was kept: run it again with a larger stop.seconds"
            ) from None
        if e.reason is not None:
            raise click.ClickException(
                f"{e.reason}; the run is checkpointed after generation {e.generation}; "
                f"continue with: evo resume {run_dir}"
            ) from None
        if e.generation < 0:
            raise Interrupted(
                f"interrupted by {e.signal} before the first population was complete; "
                f"start it again with: evo resume {run_dir}",
                e.signal,
            ) from None
        raise Interrupted(
            f"interrupted by {e.signal} after generation {e.generation}; "
            f"continue with: evo resume {run_dir}",
            e.signal,
        ) from None
    click.echo(summary_table(result.summary))
    if report:
        from evo.cli.report import left_out
        from evo.show.report import write_report

        path = write_report(run_dir, cache=cache_dir(), warn=left_out)
        click.echo(f"report: {printable(str(path))}")
    if not said:
        click.echo(f"run directory: {printable(str(run_dir))}")


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
        ["  from", s.get("best_known_source") or "n/a"],
        ["gap to best known", gap("gap_to_best_known")],
        ["generations", f"{s['generations']} (stopped by {s['stopped_by']})"],
        ["evaluations", s["evaluations"]],
        ["time", f"{s['seconds']:.1f} s on {s['workers']} worker(s)"],
    ]
    if s.get("pareto_front"):
        front = ", ".join("/".join(map(str, point)) for point in s["pareto_front"])
        at = "/codes at the worst" if len(s["pareto_front"][0]) == 3 else ""
        rows.append([f"Pareto front (total/worst{at})", front])
    game = s["game"]
    if "pegs" in game:
        title = f"{game['variant']} {game['pegs']} pegs, {game['colors']} colors, {m} codes"
    elif game.get("kind") in WORDLE_KINDS:
        title = f"{spec_text(game)}, {m} answers"
    else:
        title = f"{game.get('name')} ({game.get('kind')}), {m} codes"
    return format_table([title, ""], rows, align="lr")
