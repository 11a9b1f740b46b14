"""The operator entries of a config: one model per built-in crossover and mutation
(its parameters, bounds and meaning), and those registered from Python by name.

A config names an operator by ``kind``; the entry's other keys are the keyword
parameters of its function (``evo.ea.operators`` holds the functions). Operators
registered from Python (``evo.register_operator``) are known here by name only, with
the keyword parameters a config may give them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from evo.config.base import ConfigModel
from evo.core.kinds import MAX_IMPOSSIBLE, ExactGuesses, Heuristic, NodeWeight


class GraftConfig(ConfigModel):
    """Subtree graft: a node takes the other parent's aligned subtree (or a random one,
    replayed on its code set)."""

    kind: Literal["graft"]
    """the operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked: uniformly, or weighted by its code set's size or its square root"""


class ExchangeConfig(ConfigModel):
    """Uniform exchange of aligned subtrees; with probability ``bias`` the first offspring
    takes the better subtree at a divergence point."""

    kind: Literal["exchange"]
    """the operator"""
    bias: float = Field(0.0, ge=0, le=1)
    """probability that the first offspring takes the better subtree at a divergence point"""


class RegrowConfig(ConfigModel):
    """Another helpful guess at a node, its subtree regrown at random."""

    kind: Literal["regrow"]
    """the operator"""
    weight: float = Field(1.0, ge=0)
    """relative probability of this operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked: uniformly, or weighted by its code set's size or its square root"""


class BestOfKConfig(ConfigModel):
    """``k`` random regrows of a node's subtree, the best kept."""

    kind: Literal["best-of-k"]
    """the operator"""
    weight: float = Field(1.0, ge=0)
    """relative probability of this operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked"""
    k: int = Field(4, ge=1)
    """random regrows tried"""
    keep_current: bool = True
    """keep the current subtree when every try is worse"""


class GreedyConfig(ConfigModel):
    """A node's subtree rebuilt by one-step look-ahead, ``tries`` root guesses drawn from the
    ``top`` best; code sets of at most ``exact_below`` codes solved exactly; only nodes of
    at most ``max_codes`` codes (when set) are rebuilt."""

    kind: Literal["greedy"]
    """the operator"""
    weight: float = Field(1.0, ge=0)
    """relative probability of this operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked"""
    heuristic: Heuristic = "kooi"
    """the one-step look-ahead score: Knuth's largest part, Irving's expected size, Kooi's most
    parts, or entropy"""
    tries: int = Field(2, ge=1)
    """root guesses tried (the best one, and others from the top)"""
    top: int = Field(6, ge=1)
    """how many of the best-ranked guesses the tries are drawn from"""
    exact_below: int = Field(0, ge=0, le=300)
    """code sets of at most this many codes are solved exactly; `auto`: 300, scaled down in
    proportion for games of more than 5040 codes (46 for 5 pegs and 8 colors)"""
    keep_current: bool = True
    """keep the current subtree when every try is worse"""
    max_codes: int | None = Field(None, ge=3)
    """only nodes of at most this many codes are rebuilt (null: any)"""
    min_codes: int = Field(3, ge=3)
    """only nodes of at least this many codes are rebuilt"""
    max_depth: int | None = Field(None, ge=1)
    """only nodes at most this many guesses from the root are rebuilt (1: the root; null: any)"""
    sweep: bool = False
    """rebuild every node of `min_codes` to `max_codes` codes that no other contains, not one
    node at random: the tree improved all over at once (a local search)"""
    keep_depth: bool = False
    """the exact search below keeps within the current subtree's depth (when it can), so the
    worst case does not grow there: for the worst-case objective of `nsga2`"""
    mixed_below: int = Field(0, ge=0, le=5000)
    """code sets larger than `exact_below` and of at most this many codes are solved exactly
    among the codes still possible and the `impossible` best other guesses (0: none)"""
    impossible: int = Field(2, ge=1, le=MAX_IMPOSSIBLE)
    """for `mixed_below`: how many of the best bounds of impossible guesses are tried"""

    @model_validator(mode="after")
    def _sizes(self) -> GreedyConfig:
        if self.max_codes is not None and self.min_codes > self.max_codes:
            raise ValueError(f"min_codes ({self.min_codes}) is above max_codes ({self.max_codes})")
        return self


