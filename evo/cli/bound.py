"""``evo bound``: a proved lower bound on a game's least total, and the check of its
certificate."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from evo.cli.common import FINITE_POSITIVE, WORKERS, game_options, open_game, threads_option


@click.command()
@game_options
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=None,
    help="Levels of guesses tried exhaustively, the first guess's included (0: the first "
    "guess scored with perfect-split bounds); below them each code set is bounded by its "
    "best one-guess split. Without --depth or --seconds: the exact optimum.",
)
@click.option(
    "--seconds",
    type=FINITE_POSITIVE,
    default=None,
    help="Refine the bound, best first, for this long (with --depth: up to that depth), "
    "counted from when the kernels are loaded where the tasks run; the bound proved by "
    "then is given, the optimum when the least first guess's parts were all solved.",
)
@click.option(
    "--first",
    metavar="GUESS",
    default=None,
    help="Bound only the breakers that open with GUESS (and its symmetric images), such as "
    "SALET in Wordle: without --depth or --seconds, the optimum with that first guess "
    "(no estimate asked first). No certificate.",
)
@click.option(
    "--time-limit",
    type=FINITE_POSITIVE,
    default=None,
    help="With neither --depth nor --seconds (the exact optimum): the seconds it may be "
    "estimated to take (default 600), as for evo baselines --only optimal; beyond, it is "
    "refused before any work, with the estimate.",
)
@click.option(
    "--exact-below",
    type=click.IntRange(min=0),
    default=None,
    help="Code sets of at most this many codes are solved exactly (default 20).",
)
@click.option(
    "--workers",
    type=WORKERS,
    default=None,
    help="Local processes the tasks (a first-guess class's part each) run on, the largest "
    "parts first (1: the smallest first, so that the certificate fills soonest). Default: "
    "--threads, $EVO_THREADS, else every core.",
)
@click.option(
    "--scheduler",
    metavar="ADDR",
    default=None,
    help="Run the tasks on the Dask scheduler at ADDR (tcp://host:8786) instead.",
)
@threads_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--certificate",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the certificate: every first-guess class and part with the bound proved "
    "there (JSON, gzip-compressed when FILE ends in .gz; beyond 10,000 parts, as Wordle's "
    "1.1 million, each class's parts as arrays), which --check proves again. With "
    "--workers 1 the exact search's memo "
    "is kept beside it, in FILE.memo (its code sets of 40 codes or more, solved or "
    "bounded, each line sealed by this machine's key), which --resume reads first.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Go on from the certificate FILE of --certificate when it exists (its parts' "
    "bounds taken as proved; --check proves them again): a stopped search loses only its "
    "running tasks, the certificate being written after each. The exact search starts "
    "with what FILE.memo holds (lines not sealed here are ignored, and said).",
)
@click.option(
    "--check",
    "check",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Check the certificate FILE instead: its bound follows from its entries, and "
    "each entry's bound is proved again (only --part K's with --part).",
)
@click.option(
    "--part",
    type=click.IntRange(min=0),
    default=None,
    help="With --check: prove only part K (counted over the classes, from 0).",
)
@click.option(
    "--against",
    default=None,
    metavar="BREAKER",
    help="A breaker file of the game (e.g. breakers/mastermind-4-8.json): its total is the "
    "upper bound, and its subtree on each part of its first guess that part's upper (the "
    "other first guesses' parts: a one-step entropy tree's, in games of at most 50,000 "
    "codes). The time goes to the parts "
    "whose upper less their bound is the largest, and the gap is shown as it closes.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE.png",
    help="Draw the lower bound (and, with --against, the upper bound and the gap in %) "
    "against time to FILE (png, svg or pdf).",
)
def bound(depth, seconds, first, time_limit, exact_below, workers, scheduler, as_json, certificate,
          resume, check, part, against, plot, pegs, colors, variant) -> None:  # fmt: skip
    """Prove a lower bound on the least total of the game: no breaker, whatever its guesses
    and worst case, has a smaller total. Exhaustive over the first levels (one guess per
    symmetry class), admissible bounds below; the bound is the least, over the first
    guesses, of the codes plus the bounds of the guess's parts. Prints the bound and each
    first guess's."""
    from evo.proofs.bound import EXACT_BELOW, CertificateError

    ctx = click.get_current_context()
    if check is not None:
        given = [
            name
            for name, value in (
                ("--depth", depth),
                ("--seconds", seconds),
                ("--first", first),
                ("--certificate", certificate),
                ("--scheduler", scheduler),
                ("--exact-below", exact_below),
                ("--time-limit", time_limit),
                ("--resume", resume or None),
                ("--against", against),
                ("--plot", plot),
            )
            if value is not None
        ]
        if given:
            raise click.UsageError(f"--check takes none of {', '.join(given)}")
        try:
            _check(ctx, check, part, as_json)
        except CertificateError as e:
            raise click.ClickException(f"{check}: {e}") from None
        return
    if part is not None:
        raise click.UsageError("--part needs --check FILE")
    if resume and certificate is None:
        raise click.UsageError("--resume needs --certificate FILE (the certificate to go on from)")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers is for local processes, not with --scheduler")
    if time_limit is not None and (depth is not None or seconds is not None):
        raise click.UsageError(
            "--time-limit is for the exact optimum (neither --depth nor --seconds); "
            "--seconds limits a bound's time"
        )
    if first is not None and certificate is not None:
        raise click.UsageError(
            "--first bounds one first guess; a certificate holds every first guess"
        )
    game = open_game(pegs, colors, variant)
    if plot is not None:
        from evo.show.plots import figure_format

        try:
            figure_format(plot)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--plot") from None
    opening = None
    if first is not None:
        try:
            opening = game.parse_code(first)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--first") from None
    uppers = None if against is None else _uppers(game, against, first=opening)
    if scheduler is not None:
        from evo.ea.cluster import check_scheduler

        check_scheduler(scheduler)  # a wrong address or an empty cluster: one line, now
    if depth is None and seconds is None and opening is None:
        _estimate_optimum(game, workers, scheduler, time_limit, as_json)

    from evo.core.engine import threads
    from evo.search.tasks import in_process

    workers = threads() if workers is None else workers
    exact_below = EXACT_BELOW if exact_below is None else exact_below
    with ExitStack() as stack:
        if certificate is not None:
            stack.enter_context(_held(certificate, resume))
        start = None
        if resume and certificate is not None and certificate.exists():
            start = _resumed(certificate, game, exact_below)
        here = in_process(scheduler=scheduler, workers=workers)
        memo = _memo(certificate, game) if certificate is not None and here else None
        result = _search(
            game, depth, seconds, exact_below, workers, scheduler, as_json, certificate, start,
            uppers, first=opening, memo=memo,
        )  # fmt: skip
    if plot is not None:
        from evo.baselines import known_optimum
        from evo.show.plots import plot_bound

        known = known_optimum(game)
        plot_bound(
            result.history,
            plot,
            title=f"{game.name}: proved lower bound and gap",
            optimum=known.total if known is not None and known.proved else None,
            seconds=result.seconds,
        )
        if not as_json:
            click.echo(f"plot: {plot}")


