"""``evo baselines``: the classic strategies of a game, as a table or JSON."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from evo.baselines.limits import DEFAULT_TIME_LIMIT

if TYPE_CHECKING:
    from evo.baselines import Baseline, Refused, Where
    from evo.baselines.optimal import FloorsOption
    from evo.core.game import Game

from evo.cli.common import (
    FINITE_POSITIVE,
    FoundProgress,
    OutputFile,
    OutputFolder,
    format_table,
    game_options,
    open_game,
    threads_option,
)
from evo.core.engine import MAX_WORKERS

#: A baseline expected to take at least this many seconds has its estimate shown first.
LONG_SECONDS = 10.0


def _floors_option(text: str) -> FloorsOption:
    """``--floors`` as :class:`~evo.baselines.Where` takes it: ``auto``, ``none``, a
    depth, or a certificate file (one that is not there: a one-line error)."""
    if text == "auto":
        return "auto"
    if text == "none":
        return "none"
    if text.isdigit() and int(text) >= 1:
        return int(text)
    path = Path(text)
    if not path.is_file():
        raise click.BadParameter(
            f"{text!r} is not auto, none, a depth of 1 or more or a certificate file",
            param_hint="--floors",
        )
    return path


def _refusal(r: Refused) -> str:
    """A baseline not computed, in a line: the option that raises its time limit, or
    (found nothing below ``--upper``) the lower bound proved."""
    return f"{r.name}: {r.reason}" + ("" if r.lower is not None else " (--time-limit)")


def _histogram(h: dict) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(h.items()))


@click.command()
@game_options
@click.option(
    "--only",
    default=None,
    metavar="NAMES",
    help="Comma-separated baselines, e.g. knuth,irving,lc,5463+lc,1123+2245+rc,1234+kooi,easy,"
    "advanced,optimal,optimal-consistent (default: the one-step strategies, lc, rc, the human "
    "players, optimal and, up to 1296 codes, optimal-consistent).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of results.")
@click.option(
    "--save",
    type=OutputFolder(),
    default=None,
    help="Write each tree as DIR/<name>.json.",
)
@click.option(
    "--time-limit",
    type=FINITE_POSITIVE,
    default=DEFAULT_TIME_LIMIT,
    show_default=True,
    help="Seconds a baseline may take: one estimated beyond is refused with its estimate "
    "before any work, and the exact optimum gives up there.",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the RC trees."
)
@click.option(
    "--rc-seeds",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Seeds over which RC's expected average is estimated (0: none).",
)
@click.option("--no-cache", is_flag=True, help="Recompute, and do not write the cache.")
@click.option(
    "--resume",
    type=OutputFile(),
    default=None,
    metavar="FILE",
    help="The exact optimum's results file: each subproblem it finishes is added to FILE "
    "(JSON lines, synced to disk), and those FILE holds are not searched again, so a long "
    "proof stopped (or out of time) goes on from there when run again. The best tree found "
    "so far is kept in FILE.best.json.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="A Dask scheduler (tcp://HOST:8786) whose workers search the exact optimum's "
    "subproblems (see docs/CLUSTER.md).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0, max=MAX_WORKERS),
    default=0,
    show_default=True,
    help="Search the exact optimum on a local Dask cluster of this many worker processes "
    "(0: on the threads of this process, --threads).",
)
@click.option(
    "--upper",
    type=click.IntRange(min=1),
    default=None,
    metavar="TOTAL",
    help="An upper bound for the exact optimum: what costs TOTAL or more is dropped, so the "
    "search prunes from the start. The tree is the same when the optimum is below TOTAL; "
    "when nothing is, the optimum is at least TOTAL (said, not an error).",
)
@click.option(
    "--against",
    default=None,
    metavar="BREAKER",
    help="A breaker file of the game (e.g. breakers/mastermind-5-7.json) whose total is the "
    "exact optimum's upper bound (as --upper): when nothing costs less, it is optimal and is "
    "the answer.",
)
@click.option(
    "--floors",
    default="auto",
    show_default=True,
    metavar="auto|none|DEPTH|CERTIFICATE",
    help="What the exact optimum's first guesses cost at least, planted in its search to prune "
    "it: bounded DEPTH levels deep as `evo bound --depth` counts (auto: 2, from 5000 codes on), "
    "or the bounds of "
    "an `evo bound --certificate` file of the game (proved again first unless written here), "
    "or none. Only for a game whose guesses are its codes, with no rule on them (not Wordle).",
)
@threads_option
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Say on standard error which baseline is being computed and how long each took "
    "(default: when standard error is a terminal).",
)
def baselines(
    pegs,
    colors,
    variant,
    only,
    as_json,
    save,
    time_limit,
    seed,
    rc_seeds,
    no_cache,
    resume,
    scheduler,
    workers,
    upper,
    against,
    floors,
    progress,
) -> None:
    """Build the classic strategies of a game and compare them: total, average, worst
    case, depth histogram and the time each took. Results are cached per game under
    $EVO_CACHE (default ~/.cache/evo)."""
    from evo.baselines import Baseline, Refused, default_names, parse_names
    from evo.core.treeio import save_tree

    game = open_game(pegs, colors, variant)
    if only is not None and not [n for n in only.split(",") if n.strip()]:
        raise click.BadParameter(
            f"{only!r} names no baseline: give comma-separated names such as knuth,kooi",
            param_hint="--only",
        )
    try:
        names = parse_names(game, only) if only else default_names(game)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--only") from None
    if progress is None:
        progress = sys.stderr.isatty()
    where = _where(
        game,
        names,
        upper=upper,
        against=against,
        floors=floors,
        resume=resume,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
    )
    results = _run_each(
        game,
        names,
        where,
        seed=seed,
        time_limit=time_limit,
        rc_seeds=rc_seeds,
        no_cache=no_cache,
        progress=progress,
    )
    done = [r for r in results if isinstance(r, Baseline)]
    if save is not None:
        for b in done:
            file = b.name.replace("+", "_") + (f"-{seed}" if "seed" in b.result else "")
            save_tree(b.tree, save / f"{file}.json", name=b.name, result=b.result)
    if as_json:
        click.echo(json.dumps([_json_row(r) for r in results]))
        return
    if not done:  # nothing to show: every baseline asked for was refused (--json lists them)
        if all(isinstance(r, Refused) and r.lower is not None for r in results):
            for r in results:  # a proof that the optimum is at least the upper bound
                click.echo(_refusal(r))  # type: ignore[arg-type]
            return
        raise click.ClickException(
            "; ".join(_refusal(r) for r in results if isinstance(r, Refused))
        )
    _show(game, results, seed=seed)


def _where(
    game: Game,
    names: list[str],
    *,
    upper: int | None,
    against: Path | None,
    floors: str,
    resume: Path | None,
    scheduler: str | None,
    workers: int,
    progress: bool,
) -> Where:
    """The options of the exact search (``optimal``) as :class:`~evo.baselines.Where`
    takes them; a wrong scheduler or breaker file said before any work."""
    from evo.baselines import Where

    memory = click.get_current_context().meta.get("evo.memory")
    if scheduler is not None and "optimal" in names:
        from evo.ea.cluster import check_scheduler

        check_scheduler(scheduler)  # a wrong address or an empty cluster: said before any work
    breaker = None
    if against is not None:
        from evo.core.files import cache_dir
        from evo.core.treeio import TreeFileError, load_tree

        try:
            breaker = load_tree(against, game=game, cache=cache_dir())
        except TreeFileError as e:
            raise click.BadParameter(str(e), param_hint="--against") from None
    chosen = _floors_option(floors)
    if "optimal" in names:
        from evo.baselines.optimal import check_floors

        try:
            check_floors(game, chosen)  # Wordle's, hard mode's: one line, before any work
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--floors") from None
    return Where(
        upper=upper,
        against=breaker,
        floors=chosen,
        memory=memory,
        results=resume,
        best=None if resume is None else resume.with_name(resume.name + ".best.json"),
        scheduler=scheduler,
        workers=workers,
        report=(lambda line: click.echo(f"\n  {line}", err=True, nl=False)) if progress else None,
        note=lambda line: click.echo(line, err=True),
    )


def _run_each(
    game: Game,
    names: list[str],
    where: Where,
    *,
    seed: int,
    time_limit: float | None,
    rc_seeds: int,
    no_cache: bool,
    progress: bool,
) -> list[Baseline | Refused]:
    """Each baseline in turn, with its progress line on standard error (``progress``)."""
    from evo.baselines import cache_key, estimate_seconds, reads_table, run_all
    from evo.baselines.cache import cache_path
    from evo.baselines.limits import duration_text
    from evo.core.game import table_note
    from evo.proofs.bound import CertificateError

    results: list[Baseline | Refused] = []
    if progress:
        note = table_note(game, read=reads_table(game, names))
        click.echo(f"{game.name}: {game.num_codes:,} codes, {note}", err=True)
    for k, name in enumerate(names, 1):
        meter = None
        if progress:
            limit = f" (at most {time_limit:g} s)" if name == "optimal" else ""
            expected = estimate_seconds(game, name, where=where)
            if name != "optimal" and expected is not None and expected >= LONG_SECONDS:
                path = cache_path(game, cache_key(game, name, seed=seed))
                if no_cache or path is None or not path.is_file():  # not a cache hit
                    limit = f" (about {duration_text(expected)} here)"
            meter = FoundProgress(f"[{k}/{len(names)}] {name}{limit}...")
            click.echo(meter.line, err=True, nl=False)
        start = time.perf_counter()
        try:
            results += run_all(
                game,
                [name],
                seed=seed,
                time_limit=time_limit,
                rc_seeds=rc_seeds,
                use_cache=not no_cache,
                progress=meter,
                where=where,
            )
        except CertificateError as e:
            raise click.BadParameter(str(e), param_hint="--floors") from None
        if meter is not None:
            meter.close()
            click.echo(f" {time.perf_counter() - start:.1f} s", err=True)
    return results


def _json_row(r: Baseline | Refused) -> dict[str, object]:
    """A baseline's entry of ``--json``: its result, or why it was refused."""
    from evo.baselines import Refused

    if not isinstance(r, Refused):
        return {**r.result}
    return {
        "name": r.name,
        "total": None,
        "average": None,
        "worst": None,
        "histogram": None,
        "seconds": None,
        "refused": r.reason,
        "estimate_seconds": r.estimate_seconds,
        **({} if r.lower is None else {"lower_bound": r.lower}),
    }