class ExhaustiveConfig(ConfigModel):
    """A subtree of at most ``max_codes`` codes replaced by an optimal one. The search's
    cost grows fast with the code set: for (4,6), milliseconds up to ~20 codes, up to
    seconds at 40 to 80 (the first time; results are memoised per process)."""

    kind: Literal["exhaustive"]
    """the operator"""
    weight: float = Field(1.0, ge=0)
    """relative probability of this operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked"""
    max_codes: int = Field(10, ge=3, le=5000)
    """largest code set replaced by an optimal subtree; `auto`: as greedy's `exact_below`"""
    min_codes: int = Field(3, ge=3)
    """smallest code set picked (larger sets are where a costly search pays)"""
    max_depth: int | None = Field(None, ge=1)
    """only nodes at most this many guesses from the root (2: the parts after the first
    guess, which symmetric first guesses share; null: any)"""
    keep_depth: bool = False
    """the best subtree no deeper than the current one (the worst case kept there), rather than
    the best of any depth"""
    guesses: ExactGuesses = "all"
    """the guesses the search tries: every code (`all`, optimal), the codes still possible
    (`consistent`: cheap, from hundreds to thousands of codes), or those and the `impossible`
    best others by the search's bound (`mixed`: near the optimum, for hundreds of codes)"""
    impossible: int = Field(2, ge=1, le=MAX_IMPOSSIBLE)
    """with `mixed`: how many of the best bounds of impossible guesses are tried"""
    sweep: bool = False
    """solve every node of `min_codes` to `max_codes` codes that no other contains, not one
    node at random: the tree improved all over at once (a local search; the search's memo
    keeps what it found for the next trees)"""
    shallower: bool = False
    """pick a node under which some code needs the tree's worst case and give it the best
    subtree one guess shorter than its own, when there is one: fewer codes at the worst
    case (for `selection.at_worst`)"""
    fewest_last: bool = False
    """with the run's `max_guesses`: of the subtrees of least total, the one with the fewest
    codes at that guess (fewer codes at the worst case at no cost, for `selection.at_worst`)"""

    @model_validator(mode="after")
    def _sizes(self) -> ExhaustiveConfig:
        if self.min_codes > self.max_codes:
            raise ValueError(f"min_codes ({self.min_codes}) is above max_codes ({self.max_codes})")
        return self


class RegisteredCrossoverConfig(ConfigModel):
    """An operator registered from Python (``evo.register_operator``): its ``kind`` and
    the other keyword parameters of its function."""

    model_config = ConfigDict(extra="allow")
    kind: str
    """the name it was registered under"""

    @model_validator(mode="after")
    def _params(self) -> RegisteredCrossoverConfig:
        _, keywords = REGISTERED[self.kind]
        unknown = sorted(set(self.model_extra or {}) - keywords) if keywords is not None else []
        if unknown:
            allowed = ", ".join(sorted(keywords or ())) or "none"
            raise ValueError(
                f"{self.kind} takes no parameter {', '.join(unknown)}; its parameters: {allowed}"
            )
        return self

    def params(self) -> dict[str, Any]:
        """The keyword parameters this entry gives the function."""
        return dict(self.model_extra or {})


class RegisteredMutationConfig(RegisteredCrossoverConfig):
    """A mutation registered from Python (``evo.register_operator``): its ``kind``, its
    ``weight`` and the other keyword parameters of its function."""

    weight: float = Field(1.0, ge=0)
    """relative probability of this operator"""


#: Operators and selections registered from Python: name -> (role: ``crossover``,
#: ``mutation`` or ``selection``; the keyword parameters a config may set, None for
#: any). Filled by ``evo.ea.operators.register_operator`` and ``register_selection``.
REGISTERED: dict[str, tuple[str, set[str] | None]] = {}

#: The operators evo defines, by role.
BUILTIN_CROSSOVERS: dict[str, type[BaseModel]] = {"graft": GraftConfig, "exchange": ExchangeConfig}
BUILTIN_MUTATIONS: dict[str, type[BaseModel]] = {
    "regrow": RegrowConfig,
    "best-of-k": BestOfKConfig,
    "greedy": GreedyConfig,
    "exhaustive": ExhaustiveConfig,
}
BUILTIN_KINDS: dict[str, type[BaseModel]] = {**BUILTIN_CROSSOVERS, **BUILTIN_MUTATIONS}

#: The selections evo defines (``selection.method``); others are registered from Python.
BUILTIN_SELECTIONS = ("tournament", "nsga2")


def register_kind(kind: str, role: str, keywords: set[str] | None) -> None:
    """Let configs name an operator registered from Python (see :data:`REGISTERED`)."""
    REGISTERED[kind] = (role, keywords)


def _tagger(role: str):
    """The union tag of an operator entry: its kind when built in, ``registered`` when
    registered from Python for this role, else the kind (refused as unknown)."""
    builtin = BUILTIN_CROSSOVERS if role == "crossover" else BUILTIN_MUTATIONS

    def tag(value: Any) -> str | None:
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if not isinstance(kind, str):
            return None
        if kind not in builtin and REGISTERED.get(kind, ("",))[0] == role:
            return "registered"
        return kind

    return tag


CrossoverOp = Annotated[
    Annotated[GraftConfig, Tag("graft")]
    | Annotated[ExchangeConfig, Tag("exchange")]
    | Annotated[RegisteredCrossoverConfig, Tag("registered")],
    Discriminator(_tagger("crossover")),
]
MutationOp = Annotated[
    Annotated[RegrowConfig, Tag("regrow")]
    | Annotated[BestOfKConfig, Tag("best-of-k")]
    | Annotated[GreedyConfig, Tag("greedy")]
    | Annotated[ExhaustiveConfig, Tag("exhaustive")]
    | Annotated[RegisteredMutationConfig, Tag("registered")],
    Discriminator(_tagger("mutation")),
]
