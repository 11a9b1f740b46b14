"""The models of a run's config: the game, the population, when to stop, the
variation (operator entries in :mod:`evo.config.operators`), the selection, the islands
and where they run; and what ``auto`` means for a game's size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from evo.config.base import ConfigModel
from evo.config.messages import format_errors
from evo.config.operators import (
    BUILTIN_SELECTIONS,
    REGISTERED,
    CrossoverOp,
    GraftConfig,
    MutationOp,
    RegrowConfig,
)
from evo.config.overrides import merge
from evo.core.engine import MAX_WORKERS
from evo.core.kinds import WORDLE_KINDS, GameKind, Pool
from evo.core.rng import island_seed
from evo.games.pegs import count_codes
from evo.games.words import ANSWER_COUNT


class GameConfig(ConfigModel):
    """The game: its ``kind``; ``pegs`` and ``colors`` (digits for Bulls and Cows) for the
    Mastermind family; the ``name`` of a custom game."""

    kind: GameKind = "mastermind"
    """`mastermind` (colors may repeat), `black-peg` (Mastermind answered by black pegs
    alone), `bulls-cows` (distinct digits), or `custom` (a game made in Python by
    `evo.custom_game`, found by its `name`), `wordle` or `wordle-hard` (Wordle's 2,315
    answers and 12,972 guesses; `pegs` and `colors` do not apply); `variant` is read as
    its older name"""
    pegs: int = Field(4, ge=1, le=20)
    """pegs of a code (N)"""
    colors: int = Field(6, ge=1, le=35)
    """colors (Mastermind) or digits (Bulls and Cows) (C)"""
    name: str | None = Field(None, max_length=64)
    """the name of a custom game (made in this process by `evo.custom_game`)"""
    digest: str | None = Field(None, max_length=64)
    """the digest of a custom game, or of the word lists of a Wordle game made in Python
    on lists of its own (set by `evo.evolve`: a run of another game of that name, or of
    other lists, is refused)"""
    memory_gib: float | None = Field(None, gt=0, allow_inf_nan=False)
    """GiB the game may use: its feedback table is kept only within it, feedbacks are
    computed where needed beyond (the same results), and a game that needs more is
    refused before the run starts (default: 80% of the memory available, the table up
    to 2 GiB)"""

    @model_validator(mode="before")
    @classmethod
    def _variant(cls, data: Any) -> Any:
        """``variant``, the key's older name, read as ``kind``."""
        if isinstance(data, dict) and "variant" in data:
            data = dict(data)
            variant = data.pop("variant")
            if "kind" in data and data["kind"] != variant:
                raise ValueError(
                    f"game.kind ({data['kind']!r}) and game.variant ({variant!r}) disagree: "
                    "give one (variant is kind's older name)"
                )
            data["kind"] = variant
        return data

    @model_validator(mode="after")
    def _check(self) -> GameConfig:
        if self.kind == "bulls-cows" and self.pegs > self.colors:
            raise ValueError("bulls-cows needs pegs <= colors (digits without repetition)")
        if self.kind == "custom" and self.name is None:
            raise ValueError("a custom game is named by game.name (evo.custom_game's name)")
        return self

    @property
    def variant(self) -> str:
        """:attr:`kind`, by its older name."""
        return self.kind

    @property
    def spec(self) -> dict[str, Any]:
        """The game's spec (:attr:`evo.core.game.Game.spec`)."""
        if self.kind == "custom":
            return {"kind": "custom", "name": self.name, "digest": self.digest}
        if self.kind in WORDLE_KINDS:  # with its lists' digest when they are not the shipped
            return {"kind": self.kind, **({} if self.digest is None else {"digest": self.digest})}
        return {"pegs": self.pegs, "colors": self.colors, "variant": self.kind}


