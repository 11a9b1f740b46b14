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


class GameName(click.ParamType):
    """``--game``: a game evo ships (:data:`~evo.core.kinds.VARIANTS`, Wordle's kinds), or
    a custom game named by the function that makes it, ``FILE.py:FUNCTION`` or
    ``MODULE:FUNCTION`` (:func:`custom_game_of`, called as the option is read: a wrong
    name is one line, exit status 2). The value stays the text given."""

    name = "game"
    choices: tuple[str, ...] = VARIANTS + WORDLE_KINDS

    def convert(self, value, param, ctx):
        if value in self.choices:
            return value
        if is_custom_name(value):
            try:
                custom_game_of(value)
            except click.ClickException as e:
                self.fail(e.format_message(), param, ctx)
            return value
        self.fail(
            f"{value!r} is not one of {', '.join(self.choices)}, nor a custom game "
            "(FILE.py:FUNCTION or MODULE:FUNCTION)",
            param,
            ctx,
        )

    def get_metavar(self, param, ctx=None):  # click 8.1 and 8.2 call it with or without ctx
        return "[" + "|".join(self.choices) + "|FILE.py:FUNCTION]"

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        return [CompletionItem(c) for c in self.choices if c.startswith(incomplete)]


GAME = GameName()


def is_custom_name(value: str) -> bool:
    """Whether a ``--game`` value names a custom game's function (``FILE.py:FUNCTION`` or
    ``MODULE:FUNCTION``) rather than a game evo ships."""
    target, sep, function = value.rpartition(":")
    return bool(sep and target and function)


def custom_game_of(name: str) -> Game:
    """The custom game the function ``name`` makes (:func:`_custom_game`), once per
    process for each file (named however) or module."""
    import os

    target, _, function = name.rpartition(":")
    if target.endswith(".py") or "/" in target or os.sep in target:
        target = os.path.abspath(target)
    return _custom_game(name, target, function)


