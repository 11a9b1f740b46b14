"""The vocabulary shared by the config and the code: each list of names defined once.

The config's pydantic models use the ``Literal`` types; the code checks and iterates
over the tuples derived from them, so a new name is added in one place.
"""

from __future__ import annotations

from typing import Literal, get_args

#: Guesses considered at a node: every code, or only the node's own (consistent) codes.
Pool = Literal["all", "consistent"]
POOLS: tuple[str, ...] = get_args(Pool)

#: Guesses an operator's exact search tries: every code, only the codes still possible,
#: or those plus the few best impossible ones (by the search's bound).
ExactGuesses = Literal["all", "consistent", "mixed"]
EXACT_GUESSES: tuple[str, ...] = get_args(ExactGuesses)

#: The most impossible guesses a ``mixed`` search tries at a node (its ``impossible``).
MAX_IMPOSSIBLE = 100

#: How an operator picks a node: uniformly, or weighted by its code set's size or its root.
NodeWeight = Literal["uniform", "size", "sqrt"]
NODE_WEIGHTS: tuple[str, ...] = get_args(NodeWeight)

#: One-step look-ahead scores: Knuth's largest part, Irving's expected size, Kooi's most
#: parts, entropy.
Heuristic = Literal["knuth", "irving", "kooi", "entropy"]
HEURISTICS: tuple[str, ...] = get_args(Heuristic)

#: Games of the Mastermind family: Mastermind (colors may repeat), black-peg Mastermind
#: (answered by black pegs alone) and Bulls and Cows (digits do not repeat).
Variant = Literal["mastermind", "black-peg", "bulls-cows"]
VARIANTS: tuple[str, ...] = get_args(Variant)

#: Wordle, in normal and hard mode (:mod:`evo.games.words`).
WordleKind = Literal["wordle", "wordle-hard"]
WORDLE_KINDS: tuple[str, ...] = get_args(WordleKind)

#: The kinds of game a config or ``--game`` names: the Mastermind family, Wordle, and
#: ``custom`` (a game defined in Python, :func:`evo.custom_game`, found by its name).
GameKind = Literal["mastermind", "black-peg", "bulls-cows", "wordle", "wordle-hard", "custom"]
GAME_KINDS: tuple[str, ...] = get_args(GameKind)
