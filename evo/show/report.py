"""Run reports: the fitness plot, depth histograms, the best breaker's picture and an
HTML and a Markdown page putting them together with the table against the baselines.

Reads a run directory as ``evo run`` writes it (:mod:`evo.runs.rundir`). The HTML page needs
no network: its pictures are files beside it, referenced by relative paths.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evo.baselines import OptimalRefused, cached, known_optimum
from evo.baselines.reference import (
    COMPUTE_LIMIT,
    BaselineFigures,
    baseline_figures,
    collect_baselines,
    reference_names,
    reference_tree,
)
from evo.core.files import atomic_write_text, check_target
from evo.core.game import Game, game_from_spec
from evo.core.tree import Tree
from evo.runs.rundir import BEST, LOGBOOK, RunDirError, load_run
from evo.show.explore import write_explorer
from evo.show.plots import plot_depths, plot_fitness, plot_islands
from evo.show.render import GraphvizMissing, auto_depth, render_tree
from evo.show.text import printable

#: Drawn nodes above which the best breaker's picture is cut to a depth.
MAX_DRAWN_NODES = 150

#: The breaker explorer page a report writes beside itself (:mod:`evo.show.explore`).
EXPLORER = "explore.html"

#: The best breaker's picture (drawn by Graphviz: left out without it).
PICTURE = "best.svg"

#: The best total of each island per generation, in the report of a run of islands.
ISLANDS_PLOT = "islands.png"

#: The files a report writes into the run directory.
REPORT_FILES = (
    "fitness.png",
    "depths.png",
    ISLANDS_PLOT,
    PICTURE,
    EXPLORER,
    "report.md",
    "report.html",
)


@dataclass(frozen=True)
class RunData:
    """What a report needs of a run."""

    path: Path
    name: str  # the run directory's name, unprintable characters escaped
    summary: dict
    logbook: list[dict]
    best: Tree

    @property
    def game(self) -> Game:
        return self.best.game


def check_logbook(run_dir: Path, logbook: list[dict]) -> list[dict]:
    """The logbook, once it is known to hold generations with best, average and worst."""
    if not logbook:
        raise RunDirError(f"the logbook {run_dir / LOGBOOK} has no generation")
    for k, entry in enumerate(logbook, 1):
        missing = {"gen", "min", "avg", "max"} - set(entry)
        if missing:
            where = f"{run_dir / LOGBOOK}, record {k}"
            raise RunDirError(f"{where}: missing key(s) {sorted(missing)}")
    return logbook


def read_run(run_dir: str | os.PathLike, *, cache: str | os.PathLike | None = None) -> RunData:
    """What a report needs of a run directory (:func:`evo.runs.rundir.load_run`, its game
    made with ``cache``); a run that has not finished has an empty summary. Errors name
    the file."""
    run = load_run(run_dir, cache=cache)
    best = run.best
    if best is None:
        raise RunDirError(f"{run.path} has no {BEST}: no generation was finished")
    return RunData(
        path=run.path,
        name=printable(run.path.name),
        summary={**run.summary, "status": run.status} if run.summary else {},
        logbook=check_logbook(run.path, run.logbook),
        best=best,
    )


# ------------------------------------------------------------------ tables


def _hist_text(hist: dict[int, int] | None) -> str:
    return " ".join(f"{d}:{c}" for d, c in sorted(hist.items())) if hist else ""


def comparison_rows(best: Tree, baselines: list[BaselineFigures]) -> list[list[str]]:
    """Rows ``breaker, total, average, worst, difference, histogram``: the best evolved
    breaker first, then each baseline (``difference``: baseline total minus the best's,
    positive where the evolved breaker is better)."""
    m = best.num_codes
    rows = [
        [
            "best evolved",
            str(best.total),
            f"{best.average:.4f}",
            str(best.worst),
            "",
            _hist_text(best.histogram),
        ]
    ]
    for b in baselines:
        if b.total is None:
            rows.append([b.name, "not available", "", "", "", b.note])
            continue
        rows.append(
            [
                b.name,
                str(b.total),
                f"{b.total / m:.4f}",
                "" if b.worst is None else str(b.worst),
                f"{b.total - best.total:+d}",
                _hist_text(b.histogram) or b.note,
            ]
        )
    return rows


COMPARISON_HEADERS = ["breaker", "total", "average", "worst", "baseline − best", "histogram"]


def summary_rows(run: RunData) -> list[tuple[str, str]]:
    """Key facts of the run, as label and value."""
    s, last, best = run.summary, run.logbook[-1], run.best
    rows = [
        ("game", run.game.description),
        ("generations", str(s.get("generations", last["gen"]))),
        ("time", f"{float(s['seconds']):.1f} s" if "seconds" in s else "unknown"),
        ("best total", f"{best.total} (average {best.average:.4f}, worst {best.worst})"),
        ("best's first guess", run.game.format_code(int(best.guess[0]))),
        (
            "last generation",
            f"best {last['min']}, average {float(last['avg']):.1f}, worst {last['max']} (totals)",
        ),
    ]
    if "seed" in s:
        rows.insert(1, ("seed", str(s["seed"])))
    if s.get("stopped_by"):
        rows.append(("stopped by", str(s["stopped_by"])))
    if not s:
        rows.append(("status", "not finished (no summary.json yet)"))
    elif s.get("status", "finished") != "finished":  # running now, or interrupted
        rows.append(("status", f"{s['status']} (as of generation {s.get('generations')})"))
    return rows


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [headers, *rows]]
    lines = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(lines)


def html_table(headers: list[str], rows: list[list[str]]) -> str:
    """An HTML table, every cell escaped."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# ------------------------------------------------------------------ pages


