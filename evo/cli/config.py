"""``evo config``: look at run configs (every key is listed in docs/CONFIG.md)."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def config() -> None:
    """Show a run config with every default filled in (keys: docs/CONFIG.md)."""


@config.command()
@click.argument("config_file", metavar="CONFIG", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a config key, e.g. --set population.size=200 (repeatable).",
)
def show(config_file: Path, overrides: tuple[str, ...]) -> None:
    """Print CONFIG (a YAML file, or the name of one of evo's, such as quick) as a run
    reads it: checked, with --set applied and every key that it leaves out at its
    default."""
    from evo.config import load_config

    click.echo(load_config(config_file, overrides).to_yaml(), nl=False)


@config.command(name="list")
def list_() -> None:
    """List the configs shipped with evo: ``evo run NAME`` runs one from any folder."""
    from evo.config import load_config, shipped_configs

    for name, path in sorted(shipped_configs().items()):
        click.echo(f"{name:28} {game_text(load_config(path).game)}  {path}")


def game_text(game) -> str:
    """A config's game in a few words: ``mastermind 4 pegs, 6 colors``, ``wordle``, ``the
    custom game 'animals'`` (Wordle's and a custom game's codes are not pegs and colors)."""
    from evo.core.kinds import WORDLE_KINDS

    if game.kind in WORDLE_KINDS:
        return game.kind
    if game.kind == "custom":
        return f"the custom game {game.name!r}"
    return f"{game.kind} {game.pegs} pegs, {game.colors} colors"
