"""evo from Python: the functions behind ``import evo`` (see the package's docstring).

Library calls leave no trace: nothing is written unless asked (``run_dir=``, ``cache=``,
:func:`save_tree`), and every tree handed out is a :class:`~evo.show.breaker.Breaker`,
which draws itself in Jupyter.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from deap import tools

from evo.baselines.limits import DEFAULT_TIME_LIMIT, PYTHON_OPTION
from evo.baselines.limits import BaselineRefused as BaselineRefused
from evo.config import Config as Config
from evo.config import load_config as load_config
from evo.core.files import cache_dir, path_argument
from evo.core.game import Game as Game
from evo.core.game import make_game as make_game
from evo.core.kinds import ExactGuesses
from evo.core.numbers import whole
from evo.core.tree import Tree
from evo.ea.operators import register_operator as register_operator
from evo.ea.operators import register_selection as register_selection
from evo.ea.state import State as State
from evo.games.custom import custom_game as custom_game
from evo.games.pegs import peg_game
from evo.proofs.firsts import Ranking as Ranking
from evo.proofs.firsts import rank_first_guesses as rank  # noqa: F401 (evo.rank)
from evo.proofs.verdict import BoundResult as BoundResult
from evo.show.breaker import Breaker as Breaker
from evo.show.frames import logbook_dataframe as logbook_dataframe

if TYPE_CHECKING:
    from evo.ea.polish import Band, Checkpoint, Polished
    from evo.proofs.bound import Bound
    from evo.proofs.memo_file import KeptMemo
    from evo.show.strategy_table import Style

# The names `import evo` hands out (these re-exports among them) are listed once, in
# evo/__init__.py.

#: ``cache=True``: the machine's cache, as the command line uses (``$EVO_CACHE`` or
#: ``~/.cache/evo``).
Cache = str | os.PathLike | bool | None


def _cache_root(cache: Cache) -> str | os.PathLike | None:
    """The cache directory a ``cache=`` argument means (None: keep nothing on disk)."""
    if cache is True:
        return cache_dir()
    if cache is False or cache is None:
        return None
    return path_argument(cache, what="cache (a folder, True, False or None)")


def _seed(seed: Any) -> int:
    """A seed as NumPy's SeedSequence takes it: a whole number from 0 up."""
    return whole(seed, what="seed", low=0)


def _with_cache(game: Game, cache: Cache) -> Game:
    """``game``, made with the cache asked for (the same game when none is asked)."""
    root = _cache_root(cache)
    pegs = peg_game(game)
    if root is None or pegs is None:  # a custom game keeps its table in memory
        return game
    return make_game(pegs.pegs, pegs.colors, pegs.variant, table=game.use_table, cache=root)


def random_breaker(game: Game, *, seed: int | None = None, pool: str = "all") -> Breaker:
    """A random breaker (random path completion, shrink, triangle optimization); the same
    as the first of ``evo population --seed SEED``. ``pool``: ``all`` (any guess) or
    ``consistent`` (only codes still possible).

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> evo.random_breaker(game, seed=1).total, evo.random_breaker(game, seed=1).is_valid()
    (87, True)
    >>> evo.random_breaker(game, seed=1, pool="consistent").total
    86
    """
    from evo.core.kinds import POOLS
    from evo.core.population import random_population

    if pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}, not {pool!r}")
    seed = None if seed is None else _seed(seed)
    return Breaker.of(random_population(game, 1, seed=seed, pool=pool)[0])  # type: ignore[arg-type]


def baseline(
    game: Game,
    name: str,
    *,
    seed: int = 0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    cache: Cache = None,
) -> Breaker:
    """The tree of a classic strategy: ``knuth``, ``irving``, ``kooi``, ``entropy`` (and
    their ``-consistent`` forms), ``lc``, ``rc``, an opening such as ``1123+lc``,
    ``optimal``… (``evo baselines --help`` lists them). ``seed``: of random forms;
    ``time_limit``: seconds the exact optimum may take (refused beyond, with the
    estimate); ``cache``: read and keep it there (``True``: the machine's cache).

    >>> import evo
    >>> game = evo.make_game(4, 6)
    >>> evo.baseline(game, "knuth").total, evo.baseline(game, "irving").total
    (5801, 5696)
    >>> evo.baseline(evo.make_game(3, 3), "optimal").total
    73
    """
    from evo.baselines import run

    game = _with_cache(game, cache)
    found = run(game, name, seed=_seed(seed), time_limit=time_limit, rc_seeds=0)
    return Breaker.of(found.tree)


