"""``evo polish``: a breaker improved by searching every node of some size bands."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import click

from evo.baselines.limits import DEFAULT_TIME_LIMIT
from evo.cli.common import (
    FINITE_POSITIVE,
    WORKERS,
    TreeOutputFile,
    game_options,
    load_breaker,
    threads_option,
)
from evo.core.kinds import EXACT_GUESSES, MAX_IMPOSSIBLE

#: A band's progress is told at most this often (seconds): a band of big nodes can take hours.
PROGRESS_SECONDS = 60.0


@click.command()
@click.argument("tree", metavar="TREE")
@threads_option
@click.option(
    "--band",
    "bands",
    multiple=True,
    metavar="MIN:MAX:SEARCH",
    help="Rebuild every node of MIN to MAX codes (the outermost ones) by SEARCH: all (the "
    "exact optimum), consistent (exact among the possible codes), mixed (those and the "
    "--impossible best others) or greedy (--tries root guesses of the --top by look-ahead, "
    "completed by search); repeatable, run in order. E.g. --band 81:400:mixed "
    "--band 10:80:all. None with --max-guesses: the tree is only brought within it.",
)
@click.option(
    "--output",
    "-o",
    type=TreeOutputFile(),
    default=None,
    help="Where to write the polished tree (.json, .json.gz or .gz for it gzip-compressed, "
    "or .npz for the compact form; another compression's suffix is refused). Default: "
    "TREE's name with -polished.json, here.",
)
@click.option(
    "--impossible",
    type=click.IntRange(min=1, max=MAX_IMPOSSIBLE),
    default=2,
    show_default=True,
    help="mixed: how many of the best bounds of impossible guesses are tried.",
)
@click.option(
    "--tries",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="greedy: root guesses tried at each node.",
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="greedy: the tries are drawn among this many best by look-ahead.",
)
@click.option(
    "--exact-below",
    type=click.IntRange(min=0),
    default=80,
    show_default=True,
    help="greedy: code sets of at most this many codes solved exactly.",
)
@click.option(
    "--mixed-below",
    type=click.IntRange(min=0),
    default=400,
    show_default=True,
    help="greedy: larger ones of at most this many codes in the mixed class.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="greedy: the draws of the tries.",
)
@click.option(
    "--max-guesses",
    type=click.IntRange(min=1),
    default=None,
    help="A worst case to keep: TREE is first brought within it (each code deeper gets the "
    "best subtree that fits above it), then every rebuild keeps it.",
)
@click.option(
    "--climb",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="With --max-guesses: where the best subtree that fits above a deeper code costs more "
    "than the one it replaces, also search the nodes above it of at most this many codes, "
    "and rebuild the one that costs the least more.",
)
@click.option(
    "--fit",
    type=click.Choice(EXACT_GUESSES),
    default="all",
    show_default=True,
    help="With --max-guesses: the class in which a subtree that fits above a deeper code is "
    "searched: all guesses (the best; slow on big games), mixed (the possible codes and the "
    "--impossible best others) or consistent (the possible codes).",
)
@click.option(
    "--fewest-last",
    is_flag=True,
    help="With --max-guesses: the all, consistent and mixed bands' subtrees of least total "
    "are those with the fewest codes at the --max-guesses-th guess (fewer codes at the worst "
    "case, the total kept).",
)
@click.option(
    "--workers",
    type=WORKERS,
    default=1,
    show_default=True,
    help="Processes that search the nodes of the all, consistent and mixed bands side by "
    "side (the same tree as one; the --threads shared among them).",
)
@click.option(
    "--scheduler",
    metavar="ADDR",
    default=None,
    help="Search those nodes on the workers of the Dask scheduler at ADDR (tcp://host:8786) "
    "instead (the same tree).",
)
@click.option(
    "--time-limit",
    type=FINITE_POSITIVE,
    default=DEFAULT_TIME_LIMIT,
    show_default=True,
    help="Seconds the search of a band that holds the root (its sizes reach every code: "
    "its one node is the whole game) may be estimated to take, as evo baselines --only "
    "optimal estimates the optimum; beyond, refused with the estimate before any work, "
    "else the estimate is said as the band starts.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Go on from the tree so far in the output, where a polish of the same TREE and "
    "options stopped: the bands and nodes done, and the codes brought within --max-guesses, "
    "are not searched again (a greedy band starts again). Without an output yet, a polish "
    "from the start; a finished one is kept.",
)
@game_options
@click.pass_context
def polish(ctx, tree, bands, output, impossible, tries, top, exact_below, mixed_below, seed,
           max_guesses, climb, fit, fewest_last, workers, scheduler, time_limit, resume, pegs,
           colors, variant) -> None:  # fmt: skip
    """Improve TREE (a tree file, a run directory, or a baseline name with
    --pegs/--colors) by searching every node of the --band sizes, keeping a subtree only
    where the search finds a better one: a local search after evolution. Prints each
    band's gain, and during a long band (or a long --max-guesses step), each minute, how
    many of its nodes are done (codes still too deep); the tree so far is then written to
    the output, with how far it went (and at once on Ctrl-C or SIGTERM), so that a polish
    stopped keeps it and --resume goes on from there. TREE may name a breaker evo ships
    (`evo breakers` lists them)."""
    from evo.api import polish as run
    from evo.core.treeio import save_tree
    from evo.ea.polish import Band, TooShortError, root_estimates
    from evo.runs.driver import stopped_at_once

    _check_options(bands, max_guesses, climb, fit, fewest_last, workers, scheduler)
    if output is None:
        output = _default_output(tree, pegs, colors, variant)
    try:
        wanted = [Band.parse(b) for b in bands]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--band") from None
    # What the result depends on: a polish goes on only from one of the same.
    options = {
        "tree": str(tree),
        "bands": [str(b) for b in wanted],
        "impossible": impossible,
        "tries": tries,
        "top": top,
        "exact_below": exact_below,
        "mixed_below": mixed_below,
        "seed": seed,
        "max_guesses": max_guesses,
        "climb": climb,
        "fit": fit,
        "fewest_last": fewest_last,
    }
    start = None
    if resume and Path(output).exists():
        start = _checkpoint(output, options)
        if start is None:
            click.echo(f"{output}: this polish finished already; kept as it is", err=True)
            return
        breaker = load_breaker(ctx, output, pegs, colors, variant)
        # A band holding the root refused beyond --time-limit before anything is said
        # (the polish checks it again, as for any caller).
        root_estimates(breaker.game, wanted, time_limit=time_limit, workers=workers, start=start)
        click.echo(
            f"{output}: total {breaker.total}, worst case {breaker.worst}, "
            f"going on from {_going_on(breaker, start, wanted, max_guesses)}",
            err=True,
        )
    else:
        breaker = load_breaker(ctx, tree, pegs, colors, variant)
        root_estimates(breaker.game, wanted, time_limit=time_limit, workers=workers)
        click.echo(f"{tree}: total {breaker.total}, worst case {breaker.worst}", err=True)
    told = _Reporter(
        str(tree),
        output,
        list(bands),
        wanted,
        options,
        max_guesses=max_guesses,
        kept=breaker.total if start is not None else None,
    )
    with stopped_at_once(told.stopped):
        try:
            polished = run(
                breaker,
                wanted,
                impossible=impossible,
                tries=tries,
                top=top,
                exact_below=exact_below,
                mixed_below=mixed_below,
                seed=seed,
                max_guesses=max_guesses,
                climb=climb,
                fit=fit,
                fewest_last=fewest_last,
                workers=workers,
                scheduler=scheduler,
                start=start,
                on_band=told.band,
                on_node=told.node,
                on_fix=told.fix,
                time_limit=time_limit,
                on_root=partial(_root, breaker.game.num_codes),
            ).best
        except TooShortError as e:
            raise click.BadParameter(str(e), param_hint="--max-guesses") from None
    save_tree(polished, output, polished_from=str(tree), bands=list(bands), polish=options)
    deepest = polished.at_worst
    click.echo(
        f"{output}: total {polished.total} ({polished.total - breaker.total:+d}), "
        f"worst case {polished.worst} for {deepest} code{'' if deepest == 1 else 's'}"
    )


def _default_output(tree: str, pegs: int, colors: int, variant: str) -> Path:
    """``NAME-polished.json`` in the current folder: NAME is the tree file's (or run
    directory's, or shipped breaker's) name, or a baseline's with its game's."""
    from evo.cli.common import TreeOutputFile, open_game, tree_path
    from evo.core.treeio import tree_stem

    path = tree_path(tree)
    if path is None:
        name = f"{tree}-{open_game(pegs, colors, variant).name}"
    else:
        name = tree_stem(tree if Path(tree).is_dir() else path)
    return TreeOutputFile().convert(f"{name}-polished.json", None, None)


def _root(codes: int, band, estimate: float | None) -> None:
    """A band that holds the root starts: the whole game's search, and its estimate (one
    node: no other progress line until it ends)."""
    from evo.baselines.limits import duration_text

    about = "no estimate" if estimate is None else f"about {duration_text(estimate)} here"
    click.echo(
        f"band {band}: its one node is the root, the whole game ({codes:,} codes): searching "
        f"it ({about})",
        err=True,
    )


def _check_options(
    bands: tuple[str, ...],
    max_guesses: int | None,
    climb: bool,
    fit: str,
    fewest_last: bool,
    workers: int,
    scheduler: str | None,
) -> None:
    """A usage error for options that need another or exclude one; a wrong scheduler
    said at once."""
    if not bands and max_guesses is None:
        raise click.UsageError("give a --band to search, or a --max-guesses to keep, or both")
    if climb and max_guesses is None:
        raise click.UsageError("--climb searches for --max-guesses: give that too")
    if fit != "all" and max_guesses is None:
        raise click.UsageError("--fit searches for --max-guesses: give that too")
    if fewest_last and max_guesses is None:
        raise click.UsageError("--fewest-last counts the codes at --max-guesses: give that too")
    if scheduler is not None and workers > 1:
        raise click.UsageError("--workers is for local processes, not with --scheduler")
    if scheduler is not None:
        from evo.ea.cluster import check_scheduler

        check_scheduler(scheduler)  # a wrong address or an empty cluster: one line, now


def _going_on(breaker, start, wanted: list, max_guesses: int | None) -> str:
    """Where a resumed polish goes on from, in words."""
    if max_guesses is not None and breaker.worst > max_guesses:
        return f"bringing {_deeper(breaker, max_guesses)} within {max_guesses} guesses"
    band = wanted[start.band] if start.band < len(wanted) else "-"
    return f"band {band} after {len(start.done)} of its nodes"


class _Reporter:
    """What a polish tells as it goes: each band's gain, and at most every
    :data:`PROGRESS_SECONDS` the nodes done (or the codes still too deep), the tree so
    far then written to the output with its checkpoint (what ``--resume`` goes on from);
    at a stop signal, the latest tree so far written and the one line said."""

    def __init__(
        self,
        tree: str,
        output: str,
        bands: list[str],
        wanted: list,
        options: dict,
        *,
        max_guesses: int | None,
        kept: int | None,
    ):
        self.tree, self.output, self.bands, self.wanted = tree, output, bands, wanted
        self.options, self.max_guesses, self.kept = options, max_guesses, kept
        self.told = time.monotonic()
        self.latest: tuple | None = None  # the last node's (checkpoint, node count, tree so far)
        self.written: tuple | None = None  # the latest of those written to the output

    def band(self, done) -> None:
        """A band (or the fix within --max-guesses, band None) is done: its gain."""
        b = done.band
        what = f"within {self.max_guesses} guesses" if b is None else f"band {b}"
        at = (
            ""
            if done.last_before is None
            else f", codes at {self.max_guesses}: {done.last_before} -> {done.last_after}"
        )
        on = f" on {done.processes} processes" if done.processes > 1 else ""
        click.echo(
            f"{what}: {done.before} -> {done.after} "
            f"({done.after - done.before:+d}){at} in {done.seconds:.0f} s{on}",
            err=True,
        )

    def node(self, at, of: int, so_far) -> None:
        """A node of a band is done."""
        self.latest = (at, of, so_far)
        if len(at.done) < of and self._due():
            # Written each minute: a polish killed in a long band keeps the tree so far.
            self.write(at, so_far)
            click.echo(
                f"band {self.wanted[at.band]}: {len(at.done)} of {of} nodes, total "
                f"{so_far.total} (in {self.output})",
                err=True,
            )

    def fix(self, so_far) -> None:
        """A step of bringing the tree within --max-guesses, before band 0: the tree so
        far is where --resume goes on from (the fix under way, searched again)."""
        from evo.ea.polish import Checkpoint

        self.latest = (Checkpoint(0, ()), None, so_far)
        if self._due():
            self.write(self.latest[0], so_far)
            click.echo(
                f"within {self.max_guesses} guesses: {_deeper(so_far, self.max_guesses)} "
                f"deeper left, total {so_far.total} (in {self.output})",
                err=True,
            )

    def _due(self) -> bool:
        """Whether the progress is to be told now (then not again for a while)."""
        if time.monotonic() - self.told < PROGRESS_SECONDS:
            return False
        self.told = time.monotonic()
        return True

    def write(self, at, so_far) -> None:
        """The tree so far, with how far the polish went: what --resume goes on from."""
        from evo.core.treeio import save_tree

        save_tree(
            so_far,
            self.output,
            polished_from=self.tree,
            bands=self.bands,
            partial=True,
            polish=self.options,
            checkpoint={"band": at.band, "done": list(at.done)},
        )
        self.written = self.latest

    def stopped(self, signal: str) -> Exception:
        """Ctrl-C, SIGTERM or SIGHUP: the nodes under way are dropped, those done kept (a
        node of a record band can take an hour)."""
        if self.latest is not None and self.latest is not self.written:
            self.write(self.latest[0], self.latest[2])
        return _stopped(
            signal, self.latest, self.wanted, self.output, self.max_guesses, kept=self.kept
        )


def _stopped(
    signal_name: str,
    latest: tuple | None,
    wanted: list,
    output: str,
    max_guesses: int | None,
    *,
    kept: int | None = None,
) -> Exception:
    """The one line of a polish stopped by a signal (exit status 128 + its number);
    ``kept``: the total of the tree so far that the output held when this polish resumed it."""
    from evo.cli.common import Interrupted

    if latest is None:
        what = "nothing written"
        if kept is not None:
            what = (
                f"{output} still holds the tree so far (total {kept}), and the same "
                "command with --resume goes on from there"
            )
        return Interrupted(
            f"stopped by {signal_name} before a node or fix was done: {what}", signal_name
        )
    at, of, so_far = latest
    if of is None:  # within --max-guesses still
        where = f"with {_deeper(so_far, max_guesses)} deeper than {max_guesses} guesses left"
    else:
        band = wanted[at.band] if at.band < len(wanted) else "-"
        where = f"after {len(at.done)} of the {of} nodes of band {band}"
    return Interrupted(
        f"stopped by {signal_name} {where}: the tree so far (total {so_far.total}) is in "
        f"{output}, and the same command with --resume goes on from there",
        signal_name,
    )


def _deeper(tree, max_guesses: int | None) -> str:
    """How many codes ``tree`` solves beyond ``max_guesses`` guesses, in words."""
    n = sum(c for d, c in tree.histogram.items() if d > (max_guesses or 0))
    return f"{n} code{'' if n == 1 else 's'}"


#: Options a checkpoint names since a later version, with the value older ones had.
_ADDED = {"fit": "all"}


def _checkpoint(output: str, options: dict):
    """Where the polish that wrote ``output`` stopped (None: it finished), when it had
    these ``options``; a usage error naming what differs otherwise."""
    from evo.core.treeio import TreeFileError, tree_file_document
    from evo.ea.polish import Checkpoint

    try:
        doc = tree_file_document(output)
    except TreeFileError as e:
        raise click.BadParameter(str(e), param_hint="--resume") from None
    had = doc.get("polish")
    if not isinstance(had, dict):
        raise click.BadParameter(
            f"{output} was not written by evo polish: nothing to go on from", param_hint="--resume"
        )
    for key, value in options.items():
        if had.get(key, _ADDED.get(key)) != value:
            raise click.BadParameter(
                f"{output} was written by a polish with {key} {had.get(key)!r}, not {value!r}: "
                "give the same options, or another --output",
                param_hint="--resume",
            )
    if not doc.get("partial"):
        return None
    at = doc.get("checkpoint")
    if (
        not isinstance(at, dict)
        or not isinstance(at.get("band"), int)
        or not 0 <= at["band"] < max(len(options["bands"]), 1)  # 0: --max-guesses alone
        or not isinstance(at.get("done"), list)
        or not all(isinstance(k, int) and k >= 0 for k in at["done"])
        or len(set(at["done"])) != len(at["done"])
    ):
        raise click.BadParameter(
            f"{output}: its checkpoint {at!r} is not one", param_hint="--resume"
        )
    return Checkpoint(at["band"], tuple(at["done"]))