def _uppers(game, against: str, *, first: int | None = None):
    """``--against``: :func:`evo.proofs.bound.against_uppers` of the breaker (only
    ``first``'s class's with --first; one line when the file is not a breaker of the
    game)."""
    from evo.core.files import cache_dir
    from evo.core.treeio import TreeFileError, load_tree
    from evo.proofs.bound import against_uppers

    try:
        breaker = load_tree(against, game=game, cache=cache_dir())
    except TreeFileError as e:
        raise click.BadParameter(str(e), param_hint="--against") from None
    return against_uppers(breaker, first=first)


def _estimate_optimum(game, workers, scheduler, time_limit, as_json) -> None:
    """Without --depth or --seconds, the bound is the exact optimum: its estimate, as
    ``evo baselines --only optimal`` gives it (stderr), and the same refusal beyond the
    time limit, before any work."""
    from evo.baselines import BaselineRefused, Where, estimate_seconds
    from evo.baselines.limits import DEFAULT_TIME_LIMIT, duration_text, refuse_beyond

    where = Where(scheduler=scheduler, workers=workers or 0)
    est = estimate_seconds(game, "optimal", where=where)
    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    try:
        refuse_beyond(game, "optimal", est, limit)
    except BaselineRefused as e:
        raise click.ClickException(
            f"{e.citing('--time-limit')}; --seconds S or --depth D proves a lower bound instead"
        ) from None
    if est is not None and not as_json:
        click.echo(f"the least total, searched exactly: about {duration_text(est)} here", err=True)


def _memo(certificate: Path, game):
    """The exact search's memo file beside the certificate, read (--resume) when it is
    there; one line naming it when it is not a memo file of the game (set aside: it is
    only a cache), and one when some of its lines are not sealed here (they are ignored)."""
    from evo.proofs.memo_file import MemoFileError, memo_path, open_memo

    path = memo_path(certificate)
    try:
        memo = open_memo(path, game)
    except MemoFileError as e:
        raise click.ClickException(str(e)) from None
    if memo.note:
        click.echo(memo.note, err=True)
    if memo.read.unsealed:
        click.echo(
            f"{path}: {memo.read.unsealed:,} lines ignored (their seal does not hold: edited, "
            "or not written on this machine)",
            err=True,
        )
    if memo.read.facts:
        click.echo(f"{path}: {len(memo.read.facts):,} code sets solved or bounded", err=True)
    return memo