def load_tree(path: str | os.PathLike, *, game: Game | None = None) -> Breaker:
    """Read and check a tree file (``best.json`` of a run, a file of ``breakers/``, one
    written by :func:`save_tree`: JSON, ``.json.gz`` or ``.npz``); with ``game``, refuse
    a tree of another game.

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> path = evo.save_tree(evo.baseline(game, "knuth"), "knuth.json")
    >>> evo.load_tree("knuth.json", game=game).total
    74
    >>> evo.load_tree("knuth.json", game=evo.make_game(3, 4))
    Traceback (most recent call last):
    ...
    evo.core.treeio.TreeFileError: knuth.json: ...
    """
    from evo.core.treeio import load_tree as load

    if game is not None and not isinstance(game, Game):
        raise ValueError(f"game must be a Game (evo.make_game) or None, not {game!r}")
    return Breaker.of(load(path_argument(path, what="path"), game=game))


def save_tree(tree: Tree, path: str | os.PathLike, **extra: Any) -> Path:
    """Write ``tree`` as a tree file (JSON, atomically; gzip-compressed for a path that
    ends in ``.json.gz`` or ``.gz``, the compact form for one that ends in ``.npz``; a path
    ending in another compression's suffix, such as ``.bz2``, is refused); ``extra`` keys
    are kept in it.

    >>> import evo, json
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> evo.save_tree(knuth, "knuth.json", note="Knuth's strategy").name
    'knuth.json'
    >>> doc = json.load(open("knuth.json"))
    >>> doc["note"], doc["summary"]["total"], doc["root"]["guess"]
    ("Knuth's strategy", 74, '112')
    >>> list(doc["root"]["children"])[:3]  # feedbacks as evo writes them
    ['2B 0W', '1B 0W', '1B 1W']
    """
    from evo.core.treeio import save_tree as save

    if not isinstance(tree, Tree):
        raise ValueError(f"tree must be a tree (a Breaker), not {type(tree).__name__}")
    return save(tree, path_argument(path, what="path"), **extra)


@dataclass
class Polish:
    """What :func:`polish` returns: the polished breaker (``best``), the total of the tree
    it started from, and each band's outcome in order (an
    :class:`~evo.ea.polish.Polished`: ``band``, ``before``, ``after``, ``seconds``; band
    None for bringing the tree within ``max_guesses``).

    >>> import evo
    >>> result = evo.polish(evo.baseline(evo.make_game(3, 4), "lc"), max_guesses=4)
    >>> result.start_total, result.total, result.best.worst, result.bands[0].band
    (250, 206, 4, None)
    """

    best: Breaker
    start_total: int
    bands: list[Polished] = field(default_factory=list)

    @property
    def total(self) -> int:
        """The polished breaker's total (``best.total``)."""
        return self.best.total