_CSS = """
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 70em;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td:last-child { text-align: left; font-size: 0.85em; color: #444; }
.facts td { text-align: left; }
.tree { overflow: auto; border: 1px solid #ddd; max-height: 60em; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.9em; }
img.plot { max-width: 100%; }
"""


@dataclass(frozen=True)
class ReportParts:
    """Everything both pages show, computed once."""

    run: RunData
    facts: list[tuple[str, str]]
    rows: list[list[str]]
    tree_note: str
    pareto: list[list[str]]
    explorer_note: str = ""
    islands: int = 0  # islands of the run (0: a single population)
    drawn: bool = True  # best.svg was drawn (not without Graphviz)


def render_html(parts: ReportParts) -> str:
    """The HTML page (no external resource: pictures are the files beside it)."""
    run = parts.run
    facts = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in parts.facts
    )
    pareto = ""
    if parts.pareto:
        pareto = "<h2>Pareto front (total and worst case)</h2>" + html_table(
            PARETO_HEADERS[: len(parts.pareto[0])], parts.pareto
        )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>evo run {html.escape(run.name)}</title>
<style>{_CSS}</style>
</head>
<body>
<h1>evo run {html.escape(run.name)}</h1>
<table class="facts">{facts}</table>
<h2>Best evolved breaker against the baselines</h2>
{html_table(COMPARISON_HEADERS, parts.rows)}
<p>Totals are the guesses summed over all {run.game.num_codes} codes (lower is better);
average = total / {run.game.num_codes}. <i>baseline − best</i> is positive where the
evolved breaker beats the baseline. The histogram lists guesses:codes.</p>
<h2>Fitness per generation</h2>
<figure><img class="plot" src="fitness.png" alt="best total per generation against the baselines">
<figcaption>Guesses above the optimum per generation (linear from 0 to 1, logarithmic
above, so one guess shows): the best breaker, the population's spread from best to
highest total as a band and its average, and each baseline as a line labelled at its
end.</figcaption></figure>
{_islands_html(parts.islands)}<h2>Depth histogram</h2>
<figure><img class="plot" src="depths.png" alt="codes solved in k guesses">
<figcaption>How many codes the best breaker solves in 1, 2, &hellip; guesses, beside
Knuth's.</figcaption></figure>
<h2>The best breaker</h2>
<p><a href="{EXPLORER}"><b>Explore the whole tree</b></a>
({html.escape(parts.explorer_note)}).</p>
{_picture_html(parts)}
{pareto}
</body>
</html>
"""


def render_markdown(parts: ReportParts) -> str:
    """The Markdown page, with the same content as the HTML one."""
    run = parts.run
    lines = [f"# evo run {run.name}", ""]
    lines += [f"- **{k}**: {v}" for k, v in parts.facts]
    lines += [
        "",
        "## Best evolved breaker against the baselines",
        "",
        markdown_table(COMPARISON_HEADERS, parts.rows),
        "",
        f"Totals are the guesses summed over all {run.game.num_codes} codes (lower is better);"
        " *baseline − best* is positive where the evolved breaker beats the baseline.",
        "",
        "## Fitness per generation",
        "",
        "![best total per generation against the baselines](fitness.png)",
        "",
        *_islands_markdown(parts.islands),
        "## Depth histogram",
        "",
        "![codes solved in k guesses](depths.png)",
        "",
        "## The best breaker",
        "",
        f"[Explore the whole tree]({EXPLORER}) ({parts.explorer_note}).",
        "",
        f"{parts.tree_note} The tree itself: [best.json](best.json).",
        "",
        *([f"![the best breaker tree]({PICTURE})", ""] if parts.drawn else []),
    ]
    if parts.pareto:
        table = markdown_table(PARETO_HEADERS[: len(parts.pareto[0])], parts.pareto)
        lines += ["## Pareto front (total and worst case)", "", table, ""]
    return "\n".join(lines)


def _picture_html(parts: ReportParts) -> str:
    """The best breaker's picture and its note (only the note when it was not drawn)."""
    note = html.escape(parts.tree_note)
    if not parts.drawn:
        return f'<p>{note} The tree itself: <a href="best.json">best.json</a>.</p>'
    return (
        f'<p>{note} <a href="{PICTURE}">Open the picture alone</a>;\n'
        'the tree itself: <a href="best.json">best.json</a>.</p>\n'
        f'<div class="tree"><img src="{PICTURE}" alt="the best breaker tree"></div>'
    )


