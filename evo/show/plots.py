"""Plots of runs with matplotlib's ``Agg`` backend (no display needed): the fitness
curve, depth histograms, and a comparison of runs against the baselines.

Every plot takes plain data (logbook dicts, histograms, numbers) and writes, atomically,
a PNG of ``figsize * dpi`` pixels, or a PDF, SVG, JPEG... when the path says so. Text is
drawn as given (run names are not read as mathtext: ``$`` is a dollar).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

from evo.core.files import atomic_write_bytes  # noqa: E402
from evo.show.text import suffix_format  # noqa: E402

#: Okabe & Ito colors for the curves and bars (color-blind safe), baselines in grays.
BEST, AVERAGE, WORST = "#0072B2", "#E69F00", "#D55E00"
OTHER = "#009E73"
BASELINE_STYLES = ("--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
OPTIMUM = "#CC79A7"
DPI = 100


#: Formats :func:`save_figure` writes, from the path's suffix (those matplotlib's Agg
#: backend writes without LaTeX or optional Pillow codecs).
FORMATS: tuple[str, ...] = ("png", "pdf", "svg", "jpg", "jpeg", "eps", "ps", "tif", "tiff")

#: Decorates the functions drawing user text (run names in titles and labels): text is
#: shown as given, a ``$`` in a name is no mathtext (which could fail to parse).
_verbatim = matplotlib.rc_context({"text.parse_math": False})


def figure_format(path: str | os.PathLike) -> str:
    """The format of a picture path's suffix (one of :data:`FORMATS`; PNG without a
    suffix); a ValueError for a suffix naming none of them."""
    return suffix_format(path, FORMATS, default="png")


def save_figure(fig: Figure, path: str | os.PathLike) -> Path:
    """Write a figure in the format of the path's suffix (:func:`figure_format`; PNG at its
    own size and ``DPI``) atomically, and close it."""
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=figure_format(path), dpi=DPI)
    finally:
        plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())


def spread_labels(positions: list[float], *, gap: float) -> list[float]:
    """Positions (axes fractions, any order) moved apart by at least ``gap``: labels that
    would overlap form a group centred on their lines' mean, so each label stays as near
    its line as the others allow."""
    order = sorted(range(len(positions)), key=lambda k: positions[k])
    groups: list[list[int]] = []  # runs of labels (indices into ``order``), bottom up
    starts: list[float] = []  # the lowest position of each group
    for rank, k in enumerate(order):
        groups.append([rank])
        starts.append(positions[k])
        while len(groups) > 1 and starts[-2] + gap * len(groups[-2]) > starts[-1]:
            merged = groups[-2] + groups.pop()
            starts.pop()
            groups[-1] = merged
            mean = sum(positions[order[r]] for r in merged) / len(merged)
            starts[-1] = mean - gap * (len(merged) - 1) / 2
    out = list(positions)
    for group, start in zip(groups, starts):
        for j, rank in enumerate(group):
            out[order[rank]] = start + gap * j
    return out


def _axes_fraction(ax, value: float) -> float:
    """Where ``value`` sits on the y axis as a fraction of its height (any scale)."""
    scale = ax.yaxis.get_transform()
    lo, hi = (scale.transform([v])[0] for v in ax.get_ylim())
    return float((scale.transform([value])[0] - lo) / (hi - lo))


def label_lines(ax, lines: dict[str, tuple[float, str]], *, gap: float = 0.032) -> None:
    """Write each line's label at its right end (outside the axes), moved apart so that
    none overlap; ``lines``: label -> (y, color). Lines outside the y range are skipped."""
    lo, hi = sorted(ax.get_ylim())
    shown = {k: v for k, v in lines.items() if lo <= v[0] <= hi}
    names = list(shown)
    ys = spread_labels([_axes_fraction(ax, shown[n][0]) for n in names], gap=gap)
    trans = blended_transform_factory(ax.transAxes, ax.transAxes)
    for name, y in zip(names, ys):
        ax.text(
            1.01,
            y,
            name,
            transform=trans,
            va="center",
            ha="left",
            fontsize=8,
            color=shown[name][1],
            clip_on=False,
        )


def _baseline_groups(baselines: dict[str, int | None]) -> dict[int, list[str]]:
    """Baselines of equal total as one group (one line, one label)."""
    groups: dict[int, list[str]] = {}
    for name, total in baselines.items():
        if total is not None:
            groups.setdefault(int(total), []).append(name)
    return groups


def plot_fitness(
    logbook: list[dict],
    num_codes: int,
    path: str | os.PathLike,
    *,
    baselines: dict[str, int | None] | None = None,
    optimum: int | None = None,
    title: str = "",
    log_time: bool = False,
    figsize: tuple[float, float] = (8, 5),
) -> Path:
    """Write :func:`fitness_figure` (PNG, or PDF or SVG by the path's suffix)."""
    fig = fitness_figure(
        logbook,
        num_codes,
        baselines=baselines,
        optimum=optimum,
        title=title,
        log_time=log_time,
        figsize=figsize,
    )
    return save_figure(fig, path)


@_verbatim
def fitness_figure(
    logbook: list[dict],
    num_codes: int,
    *,
    baselines: dict[str, int | None] | None = None,
    optimum: int | None = None,
    title: str = "",
    log_time: bool = False,
    figsize: tuple[float, float] = (8, 5),
) -> Figure:
    """The best total per generation as guesses above the optimum (or, when it is not
    known, above the lowest total shown), on a scale that is linear from 0 to 1 and
    logarithmic above, so that one guess shows at any distance. The population's spread
    (best to highest total) is a band that does not set the range; each baseline is a line
    labelled at its end, baselines of equal total sharing one label. ``log_time``: a
    logarithmic generation axis, for long runs."""
    gens = np.array([int(e["gen"]) for e in logbook])
    best = np.array([float(e["min"]) for e in logbook])
    avg = np.array([float(e["avg"]) for e in logbook])
    highest = np.array([float(e["max"]) for e in logbook])
    groups = _baseline_groups(baselines or {})
    if optimum is not None:
        ref, ref_name = int(optimum), "the optimum"
    else:
        ref = int(min([int(best.min()), *groups]))
        ref_name = "the lowest total shown"
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    ax.set_yscale("symlog", linthresh=1.0, linscale=0.5)
    ax.fill_between(
        gens,
        best - ref,
        highest - ref,
        color=AVERAGE,
        alpha=0.18,
        linewidth=0,
        step="mid",
        label="population, best to highest total",
    )
    ax.plot(gens, avg - ref, color=AVERAGE, linewidth=1, label="population average")
    ax.plot(gens, best - ref, color=BEST, linewidth=2.2, label="best", drawstyle="steps-mid")
    top_values = [float(best[0] - ref), *(t - ref for t in groups), 10.0]
    top = max(top_values) * 1.6
    ax.set_ylim(-0.3, top)
    labels: dict[str, tuple[float, str]] = {}
    for total, names in sorted(groups.items()):
        strong = "knuth" in names
        color = "#000000" if strong else "#777777"
        ax.axhline(
            total - ref,
            color=color,
            linestyle="--" if strong else ":",
            linewidth=1.3 if strong else 0.9,
        )
        labels[f"{', '.join(names)} {total}"] = (total - ref, color)
    if optimum is not None:
        ax.axhline(0, color=OPTIMUM, linewidth=1.6)
        labels[f"optimum {optimum}"] = (0.0, OPTIMUM)
    last = f"best {int(best[-1])}"
    labels[last] = (float(best[-1] - ref), BEST)
    ax.set_xlabel("generation" + (" (log scale)" if log_time else ""))
    if log_time:
        ax.set_xscale("symlog", linthresh=1.0)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if len(gens) == 1:
        ax.set_xlim(gens[0] - 1, gens[0] + 1)
    else:
        ax.set_xlim(gens[0], gens[-1])
    ax.set_ylabel(f"total guesses above {ref_name} ({ref})")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower left", frameon=False)
    label_lines(ax, labels)
    ax.set_title(title or "Fitness per generation (lower is better)")
    fig.text(
        0.99,
        0.005,
        f"1 guess in total = 1/{num_codes} guess per code",
        ha="right",
        va="bottom",
        fontsize=7,
        color="#555555",
    )
    return fig


@_verbatim
def plot_depths(
    histograms: dict[str, dict[int, int]],
    path: str | os.PathLike,
    *,
    title: str = "",
    figsize: tuple[float, float] = (8, 4.5),
) -> Path:
    """Side-by-side bars: how many codes each breaker solves in 1, 2, ... guesses."""
    depths = sorted({d for h in histograms.values() for d in h}) or [1]
    depths = list(range(min(depths), max(depths) + 1))
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    width = 0.8 / max(1, len(histograms))
    colors = (BEST, "#000000", AVERAGE, OTHER, OPTIMUM, WORST)
    for k, (name, hist) in enumerate(histograms.items()):
        xs = [d - 0.4 + width * (k + 0.5) for d in depths]
        ys = [int(hist.get(d, 0)) for d in depths]
        bars = ax.bar(xs, ys, width=width, color=colors[k % len(colors)], label=name)
        ax.bar_label(bars, labels=[str(y) if y else "" for y in ys], fontsize=7, padding=1)
    ax.set_xticks(depths)
    ax.set_xlabel("guesses needed")
    ax.set_ylabel("codes")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=9)
    ax.set_title(title or "Depth histogram (codes solved in k guesses)")
    return save_figure(fig, path)


