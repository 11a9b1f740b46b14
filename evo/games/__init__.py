"""The games evo ships, one module per family over the interface of :mod:`evo.core.game`:
:mod:`~evo.games.pegs` (Mastermind, black-peg Mastermind, Bulls and Cows),
:mod:`~evo.games.words` (Wordle and its hard mode) and :mod:`~evo.games.custom` (any
game from a list of codes and a feedback function, defined in Python). Each family is
registered here under the kinds it answers to (:mod:`evo.core.families`), its module
loaded when a game of it is first made, so that ``import evo`` stays quick."""

from __future__ import annotations

from evo.core.families import register_family
from evo.core.kinds import VARIANTS, WORDLE_KINDS

register_family(VARIANTS, naming="pegs", module="evo.games.pegs")
register_family(WORDLE_KINDS, naming="alone", module="evo.games.words")
register_family(("custom",), naming="python", module="evo.games.custom")