def _search(game, depth, seconds, exact_below, workers, scheduler, as_json, certificate, start,
            uppers, *, first, memo=None):  # fmt: skip
    """The bound's search and what it prints (the certificate, when asked, held)."""
    from evo.proofs.bound import CertificateError, depth_name, write_certificate
    from evo.proofs.refine import lower_bound
    from evo.runs.driver import stopped_at_once

    shown: list[tuple] = []
    latest: list = []

    def say(b) -> None:
        if certificate is not None:
            write_certificate(b, certificate)  # kept as it goes: a stopped run loses nothing
        latest[:] = [b]
        if as_json or (shown and shown[-1] == (b.lower_bound, b.upper)):
            return
        shown.append((b.lower_bound, b.upper))
        click.echo(f"[{b.seconds:7.1f} s] {progress_text(b)}", err=True)

    # Ctrl-C, SIGTERM or SIGHUP: the tasks under way are dropped, the rest kept.
    with stopped_at_once(lambda signal: _stopped(signal, latest, certificate)):
        try:
            result = lower_bound(
                game,
                depth=depth,
                seconds=seconds,
                exact_below=exact_below,
                scheduler=scheduler,
                workers=workers,
                progress=say,
                resume=start,
                uppers=uppers,
                first=first,
                memo=memo,
            )
        except CertificateError as e:  # a certificate not sealed here, proved again: wrong
            raise click.ClickException(f"{certificate}: cannot go on from it: {e}") from None
        except OSError as e:
            if scheduler is None:
                raise
            raise click.ClickException(f"no Dask scheduler answers at {scheduler}: {e}") from None
    if certificate is not None:
        write_certificate(result, certificate)
    if as_json:
        opened = {} if first is None else {"first": game.format_code(first)}
        data = result.to_json()
        click.echo(json.dumps({"lower_bound": result.lower_bound, **opened, **data}))
        return result
    what = "the optimum" if result.optimal else "a lower bound"
    opening = "" if first is None else f" with {game.format_code(first)} first"
    click.echo(
        f"{game.name}: {result.lower_bound:,} is {what} of the least total{opening} "
        f"(average {result.lower_bound / game.num_codes:.4f}), {result.seconds:.1f} s"
    )
    if result.upper is not None:
        click.echo(
            f"  upper bound {result.upper:,} (--against and one-step trees): gap {result.gap:.2f}%"
        )
    # From the classes, not their certificate: Wordle's has 1.1 million parts.
    ranked = sorted(result.classes, key=lambda c: c.total)
    shown_classes = ranked if len(ranked) <= MOST_CLASSES else ranked[: MOST_CLASSES // 2]
    for c in shown_classes:
        depths = [depth_name(p.depth) for p in c.parts if p.size > 2]
        click.echo(
            f"  first guess {game.format_code(c.guess)} (class of {c.orbit}): at least "
            f"{c.total:,} ({depth_words(depths)})"
        )
    if len(shown_classes) < len(ranked):
        click.echo(
            f"  ... and {len(ranked) - len(shown_classes):,} more first guesses, at least "
            f"{ranked[len(shown_classes)].total:,} each (all of them: --json or --certificate)"
        )
    click.echo(DEPTH_LEGEND)
    if certificate is not None:
        click.echo(f"certificate: {certificate}")
    return result


def progress_text(b) -> str:
    """A bound's progress line: the lower bound and its depth, and with an upper bound
    the upper and the gap in percent of it."""
    from evo.proofs.bound import depth_name

    if b.upper is None:
        where = "exact" if b.depth is None else f"depth {b.depth}"
    else:  # the least class's parts are refined each to its own depth
        top = min(b.classes, key=lambda c: (c.total, c.guess))
        where = depth_words([depth_name(p.depth) for p in top.parts])
    text = f"{b.lower_bound:,} ({where})"
    if b.upper is not None:
        text += f" <= {b.upper:,}, gap {b.gap:.2f}%"
    return text


#: Beyond this many first-guess classes (Wordle's 12,972), half of them are printed.
MOST_CLASSES = 40

#: What the depths of the lines above say.
DEPTH_LEGEND = (
    "(depth d: every guess tried d levels deep, the first guess's level included, each "
    "code set below bounded by the perfect splits of its parts, the small ones by their "
    "floors; depth 0: the first guess's parts by their perfect split alone; exact: "
    "solved; budget: the exact search found no subtree below the part's bound)"
)


def depth_words(depths: list) -> str:
    """How deep a first guess's parts were searched, in words: their certificate depths
    (-1 for the perfect split alone, "exact" when solved, "budget" when the exact search
    reached its budget) counted as ``--depth`` counts, from the first guess."""
    levels = sorted({d + 1 for d in depths if isinstance(d, int)})
    named = [name for name in ("exact", "budget") if name in depths]
    if not levels:
        return " and ".join(named) if named else "exact"
    text = f"depth {levels[0]}" if len(levels) == 1 else f"depths {levels[0]} to {levels[-1]}"
    return text + "".join(f", some parts {name}" for name in named)


def _stopped(signal_name: str, latest: list, certificate: Path | None) -> Exception:
    """The one line of a bound search stopped by a signal (exit status 128 + its number):
    the bound proved by then, and where it is kept."""
    from evo.cli.common import Interrupted

    if not latest:
        return Interrupted(f"stopped by {signal_name} before a bound was proved", signal_name)
    b = latest[0]
    proved = f"stopped by {signal_name}: {b.lower_bound:,} is proved (a lower bound)"
    if certificate is None:
        return Interrupted(
            f"{proved}, not kept: with --certificate FILE a stopped search goes on from "
            "where it was (--resume)",
            signal_name,
        )
    return Interrupted(
        f"{proved}, kept in {certificate}: the same command with --resume goes on from there",
        signal_name,
    )


@contextmanager
def _held(path: Path, resume: bool) -> Iterator[None]:
    """The certificate ``path``, locked against another bound process writing it, and,
    without ``--resume``, new: a file already there is another search's, not to be lost."""
    from evo.core.files import check_output, exclusive, lock_beside
    from evo.proofs.memo_file import memo_path

    check_output(path)
    with exclusive(lock_beside(path), what=str(path)):
        for there in (path, memo_path(path)):
            if there.exists() and not resume:
                raise click.ClickException(
                    f"{there} exists: --resume goes on from it; give another name, or remove "
                    "it first"
                )
        yield


def _resumed(path: Path, game, exact_below: int) -> dict:
    """``--resume``: the certificate to go on from, checked to be of this game and search
    (one line naming the file when it is not); one that this machine did not write (its
    seal does not hold) has its parts proved again before the search goes on."""
    from evo.proofs.bound import (
        CertificateError,
        certificate_classes,
        certificate_sealed,
        read_certificate,
    )

    try:
        data = read_certificate(path)
        certificate_classes(data, game, exact_below=exact_below)
    except CertificateError as e:
        raise click.ClickException(f"{path}: cannot go on from it: {e}") from None
    if certificate_sealed(data):
        click.echo(
            f"going on from {path}: {data['lower_bound']:,} proved in {data['seconds']:,.1f} s",
            err=True,
        )
    else:
        click.echo(
            f"{path} was not written on this machine or was edited (its seal does not hold): "
            "each of its parts is proved again before going on",
            err=True,
        )
    return data


#: The options that name a game of the Mastermind family, in the order of its key.
PEG_PARAMS = ("pegs", "colors", "variant")


def _check(ctx: click.Context, path: Path, part: int | None, as_json: bool) -> None:
    """``--check``: the certificate's game from the file, any game evo names (checked
    against --pegs, --colors and --game when they are given; a custom game is checked
    from Python, where it is defined)."""
    from click.core import ParameterSource

    from evo.core.game import spec_text
    from evo.core.kinds import WORDLE_KINDS
    from evo.proofs.bound import (
        CertificateError,
        certificate_game,
        check_certificate,
        read_certificate,
    )

    data = read_certificate(path)
    key = certificate_game(data)
    given = {
        p: ctx.params[p]
        for p in PEG_PARAMS
        if ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT)
    }
    if key[0] == "custom":
        raise CertificateError(
            f"the certificate is of {spec_text(data['game'])}: a custom game is checked from "
            "Python (evo.proofs.bound.check_certificate), where it is defined"
        )
    # Wordle's key is its kind alone: its words are fixed, no pegs or colors.
    mine = {"variant": key[0]} if key[0] in WORDLE_KINDS else dict(zip(PEG_PARAMS, key))
    for name, value in given.items():
        if name not in mine:
            raise CertificateError(
                f"the certificate is of {spec_text(data['game'])}: --{name} does not apply to it"
            )
        if mine[name] != value:
            raise CertificateError(f"the certificate's {name} is {mine[name]}, not {value}")
    try:
        game = open_game(mine.get("pegs", 4), mine.get("colors", 6), mine["variant"])
    except click.BadParameter as e:
        raise CertificateError(f"game: {e.message}") from None
    result = check_certificate(data, part=part, game=game)
    proved = "every part" if part is None else f"part {part}"
    if as_json:
        click.echo(
            json.dumps(
                {
                    "lower_bound": result.lower_bound,
                    "checked": True,
                    "parts": result.parts,
                    "proved": list(result.proved),
                }
            )
        )
        return
    click.echo(
        f"{path}: {result.lower_bound:,} follows from its {result.parts} parts; "
        f"{proved} proved again"
    )
    sys.stdout.flush()