@functools.cache
def _custom_game(name: str, target: str, function: str) -> Game:
    """The custom game the function ``name`` makes (``path/to/games.py:jotto``, or
    ``package.module:jotto`` imported as Python would from the current folder), called
    once per process: the user named the code to run. The game registers itself under
    its name (:func:`evo.custom_game`), so that its tree files load from then on. A
    missing file, module or function, or one that returns no game, is a
    :class:`click.UsageError` (one line)."""
    import importlib
    import importlib.util
    import os

    if not function.isidentifier():
        raise click.UsageError(f"{name}: {function!r} is not the name of a Python function")
    where = name
    if target.endswith(".py") or "/" in target or os.sep in target:
        path = Path(target)
        if not path.is_file():
            raise click.UsageError(f"{where}: no such file {name.rpartition(':')[0]}")
        module_name = "_evo_games_" + "".join(c if c.isalnum() else "_" for c in path.stem)
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise click.UsageError(f"{where}: {target} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # as an import would (dataclasses, pickling)
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(module_name, None)
            shown = name.rpartition(":")[0]
            raise click.UsageError(f"{where}: {shown} raised {type(e).__name__}: {e}") from e
    else:
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # a module of the current folder, as `python -m`
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as e:
            raise click.UsageError(f"{where}: no module named {e.name!r}") from None
        except Exception as e:
            raise click.UsageError(f"{where}: {target} raised {type(e).__name__}: {e}") from e
    made = getattr(module, function, None)
    if made is None:
        shown = name.rpartition(":")[0]
        raise click.UsageError(f"{where}: {shown} has no function {function!r}")
    if not isinstance(made, Game):
        if not callable(made):
            raise click.UsageError(f"{where}: {function} is neither a function nor a game")
        try:
            made = made()
        except Exception as e:
            raise click.UsageError(f"{where}: {function}() raised {type(e).__name__}: {e}") from e
    if not isinstance(made, Game):
        raise click.UsageError(
            f"{where}: {function}() returned {type(made).__name__}, not a game "
            "(return evo.custom_game(codes, feedback, name=...))"
        )
    return made


def _set_words(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--answers``/``--guesses``: the file kept for :func:`open_game` (read there, with
    the game)."""
    ctx.meta[f"evo.{param.name}"] = value


def word_files(ctx: click.Context | None) -> dict[str, str]:
    """The word list files given (``--answers``, ``--guesses``), by option."""
    if ctx is None:
        return {}
    return {k: ctx.meta[f"evo.{k}"] for k in ("answers", "guesses") if ctx.meta.get(f"evo.{k}")}


def game_options(f):
    """``--pegs``, ``--colors``, ``--game`` (or ``--variant``, its older name),
    ``--answers``, ``--guesses`` and ``--memory``."""

    @click.option("--pegs", "-n", type=int, default=4, show_default=True, help="Pegs (N).")
    @click.option("--colors", "-c", type=int, default=6, show_default=True, help="Colors (C).")
    @click.option(
        "--game",
        "--variant",
        "variant",
        type=GAME,
        default="mastermind",
        show_default=True,
        help="The game: mastermind (colors may repeat), black-peg (Mastermind answered by "
        "black pegs alone), bulls-cows (distinct digits), wordle or wordle-hard (Wordle's "
        "2,315 answers and 12,972 guesses, or --answers and --guesses; no pegs or colors), "
        "or a custom game: "
        "FILE.py:FUNCTION or MODULE:FUNCTION, a function of yours that returns "
        "evo.custom_game(...) (run as named; no pegs or colors). --variant is its older name.",
    )
    @click.option(
        "--answers",
        metavar="FILE",
        default=None,
        expose_value=False,
        callback=_set_words,
        help="With --game wordle or wordle-hard: the answers (the secrets), one five-letter "
        "word a line, any case (default: the 2,315 shipped). Every answer must be a guess.",
    )
    @click.option(
        "--guesses",
        metavar="FILE",
        default=None,
        expose_value=False,
        callback=_set_words,
        help="With --game wordle or wordle-hard: the allowed guesses, answers included "
        "(default: the 12,972 shipped).",
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
    if variant in WORDLE_KINDS or is_custom_name(variant):
        for option in ("pegs", "colors"):
            if ctx is not None and ctx.get_parameter_source(option) not in (
                None,
                ParameterSource.DEFAULT,
            ):
                what = "its words are" if variant in WORDLE_KINDS else "its codes are"
                raise click.UsageError(f"--{option} does not apply to {variant}: {what} fixed")
        if is_custom_name(variant):
            return custom_game_of(variant)
        return _wordle(variant, word_files(ctx))
    if word_files(ctx):
        given = " and ".join(f"--{k}" for k in word_files(ctx))
        verb = "apply" if len(word_files(ctx)) > 1 else "applies"
        raise click.UsageError(f"{given} {verb} to --game wordle or wordle-hard, not {variant}")
    try:
        return make_game(pegs, colors, variant, trees=trees, memory=memory, cache=cache_dir())
    except GameTooLargeError as e:
        hint = "" if memory is None else " (--memory)"
        raise click.ClickException(f"refused: {e}{hint}") from None
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _wordle(variant: str, files: dict[str, str]) -> Game:
    """Wordle in mode ``variant``, on the word list files given (a bad list is one line
    naming the file and line, exit status 2)."""
    if not files:
        return make_game(variant, cache=cache_dir())
    from evo.games.words import WordListError, wordle_game

    try:
        return wordle_game(variant == "wordle-hard", cache_dir(), **files)
    except WordListError as e:
        raise click.UsageError(str(e)) from None


def game_flags(game: Game, variant: str = "mastermind") -> str:
    """The options that name ``game`` on the command line (``--game wordle``, ``-n 5 -c 8``,
    ``--game games.py:jotto``), to write commands that work in messages."""
    from evo.games.pegs import peg_game

    pegs = peg_game(game)
    if pegs is not None:
        kind = "" if pegs.variant == "mastermind" else f" --game {pegs.variant}"
        return f"-n {pegs.pegs} -c {pegs.colors}{kind}"
    if is_custom_name(variant):
        return f"--game {variant}"
    lists = "".join(
        f" --{k} {v}" for k, v in word_files(click.get_current_context(silent=True)).items()
    )
    return f"--game {game.kind}{lists}"


def _command(ctx: click.Context) -> str:
    """The command under way as a user types it (``evo play``)."""
    return f"evo {ctx.info_name}"


def tree_path(source: str) -> Path | None:
    """The tree file ``source`` names: a file, a run directory's ``best.json``, or a
    breaker evo ships (``wordle``, ``mastermind-4-6.json``, ``breakers/wordle.json``
    when no such file is here: :mod:`evo.core.shipped`); None for none of these (a
    baseline's name). A shipped file left out of this package is a one-line error
    saying where it is."""
    from evo.core.shipped import shipped_breaker
    from evo.core.treeio import is_tree_name

    path = Path(source)
    if path.is_dir():
        return path / "best.json"
    if path.exists():
        return path
    shipped = shipped_breaker(source)
    if shipped is not None:
        if shipped.path is None:
            raise click.ClickException(f"{source}: {shipped.where}")
        return shipped.path
    return path if is_tree_name(source) else None


def game_given(ctx: click.Context) -> bool:
    """Whether the command line names a game (``--pegs``, ``--colors``, ``--game`` or word
    lists): else a file that names its own game is read as that game's."""
    return bool(word_files(ctx)) or any(
        ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT)
        for p in ("pegs", "colors", "variant")
    )


def load_breaker(ctx: click.Context, source: str, pegs: int, colors: int, variant: str) -> Tree:
    """The tree of a file (or a run directory's best.json, or a breaker evo ships, by
    name: ``wordle``), or of a baseline named ``source`` for the game of ``--pegs``,
    ``--colors`` and ``--game`` (a file is checked against them when they are given)."""
    from evo.core.treeio import TreeFileError, load_tree

    path = tree_path(source)
    given = game_given(ctx)
    if path is not None:  # a tree file, or one that cannot be read
        game = open_game(pegs, colors, variant) if given else None
        try:
            return load_tree(path, game=game, cache=cache_dir())
        except TreeFileError as e:
            message = str(e)
            if "is not defined in this process" in message:  # a custom game's tree
                message = message.split(": make it first")[0] + (
                    ": name the function that makes it, --game FILE.py:FUNCTION or "
                    "--game MODULE:FUNCTION"
                )
            raise click.ClickException(message) from None
    game = open_game(pegs, colors, variant)
    from evo.baselines import BaselineRefused
    from evo.baselines.reference import OPTIMAL_SECONDS, reference_tree

    try:
        return reference_tree(game, source)
    except BaselineRefused as e:  # a baseline, but too long to compute here
        reason = e.reason.removeprefix("refused: ")
        flags = game_flags(game, variant)
        raise click.ClickException(
            f"{source!r} of {game.name} is not cached and cannot be computed within "
            f"{OPTIMAL_SECONDS:g} s here: {reason}; {_instead(ctx, game, source, flags)}"
            f"`evo baselines {flags} --only {source} --time-limit SECONDS` computes and "
            "caches it"
        ) from None
    except Exception as e:  # an unknown name
        raise click.ClickException(
            f"{source!r} is neither a tree file nor a baseline of this game: {e}"
        ) from None


#: What else works for a game whose exact optimum is too long to compute: its opening
#: polished, and the bound that proves it (``evo bound --first``).
_OPENINGS = {"wordle": "salet", "wordle-hard": "salet"}


def _instead(ctx: click.Context, game: Game, source: str, flags: str) -> str:
    """What works instead of a baseline refused: the breaker evo ships for the game, and
    for Wordle the polish that rebuilds it and the bound that proves it (ending "; ")."""
    from evo.core.shipped import best_shipped

    said = []
    best = best_shipped(game.key)
    if best is not None:
        said.append(
            f"the best breaker evo ships, {best.name} ({best.short_status}: {best.total}), "
            f"is `{_command(ctx)} {best.name}`"
        )
    first = _OPENINGS.get(game.kind)
    if source == "optimal" and first is not None:
        said.append(
            f"`evo polish {first}+kooi {flags} --band 3:300:all -o best.json` builds it from "
            f"{first.upper()}, `evo bound {flags} --first {first}` proves that opening's optimum"
        )
    return "".join(f"{line}; " for line in said)


def default_tree(game: Game) -> str:
    """The name of the best breaker evo ships for ``game``, for a command given no
    TREE; a usage error when none is shipped."""
    from evo.core.shipped import best_shipped

    best = best_shipped(game.key)
    if best is None:
        raise click.UsageError(
            f"give TREE: evo ships no breaker of {game.name} (`evo breakers` lists them; a "
            "baseline name such as knuth or entropy works for any game)"
        )
    return best.name


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
