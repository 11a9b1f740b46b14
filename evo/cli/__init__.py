"""The ``evo`` command line: one module per subcommand, imported only when it is needed.

``evo --help`` lists the commands from :data:`COMMANDS` without importing any of them, and
``evo CMD ...`` imports ``evo.cli.CMD`` alone, so no command pays for the libraries of
another (matplotlib, networkx, pydantic, deap, tqdm, graphviz).
"""

from __future__ import annotations

import importlib

import click

#: Each subcommand: the module of ``evo.cli`` defining a click command of the same name,
#: and the first line of that command's docstring, shown (shortened as click does) by
#: ``evo --help``. ``tests/test_cli_start.py`` checks that the lines match the docstrings.
COMMANDS: dict[str, str] = {
    "population": "Grow SIZE random breakers and print min, max, average and standard deviation of",
    "run": "Evolve breakers as CONFIG (a YAML file, see configs/) says. Writes",
    "resume": "Continue the run in RUN_DIR from its checkpoint (with its config.yaml): the result",
    "render": "Draw TREE (a tree file such as best.json, a run directory, or a baseline name such",
    "report": "Write fitness.png, depths.png, best.svg, report.html and report.md into RUN_DIR.",
    "compare": "Compare the last generation of each RUN_DIR (best, average and worst total) with",
    "play": "Play TREE (a tree file, a run directory, or a baseline name with --pegs/--colors):",
    "baselines": "Build the classic strategies of a game and compare them: total, average, worst",
    "table": "Print the strategy of TREE.json, one row per decision point: the move, the "
    "feedback history",
}


class LazyGroup(click.Group):
    """A click group whose subcommands, named in :data:`COMMANDS`, are imported on use."""

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
@click.version_option(package_name="evo")
def main() -> None:
    """evo: evolve complete strategies (breaker trees) for Mastermind-family games."""
