"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click
from click.core import ParameterSource

from evo.core.engine import MAX_WORKERS
from evo.core.files import FileWriteError, cache_dir, check_output
from evo.core.game import Game, GameTooLargeError, make_game
from evo.core.growth import POOLS
from evo.core.kinds import VARIANTS, WORDLE_KINDS

if TYPE_CHECKING:
    from evo.core.tree import Tree


class FinitePositive(click.ParamType):
    """A finite number above 0 (click's FloatRange lets NaN and infinity through: a NaN
    compares false with every limit and would turn it off)."""

    name = "float"

    def convert(self, value, param, ctx):
        from evo.core.numbers import positive

        try:
            return positive(float(value), what="the value")
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a finite number above 0", param, ctx)

    def get_metavar(self, param, ctx=None):  # click 8.1 and 8.2 call it with or without ctx
        return "FLOAT"


FINITE_POSITIVE = FinitePositive()


def _set_memory(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    from evo.core.numbers import budget_bytes

    ctx.meta["evo.memory"] = None if value is None else budget_bytes(value, what="--memory")


def game_options(f):
    """``--pegs``, ``--colors``, ``--game`` (or ``--variant``, its older name) and
    ``--memory``."""

    @click.option("--pegs", "-n", type=int, default=4, show_default=True, help="Pegs (N).")
    @click.option("--colors", "-c", type=int, default=6, show_default=True, help="Colors (C).")
    @click.option(
        "--game",
        "--variant",
        "variant",
        type=click.Choice(VARIANTS + WORDLE_KINDS),
        default="mastermind",
        show_default=True,
        help="The game: mastermind (colors may repeat), black-peg (Mastermind answered by "
        "black pegs alone), bulls-cows (distinct digits), wordle or wordle-hard (Wordle's "
        "2,315 answers and 12,972 guesses; no pegs or colors). --variant is its older name.",
    )
    @click.option(
        "--memory",
        type=FINITE_POSITIVE,
        default=None,
        metavar="GIB",
        expose_value=False,
        callback=_set_memory,
        help="GiB the game may use: its feedback table is kept only within it (beyond, "
        "feedbacks are computed where needed: the same results), and a game that needs "
        "more is refused. Default: 80% of the memory available, the table up to 2 GiB.",
    )
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    return wrapper


#: A seed: NumPy's ``SeedSequence`` takes whole numbers from 0 up.
SEED = click.IntRange(min=0)

pool_option = click.option(
    "--pool",
    type=click.Choice(POOLS),
    default="all",
    show_default=True,
    help="Guess pool of the growth: every code, or only the node's consistent codes.",
)


def _set_threads(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    from evo.core.engine import set_threads

    set_threads(value)
    return value


#: A count of local processes or threads: from 1 to :data:`evo.core.engine.MAX_WORKERS`
#: (``--workers``, ``--threads``), as a config's ``workers``.
WORKERS = click.IntRange(min=1, max=MAX_WORKERS)

threads_option = click.option(
    "--threads",
    type=WORKERS,
    default=None,
    expose_value=False,
    callback=_set_threads,
    help="Threads for one big search (a big node's candidates scored side by side; the same "
    "result). Default: $EVO_THREADS, else every core.",
)


class OutputFile(click.ParamType):
    """A file a command will write, checked as it is read from the command line, before
    any work (:func:`evo.core.files.check_output`: not empty, in a folder that exists,
    naming nothing or a regular file); a :class:`~pathlib.Path`."""

    name = "file"

    def convert(self, value, param, ctx) -> Path:
        try:
            return check_output(value)
        except FileWriteError as e:
            self.fail(e.strerror or str(e), param, ctx)

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        return [CompletionItem(incomplete, type="file")]  # the shell's own file names


class TreeOutputFile(OutputFile):
    """A tree file a command will write: an :class:`OutputFile` whose name is one
    :func:`~evo.core.treeio.save_tree` writes (not another compression's)."""

    def convert(self, value, param, ctx) -> Path:
        from evo.core.treeio import tree_form

        path = super().convert(value, param, ctx)
        try:
            tree_form(path)
        except FileWriteError as e:
            self.fail(e.strerror or str(e), param, ctx)
        return path


class OutputFolder(click.Path):
    """A folder a command will write into (made when missing), a
    :class:`~pathlib.Path`: an empty name is refused, as an empty file name is, rather
    than taken for the current folder."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value, param, ctx) -> Path:
        if isinstance(value, str) and value == "":
            self.fail("the folder name is empty (give . for the current folder)", param, ctx)
        return cast(Path, super().convert(value, param, ctx))  # a Path: its path_type


def open_game(pegs: int, colors: int, variant: str, trees: int = 1) -> Game:
    """``make_game`` with the machine's cache (``$EVO_CACHE`` or ``~/.cache/evo``), its
    errors turned into clean command-line errors."""
    ctx = click.get_current_context(silent=True)
    memory = None if ctx is None else ctx.meta.get("evo.memory")  # shared by nested contexts
    if variant in WORDLE_KINDS:
        for option in ("pegs", "colors"):
            if ctx is not None and ctx.get_parameter_source(option) not in (
                None,
                ParameterSource.DEFAULT,
            ):
                raise click.UsageError(
                    f"--{option} does not apply to {variant}: its words are fixed"
                )
        return make_game(variant, cache=cache_dir())
    try:
        return make_game(pegs, colors, variant, trees=trees, memory=memory, cache=cache_dir())
    except GameTooLargeError as e:
        hint = "" if memory is None else " (--memory)"
        raise click.ClickException(f"refused: {e}{hint}") from None
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def load_breaker(ctx: click.Context, source: str, pegs: int, colors: int, variant: str) -> Tree:
    """The tree of a file (or a run directory's best.json), or of a baseline named
    ``source`` for the game of ``--pegs``, ``--colors`` and ``--variant`` (a file is
    checked against them when they are given)."""
    from evo.core.treeio import TreeFileError, is_tree_name, load_tree

    path = Path(source)
    if path.is_dir():
        path = path / "best.json"
    given = any(
        ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT)
        for p in ("pegs", "colors", "variant")
    )
    if path.exists() or is_tree_name(source):  # a tree file, or one that cannot be read
        game = open_game(pegs, colors, variant) if given else None
        try:
            return load_tree(path, game=game, cache=cache_dir())
        except TreeFileError as e:
            raise click.ClickException(str(e)) from None
    game = open_game(pegs, colors, variant)
    from evo.baselines import BaselineRefused
    from evo.baselines.reference import OPTIMAL_SECONDS, reference_tree

    try:
        return reference_tree(game, source)
    except BaselineRefused as e:  # a baseline, but too long to compute here
        reason = e.reason.removeprefix("refused: ")
        raise click.ClickException(
            f"{source!r} of {game.name} is not cached and cannot be computed within "
            f"{OPTIMAL_SECONDS:g} s here: {reason}; `evo baselines --only {source} "
            f"--time-limit SECONDS` computes and caches it"
        ) from None
    except Exception as e:  # an unknown name
        raise click.ClickException(
            f"{source!r} is neither a tree file nor a baseline of this game: {e}"
        ) from None


def progress_bar(total: int, desc: str, enabled: bool = True):
    """A tqdm progress bar on standard error, silent when not a terminal or disabled."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="tree",
        file=sys.stderr,
        disable=not enabled or not sys.stderr.isatty(),
        leave=False,
    )


class FoundProgress:
    """``progress(found, total)`` of a tree being built, on standard error: the share of
    codes found, the time so far and, from 1% on, the time left at that pace. ``line`` is
    the text already written on the open line (such as ``[1/2] kooi...``): a terminal sees
    it rewritten each second, a log gets a line every ``every`` seconds, and
    :meth:`close` leaves ``line`` open again for what follows."""

    def __init__(self, line: str, *, every: float = 10.0):
        import time

        self.line = line
        self.clock = time.perf_counter
        self.start = self.clock()
        self.tty = sys.stderr.isatty()
        self.every = 1.0 if self.tty else every
        self.last = self.start
        self.shown = False

    def __call__(self, found: int, total: int) -> None:
        now = self.clock()
        if now - self.last < self.every or found >= total:
            return
        from evo.baselines.limits import duration_text  # only when a line is written

        self.last = now
        spent = now - self.start
        share = found / total if total else 1.0
        left = f", about {duration_text(spent / share - spent)} left" if share >= 0.01 else ""
        text = f"{self.line} {found:,} of {total:,} codes found ({share:.1%}), {spent:.0f} s{left}"
        if self.tty:
            click.echo("\r" + text + "\033[K", err=True, nl=False)
        else:
            click.echo(("" if self.shown else "\n") + text, err=True)
        self.shown = True

    def close(self) -> None:
        """Leave ``line`` open again (rewritten on a terminal, repeated in a log)."""
        if self.shown:
            click.echo(
                ("\r" if self.tty else "") + self.line + "\033[K" * self.tty, err=True, nl=False
            )


def format_table(headers: list[str], rows: list[list], align: str | None = None) -> str:
    """A plain-text table with right-aligned numbers (``align``: one of l/r per column)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "".join("l" if i == 0 else "r" for i in range(len(headers)))
    lines = []
    for k, r in enumerate(cells):
        lines.append(
            "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align))
        )
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


class Interrupted(click.ClickException):
    """A run or search stopped by a signal: exit status 128 + the signal's number, as shells use."""

    def __init__(self, message: str, signal_name: str):
        import signal

        super().__init__(message)
        self.exit_status = 128 + int(signal.Signals[signal_name])