def polish(
    tree: Tree,
    bands: Sequence[str | Band] = (),
    *,
    max_guesses: int | None = None,
    impossible: int = 2,
    tries: int = 4,
    top: int = 8,
    exact_below: int = 80,
    mixed_below: int = 400,
    seed: int = 0,
    climb: int = 0,
    fit: ExactGuesses = "all",
    fewest_last: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    start: Checkpoint | None = None,
    on_band: Callable[[Polished], Any] | None = None,
    on_node: Callable[[Checkpoint, int, Tree], Any] | None = None,
    on_fix: Callable[[Tree], Any] | None = None,
    on_root: Callable[[Band, float | None], Any] | None = None,
) -> Polish:
    """Improve ``tree`` as ``evo polish`` does: rebuild every outermost node of each band's
    sizes (``"MIN:MAX:SEARCH"`` such as ``"10:80:all"``; SEARCH: ``all``, the exact
    optimum; ``consistent``; ``mixed``; ``greedy``), keeping a subtree only where the
    search finds a better one. ``max_guesses``: a worst case to keep (the tree brought
    within it first; ``climb``, ``fit`` and ``fewest_last`` as the command's options).
    ``impossible``, ``tries``, ``top``, ``exact_below``, ``mixed_below``, ``seed``: the
    mixed and greedy searches'. ``workers`` local processes, or a Dask ``scheduler``,
    search a band's nodes side by side (the same tree). A band that holds the root (the
    whole game) is refused beyond ``time_limit`` seconds on its estimate, before any
    work. ``start``, ``on_band``, ``on_node``, ``on_fix``, ``on_root``: where a polish
    stopped before went, and what to tell as it goes (:func:`evo.ea.polish.polish`).

    >>> import evo
    >>> game = evo.make_game(3, 4)
    >>> result = evo.polish(evo.baseline(game, "knuth"), ["3:40:all"])
    >>> result.start_total, result.total, [(str(b.band), b.after) for b in result.bands]
    (216, 208, [('3:40:all', 208)])
    >>> evo.polish(evo.baseline(game, "knuth"), max_guesses=3)
    Traceback (most recent call last):
    ...
    evo.ea.polish.TooShortError: ...
    """
    from evo.ea.polish import Band
    from evo.ea.polish import polish as run

    if not isinstance(tree, Tree):
        raise ValueError(f"tree must be a tree (a Breaker), not {type(tree).__name__}")
    if isinstance(bands, str):
        bands = [bands]
    wanted = [b if isinstance(b, Band) else Band.parse(str(b)) for b in bands]
    if not wanted and max_guesses is None:
        raise ValueError("give bands to search, or a max_guesses to keep, or both")
    for name, value in (("climb", climb), ("fit", fit != "all")):
        if value and max_guesses is None:
            raise ValueError(f"{name} searches for max_guesses: give that too")
    polished, outcomes = run(
        tree,
        wanted,
        impossible=impossible,
        tries=tries,
        top=top,
        exact_below=exact_below,
        mixed_below=mixed_below,
        seed=_seed(seed),
        max_guesses=max_guesses,
        climb=climb,
        fit=fit,
        fewest_last=fewest_last,
        workers=workers,
        scheduler=scheduler,
        start=start,
        on_band=on_band,
        on_node=on_node,
        on_fix=on_fix,
        time_limit=time_limit,
        on_root=on_root,
    )
    return Polish(Breaker.of(polished), tree.total, list(outcomes))


@dataclass(frozen=True)
class TableRow:
    """A decision point of a breaker (a row of :func:`table`): its ``node`` (preorder
    index), ``move`` (1 at the root), the feedback ``history`` that reaches it, its
    ``guess``, how many codes reach it (``count``), their ``total`` and ``average``
    guesses from the start, and the ``worst`` case among them.

    >>> import evo
    >>> (root,) = evo.table(evo.baseline(evo.make_game(3, 3), "knuth"), min_count=27)
    >>> root.guess, root.count, root.total, round(root.average, 4), root.worst
    ('112', 27, 74, 2.7407, 4)
    """

    node: int
    move: int
    history: str
    guess: str
    count: int
    total: int
    average: float
    worst: int


def table(tree: Tree, *, min_count: int = 1, style: Style = "feedback") -> list[TableRow]:
    """The strategy of ``tree`` as ``evo table`` prints it: a row per node reached by at
    least ``min_count`` codes, largest first; ``style``: ``feedback`` (histories such as
    ``1B 1W | 0B 1W``) or ``writeup`` (the Mastermind write-up's ``|RW|W``).

    >>> import evo
    >>> rows = evo.table(evo.baseline(evo.make_game(3, 3), "knuth"), min_count=6)
    >>> [(r.move, r.history, r.guess, r.count, r.total) for r in rows]
    [(1, '', '112', 27, 74), (2, '2B 0W', '113', 6, 19), (2, '1B 0W', '133', 6, 17)]
    """
    from evo.show.strategy_table import STYLES, table_rows

    if not isinstance(tree, Tree):
        raise ValueError(f"tree must be a tree (a Breaker), not {type(tree).__name__}")
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
    low = whole(min_count, what="min_count", low=1)
    return [TableRow(**row) for row in table_rows(tree, min_count=low, style=style)]


