"""``evo play``: play a breaker against a secret you think of (or show a secret's path)."""

from __future__ import annotations

import sys

import click

from evo.cli.common import default_tree, game_options, load_breaker, open_game
from evo.show.play import play_loop, secret_lines


def _read_line(prompt: str) -> str | None:
    """Print the prompt, read one line (None at the end of input); echo piped answers so
    the transcript reads like a dialogue."""
    click.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        click.echo()
        return None
    if not sys.stdin.isatty():
        click.echo(line.rstrip("\n"))
    return line


@click.command()
@click.argument("tree", metavar="[TREE]", required=False)
@click.option("--secret", default=None, help="Show the game path of this code, e.g. 5512.")
@game_options
@click.pass_context
def play(ctx, tree, secret, pegs, colors, variant) -> None:
    """Play TREE (a tree file, a run directory, a breaker evo ships such as wordle, or a
    baseline name with --pegs/--colors; by default the best breaker evo ships of the game):
    think of a secret and answer each guess with its feedback (black and white pegs in
    Mastermind: 1B 2W, 1,2 or 1 2; black pegs alone with --game black-peg: 1B or 1; the
    colours in Wordle: GYBBG, the squares, or 2 1 0 0 2 with 2 green, 1 yellow, 0 grey);
    'undo' takes back an answer, 'quit' leaves."""
    if tree is None:
        tree = default_tree(open_game(pegs, colors, variant))
    breaker = load_breaker(ctx, tree, pegs, colors, variant)
    game = breaker.game
    if secret is not None:
        try:
            code = game.parse_code(secret)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--secret") from None
        if code >= game.num_codes:  # a guess that is no secret (Wordle's other words)
            raise click.BadParameter(
                f"{secret!r} is a guess but not a secret: {game.secret_help}",
                param_hint="--secret",
            )
        for line in secret_lines(breaker, code):
            click.echo(line)
        return
    click.echo(
        f"Think of a secret, {game.secret_help}; answer each guess with {game.feedback_help}."
    )
    pos = play_loop(breaker, read=_read_line, write=click.echo)
    if not pos.solved:
        sys.exit(1)