def game_codes(game: dict | GameConfig) -> int:
    """How many codes a config's game has (a custom game's, when this process made it;
    ValueError else)."""
    spec = game.spec if isinstance(game, GameConfig) else game
    kind = spec.get("kind", spec.get("variant", "mastermind"))
    if kind == "custom":
        from evo.games.custom import registered_game  # only for a game made in Python

        return registered_game(spec).num_codes
    if kind in WORDLE_KINDS:
        if spec.get("digest") is None:
            return ANSWER_COUNT
        from evo.games.words import from_spec  # lists made in this process, by digest

        return from_spec(spec).num_codes
    pegs, colors = int(spec.get("pegs", 4)), int(spec.get("colors", 6))
    for key, value in (("pegs", pegs), ("colors", colors)):
        low, high = _field_range(GameConfig, key)
        if not low <= value <= high:  # before counting: 3 ** 2**63 would never end
            raise ValueError(f"game.{key}: {value} is not from {low} to {high}")
    return count_codes(pegs, colors, str(kind))


def _field_range(model: type[ConfigModel], key: str) -> tuple[int, int]:
    """The ``ge`` and ``le`` of an integer field of ``model``: its bounds, said once."""
    low, high = None, None
    for m in model.model_fields[key].metadata:
        low = getattr(m, "ge", low)
        high = getattr(m, "le", high)
    assert low is not None and high is not None, key
    return int(low), int(high)


class InitConfig(ConfigModel):
    """The first population: random breakers (random path completion with ``pool``), with
    the named baseline strategies (``evo.baselines``) put in when listed."""

    pool: Pool = "all"
    """guesses of the random growth: any code or only consistent codes"""
    baselines: list[str] = []
    """baseline strategies (names as `evo baselines` lists them) put into the first population"""
    trees: list[str] = []
    """tree files (such as a run's `best.json` or a file of `breakers/`) put into the first
    population; of the run's game; relative paths start from the working directory"""


class PopulationConfig(ConfigModel):
    size: int = Field(100, ge=2)
    """breakers in the population (per island); `auto`: 40, or 24 for games of more than
    5040 codes (where a generation takes tens of seconds)"""
    init: InitConfig = InitConfig()
    """how the first population is made"""


class StopConfig(ConfigModel):
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


class CrossoverConfig(ConfigModel):
    """``rate``: probability that a pair of parents is crossed."""

    rate: float = Field(0.6, ge=0, le=1)
    """probability that a pair of parents is crossed"""
    operator: CrossoverOp = GraftConfig(kind="graft")
    """the crossover operator"""


class MutationConfig(ConfigModel):
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


class SelectionConfig(ConfigModel):
    """``tournament`` on the total (with ``max_guesses`` as a penalty), ``nsga2`` on
    (total, worst case), or a selection registered from Python
    (``evo.register_selection``) on the total."""

    method: str = Field(
        "tournament", json_schema_extra={"choices": list(BUILTIN_SELECTIONS), "registered": True}
    )
    """`tournament` on the total, `nsga2` on (total, worst case), or the name of a selection
    registered from Python (`evo.register_selection`)"""
    tournament_size: int = Field(3, ge=1)
    """breakers in each tournament"""
    at_worst: bool = False
    """with `nsga2`, a third objective: how many codes need the worst case (fewer is better)"""

    @field_validator("method")
    @classmethod
    def _known(cls, method: str) -> str:
        known = [*BUILTIN_SELECTIONS, *(k for k, (r, _) in REGISTERED.items() if r == "selection")]
        if method not in known:
            raise ValueError(
                f"{method!r} is not known; allowed: {', '.join(map(repr, known))} (others are "
                "registered from Python with evo.register_selection)"
            )
        return method

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
class MigrationConfig(ConfigModel):
    """Every ``interval`` generations (an *epoch*), each island's ``migrants`` best
    breakers go to the next island on a ring, replacing its worst (or random) ones."""

    interval: int = Field(5, ge=1)
    """generations between migrations (an epoch)"""
    migrants: int = Field(2, ge=0)
    """breakers each island sends to the next one on the ring"""
    replace: Literal["worst", "random"] = "worst"
    """which breakers the migrants replace: the worst or random ones"""


class IslandsConfig(ConfigModel):
    """Sub-populations of ``population.size`` each, evolving apart between migrations.
    ``overrides``: per island, config keys that differ from the run's (e.g. its
    operators); island ``i`` takes the ``i``-th entry (missing entries: none)."""

    count: int = Field(1, ge=1, le=1024)
    """islands (sub-populations); 1: a single population"""
    migration: MigrationConfig = MigrationConfig()
    """how breakers move between islands"""
    overrides: list[dict[str, Any]] = []
    """per island, config keys that differ from the run's"""


