"""The baselines' names: which exist, which a game shows by default, and their parsing
into a canonical form (openings with their codes as printed), in one place.

Names: ``knuth``, ``irving``, ``kooi``, ``entropy`` and their ``-consistent`` forms;
``lc``, ``rc`` (seeded); openings such as ``5463+lc``, ``1123+2245+rc`` or ``11223+entropy``;
``human-friendly`` and ``extended`` (Goel and Garg's Bulls and Cows players, with
``-stable`` forms for the other tie order) and evo's variants of them, ``least-frequent``
and ``separating``; ``easy`` and ``advanced`` (the write-up's human Mastermind
strategies); ``optimal`` and ``optimal-consistent``.
"""

from __future__ import annotations

from evo.core.game import Game
from evo.core.kinds import HEURISTICS
from evo.games.pegs import peg_game

#: The one-step look-ahead baselines: each heuristic, and its consistent-only form.
LOOKAHEAD: tuple[str, ...] = tuple(f"{s}{c}" for s in HEURISTICS for c in ("", "-consistent"))
#: Bulls and Cows players: the paper's, then evo's variants of them.
HUMAN: tuple[str, ...] = ("human-friendly", "extended", "least-frequent", "separating")
#: The paper's players with the stable tie order (not shown by default).
PAPER_STABLE: tuple[str, ...] = ("human-friendly-stable", "extended-stable")
#: The write-up's human Mastermind strategies.
EASY: tuple[str, ...] = ("easy", "advanced")
NAMES: tuple[str, ...] = (
    LOOKAHEAD + ("lc", "rc") + HUMAN + PAPER_STABLE + EASY + ("optimal", "optimal-consistent")
)
#: Games of at most this many codes show ``optimal-consistent`` by default (it takes
#: about 2 s on (4,6), 1,296 codes).
CONSISTENT_OPTIMUM_UP_TO = 1296
#: What may follow an opening: LC, RC, or a one-step rule.
_FOLLOWERS = ("lc", "rc") + LOOKAHEAD


def default_names(game: Game) -> list[str]:
    """What ``evo baselines`` runs without ``--only``: the one-step strategies, LC, RC,
    the human players of the game (Bulls and Cows', Mastermind's), the optimum and, for
    games of at most :data:`CONSISTENT_OPTIMUM_UP_TO` codes, the consistent optimum."""
    names = list(LOOKAHEAD) + ["lc", "rc"]
    names += {"bulls-cows": list(HUMAN), "mastermind": list(EASY)}.get(game.kind, [])
    names.append("optimal")
    if game.num_codes <= CONSISTENT_OPTIMUM_UP_TO:
        names.append("optimal-consistent")
    return names


def parse_name(game: Game, name: str) -> str:
    """The canonical form of a baseline name (openings with codes as printed)."""
    if not isinstance(name, str):
        raise ValueError(f"a baseline name is a string such as 'knuth', not {name!r}")
    text = name.strip().lower()
    if text in EASY and game.kind != "mastermind":
        raise ValueError(
            f"{text} is a Mastermind strategy (black and white pegs), not for {game.name}"
        )
    if text in HUMAN[:2] + PAPER_STABLE and game.kind != "bulls-cows":
        raise ValueError(f"{text} is a Bulls and Cows player, not for {game.name}")
    if text in HUMAN[2:] and peg_game(game) is None:
        raise ValueError(f"{text} plays pegs of colors or digits, which {game.name} has not")
    if text in NAMES:
        return text
    if "+" in text:
        *codes, then = text.split("+")
        if then not in _FOLLOWERS:
            raise ValueError(
                f"opening {name!r} should end with +lc, +rc or a one-step rule such as +kooi"
            )
        try:
            guesses = [game.parse_code(c) for c in codes]
        except ValueError as e:
            raise ValueError(f"opening {name!r}: {e}") from None
        if len(set(guesses)) != len(guesses):
            raise ValueError(f"opening {name!r} repeats a guess")
        return "+".join([game.format_code(g) for g in guesses] + [then])
    raise ValueError(
        f"unknown baseline {name!r}; choose from {', '.join(NAMES)}, or an opening such as "
        f"{game.format_code(game.num_codes // 3)}+lc"
    )


def parse_names(game: Game, text: str) -> list[str]:
    """Comma-separated names, canonical, without duplicates, in the order given."""
    out: list[str] = []
    for part in text.split(","):
        if part.strip():
            name = parse_name(game, part)
            if name not in out:
                out.append(name)
    if not out:
        raise ValueError("no baseline named")
    return out


def seeded(name: str) -> bool:
    """Whether the canonical name is a random form (``rc``, an opening ``+rc``), whose
    tree depends on a seed."""
    return name == "rc" or name.endswith("+rc")


def one_step(name: str) -> tuple[list[str], str, bool] | None:
    """A canonical name played by a one-step rule (``kooi``, ``112233+kooi-consistent``):
    its opening's printed codes, the heuristic and whether it is the consistent form;
    None for the other baselines."""
    *codes, rule = name.split("+")
    if rule not in LOOKAHEAD:
        return None
    heuristic, _, rest = rule.partition("-")
    return codes, heuristic, rest == "consistent"