@_verbatim
def plot_islands(
    records: list[dict],
    path: str | os.PathLike,
    *,
    interval: int,
    knuth: int | None = None,
    optimum: int | None = None,
    title: str = "",
    figsize: tuple[float, float] = (9, 5),
) -> Path:
    """Each island's best total per generation (``records``: the lines of
    ``islands.jsonl``), the migrations every ``interval`` generations as dotted lines."""
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    islands = sorted({int(r["island"]) for r in records})
    last = max((int(r["gen"]) for r in records), default=0)
    for gen in range(interval, last, interval):
        ax.axvline(gen, color="#999999", linestyle=":", linewidth=0.8)
    cmap = plt.get_cmap("viridis", max(2, len(islands)))
    for k, i in enumerate(islands):
        mine = sorted((int(r["gen"]), int(r["min"])) for r in records if int(r["island"]) == i)
        ax.step(
            [g for g, _ in mine],
            [m for _, m in mine],
            where="post",
            color=cmap(k),
            label=f"island {i}",
            linewidth=1.2,
        )
    for value, name, color in ((knuth, "Knuth", "#000000"), (optimum, "optimum", OPTIMUM)):
        if value is not None:
            ax.axhline(value, color=color, linestyle="--", linewidth=1)
            ax.annotate(
                f"{name} {value}",
                (1.0, value),
                xycoords=("axes fraction", "data"),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
            )
    ax.set_xlabel("generation (dotted: migrations)")
    ax.set_ylabel("best total of the island")
    ax.grid(axis="y", alpha=0.3)
    if len(islands) <= 12:
        ax.legend(fontsize=8, ncol=2)
    ax.set_title(title or "Best total per island")
    return save_figure(fig, path)


