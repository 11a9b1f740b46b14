"""evo: evolve, polish and prove complete strategies (breaker trees) for guessing games:
the Mastermind family, Wordle, and custom games.

A strategy is a tree: a guess at each node, one branch per feedback. evo grows random
trees, evolves them with DEAP against the total number of guesses over all secret codes,
and measures them against the classic strategies, from Knuth's to the exact optimum::

    import evo

    game = evo.make_game(pegs=4, colors=6)           # or "black-peg", "bulls-cows"
    knuth = evo.baseline(game, "knuth")              # a Breaker: total 5801, worst 5
    first = evo.random_breaker(game, seed=1)         # random path completion
    result = evo.evolve(game, seed=1, seconds=60)    # defaults that follow the game's size
    result.best.total, result.logbook.select("min")  # the best breaker, DEAP's logbook
    result.best.render("best.svg", depth=2)          # Graphviz; in Jupyter it draws itself
    evo.save_tree(result.best, "best.json")          # read back with evo.load_tree

A tree (:class:`Breaker`) has ``total``, ``average``, ``worst``, ``histogram``,
``to_networkx()``, ``to_dataframe()`` and ``render()``; :func:`logbook_dataframe` makes a
pandas DataFrame of a logbook. A game of your own is a list of codes and a feedback
function (:func:`custom_game`), evolved, bounded and drawn like the games evo ships.
Operators of your own are plain functions registered with
:func:`register_operator` and named in a config, as DEAP's toolbox registers them, built
from the pieces of :mod:`evo.ops`. Library calls write nothing unless asked
(``run_dir=``, ``cache=``, :func:`save_tree`).

The names below load on first use, so that ``import evo`` (and the ``evo`` command)
starts fast. The packages inside (``evo.core``, ``evo.games``, ``evo.search``,
``evo.baselines``, ``evo.ea``, ``evo.runs``, ``evo.show``, ``evo.config``) are for
those who extend evo:
`their reference <internals/index.html>`_ is apart.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import evo.games  # noqa: F401  (the game families register themselves: no game loads yet)

if TYPE_CHECKING:
    from evo import ops
    from evo.api import (
        BaselineRefused,
        BoundResult,
        Breaker,
        Config,
        Evolution,
        Game,
        Polish,
        State,
        TableRow,
        baseline,
        bound,
        custom_game,
        default_config,
        evolve,
        load_config,
        load_tree,
        logbook_dataframe,
        make_game,
        polish,
        random_breaker,
        register_operator,
        register_selection,
        save_tree,
        steps,
        table,
    )

#: The public names, in the order a user meets them (the API reference follows it): a game,
#: the classic strategies and random breakers, evolution and its result, trees and their
#: files, configs, operators of one's own, then what a run may raise and the pieces.
__all__ = [
    "make_game",
    "baseline",
    "random_breaker",
    "evolve",
    "custom_game",
    "bound",
    "BoundResult",
    "rank",
    "Ranking",
    "polish",
    "Polish",
    "table",
    "TableRow",
    "Evolution",
    "Breaker",
    "save_tree",
    "load_tree",
    "steps",
    "State",
    "default_config",
    "Config",
    "load_config",
    "logbook_dataframe",
    "register_operator",
    "register_selection",
    "Game",
    "BaselineRefused",
    "ops",
]

#: The version of evo (the distribution ``evo-breakers``), in one place.
__version__ = "0.2.0"


def __getattr__(name: str) -> Any:
    """The public names, imported from :mod:`evo.api` when first asked for."""
    if name == "ops":
        value: Any = importlib.import_module("evo.ops")
        globals()[name] = value
        return value
    if name in __all__:
        value = getattr(importlib.import_module("evo.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'evo' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