#: The run evo makes of a game when no config is given: the study's operators with
#: thresholds that follow the game's size (``auto``), for 50 generations.
DEFAULTS: dict[str, Any] = {
    "name": "evolve",
    "population": {"size": "auto"},
    "stop": {"generations": 50},
    "crossover": {"rate": 0.5, "operator": {"kind": "exchange", "bias": 0.5}},
    "mutation": {
        "rate": 0.9,
        "operators": [
            {"kind": "greedy", "weight": 2, "tries": 2, "top": 8, "exact_below": "auto"},
            {"kind": "exhaustive", "weight": 2, "max_codes": "auto"},
            {"kind": "regrow", "weight": 1},
        ],
    },
    "elitism": 2,
}


def default_config(game: Game, **keys: Any) -> Config:
    """The config :func:`evolve` uses for ``game`` when given none (:data:`DEFAULTS`),
    with top-level ``keys`` set on top (e.g. ``seed=3``, ``workers=2``).

    >>> import evo
    >>> config = evo.default_config(evo.make_game(3, 3), seed=3)
    >>> config.seed, config.population.size, config.stop.generations
    (3, 40, 50)
    >>> [op.kind for op in config.mutation.operators]
    ['greedy', 'exhaustive', 'regrow']
    """
    return _config(game, None, **keys)


#: What :func:`evolve` takes as a config: a :class:`Config`, a mapping of its keys (over
#: :data:`DEFAULTS`), the path of a YAML config file, or None (the defaults).
ConfigLike = Config | Mapping | str | os.PathLike | None


def _config(game: Game, config: ConfigLike, **keys: Any) -> Config:
    """``config`` (see :data:`ConfigLike`) for ``game``, with the top-level ``keys`` that
    are not None set (a ``stop`` replaces the whole stop rule). A config that names
    another game is refused."""
    from evo.config import merge

    if isinstance(config, str | os.PathLike):
        config = load_config(path_argument(config, what="config"))
    if isinstance(config, Config):
        data: dict = config.model_dump(mode="json")
    elif config is not None and not isinstance(config, Mapping):
        raise ValueError(
            f"config must be a Config, a mapping of config keys, a YAML file's path or None, "
            f"not {type(config).__name__}"
        )
    else:
        data = merge(DEFAULTS, dict(config or {}))
        if config is not None and "stop" in config:
            data["stop"] = config["stop"]  # a stop rule of its own, not merged with 50 generations
    mine = _game_keys(game)
    named = data.get("game")
    if isinstance(named, Mapping):  # the game's keys must agree; its memory budget stays
        theirs = dict(named)
        if "variant" in theirs:  # kind's older name
            theirs.setdefault("kind", theirs.pop("variant"))
        theirs = {k: theirs[k] for k in mine if k in theirs}
        if {**mine, **theirs} != mine:
            raise ValueError(f"the config's game {theirs} is not the game evolved ({mine})")
        data["game"] = {**{k: v for k, v in named.items() if k != "variant"}, **mine}
    else:
        data["game"] = mine
    data.update({k: v for k, v in keys.items() if v is not None})
    return load_config(data)


def _game_keys(game: Game) -> dict[str, Any]:
    """The config keys of ``game`` (its ``game:`` section, but for the memory budget)."""
    pegs = peg_game(game)
    if pegs is not None:
        return {"kind": pegs.variant, "pegs": pegs.pegs, "colors": pegs.colors}
    spec = game.spec
    if game.kind != "custom":  # Wordle: named by its kind (and its own lists' digest)
        return {"kind": game.kind, **({"digest": spec["digest"]} if "digest" in spec else {})}
    return {"kind": game.kind, "name": spec["name"], "digest": spec["digest"]}


