"""The ``evo`` command line: one module per subcommand, registered here."""

from __future__ import annotations

import importlib

import click

#: Subcommand modules of ``evo.cli``; each defines a click command of the same name.
COMMANDS = (
    "population",
    "run",
    "resume",
    "render",
    "report",
    "compare",
    "play",
    "baselines",
    "table",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="evo")
def main() -> None:
    """evo: evolve complete strategies (breaker trees) for Mastermind-family games."""


for _name in COMMANDS:
    _module = importlib.import_module(f"evo.cli.{_name}")
    main.add_command(getattr(_module, _name.replace("-", "_")))
