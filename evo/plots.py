"""Plots of runs with matplotlib's ``Agg`` backend (no display needed): the fitness
curve, depth histograms, and a comparison of runs against the baselines.

Every plot takes plain data (logbook dicts, histograms, numbers) and writes a PNG of
``figsize * dpi`` pixels atomically.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from evo.files import atomic_write_bytes  # noqa: E402

#: Okabe & Ito colors for the curves and bars (color-blind safe), baselines in grays.
BEST, AVERAGE, WORST = "#0072B2", "#E69F00", "#D55E00"
OTHER = "#009E73"
BASELINE_STYLES = ("--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
OPTIMUM = "#CC79A7"
DPI = 100


def save_figure(fig: Figure, path: str | os.PathLike) -> Path:
    """Write a figure as PNG (at its own size and ``DPI``) and close it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())


def _average_axis(ax, num_codes: int) -> None:
    """A right-hand axis giving the average number of guesses (total / M)."""
    sec = ax.secondary_yaxis("right", functions=(lambda t: t / num_codes, lambda a: a * num_codes))
    sec.set_ylabel("average guesses per code")


def _baseline_lines(
    ax, baselines: dict[str, int | None], optimum: int | None, ceiling: float
) -> None:
    styles = iter(BASELINE_STYLES * 4)
    for name, total in baselines.items():
        if total is None or total > ceiling:  # far above the population: table only
            continue
        strong = name == "knuth"
        ax.axhline(
            total,
            color="#000000" if strong else "#777777",
            linestyle=next(styles),
            linewidth=1.4 if strong else 1.0,
            label=f"{name} ({total})",
        )
    if optimum is not None:
        ax.axhline(optimum, color=OPTIMUM, linewidth=1.6, label=f"optimum ({optimum})")


def plot_fitness(
    logbook: list[dict],
    num_codes: int,
    path: str | os.PathLike,
    *,
    baselines: dict[str, int | None] | None = None,
    optimum: int | None = None,
    title: str = "",
    figsize: tuple[float, float] = (8, 5),
) -> Path:
    """Best, average and worst total per generation (``min``, ``avg``, ``max`` of the
    logbook), with a horizontal line per baseline total (those above the population's
    worst are left out) and for the optimum."""
    gens = [int(e["gen"]) for e in logbook]
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    ax.plot(gens, [e["max"] for e in logbook], color=WORST, label="worst of population")
    ax.plot(gens, [e["avg"] for e in logbook], color=AVERAGE, label="population average")
    ax.plot(gens, [e["min"] for e in logbook], color=BEST, linewidth=2, label="best")
    _baseline_lines(ax, baselines or {}, optimum, max(e["max"] for e in logbook))
    ax.set_xlabel("generation")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("total guesses over all codes")
    if len(gens) == 1:
        ax.set_xlim(gens[0] - 1, gens[0] + 1)
    ax.grid(alpha=0.3)
    fig.legend(fontsize=8, loc="outside lower center", ncols=4, frameon=False)
    _average_axis(ax, num_codes)
    ax.set_title(title or "Fitness per generation (lower is better)")
    return save_figure(fig, path)


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


@dataclass(frozen=True)
class RunFigures:
    """One run's population at its last generation, as average guesses per code, and the
    baselines of its game (None: not available)."""

    name: str
    best: float
    average: float
    worst: float
    baselines: dict[str, float | None]


def plot_comparison(
    runs: list[RunFigures],
    path: str | os.PathLike,
    *,
    title: str = "",
    figsize: tuple[float, float] | None = None,
) -> Path:
    """Per run: the population's range (worst to best) with its average and best marked,
    and a short line per baseline of the run's game; averages per code, so runs of
    different games share the axis."""
    figsize = figsize or (max(6.0, 1.6 * len(runs) + 3), 5)
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    names = sorted({b for r in runs for b in r.baselines})
    styles = dict(zip(names, BASELINE_STYLES * 4, strict=False))
    labelled: set[str] = set()
    for x, run in enumerate(runs):
        ax.vlines(x, run.best, run.worst, color="#BBBBBB", linewidth=6, zorder=1)
        ax.plot(x, run.worst, "v", color=WORST, label="worst" if x == 0 else None)
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