@dataclass(frozen=True)
class RunFigures:
    """One run's population at its last generation (best, average and highest total), as
    average guesses per code, and the baselines of its game (None: not available)."""

    name: str
    best: float
    average: float
    highest: float
    baselines: dict[str, float | None]


@_verbatim
def plot_comparison(
    runs: list[RunFigures],
    path: str | os.PathLike,
    *,
    title: str = "",
    figsize: tuple[float, float] | None = None,
) -> Path:
    """Per run: the population's range (highest total to best) with its average and best
    marked,
    and a short line per baseline of the run's game; averages per code, so runs of
    different games share the axis."""
    figsize = figsize or (max(6.0, 1.6 * len(runs) + 3), 5)
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    names = sorted({b for r in runs for b in r.baselines})
    styles = dict(zip(names, BASELINE_STYLES * 4, strict=False))
    labelled: set[str] = set()
    for x, run in enumerate(runs):
        ax.vlines(x, run.best, run.highest, color="#BBBBBB", linewidth=6, zorder=1)
        ax.plot(x, run.highest, "v", color=WORST, label="highest total" if x == 0 else None)
        ax.plot(x, run.average, "o", color=AVERAGE, label="population average" if x == 0 else None)
        ax.plot(x, run.best, "*", color=BEST, markersize=12, label="best" if x == 0 else None)
        for name, value in run.baselines.items():
            if value is None:
                continue
            first = name not in labelled
            labelled.add(name)
            ax.hlines(
                value,
                x - 0.35,
                x + 0.35,
                color=OPTIMUM if name == "optimal" else "#000000",
                linestyle=styles[name],
                label=name if first else "",  # "": no legend entry
            )
    ax.set_xticks(range(len(runs)), [r.name for r in runs], rotation=20, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(runs) - 0.4)
    ax.set_ylabel("average guesses per code")
    ax.grid(axis="y", alpha=0.3)
    fig.legend(fontsize=8, loc="outside lower center", ncols=3, frameon=False)
    ax.set_title(title or "Runs against the baselines (lower is better)")
    return save_figure(fig, path)


