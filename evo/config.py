"""Run configs: YAML files checked by pydantic models before anything runs.

A config names the game, the population, the stop criteria, the operators and the
selection (see ``configs/*.yaml`` for commented examples). Any key can be overridden
from the command line with ``--set a.b=value`` (the value read as a YAML scalar, list
items by index: ``mutation.operators.0.weight=2``). Errors name the key path and what is
allowed::

    configs/x.yaml: selection.method: 'tourney' is not allowed; allowed: 'tournament', 'nsga2'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeGuard, Union, get_args, get_origin

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    model_validator,
)

from evo.core.files import read_text
from evo.core.game import count_codes
from evo.core.kinds import ExactGuesses, Heuristic, NodeWeight, Pool, Variant


class ConfigError(ValueError):
    """A config cannot be read or is not valid: the message names the key and the rule."""


class _Model(BaseModel):
    # A field's docstring is its description: docs/CONFIG.md is generated from them.
    model_config = ConfigDict(extra="forbid", validate_default=True, use_attribute_docstrings=True)


class GameConfig(_Model):
    """The game: ``pegs`` and ``colors`` (digits for Bulls and Cows) and the variant."""

    pegs: int = Field(4, ge=1, le=20)
    """pegs of a code (N)"""
    colors: int = Field(6, ge=1, le=35)
    """colors (Mastermind) or digits (Bulls and Cows) (C)"""
    variant: Variant = "mastermind"
    """`mastermind` (colors may repeat) or `bulls-cows` (distinct digits)"""
    memory_gib: float | None = Field(None, gt=0, allow_inf_nan=False)
    """GiB the game may use: its feedback table is kept only within it, feedbacks are
    computed where needed beyond (the same results), and a game that needs more is
    refused before the run starts (default: 80% of the memory available, the table up
    to 2 GiB)"""

    @model_validator(mode="after")
    def _check(self) -> GameConfig:
        if self.variant == "bulls-cows" and self.pegs > self.colors:
            raise ValueError("bulls-cows needs pegs <= colors (digits without repetition)")
        return self


class InitConfig(_Model):
    """The first population: random breakers (random path completion with ``pool``), with
    the named baseline strategies (``evo.baselines``) put in when listed."""

    pool: Pool = "all"
    """guesses of the random growth: any code or only consistent codes"""
    baselines: list[str] = []
    """baseline strategies (names as `evo baselines` lists them) put into the first population"""
    trees: list[str] = []
    """tree files (such as a run's `best.json` or a file of `breakers/`) put into the first
    population; of the run's game; relative paths start from the working directory"""


class PopulationConfig(_Model):
    size: int = Field(100, ge=2)
    """breakers in the population (per island); `auto`: 40, or 24 for games of more than
    5040 codes (where a generation takes tens of seconds)"""
    init: InitConfig = InitConfig()
    """how the first population is made"""


class StopConfig(_Model):
    """Stop at whichever comes first; at least one must be set."""

    generations: int | None = Field(None, ge=0)
    """stop after this many generations"""
    seconds: float | None = Field(None, gt=0)
    """stop after this wall time"""
    target_total: int | None = Field(None, ge=1)
    """stop once the best total is at most this"""

    @model_validator(mode="after")
    def _any(self) -> StopConfig:
        if self.generations is None and self.seconds is None and self.target_total is None:
            raise ValueError("set at least one of generations, seconds, target_total")
        return self


# --------------------------------------------------------------- operators
class GraftConfig(_Model):
    """Subtree graft: a node takes the other parent's aligned subtree (or a random one,
    replayed on its code set)."""

    kind: Literal["graft"]
    """the operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked: uniformly, or weighted by its code set's size or its square root"""


class ExchangeConfig(_Model):
    """Uniform exchange of aligned subtrees; with probability ``bias`` the first offspring
    takes the better subtree at a divergence point."""

    kind: Literal["exchange"]
    """the operator"""
    bias: float = Field(0.0, ge=0, le=1)
    """probability that the first offspring takes the better subtree at a divergence point"""


class RegrowConfig(_Model):
    """Another helpful guess at a node, its subtree regrown at random."""

    kind: Literal["regrow"]
    """the operator"""
    weight: float = Field(1.0, ge=0)
    """relative probability of this operator"""
    node_weight: NodeWeight = "size"
    """how the node is picked: uniformly, or weighted by its code set's size or its square root"""


class BestOfKConfig(_Model):
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


class GreedyConfig(_Model):
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
    impossible: int = Field(2, ge=1, le=100)
    """for `mixed_below`: how many of the best bounds of impossible guesses are tried"""

    @model_validator(mode="after")
    def _sizes(self) -> GreedyConfig:
        if self.max_codes is not None and self.min_codes > self.max_codes:
            raise ValueError(f"min_codes ({self.min_codes}) is above max_codes ({self.max_codes})")
        return self


class ExhaustiveConfig(_Model):
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
    impossible: int = Field(2, ge=1, le=100)
    """with `mixed`: how many of the best bounds of impossible guesses are tried"""
    sweep: bool = False
    """solve every node of `min_codes` to `max_codes` codes that no other contains, not one
    node at random: the tree improved all over at once (a local search; the search's memo
    keeps what it found for the next trees)"""
    shallower: bool = False
    """pick a node under which some code needs the tree's worst case and give it the best
    subtree one guess shorter than its own, when there is one: fewer codes at the worst
    case (for `selection.at_worst`)"""

    @model_validator(mode="after")
    def _sizes(self) -> ExhaustiveConfig:
        if self.min_codes > self.max_codes:
            raise ValueError(f"min_codes ({self.min_codes}) is above max_codes ({self.max_codes})")
        return self


class RegisteredCrossoverConfig(_Model):
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


#: Operators registered from Python: kind -> (role, the keyword parameters a config may
#: set, None for any). Filled by ``evo.ea.operators.register_operator``.
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


class CrossoverConfig(_Model):
    """``rate``: probability that a pair of parents is crossed."""

    rate: float = Field(0.6, ge=0, le=1)
    """probability that a pair of parents is crossed"""
    operator: CrossoverOp = GraftConfig(kind="graft")
    """the crossover operator"""


class MutationConfig(_Model):
    """``rate``: probability that an offspring is mutated, by one operator drawn with
    probability proportional to its ``weight``; ``repeat``: how many mutations it then gets."""

    rate: float = Field(0.8, ge=0, le=1)
    """probability that an offspring is mutated"""
    repeat: int = Field(1, ge=1)
    """mutations a mutated offspring gets"""
    operators: list[MutationOp] = [RegrowConfig(kind="regrow")]
    """the mutation operators, one drawn per mutation with probability proportional to its weight"""

    @model_validator(mode="after")
    def _weights(self) -> MutationConfig:
        if self.rate > 0 and not any(op.weight > 0 for op in self.operators):
            raise ValueError("mutation.rate > 0 needs an operator with a positive weight")
        return self


class SelectionConfig(_Model):
    """``tournament`` on the total (with ``max_guesses`` as a penalty), or ``nsga2`` on
    (total, worst case)."""

    method: Literal["tournament", "nsga2"] = "tournament"
    """`tournament` on the total, or `nsga2` on (total, worst case)"""
    tournament_size: int = Field(3, ge=1)
    """breakers in each tournament"""
    at_worst: bool = False
    """with `nsga2`, a third objective: how many codes need the worst case (fewer is better)"""

    @model_validator(mode="after")
    def _objectives(self) -> SelectionConfig:
        if self.at_worst and self.method != "nsga2":
            raise ValueError("at_worst is a third objective of nsga2 (method: nsga2)")
        return self

    @property
    def objectives(self) -> int:
        """How many objectives the fitness has: 1 (the total), 2 or 3 with NSGA-II."""
        if self.method != "nsga2":
            return 1
        return 3 if self.at_worst else 2


# ----------------------------------------------------------------- islands
class MigrationConfig(_Model):
    """Every ``interval`` generations (an *epoch*), each island's ``migrants`` best
    breakers go to the next island on a ring, replacing its worst (or random) ones."""

    interval: int = Field(5, ge=1)
    """generations between migrations (an epoch)"""
    migrants: int = Field(2, ge=0)
    """breakers each island sends to the next one on the ring"""
    replace: Literal["worst", "random"] = "worst"
    """which breakers the migrants replace: the worst or random ones"""


class IslandsConfig(_Model):
    """Sub-populations of ``population.size`` each, evolving apart between migrations.
    ``overrides``: per island, config keys that differ from the run's (e.g. its
    operators); island ``i`` takes the ``i``-th entry (missing entries: none)."""

    count: int = Field(1, ge=1, le=1024)
    """islands (sub-populations); 1: a single population"""
    migration: MigrationConfig = MigrationConfig()
    """how breakers move between islands"""
    overrides: list[dict[str, Any]] = []
    """per island, config keys that differ from the run's"""


class ClusterConfig(_Model):
    """Where islands run: a Dask scheduler ``address`` (``tcp://host:port``), or none for
    a local cluster of ``workers`` processes (the run's ``workers`` when unset)."""

    address: str | None = Field(None, pattern=r"^[a-z]+://\S+$")
    """a Dask scheduler `tcp://host:port`; null: a local cluster"""
    workers: int | None = Field(None, ge=1, le=1024)
    """processes of the local cluster (default: the run's workers)"""
    wait: float = Field(10.0, gt=0, le=3600)
    """seconds to wait for a worker of the scheduler at `address` before the run is refused"""


class Config(_Model):
    name: str = Field("run", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)
    """the run's name: the run directory is runs/NAME-DATE-TIME"""
    seed: int = Field(0, ge=0)  # seeds NumPy's SeedSequence, which takes no negative
    """seeds NumPy's SeedSequence, which takes no negative"""
    game: GameConfig = GameConfig()
    population: PopulationConfig = PopulationConfig()
    stop: StopConfig = StopConfig(generations=50)
    pool: Pool = "all"
    """guesses the operators may put at a node: any code (`all`) or only codes still possible there
    (`consistent`)"""
    crossover: CrossoverConfig = CrossoverConfig()
    mutation: MutationConfig = MutationConfig()
    selection: SelectionConfig = SelectionConfig()
    elitism: int = Field(1, ge=0)
    """the best breakers copied unchanged into the next generation"""
    max_guesses: int | None = Field(None, ge=1)
    """a limit on the worst case: each code solved later adds codes × max_guesses to the total, so
    any breaker within the limit beats any beyond it"""
    hall_of_fame: int = Field(5, ge=1)
    """how many of the best breakers ever seen the run keeps"""
    workers: int = Field(1, ge=1, le=256)
    """processes that breed and evaluate offspring (same result for any number)"""
    checkpoint_interval: int = Field(10, ge=1)
    """generations between checkpoints (evo resume starts from the last)"""
    islands: IslandsConfig = IslandsConfig()
    cluster: ClusterConfig = ClusterConfig()

    @model_validator(mode="before")
    @classmethod
    def _auto(cls, data: Any) -> Any:
        """``auto`` values replaced by what suits the game (see :func:`auto_values`)."""
        if not isinstance(data, dict):
            return data
        game: dict = data["game"] if isinstance(data.get("game"), dict) else {}
        try:
            pegs = int(game.get("pegs", 4))
            colors = int(game.get("colors", 6))
            codes = count_codes(pegs, colors, str(game.get("variant", "mastermind")))
        except (TypeError, ValueError, OverflowError):
            return data  # the game's own checks will say what is wrong
        auto = auto_values(codes)
        population = data.get("population")
        if isinstance(population, dict) and population.get("size") == "auto":
            population["size"] = auto.population
        mutation = data.get("mutation")
        operators = mutation.get("operators") if isinstance(mutation, dict) else None
        for op in operators if isinstance(operators, list) else []:
            if not isinstance(op, dict):
                continue
            for key in ("exact_below", "max_codes"):
                if op.get(key) == "auto":
                    op[key] = auto.exact
        return data

    @model_validator(mode="after")
    def _check(self) -> Config:
        if self.elitism >= self.population.size:
            raise ValueError(
                f"elitism ({self.elitism}) must be smaller than population.size "
                f"({self.population.size})"
            )
        if self.selection.method == "nsga2" and self.max_guesses is not None:
            raise ValueError(
                "max_guesses is a limit for tournament selection; nsga2 already "
                "minimizes the worst case"
            )
        m = count_codes(self.game.pegs, self.game.colors, self.game.variant)
        if m > 10**7:
            raise ValueError(f"the game has {m:,} codes, too many to evolve complete breakers")
        if len(self.islands.overrides) > self.islands.count:
            raise ValueError(
                f"islands.overrides has {len(self.islands.overrides)} entries for "
                f"{self.islands.count} islands"
            )
        for i in range(len(self.islands.overrides)):
            self.island(i)  # an island's config is checked before anything runs
        return self

    def island(self, i: int) -> Config:
        """Island ``i``'s config: the run's, with its override entry and its own seed
        (drawn from the run's seed and ``i``), as a single population of one process."""
        data = self.model_dump(mode="json")
        # Where and how long islands run is the run's business: an island's config does
        # not change when a run is resumed elsewhere or extended.
        data["islands"] = IslandsConfig().model_dump(mode="json")
        data["cluster"] = ClusterConfig().model_dump(mode="json")
        data["stop"] = {"generations": 0}
        data["workers"] = 1
        data["seed"] = island_seed(self.seed, i)
        extra = self.islands.overrides[i] if i < len(self.islands.overrides) else {}
        for key in extra:
            if key in _ISLAND_FIXED:
                raise ValueError(f"islands.overrides.{i}.{key} is the same for every island")
        try:
            return Config.model_validate(_merge(data, extra))
        except ValidationError as e:
            raise ValueError(
                f"islands.overrides.{i}: " + format_errors("", e).replace("\n", "; ").lstrip(": ")
            ) from None

    @property
    def num_codes(self) -> int:
        return count_codes(self.game.pegs, self.game.colors, self.game.variant)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


@dataclass(frozen=True)
class AutoValues:
    """What ``auto`` means for a game: the population size and the largest code set the
    operators solve exactly."""

    population: int
    exact: int


def auto_values(codes: int) -> AutoValues:
    """``auto`` for a game of ``codes`` codes. An exact search costs about the number of
    candidate guesses (every code) times the work per candidate: up to 5040 codes, code
    sets of 300 are solved in well under a second; beyond, the size shrinks in proportion
    (measured: a rebuild of a whole tree of (4,6), (4,7) or Bulls and Cows 4 digits with
    exact search up to 300 codes takes 0.2 to 4 s; in (5,8), a 250-code set takes ~20 s)."""
    exact = 300 if codes <= 5040 else max(3, 300 * 5040 // codes)
    return AutoValues(population=40 if codes <= 5040 else 24, exact=exact)


#: Keys an island cannot change: the game, the run's stopping rule and resources.
_ISLAND_FIXED = {"name", "game", "stop", "workers", "checkpoint_interval", "islands", "cluster"}


def island_seed(seed: int, i: int) -> int:
    """Island ``i``'s seed: independent streams for every island of a run's seed."""
    return int(np.random.SeedSequence([seed, 0x151A, i]).generate_state(1, np.uint32)[0])


def _merge(base: Any, extra: Any) -> Any:
    """``base`` with ``extra``'s keys set, mappings merged key by key (lists replaced, and
    an operator of another ``kind`` replaced whole: its parameters are its own)."""
    other_kind = isinstance(extra, dict) and extra.get("kind", None) not in (None, _kind(base))
    if isinstance(base, dict) and isinstance(extra, dict) and not other_kind:
        out = dict(base)
        for k, v in extra.items():
            out[k] = _merge(base.get(k), v) if k in base else _deep_copy(v)
        return out
    return _deep_copy(extra)


# ------------------------------------------------------------------ loading
def parse_override(text: str) -> tuple[list[str], Any]:
    """``a.b.c=value`` → (``["a", "b", "c"]``, the value read as a YAML scalar)."""
    if "=" not in text:
        raise ConfigError(f"--set {text!r}: expected KEY.PATH=VALUE, such as population.size=200")
    key, _, raw = text.partition("=")
    parts = key.strip().split(".")
    if not all(re.fullmatch(r"[A-Za-z0-9_-]+", p) for p in parts):
        raise ConfigError(f"--set {text!r}: {key!r} is not a key path such as population.size")
    value = parse_yaml(raw, where=f"--set {text!r}: the value") if raw.strip() else None
    return parts, value


def apply_override(data: dict, path: list[str], value: Any, defaults: Any = None) -> None:
    """Set ``data[path]`` to ``value``, creating mappings on the way (a list missing on the
    way is copied from ``defaults``, the default config as plain data); list items by index."""
    node: Any = data
    default: Any = defaults
    for i, name in enumerate(path):
        last = i == len(path) - 1
        where = ".".join(path[: i + 1])
        key: str | int = name
        if isinstance(node, list):
            if not name.isdigit() or int(name) >= len(node):
                raise ConfigError(
                    f"--set {'.'.join(path)}: {where} is not an item of the list "
                    f"(it has {len(node)} items, 0..{len(node) - 1})"
                )
            key = int(name)
        elif not isinstance(node, dict):
            raise ConfigError(f"--set {'.'.join(path)}: {'.'.join(path[:i])} is not a mapping")
        if last:
            if key == "kind" and isinstance(node, dict) and node.get("kind") != value:
                node.clear()  # another operator kind: its own parameters start afresh
            node[key] = value
        else:
            default = _child(default, key)
            if isinstance(node, dict) and (key not in node or node[key] is None):
                node[key] = _deep_copy(default) if isinstance(default, list) else {}
            node = node[key]


def load_config(
    source: str | os.PathLike | dict | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> Config:
    """Read (a YAML file or a dict), apply ``--set`` overrides, validate.
    Raises :class:`ConfigError` naming the file, the key path and what is allowed."""
    where = "config"
    if source is None:
        data: Any = {}
    elif isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        where = str(path)
        text = read_text(path, what="config", error=ConfigError, max_bytes=MAX_CONFIG_BYTES)
        data = parse_yaml(text, where=where)
        if data is None:
            raise ConfigError(
                f"{path} is empty: a config names at least the game and when to stop "
                "(see configs/quick.yaml)"
            )
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the top level should be a mapping of keys to values")
    data = _deep_copy(data)
    defaults = Config().model_dump(mode="json")
    for text in overrides:
        path_, value = parse_override(text)
        apply_override(data, path_, value, defaults)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(format_errors(where, e)) from None
    except RecursionError:
        raise ConfigError(
            f"{where} is nested too deep (mappings or lists inside each other)"
        ) from None


#: A config is a page of settings; a larger file is a mistake (or an attack).
MAX_CONFIG_BYTES = 1 << 20

#: Values a config may hold once its YAML aliases (``*name``) are expanded: each alias
#: repeats a whole subtree, so a few nested ones make a file of a few lines expand to
#: billions of values.
MAX_YAML_VALUES = 100_000


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses an alias inside the node it names (a structure
    that contains itself)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._open: list[str] = []

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            if event.anchor in self._open:
                raise ConfigError(
                    f"{self.name}: line {event.start_mark.line + 1}: *{event.anchor} refers to "
                    "the node that contains it (a YAML structure cannot contain itself)"
                )
            return super().compose_node(parent, index)
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._open.append(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            if anchor is not None:
                self._open.remove(anchor)


def _expanded_size(node: yaml.Node) -> int:
    """How many values ``node`` holds once its aliases are expanded (shared nodes are
    counted once per use, each computed once)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in sizes:
            continue
        kids: list[yaml.Node] = []
        if isinstance(n, yaml.SequenceNode):
            kids = list(n.value)
        elif isinstance(n, yaml.MappingNode):
            kids = [x for pair in n.value for x in pair]
        if done or not kids:
            sizes[id(n)] = 1 + sum(sizes[id(k)] for k in kids)
        else:
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in sizes)
    return sizes[id(node)]


def parse_yaml(text: str, *, where: str) -> Any:
    """YAML text as plain data (safe types only), with one-line errors naming ``where``:
    invalid YAML, nested too deep, a structure that contains itself, or one that expands
    (through aliases) to more than :data:`MAX_YAML_VALUES` values."""
    try:
        loader = _SafeLoader(text)  # checks the characters at once
    except yaml.YAMLError as e:
        raise ConfigError(f"{where} is not valid YAML: {_one_line(str(e))}") from None
    loader.name = where
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        size = _expanded_size(node)
        if size > MAX_YAML_VALUES:
            raise ConfigError(
                f"{where}: its YAML aliases (*name) expand to {size:,} values, more than "
                f"{MAX_YAML_VALUES:,}"
            )
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        raise ConfigError(f"{where} is not valid YAML: {_one_line(str(e))}") from None
    except RecursionError:
        raise ConfigError(
            f"{where} is nested too deep to read (mappings or lists inside each other)"
        ) from None
    finally:
        loader.dispose()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def config_differences(a: Any, b: Any, prefix: str = "") -> list[str]:
    """The key paths where two configs (as plain data) differ, e.g. ``["population.size"]``."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted({*a, *b}, key=str):
            sub = f"{prefix}.{key}" if prefix else str(key)
            both = key in a and key in b
            out += config_differences(a[key], b[key], sub) if both else [sub]
        return out
    return [] if a == b else [prefix or "(the whole config)"]


#: Config keys a run may change when it is resumed: when to stop, and where it runs (the
#: result does not depend on the number of workers or on the cluster).
EXTENDABLE = ("stop", "workers", "cluster")


def extend_config(config: Config, overrides: list[str] | tuple[str, ...]) -> Config:
    """``config`` with ``--set`` overrides of its :data:`EXTENDABLE` keys (to extend a run
    on ``evo resume``); raises :class:`ConfigError` naming any other key that would change."""
    new = load_config(config.model_dump(mode="json"), overrides)
    fixed = [
        k
        for k in config_differences(config.model_dump(mode="json"), new.model_dump(mode="json"))
        if k.split(".")[0] not in EXTENDABLE
    ]
    if fixed:
        raise ConfigError(
            f"--set: {', '.join(fixed)} cannot change when a run is resumed "
            f"(only the keys under {', '.join(EXTENDABLE)} can)"
        )
    return new


def _kind(x: Any) -> Any:
    return x.get("kind") if isinstance(x, dict) else None


def _child(x: Any, key: Any) -> Any:
    if isinstance(x, dict):
        return x.get(key)
    if isinstance(x, list) and isinstance(key, int) and key < len(x):
        return x[key]
    return None


def _deep_copy(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _deep_copy(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_deep_copy(v) for v in x]
    return x


def format_errors(where: str, error: ValidationError) -> str:
    """One line per problem: ``file: key.path: what is wrong; allowed: ...``."""
    lines = []
    for err in error.errors():
        loc = [str(p) for p in err["loc"] if not _is_union_tag(p)]
        key = ".".join(loc) or "(top level)"
        kind = err["type"]
        if kind == "extra_forbidden":
            tags = [p for p in err["loc"] if _is_union_tag(p)]
            model = _KIND_MODELS[tags[-1]] if tags else _model_at(loc[:-1])
            allowed = list(model.model_fields) if model is not None else []
            msg = f"unknown key; allowed keys here: {', '.join(allowed)}"
        elif kind == "literal_error":
            msg = f"{err['input']!r} is not allowed; allowed: {err['ctx']['expected']}"
        elif kind == "union_tag_invalid":
            msg = f"kind {err['ctx']['tag']!r} is not known; allowed kinds: {_kinds(loc)}"
        elif kind == "union_tag_not_found":
            msg = f"needs a 'kind' (one of {_kinds(loc)})"
        else:
            msg = err["msg"]
            if "input" in err and kind not in ("missing", "value_error"):
                msg = f"{err['input']!r}: {msg}"
            msg = msg.replace("Value error, ", "")
        lines.append(f"{where}: {key}: {msg}")
    return "\n".join(lines)


def _is_union_tag(p: object) -> TypeGuard[str]:
    return isinstance(p, str) and p in _KIND_MODELS


def _model_at(loc: list[str]) -> Any:
    """The pydantic model (or None) at a key path of :class:`Config`."""
    model: Any = Config
    for part in loc:
        if part.isdigit():
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        field = model.model_fields.get(part)
        if field is None:
            return None
        model = _unwrap(field.annotation)
    return model


def _unwrap(tp: Any) -> Any:
    """A list/optional/annotated type down to its model, when there is a single one."""
    while get_origin(tp) in (list, Annotated) or (
        get_origin(tp) is Union and sum(a is not type(None) for a in get_args(tp)) == 1
    ):
        args = [a for a in get_args(tp) if a is not type(None)]
        tp = args[0]
    return tp


_KIND_MODELS: dict[str, type[BaseModel]] = {
    **BUILTIN_KINDS,
    "registered": RegisteredMutationConfig,
}


def _kinds(loc: list[str]) -> str:
    """The operator kinds allowed at ``loc``: the built-in ones and those registered from
    Python for its role."""
    role = "crossover" if loc and loc[0] == "crossover" else "mutation"
    builtin = BUILTIN_CROSSOVERS if role == "crossover" else BUILTIN_MUTATIONS
    kinds = [*builtin, *(k for k, (r, _) in REGISTERED.items() if r == role)]
    return ", ".join(repr(k) for k in kinds)
