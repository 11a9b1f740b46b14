import click


@click.group()
def main() -> None:
    """evo."""