def _show(game: Game, results: list[Baseline | Refused], *, seed: int) -> None:
    """The table of the baselines, and its notes: the cache, the seeds' estimates, the
    refusals and the optimum known."""
    from evo.baselines import Refused, known_optimum
    from evo.core.game import table_note

    rows: list[list] = []
    for r in results:
        if isinstance(r, Refused):
            rows.append([r.name, "-", "-", "-", "refused (see below)", "-"])
            continue
        res = r.result
        mark = "*" if res.get("cached") else ""
        rows.append(
            [
                r.name,
                res["total"],
                f"{res['average']:.4f}",
                res["worst"],
                _histogram(res["histogram"]),
                f"{res['seconds']:.3f}{mark}",
            ]
        )
    click.echo(f"{game.description}" + ("" if game.use_table else f"; {table_note(game)}"))
    click.echo(
        format_table(
            ["strategy", "total", "average", "worst", "histogram (guesses:codes)", "time (s)"],
            rows,
            align="lrrrlr",
        )
    )
    done = [r for r in results if not isinstance(r, Refused)]
    notes = []
    if any(r.result.get("cached") for r in done):
        notes.append("* from the cache: the time is that of the first computation")
    for r in done:
        est = r.result.get("estimate")
        if est:
            lo, hi = est["ci95"]
            notes.append(
                f"{r.name}: over {est['seeds']} seeds, expected average {est['mean']:.4f} "
                f"(95% CI {lo:.4f} to {hi:.4f}, sd {est['std']:.4f}); the row is seed {seed}"
            )
    for r in results:
        if isinstance(r, Refused):
            notes.append(_refusal(r))
    known = known_optimum(game)
    if known is not None and any(isinstance(r, Refused) or r.name == "optimal" for r in results):
        total, source = known.total, known.source
        what = "best-known optimum" if known.proved else "best known total"
        notes.append(f"{what}: {total} (average {total / game.num_codes:.4f}, {source})")
    for n in notes:
        click.echo(n)