def _islands_html(islands: int) -> str:
    if not islands:
        return ""
    return (
        f'<h2>Islands</h2>\n<figure><img class="plot" src="{ISLANDS_PLOT}" '
        'alt="best total per island"><figcaption>The best total of each of the '
        f"{islands} islands per generation; dotted lines mark the migrations.</figcaption>"
        "</figure>\n"
    )


def _islands_markdown(islands: int) -> list[str]:
    if not islands:
        return []
    return ["## Islands", "", f"![best total per island]({ISLANDS_PLOT})", ""]


def _plot_islands(run: RunData, *, knuth: int | None, optimum: int | None, title: str) -> int:
    """``islands.png`` for a run of islands; how many islands (0: none)."""
    import json

    from evo.runs.rundir import ISLANDS_LOGBOOK

    path = run.path / ISLANDS_LOGBOOK
    if not path.exists():
        return 0
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break  # a line being written when the run stopped
    if not records:
        return 0
    config = load_run(run.path).config
    plot_islands(
        records,
        run.path / ISLANDS_PLOT,
        interval=config.islands.migration.interval,
        knuth=knuth,
        optimum=optimum,
        title=f"Islands: {title}",
    )
    return len({r["island"] for r in records})


#: The columns of a Pareto front: a run with the third objective has the last one too.
PARETO_HEADERS = ["total", "average", "worst", "codes at the worst case"]


def pareto_rows(summary: dict, num_codes: int) -> list[list[str]]:
    """The Pareto front of an NSGA-II run (``pareto_front``: ``[total, worst]`` points, or
    ``[total, worst, codes at the worst case]``)."""
    front = summary.get("pareto_front") or []
    return [[str(p[0]), f"{p[0] / num_codes:.4f}", *map(str, p[1:])] for p in front]


