"""``evo rank``: every first guess of a game decided, the optimum over all of them proved,
and the ranked list of the best (:func:`evo.proofs.firsts.rank_first_guesses`)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from evo.cli.common import WORKERS, game_given, game_options, open_game

#: Seconds between two writes of the list while the search goes on.
SAVE_EVERY = 10.0


@click.command()
@game_options
@click.option(
    "--best",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Solve the best N first guesses exactly (1: the optimum over every first guess); "
    "every other gets a proved floor at or above the N-th least total.",
)
@click.option(
    "--upper",
    type=click.IntRange(min=1),
    default=None,
    metavar="TOTAL",
    help="A total some breaker reaches (Wordle: 7920): the search starts with it as its "
    "cut instead of solving a first guess for one. A wrong one costs time, never a wrong "
    "result: every total stated is solved by the exact search.",
)
@click.option(
    "--max-guesses",
    type=click.IntRange(min=1),
    default=None,
    help="Only the breakers that solve every code within this many guesses (Wordle's hard "
    "mode within six: 8,122 with SALET).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the ranked list to FILE (JSON; gzip-compressed when FILE ends in .gz), "
    f"every {SAVE_EVERY:.0f} s as it goes and at its end or stop.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Go on from the list FILE of --out (sealed by this machine: its floors are taken "
    "as proved).",
)
@click.option(
    "--show",
    "show",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Print the ranked list FILE instead (any machine's: each line can be proved "
    "again with evo bound --first WORD).",
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="First guesses printed, the best first.",
)
@click.option(
    "--exact-below",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="Code sets of at most this many codes are solved exactly.",
)
@click.option(
    "--workers",
    type=WORKERS,
    default=None,
    help="Local processes the first guesses are decided on, in tasks of 16. Default: "
    "$EVO_THREADS, else every core.",
)
@click.option(
    "--scheduler",
    metavar="ADDR",
    default=None,
    help="Decide them on the Dask scheduler at ADDR (tcp://host:8786) instead.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def rank(best, upper, max_guesses, out, resume, show, top, exact_below, workers, scheduler,
         as_json, pegs, colors, variant) -> None:  # fmt: skip
    """Rank every first guess of the game: the least total over all of them, proved (the
    best N solved exactly, a proved floor for every other). Cheap bounds rule out most first
    guesses at once, the exact search decides the rest, the least floor first."""
    from evo.proofs.firsts import RankingError, new_ranking, read_ranking

    if show is not None:  # of the game the list names, unless the command line names one
        given = game_given(click.get_current_context())
        try:
            ranking = read_ranking(
                show, game=open_game(pegs, colors, variant) if given else None, sealed=False
            )
        except RankingError as e:
            raise click.ClickException(str(e)) from None
        _print(ranking, top, as_json)
        return
    game = open_game(pegs, colors, variant)
    if resume and out is None:
        raise click.UsageError("--resume needs --out FILE (the list to go on from)")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers is for local processes, not with --scheduler")
    from evo.core.engine import threads
    from evo.core.files import check_output, exclusive, lock_beside

    workers = threads() if workers is None else workers
    if out is None:
        ranking = new_ranking(game, max_guesses=max_guesses)
        _run(game, ranking, best, upper, exact_below, workers, scheduler, None, top, as_json)
        return
    check_output(out)
    with exclusive(lock_beside(out), what=str(out)):
        if out.exists() and not resume:
            raise click.ClickException(
                f"{out} exists: --resume goes on from it; give another name, or remove it first"
            )
        try:
            if resume and out.exists():
                ranking = read_ranking(out, game=game)
            else:
                ranking = new_ranking(game, max_guesses=max_guesses)
        except RankingError as e:
            raise click.ClickException(str(e)) from None
        if ranking.max_guesses != max_guesses:
            raise click.ClickException(
                f"{out}: a list {_within(ranking.max_guesses)}, not {_within(max_guesses)}: "
                "give the same --max-guesses"
            )
        _run(game, ranking, best, upper, exact_below, workers, scheduler, out, top, as_json)


def _run(game, ranking, best, upper, exact_below, workers, scheduler, out, top, as_json) -> None:
    """The search, its progress line, the list kept on the way and at a stop."""
    from evo.cli.common import Interrupted
    from evo.proofs.firsts import rank_first_guesses, write_ranking
    from evo.runs.driver import stopped_at_once

    saved = [time.monotonic()]
    tty = sys.stderr.isatty()
    shown = [0.0]

    def progress(r) -> None:
        now = time.monotonic()
        if out is not None and now - saved[0] >= SAVE_EVERY:
            write_ranking(r, out)
            saved[0] = now
        if not as_json and (tty or now - shown[0] >= SAVE_EVERY):
            shown[0] = now
            end = "\r" if tty else "\n"
            click.echo(
                f"{progress_line(r)}\033[K{end}" if tty else progress_line(r) + end,
                err=True,
                nl=False,
            )

    def stopped(signal_name: str) -> Exception:
        if out is not None:
            write_ranking(ranking, out)
        kept = (
            f"kept in {out}: the same command with --resume goes on from there"
            if out is not None
            else "not kept: with --out FILE a stopped search goes on from where it was (--resume)"
        )
        decided = sum(e.decided(ranking.cut) for e in ranking.entries.values())
        return Interrupted(
            f"stopped by {signal_name}: {decided:,} of {len(ranking.entries):,} first guesses "
            f"decided, {kept}",
            signal_name,
        )

    with stopped_at_once(stopped):
        rank_first_guesses(
            game,
            best=best,
            upper=upper,
            exact_below=exact_below,
            workers=workers,
            scheduler=scheduler,
            ranking=ranking,
            progress=progress,
        )
    if tty and not as_json:
        click.echo("\033[K", err=True, nl=False)
    if out is not None:
        write_ranking(ranking, out)
    _print(ranking, top, as_json)
    if out is not None and not as_json:
        click.echo(f"ranked list: {out}")


def _within(limit: int | None) -> str:
    return "with no limit on guesses" if limit is None else f"within {limit} guesses"


def progress_line(r) -> str:
    """One line of a ranking under way: time, first guesses decided, the best so far."""
    from evo.baselines.limits import duration_text as duration

    decided = sum(e.decided(r.cut) for e in r.entries.values())
    solved = r.solved
    best = (
        f"best {r.game.format_code(solved[0].guess).upper()} {solved[0].low:,}"
        if solved
        else "none solved yet"
    )
    left = ""
    if 0 < decided < len(r.entries) and r.seconds > 0:
        left = f", about {duration(r.seconds * (len(r.entries) - decided) / decided)} left"
    return (
        f"[{duration(r.seconds)}] {decided:,} of {len(r.entries):,} first guesses decided, "
        f"{best}, {cut_text(r.cut)}{left}"
    )


def cut_text(cut: int) -> str:
    from evo.search.exact import UNBOUNDED

    return "no cut yet" if cut >= UNBOUNDED else f"cut {cut:,}"


def verdict(r) -> str:
    """The result in one sentence."""
    n = len(r.entries)
    best = r.optimum
    if best is None:
        solved = r.solved
        if not solved:
            return f"no first guess solved yet ({n:,} first guesses)"
        top = solved[0]
        return (
            f"best so far {r.game.format_code(top.guess).upper()}: {top.low:,} "
            f"(not every first guess decided: not yet the optimum)"
        )
    within = "" if r.max_guesses is None else f" within {r.max_guesses} guesses"
    return (
        f"the optimum{within} over all {n:,} first guesses is {best.low:,}, "
        f"with {r.game.format_code(best.guess).upper()}"
    )


def _print(r, top: int, as_json: bool) -> None:
    """The verdict, then the best ``top`` first guesses and their totals or floors."""
    if as_json:
        doc = r.to_json()
        doc["ranked"] = doc["ranked"][:top]
        doc["verdict"] = verdict(r)
        click.echo(json.dumps(doc, indent=1))
        return
    from evo.baselines.limits import duration_text as duration

    click.echo(f"{verdict(r)} ({r.tasks:,} tasks, {duration(r.seconds)})")
    fmt = r.game.format_code
    ranked = r.below_cut
    for i, e in enumerate(ranked[:top], 1):
        click.echo(f"  {i:>4}. {fmt(e.guess).upper():<8} {e.low:,}")
    rest = len(r.entries) - len(ranked)
    if rest and not r.open:
        click.echo(f"  the other {rest:,} first guesses: at least {r.cut:,} each (proved floors)")
    elif rest:
        click.echo(f"  {len(r.open):,} first guesses not decided yet")