@dataclass
class Evolution:
    """What :func:`evolve` returns, as DEAP's ``eaSimple`` returns its population and
    logbook and pymoo's result its ``X`` and ``F``: the best breaker found, DEAP's
    logbook (a record per generation: gen, nevals, min, avg, max, std, worst, worst_min,
    roots), the hall of fame (the best breakers ever seen, best first), the last
    population and its fitness values (a row per breaker), the Pareto front on the total
    and the worst case (NSGA-II's front; else the breakers of the hall of fame and the
    last population that no other beats on both), the run's summary, and why it stopped
    (``generations``, ``seconds``, ``target_total``, ``callback``, or the signal that
    interrupted it). Every breaker of it keeps its DEAP ``fitness``, as the individuals
    of :func:`steps` do.

    >>> import evo
    >>> result = evo.evolve(evo.make_game(3, 3), seed=1, generations=3)
    >>> result.total, result.stopped_by, len(result.population), result.fitness[:2].tolist()
    (73, 'generations', 40, [[73], [73]])
    >>> result.best.fitness.values, result.population[0].fitness.values
    ((73.0,), (73.0,))
    >>> [(b.total, b.worst) for b in result.pareto_front], len(result.hall_of_fame)
    ([(73, 4)], 5)
    """

    best: Breaker
    logbook: tools.Logbook
    hall_of_fame: list[Breaker]
    summary: dict
    stopped_by: str | None
    config: Config
    population: list[Breaker] = field(default_factory=list)
    fitness: np.ndarray = field(default_factory=lambda: np.zeros((0, 1)))
    pareto_front: list[Breaker] = field(default_factory=list)

    @property
    def total(self) -> int:
        """The best breaker's total (``best.total``)."""
        return self.best.total


def evolve(
    game: Game,
    config: Config | Mapping | None = None,
    *,
    seed: int | None = None,
    generations: int | None = None,
    seconds: float | None = None,
    workers: int | None = None,
    on_generation: Callable[[int, list, tools.Logbook], Any] | None = None,
    run_dir: str | os.PathLike | None = None,
    cache: Cache = None,
    progress: bool = False,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    plant: Sequence[Tree] = (),
) -> Evolution:
    """Evolve breakers of ``game`` and return the best (:class:`Evolution`).

    ``config``: a :class:`~evo.config.Config`, or a mapping of config keys (as in a YAML
    config; keys left out take :data:`DEFAULTS`, which follow the game's size), or None.
    ``seed``, ``generations``, ``seconds`` and ``workers`` set those keys (``stop.*`` for
    the limits; a given limit replaces the config's stop rule). ``on_generation(gen,
    population, logbook)`` is called after every generation; returning True stops the
    run there. Nothing is written unless asked: ``run_dir`` (a new or an interrupted run
    directory of this config, resumed when it holds a checkpoint; another config's is
    refused) and ``cache`` (where the game's big tables and baselines are kept;
    ``True``: the machine's cache). ``time_limit``: seconds a planted baseline may take
    to compute (refused beyond, on its estimate, before any work). ``plant``: breakers
    in memory (a :func:`baseline`, a tree of an earlier run) put into the first
    population, before the config's own. With ``workers`` > 1
    a script calls this under ``if __name__ == "__main__":`` (the workers start afresh
    and import it). Ctrl-C (interrupting a notebook's kernel) stops after the generation
    under way and returns what was reached.

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> result = evo.evolve(game, seed=1, generations=3)  # the default config
    >>> result.best.total, result.logbook.select("min")  # 73: the optimum
    (73, [78, 73, 73, 73])
    >>> mine = {"population": {"size": 10}, "stop": {"target_total": 73}}
    >>> evo.evolve(game, mine, seed=2).stopped_by  # a dict of config keys
    'target_total'
    """
    from evo.baselines.limits import BaselineRefused
    from evo.ea.state import best_of, pareto_front
    from evo.runs.driver import RunInterrupted, check_run, run_config

    stop = None
    if generations is not None or seconds is not None:
        stop = {"generations": generations, "seconds": seconds}
    cfg = _config(game, config, seed=seed, workers=workers, stop=stop)
    if on_generation is not None and not callable(on_generation):
        raise TypeError(f"on_generation must be a function, not {on_generation!r}")
    root = _cache_root(cache)
    path = None if run_dir is None else _run_dir(run_dir, cfg)
    resume = path is not None and _has_checkpoint(path, cfg)
    try:
        plan = check_run(
            cfg, cache=root, time_limit=time_limit, plant=not resume, trees=list(plant)
        )
    except BaselineRefused as e:
        raise e.citing(PYTHON_OPTION) from None
    _compiled(cfg, plan.game)
    if path is not None:
        from evo.runs.rundir import CONFIG, write_config

        path.mkdir(parents=True, exist_ok=True)
        if not (path / CONFIG).exists():
            write_config(path, cfg)
    try:
        result = run_config(
            cfg,
            run_dir=path,
            resume=resume,
            progress=progress,
            on_generation=on_generation,
            knuth=path is not None,
            cache=root,
            plan=plan,
        )
    except RunInterrupted as e:
        if e.result is None and e.reason is not None:  # a time limit, not the user's Ctrl-C
            raise
        if e.result is None:
            raise KeyboardInterrupt(str(e)) from None
        result = e.result
        result.summary["stopped_by"] = e.signal if e.reason is None else e.reason
    state = result.state
    return Evolution(
        best=_evolved(best_of(state, cfg)),
        logbook=state.logbook,
        hall_of_fame=[_evolved(t) for t in state.halloffame],
        summary=dict(result.summary),
        stopped_by=result.summary.get("stopped_by"),
        config=cfg,
        population=[_evolved(t) for t in state.population],
        fitness=np.array([t.fitness.values for t in state.population], dtype=np.int64),
        pareto_front=[_evolved(t) for t in pareto_front(state, cfg)],
    )