class ClusterConfig(ConfigModel):
    """Where islands run: a Dask scheduler ``address`` (``tcp://host:port``), or none for
    a local cluster of ``workers`` processes (the run's ``workers`` when unset)."""

    address: str | None = Field(None, pattern=r"^[a-z]+://\S+$")
    """a Dask scheduler `tcp://host:port`; null: a local cluster"""
    workers: int | None = Field(None, ge=1, le=1024)
    """processes of the local cluster (default: the run's workers)"""
    wait: float = Field(10.0, gt=0, le=3600)
    """seconds to wait for a worker of the scheduler at `address` before the run is refused"""


class Config(ConfigModel):
    """A run, as a YAML config or a mapping gives it: the game, the population and how it
    starts, when to stop, the guess pool, crossover and mutation, selection, elitism,
    the worst-case limit, the hall of fame, workers, checkpoints, islands and where they
    run. Every key has a default; ``evo config show FILE`` prints them all, and
    ``docs/CONFIG.md`` lists each with its type, bounds and meaning.

    The keys, by section: ``name``, ``seed``; ``game`` (``kind``, ``pegs``, ``colors``,
    a custom game's ``name`` and ``digest``, ``memory_gib``); ``population`` (``size``,
    and ``init``: the pool of the random breakers, the ``baselines`` and tree files
    planted); ``stop`` (``generations``, ``seconds``, ``target_total``: the first reached
    stops the run); ``pool``;
    ``crossover`` (``rate``, ``operator``); ``mutation`` (``rate``, ``repeat``, the
    weighted ``operators``); ``selection`` (``method``: ``tournament``, ``nsga2`` or one of
    :func:`evo.register_selection`, ``tournament_size``, ``at_worst``); ``elitism``,
    ``max_guesses``, ``hall_of_fame``, ``workers``, ``checkpoint_interval``;
    ``islands`` (``count``, ``migration``, per-island ``overrides``) and ``cluster`` (a
    Dask scheduler's ``address``, ``workers``, ``wait``). Each key's type, default, bounds
    and meaning: `docs/CONFIG.md <../CONFIG.md>`_, or ``evo config show``.

    >>> from evo.config import load_config
    >>> config = load_config({"game": {"pegs": 3, "colors": 3}, "seed": 4})
    >>> config.game.pegs, config.seed, config.selection.method
    (3, 4, 'tournament')
    >>> config.model_dump()["stop"]  # every key, as plain data
    {'generations': 50, 'seconds': None, 'target_total': None}
    """

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
    any breaker within the limit beats any beyond it; the exact rebuilds of `greedy` and
    `exhaustive` keep every code within it where they can"""
    hall_of_fame: int = Field(5, ge=1)
    """how many of the best breakers ever seen the run keeps"""
    workers: int = Field(1, ge=1, le=MAX_WORKERS)
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
            codes = game_codes(game)
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
        try:
            m = game_codes(self.game)
        except ValueError as e:
            raise ValueError(f"game: {e}") from None
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
        (drawn from the run's seed and ``i``), as a single population of one process.

        >>> import evo
        >>> config = evo.load_config({"game": {"pegs": 3, "colors": 3}, "islands": {"count": 2}})
        >>> island = config.island(1)
        >>> island.islands.count, island.workers, island.seed != config.island(0).seed
        (1, 1, True)
        """
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
            return Config.model_validate(merge(data, extra))
        except ValidationError as e:
            lines = format_errors("", e, model=Config).replace("\n", "; ")
            raise ValueError(f"islands.overrides.{i}: " + lines.lstrip(": ")) from None

    @property
    def num_codes(self) -> int:
        """How many codes the game has."""
        return game_codes(self.game)

    def to_yaml(self) -> str:
        """The config as YAML, every key given (what ``evo config show`` prints and a run
        directory's ``config.yaml`` holds).

        >>> import evo, yaml
        >>> config = evo.load_config({"game": {"pegs": 3, "colors": 3}, "seed": 4})
        >>> config.to_yaml().splitlines()[:3]
        ['name: run', 'seed: 4', 'game:']
        >>> evo.load_config(yaml.safe_load(config.to_yaml())) == config
        True
        """
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