@_verbatim
def plot_bound(
    history: Sequence[tuple[float, int, int | None]],
    path: str | os.PathLike,
    *,
    title: str = "",
    optimum: int | None = None,
    seconds: float | None = None,
    figsize: tuple[float, float] = (8, 5.5),
) -> Path:
    """A lower bound's search against time (``history``: ``(seconds, lower, upper)``
    each time one changed, as ``evo bound`` records it): above, the proved lower bound
    and the upper bound as steps; below, the gap between them in percent of the upper,
    on a logarithmic scale. ``optimum``: a known optimum, drawn as a line; ``seconds``:
    the search's whole time (the steps drawn on to it)."""
    if not history:
        raise ValueError("the search has no history to draw")
    t = np.array([max(float(h[0]), 1e-3) for h in history])
    lower = np.array([float(h[1]) for h in history])
    uppers = [h[2] for h in history]
    fig, (top, below) = plt.subplots(
        2, 1, figsize=figsize, layout="constrained", sharex=True, height_ratios=(3, 2)
    )
    end = t[-1] * 1.05 if len(t) > 1 else t[-1] * 2
    if seconds is not None and seconds > t[-1]:
        end = seconds
    steps = np.append(t, end)
    top.step(steps, np.append(lower, lower[-1]), where="post", color=BEST, linewidth=2,
             label=f"proved lower bound, {int(lower[-1]):,}")  # fmt: skip
    if any(u is not None for u in uppers):
        up = np.array([np.nan if u is None else float(u) for u in uppers])
        top.step(steps, np.append(up, up[-1]), where="post", color=WORST, linewidth=1.5,
                 linestyle="--", label=f"upper bound, {int(np.nanmin(up)):,}")  # fmt: skip
        gap = 100 * (up - lower) / up
        gap = np.where(gap > 0, gap, np.nan)
        below.step(steps, np.append(gap, gap[-1]), where="post", color=OTHER, linewidth=2)
        below.set_ylabel("gap (% of the upper bound)")
        shown = gap[~np.isnan(gap)]
        if len(shown):
            below.set_yscale("log")
            below.annotate(f"{shown[-1]:.2f}%", (end, shown[-1]), ha="right", va="bottom",
                           fontsize=8)  # fmt: skip
        else:
            below.text(0.5, 0.5, "gap closed: the bound is the optimum", ha="center",
                       va="center", transform=below.transAxes)  # fmt: skip
    else:
        below.text(0.5, 0.5, "no upper bound (give --against BREAKER)", ha="center",
                   va="center", transform=below.transAxes, color="#555555")  # fmt: skip
        below.set_yticks([])
    if optimum is not None:
        top.axhline(optimum, color=OPTIMUM, linewidth=1.2, label=f"optimum, {optimum:,}")
    top.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    top.set_ylabel("least total")
    top.legend(fontsize=8, loc="lower right", frameon=False)
    top.grid(alpha=0.3)
    below.grid(alpha=0.3, which="both")
    plain = FuncFormatter(lambda v, _: f"{v:g}")  # no mathtext here (see _verbatim)
    below.set_xscale("log")
    below.xaxis.set_major_formatter(plain)
    below.xaxis.set_minor_formatter(NullFormatter())
    if below.get_yscale() == "log":
        below.yaxis.set_major_formatter(plain)
        below.yaxis.set_minor_formatter(plain)
    below.set_xlabel("seconds (log scale)")
    below.set_xlim(t[0], end)
    top.set_title(title or "Lower bound and gap against time")
    return save_figure(fig, path)
