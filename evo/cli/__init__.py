"""The ``evo`` command line: one module per subcommand, imported only when it is needed.

``evo --help`` lists the commands from :data:`COMMANDS` without importing any of them, and
``evo CMD ...`` imports ``evo.cli.CMD`` alone, so no command pays for the libraries of
another (matplotlib, networkx, pydantic, deap, tqdm, graphviz).
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from typing import Any

import click

from evo import __version__
from evo.show.text import short_message

#: Each subcommand: the module of ``evo.cli`` defining a click command of the same name,
#: and the first line of that command's docstring, shown (shortened as click does) by
#: ``evo --help``. ``tests/test_cli_start.py`` checks that the lines match the docstrings.
COMMANDS: dict[str, str] = {
    "population": "Grow SIZE random breakers and print min, max, average and standard deviation of",
    "run": "Evolve breakers as CONFIG says: a YAML file, or the name of a config shipped with",
    "resume": "Continue the run in RUN_DIR from its checkpoint (with its config.yaml): the result",
    "render": "Draw TREE (a tree file such as best.json, a run directory, or a baseline name such",
    "report": "Write fitness.png, depths.png, best.svg, report.html and report.md into RUN_DIR.",
    "compare": "Compare the last generation of each RUN_DIR (best, average and highest total) with",
    "play": "Play TREE (a tree file, a run directory, a breaker evo ships such as wordle, or a",
    "baselines": "Build the classic strategies of a game and compare them: total, average, worst",
    "config": "Show a run config with every default filled in (keys: docs/CONFIG.md).",
    "explore": "Write an HTML page to walk TREE (a tree file, a run directory, or a baseline name",
    "table": "Print the strategy of TREE (a tree file, a run directory, or a baseline name with",
    "polish": "Improve TREE (a tree file, a run directory, or a baseline name with",
    "breakers": "List the best breakers evo ships, by name: each one's game, total, average, worst",
    "rank": "Rank every first guess of the game: the least total over all of them, proved (the",
    "bound": "Prove a lower bound on the least total of the game: no breaker, whatever its guesses",
}


#: Errors the user causes (a file, key or value they gave, the machine's limits): shown as
#: one line with exit status 2. Named, not imported, so that no command pays for the
#: modules of another; any other exception is a bug and shows its traceback.
USER_ERRORS = {
    "evo.config.base.ConfigError",
    "evo.runs.rundir.RunDirError",
    "evo.core.treeio.TreeFileError",
    "evo.core.tree.InvalidTreeError",
    "evo.runs.checkpoint.CheckpointError",
    "evo.core.game.GameTooLargeError",
    "evo.core.game.UnknownGameError",
    "evo.core.files.FileWriteError",
    "evo.core.files.LockedError",
    "evo.ea.cluster.ClusterError",
    "evo.baselines.limits.BaselineRefused",
    "evo.show.render.GraphvizMissing",
    "evo.search.spread.ResultsError",
    "evo.core.seal.SealKeyError",
}

#: Exit status of every user-caused error.
USER_ERROR_STATUS = 2

#: ``evo --debug`` or ``EVO_DEBUG=1``: user errors also show their traceback.
_debug = False


def is_user_error(e: BaseException) -> bool:
    """Whether ``e`` is an error of the user's input rather than a bug of evo."""
    if isinstance(e, click.ClickException):
        return True
    if isinstance(e, OSError) and e.filename is not None:
        return True  # a file the user named cannot be read or written
    return any(f"{c.__module__}.{c.__qualname__}" in USER_ERRORS for c in type(e).__mro__)


def one_line(e: BaseException) -> str:
    """The message of a user error on one line, safe for a terminal: control characters
    escaped (``\\x1b``) and long values cut (:func:`evo.show.text.short_message`)."""
    if isinstance(e, click.UsageError):
        text = e.format_message()
        if e.ctx is not None:
            text += f" (see: {e.ctx.command_path} --help)"
    elif isinstance(e, click.ClickException):
        text = e.format_message()
    elif callable(citing := getattr(e, "citing", None)):  # a refusal: what raises the limit
        text = str(citing("--time-limit"))
    elif isinstance(e, OSError) and e.filename is not None and type(e).__name__ != "FileWriteError":
        text = f"{e.filename}: {e.strerror or e}"
    elif isinstance(e, OSError):
        text = e.strerror or str(e)
    else:
        text = str(e)
    return short_message("; ".join(line.strip() for line in text.splitlines() if line.strip()))


class LazyGroup(click.Group):
    """A click group whose subcommands, named in :data:`COMMANDS`, are imported on use.
    It is also the command line's one error boundary (:meth:`main`)."""

    def main(self, args: Any = None, prog_name: Any = None, *a: Any, **kw: Any) -> Any:
        """Run the command line: a user error (:func:`is_user_error`) is printed as one line
        ``Error: ...`` with exit status 2; a bug shows its traceback."""
        if not kw.get("standalone_mode", True):
            return super().main(args, prog_name, *a, **kw)
        kw["standalone_mode"] = False
        try:
            status = super().main(args, prog_name, *a, **kw)
        except click.exceptions.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except Exception as e:
            if not is_user_error(e):
                raise
            if _debug or os.environ.get("EVO_DEBUG", "") not in ("", "0"):
                traceback.print_exc()
            click.echo(f"Error: {one_line(e)}", err=True)
            code = e.exit_code if isinstance(e, click.ClickException) else 1
            code = getattr(e, "exit_status", code)  # e.g. a run stopped by a signal
            sys.exit(code if code not in (0, 1) else USER_ERROR_STATUS)
        sys.exit(status if isinstance(status, int) else 0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module = importlib.import_module(f"{__name__}.{cmd_name}")
        command = getattr(module, cmd_name.replace("-", "_"))
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``evo --help``, from :data:`COMMANDS` alone."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in COMMANDS:  # shortened by click's rule, without importing the command
                rows.append(
                    (name, click.Command(name, help=COMMANDS[name]).get_short_help_str(limit))
                )
            elif not self.commands[name].hidden:
                rows.append((name, self.commands[name].get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="evo")
@click.option(
    "--debug", is_flag=True, help="Show the traceback of errors too (or set EVO_DEBUG=1)."
)
def main(debug: bool) -> None:
    """evo: evolve, polish and prove complete strategies (breaker trees) for games of
    guessing a secret: the Mastermind family (Mastermind, black-peg, Bulls and Cows),
    Wordle, and custom games defined in Python (--game FILE.py:FUNCTION)."""
    global _debug
    _debug = debug
    from evo.core.engine import MAX_WORKERS
    from evo.core.numbers import env_count

    try:  # read deep inside the kernels (numba's at its import): say it now
        for name in ("EVO_THREADS", "NUMBA_NUM_THREADS"):
            env_count(name, os.environ, high=MAX_WORKERS)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    if os.environ.get("NUMBA_NUM_THREADS", "1").strip() == "":  # numba warns, a traceback
        raise click.ClickException("NUMBA_NUM_THREADS is set but empty: unset it, or give a count")
