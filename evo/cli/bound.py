"""``evo bound``: a proved lower bound on a game's least total, and the check of its
certificate."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from evo.cli.common import (
    FINITE_POSITIVE,
    WORKERS,
    Interrupted,
    TreeOutputFile,
    game_options,
    load_breaker,
    open_game,
    threads_option,
)


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
    "--max-guesses",
    type=click.IntRange(min=1),
    default=None,
    help="With --first: only the breakers that solve every code within this many guesses, "
    "the first included: their least total, searched exactly in this process (Wordle's "
    "hard mode within six: 8,122 with SALET). evo rank --max-guesses ranks every first "
    "guess.",
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
    help="A breaker of the game: a tree file (breakers/mastermind-4-8.json), a run "
    "directory (its best.json), a breaker evo ships by name, or a baseline's name; without "
    "--pegs, --colors or --game the game is the breaker's. Its total is the upper bound, "
    "its subtree on each part of its first guess that part's upper, and the verdict says "
    "it is optimal or how far above the optimum it is at most. The other first guesses' "
    "parts get the uppers of one-step entropy trees, built first (said, with their time) "
    "for the classes of least depth-0 bound below the breaker's total, within a "
    "twentieth of --seconds (10 s without) and guesses x codes = 1,200,000,000 summed over "
    "the trees (more in a twentieth of a long --seconds); the other classes are refined "
    "without uppers. The time goes to the parts whose upper less "
    "their bound is the largest, and the gap is shown as it closes.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE.png",
    help="Draw the lower bound (and, with --against, the upper bound and the gap in %) "
    "against time to FILE (png, svg or pdf).",
)
@click.option(
    "--out",
    type=TreeOutputFile(),
    default=None,
    metavar="FILE",
    help="With --first: write a tree of least total that opens with GUESS (each of its "
    "parts solved by the exact search again, about the time the bound took), once the "
    "bound is that optimum.",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Print every first guess's bound (the table, with its legend) and every "
    "progress line, not only the verdict and one updating line.",
)
def bound(depth, seconds, first, max_guesses, time_limit, exact_below, workers, scheduler,
          as_json, certificate, resume, check, part, against, plot, out, verbose, pegs, colors,
          variant) -> None:  # fmt: skip
    """Prove a lower bound on the least total of the game: no breaker, whatever its guesses
    and worst case, has a smaller total. Exhaustive over the first levels (one guess per
    symmetry class), admissible bounds below; the bound is the least, over the first
    guesses, of the codes plus the bounds of the guess's parts.

    \b
    The first line is the verdict, such as
      breakers/wordle.json is optimal: 7,920
      b.json is at most 2.66% above the optimum (178,560; the optimum is at least 173,930)
      wordle: the optimum is 7,920
      wordle: the least total is at least 6,843
    (at most X% above: the breaker's total less the bound, in percent of the bound).
    While it works, one line on standard error is rewritten with the bound so far.

    \b
    --verbose adds a line per first guess and every progress line. Their words:
      first guess X (class of N): X and N-1 others that the game's symmetries
        (permuted pegs and colors) map to it: the same bound for each.
      at least T: every breaker opening with X totals T or more.
      exact: T is the least total of the breakers that open with X (every part solved).
      depth d: every guess tried d levels deep, the first guess's level included, the
        code sets below bounded by the perfect splits of their parts; depth 0: the
        first guess's parts by their perfect split alone.
      budget: the exact search, given what would lift the class to the upper bound,
        found no cheaper subtree: the part is proved to cost at least its bound.
      gap: the upper bound less the lower, in percent of the upper.
    """
    from evo.proofs.bound import EXACT_BELOW, CertificateError

    ctx = click.get_current_context()
    if check is not None:
        _takes_none(
            "--check", depth=depth, seconds=seconds, first=first, max_guesses=max_guesses,
            certificate=certificate, scheduler=scheduler, exact_below=exact_below,
            time_limit=time_limit, resume=resume or None, against=against, plot=plot, out=out,
        )  # fmt: skip
        try:
            _check(ctx, check, part, as_json)
        except CertificateError as e:
            raise click.ClickException(f"{check}: {e}") from None
        return
    if part is not None:
        raise click.UsageError("--part needs --check FILE")
    if max_guesses is not None:
        # One first guess's exact search, in this process: --first, and nothing else's.
        if first is None:
            raise click.UsageError(
                "--max-guesses needs --first GUESS (evo rank --max-guesses ranks every first guess)"
            )
        _takes_none(
            "--max-guesses", depth=depth, seconds=seconds, certificate=certificate,
            against=against, out=out, plot=plot, scheduler=scheduler, workers=workers,
            time_limit=time_limit,
        )  # fmt: skip
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
    if out is not None and first is None:
        raise click.UsageError(
            "--out writes the tree of least total with the first guess of --first GUESS"
        )
    breaker = None
    if against is not None:
        try:
            breaker = load_breaker(ctx, against, pegs, colors, variant)
        except click.ClickException as e:  # not a breaker of the game: say which option
            raise click.BadParameter(e.message, param_hint="--against") from None
    game = open_game(pegs, colors, variant) if breaker is None else breaker.game
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
    if scheduler is not None:
        from evo.ea.cluster import check_scheduler

        check_scheduler(scheduler)  # a wrong address or an empty cluster: one line, now
    if depth is None and seconds is None and opening is None:
        _estimate_optimum(game, workers, scheduler, time_limit, as_json)

    from evo.core.engine import threads
    from evo.search.tasks import in_process

    exact_below = EXACT_BELOW if exact_below is None else exact_below
    if max_guesses is not None and opening is not None:  # --first: checked above
        _within(game, opening, max_guesses, exact_below, as_json)
        return
    workers = threads() if workers is None else workers
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
            breaker, against, first=opening, memo=memo, verbose=verbose, tree=out is not None,
        )  # fmt: skip
    if out is not None:
        _write_tree(result, out, game, first, as_json)
    if plot is not None:
        from evo.baselines import known_optimum
        from evo.show.plots import plot_bound

        known = known_optimum(game)
        plot_bound(
            result.bound.history,
            plot,
            title=f"{game.name}: proved lower bound and gap",
            optimum=known.total if known is not None and known.proved else None,
            seconds=result.bound.seconds,
        )
        if not as_json:
            click.echo(f"plot: {plot}")


def _write_tree(result, out: Path, game, first: str, as_json: bool) -> None:
    """``--out``: the tree of least total with the first guess, once the bound is that
    optimum (one line saying why not, exit status 1, when it is not)."""
    from evo.core.treeio import save_tree

    if result.tree is None:
        raise click.ClickException(
            f"--out: no tree written: {result.lower_bound:,} is a lower bound, not the optimum "
            f"with {first} first (without --depth and --seconds the bound reaches it)"
        )
    opening = game.format_code(int(result.tree.guess[0]))
    save_tree(result.tree, out, name=f"optimal with {opening} first")
    if not as_json:
        click.echo(f"tree: {out} (total {result.tree.total:,})")


def _takes_none(option: str, **others) -> None:
    """One line refusing ``option`` beside any of ``others`` given (not None), named as
    options, in order."""
    given = ["--" + name.replace("_", "-") for name, value in others.items() if value is not None]
    if given:
        raise click.UsageError(f"{option} takes none of {', '.join(given)}")


def _within(game, opening: int, max_guesses: int, exact_below: int, as_json: bool) -> None:
    """``--first GUESS --max-guesses K``: the least total of the breakers that open with
    GUESS and solve every code within K guesses (:func:`evo.proofs.firsts.decide`), or
    one line saying there is none."""
    from evo.proofs.firsts import decide
    from evo.runs.driver import stopped_at_once

    word = game.format_code(opening)
    where = f"{game.name} with {word} first, within {max_guesses} guesses"

    def stopped(signal: str) -> Exception:
        return Interrupted(f"stopped by {signal}: nothing proved of {word}", signal)

    with stopped_at_once(stopped):
        d = decide(game, opening, exact_below=exact_below, max_guesses=max_guesses)
    if as_json:
        least = d.low if d.exact else None
        click.echo(
            json.dumps(
                {"first": word, "max_guesses": max_guesses, "least_total": least,
                 "seconds": round(d.seconds, 3)}
            )
        )  # fmt: skip
    elif d.exact:
        click.echo(f"{where}: the optimum is {d.low:,}")
        average = d.low / game.num_codes
        click.echo(f"  {d.low:,} is the optimum (average {average:.4f}); {d.seconds:.1f} s")
    if not d.exact:
        raise click.ClickException(
            f"no breaker that opens with {word} solves every code within {max_guesses} guesses"
        )


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
            breaker, against, *, first, memo=None, verbose=False, tree=False):  # fmt: skip
    """The bound's search (:func:`evo.bound`) and what it prints: the verdict first,
    progress on one updating line (every change with ``verbose``), the table of first
    guesses with ``verbose``."""
    import evo
    from evo.proofs.bound import CertificateError
    from evo.runs.driver import stopped_at_once

    line = _ProgressLine(verbose=verbose, quiet=as_json)
    latest: list = []

    def say(b) -> None:
        latest[:] = [b]
        line.show(b)

    def note(text: str) -> None:
        line.clear()
        if not as_json:
            click.echo(text, err=True)

    opened = None if first is None else game.format_code(first)

    def stopped(signal: str) -> Exception:
        line.clear()
        return _stopped(signal, latest, certificate, breaker, against, opened, as_json)

    # Ctrl-C, SIGTERM or SIGHUP: the tasks under way are dropped, the rest kept.
    with stopped_at_once(stopped):
        try:
            result = evo.bound(
                game,
                breaker,
                depth=depth,
                seconds=seconds,
                first=first,
                exact_below=exact_below,
                workers=workers,
                scheduler=scheduler,
                certificate=certificate,
                tree=tree,
                time_limit=None,  # estimated and refused before (_estimate_optimum)
                name=against,
                progress=say,
                say=note,
                resume=start,
                memo=memo,
            )
        except CertificateError as e:  # a certificate not sealed here, proved again: wrong
            raise click.ClickException(f"{certificate}: cannot go on from it: {e}") from None
        except OSError as e:
            if scheduler is None:
                raise
            raise click.ClickException(f"no Dask scheduler answers at {scheduler}: {e}") from None
        finally:
            line.clear()
    b = result.bound
    if as_json:
        data = b.to_json()
        extra = {} if opened is None else {"first": opened}
        click.echo(
            json.dumps({"lower_bound": b.lower_bound, **extra, "verdict": result.verdict, **data})
        )
        return result
    click.echo(result.verdict)
    click.echo("  " + summary_text(b))
    if verbose:
        _table(game, b)
    else:
        click.echo("  (--verbose: each first guess's bound)")
    if certificate is not None:
        click.echo(f"certificate: {certificate}")
    return result


def summary_text(b) -> str:
    """The line under the verdict: the bound, how deep its least class was searched,
    the upper and gap, and the time."""
    what = "the optimum" if b.optimal else "a lower bound"
    text = f"{b.lower_bound:,} is {what} (average {b.lower_bound / b.game.num_codes:.4f}"
    if not b.optimal:
        text += f"; {where_text(b)}"
    text += ")"
    if b.upper is not None:
        text += f", upper bound {b.upper:,}, gap {b.gap:.2f}%"
    return text + f"; {b.seconds:.1f} s"


def _table(game, b) -> None:
    """``--verbose``: each first guess's bound, the least first (half of them beyond
    :data:`MOST_CLASSES`), and the legend of their words."""
    from evo.proofs.bound import depth_name

    # From the classes, not their certificate: Wordle's has 1.1 million parts.
    ranked = sorted(b.classes, key=lambda c: c.total)
    shown_classes = ranked if len(ranked) <= MOST_CLASSES else ranked[: MOST_CLASSES // 2]
    for c in shown_classes:
        head = f"  first guess {game.format_code(c.guess)} (class of {c.orbit}):"
        if all(p.closed for p in c.parts):
            click.echo(f"{head} {c.total:,} (exact)")
            continue
        depths = [depth_name(p.depth) for p in c.parts if p.size > 2]
        click.echo(f"{head} at least {c.total:,} ({depth_words(depths)})")
    if len(shown_classes) < len(ranked):
        click.echo(
            f"  ... and {len(ranked) - len(shown_classes):,} more first guesses, at least "
            f"{ranked[len(shown_classes)].total:,} each (all of them: --json or --certificate)"
        )
    click.echo(DEPTH_LEGEND)


class _ProgressLine:
    """The bound so far on standard error: one line rewritten in place on a terminal;
    elsewhere (a log) the first and then at most one every :data:`LOG_EVERY` seconds;
    with ``verbose``, a line at each change. Nothing when ``quiet`` (--json)."""

    def __init__(self, *, verbose: bool, quiet: bool):
        import time

        self.verbose, self.quiet = verbose, quiet
        self.tty = sys.stderr.isatty()
        self.clock = time.monotonic
        self.last: float | None = None
        self.shown: tuple | None = None
        self.open = False

    def show(self, b) -> None:
        now = (b.lower_bound, b.upper)
        if self.quiet or now == self.shown:
            return
        self.shown = now
        text = f"[{b.seconds:7.1f} s] {progress_text(b)}"
        if self.verbose or (not self.tty and self.last is None):
            self.clear()
            click.echo(text, err=True)
        elif self.tty:
            click.echo("\r" + text + "\033[K", err=True, nl=False)
            self.open = True
        elif self.clock() - (self.last or 0.0) >= LOG_EVERY:
            click.echo(text, err=True)
        else:
            return
        self.last = self.clock()

    def clear(self) -> None:
        """Wipe the open line (a terminal's), before other output."""
        if self.open:
            click.echo("\r\033[K", err=True, nl=False)
            self.open = False


#: Outside a terminal, the seconds between two progress lines (but with --verbose).
LOG_EVERY = 30.0


def where_text(b) -> str:
    """How deep the least class's parts were searched, in words."""
    from evo.proofs.bound import depth_name

    top = min(b.classes, key=lambda c: (c.total, c.guess))
    words = depth_words([depth_name(p.depth) for p in top.parts if p.size > 2])
    return f"least first guess {b.game.format_code(top.guess)}: {words}"


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


def _stopped(signal_name: str, latest: list, certificate: Path | None, breaker, against,
             first, as_json) -> Exception:  # fmt: skip
    """A bound search stopped by a signal (exit status 128 + its number): the verdict of
    the bound proved by then (standard output), and one line saying where it is kept."""
    from evo.proofs.verdict import verdict_text

    if not latest:
        return Interrupted(f"stopped by {signal_name} before a bound was proved", signal_name)
    b = latest[0]
    total = None if breaker is None else breaker.total
    said = verdict_text(b, against=against, against_total=total, first=first)
    if as_json:
        click.echo(json.dumps({"lower_bound": b.lower_bound, "verdict": said, "stopped": True}))
    else:
        click.echo(said)
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
