"""The best breakers evo ships: the tree files of the checkout's ``breakers/`` folder,
packaged as ``evo.data.breakers`` (one copy: pyproject.toml maps that package to the
folder), so that a player names them (``evo play wordle``, ``evo render mastermind-5-8``)
from any folder and from an installed wheel.

What each one is comes from two places, both kept in the folder: its game and figures
from its file's document (read up to its nodes, not built), its status and the game in
words from the table of ``breakers/README.md``. The gzip-compressed files of the biggest
games (``.json.gz``, 10 MB together) are left out of the wheel to keep it small: they are
named here, with where to get them (:data:`SOURCE`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.core.files import json_head
from evo.core.game import spec_key

#: The package that holds the shipped breakers (the checkout's ``breakers/``).
PACKAGE = "evo.data.breakers"

#: Where the files left out of the wheel (the ``.json.gz`` ones) are, to download.
SOURCE = "https://github.com/evo-breakers/evo/tree/main/breakers"

#: The table of the folder's README that describes each file.
INDEX = "README.md"

#: Bytes read from the start of a shipped file to find its game and summary.
_HEAD_BYTES = 1 << 16


@dataclass(frozen=True)
class ShippedBreaker:
    """A breaker evo ships: ``name`` (the file's name without its suffix, what a player
    types), ``file``, the game in words, its figures, its status (optimal, record, best
    known: README's words) and ``path``, None when this copy of evo leaves it out."""

    name: str
    file: str
    game: str
    total: int
    average: float
    worst: int
    status: str
    path: Path | None

    @property
    def short_status(self) -> str:
        """The status without its sources: ``optimal``, ``optimal (of worst case 5)``,
        ``record``, ``best known``."""
        head, _, rest = self.status.partition(" (")
        if rest.startswith("of worst case"):
            return f"{head} ({rest.split(';')[0].rstrip(')')})"
        return head

    @property
    def where(self) -> str:
        """Where the file is: its path, or where to get it when it is left out."""
        if self.path is not None:
            return str(self.path)
        return f"not in this package ({self.file}, gzip-compressed, is in {SOURCE})"


def breakers_folder() -> Path | None:
    """The folder of the shipped breakers: the package's, else a checkout's ``breakers/``
    (an editable install made before the package was listed); None when neither is."""
    from importlib.resources import files

    try:  # a data-only package is a namespace one: its folder is that of a file in it
        folder = Path(str(files(PACKAGE).joinpath(INDEX))).parent
    except (ModuleNotFoundError, TypeError):
        folder = Path(__file__).resolve().parents[2] / "breakers"
    return folder if (folder / INDEX).is_file() else None


def _rows(text: str) -> list[list[str]]:
    """The rows of the README's table of files: the cells of each line whose first cell
    names a tree file (``file | game | total | average | worst | status | found by``)."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and cells[0].endswith((".json", ".json.gz")) and cells[2].isdigit():
            rows.append(cells)
    return rows


@functools.cache
def shipped_breakers() -> tuple[ShippedBreaker, ...]:
    """Every breaker the README's table lists, in its order (the files of this copy of
    evo with their path, the others with none)."""
    folder = breakers_folder()
    if folder is None:
        return ()
    out = []
    for cells in _rows((folder / INDEX).read_text(encoding="utf-8")):
        file = cells[0]
        path = folder / file
        name = file.removesuffix(".gz").removesuffix(".json")
        out.append(
            ShippedBreaker(
                name=name,
                file=file,
                game=cells[1],
                total=int(cells[2]),
                average=float(cells[3]),
                worst=int(cells[4]),
                status=cells[5],
                path=path if path.is_file() else None,
            )
        )
    return tuple(out)


def shipped_breaker(source: str) -> ShippedBreaker | None:
    """The shipped breaker ``source`` names: its name (``wordle``), its file's name
    (``wordle.json``) or the file in the checkout's folder (``breakers/wordle.json``, so
    that the README's commands work from any folder); None for another."""
    path = Path(source)
    if len(path.parts) > 2 or (len(path.parts) == 2 and path.parts[0] != "breakers"):
        return None
    for b in shipped_breakers():
        if path.name in (b.name, b.file):
            return b
    return None


def document_head(path: Path) -> dict[str, Any]:
    """The members of a shipped file's document before its nodes (its game and summary),
    read from its start."""
    import gzip

    with (gzip.open if path.name.endswith(".gz") else open)(path, "rb") as f:
        start = f.read(_HEAD_BYTES)
    text = start.decode("utf-8", errors="ignore")
    members, _ = json_head(text, stop="root", where=str(path), error=ValueError)
    return members or {}


def best_shipped(key: tuple) -> ShippedBreaker | None:
    """The shipped breaker of least total (then worst case) of the game whose
    :attr:`~evo.core.game.Game.key` is ``key``, in this copy of evo; None for none."""
    found = []
    for b in shipped_breakers():
        if b.path is None:
            continue
        try:
            theirs = spec_key(document_head(b.path).get("game"))
        except (ValueError, json.JSONDecodeError):
            continue
        if theirs == key:
            found.append(b)
    return min(found, key=lambda b: (b.total, b.worst), default=None)