def _evolved(individual: Any) -> Breaker:
    """An individual of a run as a :class:`Breaker` that keeps (a copy of) its DEAP
    fitness, as the individuals of :func:`steps` carry it."""
    breaker = Breaker.of(individual)
    breaker.fitness = copy.deepcopy(individual.fitness)
    return breaker


def steps(
    game: Game,
    config: ConfigLike = None,
    *,
    seed: int | None = None,
    generations: int | None = None,
    seconds: float | None = None,
    workers: int | None = None,
    plant: Sequence[Tree] = (),
    cache: Cache = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> Iterator[State]:
    """Evolve step by step, as a generator (pymoo's ``ask``/``tell`` in one loop): the
    run's state after generation 0, then after every generation (or, with islands, every
    epoch), until the config's stop rule, or until you stop iterating. A state has
    ``generation``, ``population`` (DEAP individuals: ``fitness.values``),
    ``halloffame``, ``logbook`` and ``elapsed``; it is the same object, updated in place
    (``state.snapshot()`` keeps one). The arguments are :func:`evolve`'s; nothing is
    written, and the workers stop when the generator ends.

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> for state in evo.steps(game, seed=1, generations=3):
    ...     print(state.generation, state.logbook[-1]["min"])
    0 78
    1 73
    2 73
    3 73
    """
    from evo.ea.deadline import GenerationCut
    from evo.ea.engine import make_engine
    from evo.runs.driver import check_run

    stop = None
    if generations is not None or seconds is not None:
        stop = {"generations": generations, "seconds": seconds}
    cfg = _config(game, config, seed=seed, workers=workers, stop=stop)
    try:
        plan = check_run(cfg, cache=_cache_root(cache), time_limit=time_limit, trees=list(plant))
    except BaselineRefused as e:
        raise e.citing(PYTHON_OPTION) from None
    _compiled(cfg, plan.game)
    engine = make_engine(cfg, plan.game)
    with engine.running():
        state = engine.first(plan.planted(cfg))
        yield state
        try:
            yield from engine.steps(state)
        except GenerationCut:  # stop.seconds fell inside a step: the one before stands
            return


def _compiled(config: Config, game: Game) -> None:
    """The kernels a run of ``config`` on ``game`` uses, compiled before its clock starts
    (once per machine: said on standard error)."""
    import sys

    from evo.ea.engine import run_kernels
    from evo.search.kernels import ensure_compiled

    def say(line: str) -> None:
        print(f"evo: {line}", file=sys.stderr, flush=True)

    ensure_compiled(run_kernels(config, game), say=say)


def _run_dir(run_dir: str | os.PathLike, config: Config) -> Path:
    """``run_dir`` as the folder of a run of ``config``: a new or empty folder, or a run
    directory whose ``config.yaml`` is this config (but for the keys a resume may change:
    ``stop``, ``workers``, ``cluster``); another config's, an unreadable one, or a folder
    of other files is refused (:class:`~evo.runs.rundir.RunDirError`) before anything is
    written."""
    from evo.config import ConfigError
    from evo.config.loading import fixed_differences
    from evo.runs.rundir import CONFIG, RunDirError

    path = path_argument(run_dir, what="run_dir")
    if path.exists() and not path.is_dir():
        raise RunDirError(f"{path} is not a folder: a run directory cannot be made there")
    if not path.exists() or not any(path.iterdir()):
        return path
    if not (path / CONFIG).is_file():
        raise RunDirError(
            f"{path} holds other files and no {CONFIG}: it is not a run directory "
            "(give a new or empty folder, or a run directory of this config)"
        )
    try:
        theirs = load_config(path / CONFIG)
    except ConfigError as e:
        raise RunDirError(f"{path} is not a run directory of this config: {e}") from None
    differ = fixed_differences(theirs, config)
    if differ:
        raise RunDirError(
            f"{path} holds a run of another config (it differs in {', '.join(differ[:5])}"
            f"{', ...' if len(differ) > 5 else ''}): give a new folder"
        )
    return path


def _has_checkpoint(path: Path, config: Config) -> bool:
    """Whether ``path`` holds a run to continue (its checkpoint)."""
    from evo.runs.checkpoint import islands_saved
    from evo.runs.rundir import CHECKPOINT

    if config.islands.count > 1:
        return islands_saved(path)
    return (path / CHECKPOINT).exists()


def bound(
    game: Game,
    against: Tree | str | os.PathLike | None = None,
    *,
    depth: int | None = None,
    seconds: float | None = None,
    first: int | str | None = None,
    exact_below: int | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    certificate: str | os.PathLike | None = None,
    tree: bool = False,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    name: str | None = None,
    progress: Callable[[Bound], Any] | None = None,
    say: Callable[[str], Any] | None = None,
    resume: Mapping[str, Any] | None = None,
    memo: KeptMemo | None = None,
) -> BoundResult:
    """Prove a lower bound of ``game``'s least total (``evo bound``): no breaker, whatever
    its guesses, has a smaller total. Returns a :class:`~evo.proofs.verdict.BoundResult`:
    its ``verdict`` (one sentence), ``lower_bound``, ``upper`` and ``gap`` (percent of
    the upper), ``optimal``, ``certificate`` (its path) and the whole ``bound``.

    ``against``: a breaker (a tree, or its file) whose total is the upper bound, its
    subtrees directing the time to the gaps; the verdict says it is optimal, or how far
    above the optimum it is at most. ``depth``: levels searched exhaustively (0: the
    first guess's parts by their perfect splits); ``seconds``: refine for this long;
    neither: the exact optimum (refused beyond ``time_limit`` seconds on its estimate).
    ``first``: only the breakers that open with this guess; with ``tree=True``, the
    result's ``tree`` is then an optimal tree opening with it (when the bound is the
    optimum). ``workers`` local processes, or a Dask ``scheduler``. ``certificate``: a
    file the certificate is written to as the bound goes (``resume``: a certificate read
    by :func:`evo.proofs.bound.read_certificate` to go on from; ``memo``: its memo file,
    :func:`evo.proofs.memo_file.open_memo`). ``progress(bound)`` is told each bound
    proved; ``say(line)`` what is done before the clock (default: the ``evo`` logger).
    ``name``: how the verdict names the breaker (default its file, else "the breaker").
    With ``against``, one-step trees of the other first guesses are built first, within a
    tenth of ``seconds`` (said through ``say``). Ctrl-C raises KeyboardInterrupt; the
    certificate keeps the bound proved by then. docs/BOUND.md explains the verdicts.

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> evo.bound(game).verdict
    'mastermind-3-3: the optimum is 73'
    >>> knuth = evo.baseline(game, "knuth")
    >>> result = evo.bound(game, knuth, name="knuth")
    >>> result.verdict, result.lower_bound, result.optimal
    ('knuth is 1.37% above the optimum (74; the optimum is 73)', 73, True)
    """
    import logging

    from evo.proofs.bound import (
        EXACT_BELOW,
        LOOKAHEAD_RATE,
        LOOKAHEAD_SECONDS,
        LOOKAHEAD_SHARE,
        LOOKAHEAD_WORK,
        against_uppers,
        lookahead_plan,
        write_certificate,
    )
    from evo.proofs.refine import lower_bound
    from evo.proofs.verdict import verdict_text

    tell = say if say is not None else logging.getLogger("evo").info
    opening = game.parse_code(first) if isinstance(first, str) else first
    breaker = against
    if isinstance(against, str | os.PathLike):
        breaker = load_tree(against, game=game)
        name = name or str(against)
    if tree and opening is None:
        raise ValueError("tree=True needs first= (the tree of least total opening with it)")
    if depth is None and seconds is None and opening is None and time_limit is not None:
        from evo.baselines import estimate_seconds
        from evo.baselines.limits import refuse_beyond

        refuse_beyond(game, "optimal", estimate_seconds(game, "optimal"), time_limit)
    uppers = None
    if isinstance(breaker, Tree):
        # Before the clock: LOOKAHEAD_SHARE of the time asked (else LOOKAHEAD_SECONDS) at most,
        # and the work that fits in it (at least LOOKAHEAD_WORK).
        most = LOOKAHEAD_SECONDS if seconds is None else seconds * LOOKAHEAD_SHARE
        work = LOOKAHEAD_WORK if seconds is None else max(LOOKAHEAD_WORK, most * LOOKAHEAD_RATE)
        below = breaker.total if opening is None else None
        plan = lookahead_plan(game, first=opening, below=below, work=work)
        if plan.guesses:
            left = f"; the other {plan.left:,} refined without" if plan.left else ""
            tell(
                f"upper bounds: one-step trees of {len(plan.guesses):,} first guesses "
                f"(those of least depth-0 bound below the breaker's total{left}), about "
                f"{plan.seconds:.1f} s, at most {most:g} s"
            )
        uppers = against_uppers(breaker, first=opening, plan=plan, seconds=most)
    elif breaker is not None:
        raise ValueError(f"against must be a tree or a tree file, not {type(breaker).__name__}")
    path = None if certificate is None else path_argument(certificate, what="certificate")

    def told(b: Bound) -> None:
        if path is not None:
            write_certificate(b, path)  # kept as it goes: a stopped run loses nothing
        if progress is not None:
            progress(b)

    result = lower_bound(
        game,
        depth=depth,
        seconds=seconds,
        exact_below=EXACT_BELOW if exact_below is None else exact_below,
        scheduler=scheduler,
        workers=workers,
        progress=told,
        resume=None if resume is None else dict(resume),
        uppers=uppers,
        first=opening,
        memo=memo,
    )
    if path is not None:
        write_certificate(result, path)
    total = breaker.total if isinstance(breaker, Tree) else None
    written = None if opening is None else game.format_code(opening)
    label = name or "the breaker"
    found = None
    if tree and result.optimal and opening is not None:
        from evo.proofs.first_tree import opened_tree

        found = Breaker.of(opened_tree(game, opening, total=result.lower_bound))
    return BoundResult(
        verdict_text(result, against=label, against_total=total, first=written),
        result.lower_bound,
        result.upper,
        result.gap,
        result.optimal,
        path,
        result,
        against_total=total,
        first=written,
        tree=found,
    )
