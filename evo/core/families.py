"""The registry of game families (docs/DESIGN.md §1): each family (the peg games, the
word games, the games made in Python) is registered by :mod:`evo.games` under the kinds
it answers to, with the module that makes its games, as pymoo's problem factory holds
its problems by name. :func:`evo.core.game.make_game` and the functions that read a
game's spec look a kind up here, so that nothing in ``evo.core`` imports a game. A
family's module loads when a game of it is first made: naming the families costs nothing
when ``evo`` starts.

A family's module defines ``make(pegs, colors, kind, *, trees, table, memory, cache)``
(a game as :func:`~evo.core.game.make_game` is asked for it), ``from_spec(spec, *,
cache, trees, memory)``, ``spec_key(spec)`` and ``spec_text(key)``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

#: How a family's games are named: by pegs and colors (``make_game(4, 6, "bulls-cows")``),
#: by their kind alone (``make_game("wordle")``), or only made in Python (a custom game).
Naming = Literal["pegs", "alone", "python"]


@dataclass(frozen=True)
class Family:
    """A family of games: the kinds it answers to (a spec's ``kind``, ``--game``), how its
    games are named, and the module that makes them (its functions: see the module)."""

    kinds: tuple[str, ...]
    naming: Naming
    module: str

    def load(self) -> ModuleType:
        """The family's module, imported on first use."""
        return importlib.import_module(self.module)


_FAMILIES: dict[str, Family] = {}


def register_family(kinds: tuple[str, ...], *, naming: Naming, module: str) -> Family:
    """Register a family under each of ``kinds``; a kind registered again names the
    last family registered under it."""
    family = Family(tuple(kinds), naming, module)
    for kind in family.kinds:
        _FAMILIES[kind] = family
    return family


def family_of(kind: object) -> Family | None:
    """The family registered under ``kind``, or None."""
    return _FAMILIES.get(kind) if isinstance(kind, str) else None


def registered_kinds(naming: Naming | None = None) -> tuple[str, ...]:
    """Every kind registered (only those of families named so), in the order registered."""
    return tuple(k for k, f in _FAMILIES.items() if naming is None or f.naming == naming)