def write_report(
    run_dir: str | os.PathLike,
    baselines: Sequence[str] | None = None,
    *,
    log_time: bool = False,
    progress: Callable[[str], None] | None = None,
    cache: str | os.PathLike | None = None,
    warn: Callable[[str], None] | None = None,
) -> Path:
    """Write ``fitness.png``, ``depths.png``, ``best.svg``, ``explore.html``, ``report.html``
    and ``report.md`` into the run directory; return the path of ``report.html``.
    ``log_time``: the fitness plot's generation axis is logarithmic (long runs);
    ``progress``: called with what is being done before each step that can take long;
    ``cache``: where the game's baselines are read and kept; ``warn``: called with one
    line saying what was left out (``best.svg`` without Graphviz: the rest is written).
    A report file that is not a regular file is refused before any is written."""
    say = progress or (lambda _text: None)
    run = read_run(run_dir, cache=cache)
    for name in REPORT_FILES:  # refused before the work, not after it
        check_target(run.path / name)
    game, best = run.game, run.best
    names = list(reference_names(game) if baselines is None else baselines)
    figures = []
    for k, name in enumerate(names, 1):
        say(f"baseline {name} ({k}/{len(names)})")
        figures += collect_baselines(game, [name], knuth_total=run.summary.get("knuth_total"))
    say("plots")
    known = known_optimum(game)
    optimum = next((b.total for b in figures if b.name == "optimal"), None) or (
        known.total if known and known.proved else None
    )
    lines = {b.name: b.total for b in figures if b.name != "optimal"}
    title = f"{run.name}: {game.description}"
    plot_fitness(
        run.logbook,
        game.num_codes,
        run.path / "fitness.png",
        baselines=lines,
        optimum=optimum,
        title=title,
        log_time=log_time,
    )

    hists = {"best evolved": best.histogram}
    knuth = next((b for b in figures if b.name == "knuth"), None)
    if knuth is None and "knuth" not in names:
        knuth = baseline_figures(game, "knuth")
    if knuth is not None and knuth.histogram:
        hists["Knuth"] = knuth.histogram
    plot_depths(hists, run.path / "depths.png", title=f"Depth histogram: {title}")
    islands = _plot_islands(
        run, knuth=lines.get("knuth", run.summary.get("knuth_total")), optimum=optimum, title=title
    )

    say("tree picture")
    depth = auto_depth(best, max_nodes=MAX_DRAWN_NODES)
    try:
        render_tree(
            best,
            run.path / PICTURE,
            depth=depth,
            title=f"best breaker of {run.name}: total {best.total}, average {best.average:.4f}",
        )
        drawn = True
    except GraphvizMissing as e:  # the rest of the report needs no Graphviz
        drawn = False
        note = f"{PICTURE} is not drawn: {e}."
        (warn or (lambda _text: None))(note)
    if drawn and depth is None:
        note = f"The whole tree ({len(best)} nodes); yellow nodes can be the secret."
    elif drawn:
        note = (
            f"The top {depth} levels of {len(best)} nodes; the gray boxes hold the subtrees "
            "below (their codes and the guesses those codes still make). Yellow nodes can be "
            "the secret."
        )
    say("explorer")
    knuth_tree = _knuth_tree(game)
    write_explorer(run.path / EXPLORER, best, "best evolved", knuth_tree, "knuth")
    explorer_note = "click through its guesses, play a secret" + (
        ", see where it departs from Knuth's and what that costs" if knuth_tree else ""
    )
    parts = ReportParts(
        run,
        summary_rows(run),
        comparison_rows(best, figures),
        note,
        pareto_rows(run.summary, game.num_codes),
        explorer_note,
        islands,
        drawn,
    )
    atomic_write_text(run.path / "report.md", render_markdown(parts))
    return atomic_write_text(run.path / "report.html", render_html(parts))


def _knuth_tree(game: Game) -> Tree | None:
    """Knuth's tree to explore beside the best: cached, or computed for games small enough
    (as the report's baselines are); None when it cannot be had."""
    if game.num_codes > COMPUTE_LIMIT and cached(game, "knuth") is None:
        return None
    try:
        return reference_tree(game, "knuth")
    except (ValueError, OptimalRefused):
        return None


# ------------------------------------------------------------------ comparisons


@dataclass(frozen=True)
class RunComparison:
    """A run's last generation beside the baselines of its game: the best, average and
    highest total of the population, and the worst case (guesses) of its best breaker
    (None when the logbook does not say)."""

    name: str  # the run directory's name, unprintable characters escaped
    game: Game
    generations: int
    best: int
    average: float
    highest: int
    worst_case: int | None
    baselines: list[BaselineFigures]


def compare_runs(
    run_dirs: Sequence[str | os.PathLike],
    names: Sequence[str],
    *,
    progress: Callable[[str], None] | None = None,
    cache: str | os.PathLike | None = None,
) -> list[RunComparison]:
    """Each run's last generation and the named baselines of its game (computed once per
    game, or read from ``cache``); ``progress`` is called with each baseline before it is
    computed."""
    say = progress or (lambda _text: None)
    per_game: dict[tuple, list[BaselineFigures]] = {}
    out = []
    for run_dir in run_dirs:
        run = load_run(run_dir)
        summary = run.summary or {}
        last = check_logbook(run.path, run.logbook)[-1]
        game = game_from_spec(run.config.game.spec, cache=cache)
        if game.key not in per_game:
            per_game[game.key] = []
            for k, name in enumerate(names, 1):
                say(f"baseline {name} of {game.name} ({k}/{len(names)})")
                per_game[game.key] += collect_baselines(
                    game, [name], knuth_total=summary.get("knuth_total")
                )
        out.append(
            RunComparison(
                name=printable(run.path.name),
                game=game,
                generations=int(summary.get("generations", last["gen"])),
                best=int(last["min"]),
                average=float(last["avg"]),
                highest=int(last["max"]),
                worst_case=int(last["worst"]) if last.get("worst") is not None else None,
                baselines=per_game[game.key],
            )
        )
    return out
