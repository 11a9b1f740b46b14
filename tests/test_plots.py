"""The plots: what they show is read back from the matplotlib figure (scales, limits,
labels, legend), and the files are checked by their format's magic bytes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from evo.show.plots import (
    RunFigures,
    fitness_figure,
    plot_comparison,
    plot_depths,
    plot_fitness,
    spread_labels,
)

OPTIMUM, KNUTH = 5625, 5801


def logbook(gens: int = 50, *, highest: int = 9000) -> list[dict]:
    """Best falling from 7000 to the optimum + 4; the population's highest total far up."""
    out = []
    for g in range(gens):
        best = max(OPTIMUM + 4, 7000 - 60 * g)
        out.append({"gen": g, "min": best, "avg": best + 300.0, "max": highest})
    return out


BASELINES = {
    "knuth": KNUTH,
    "knuth-consistent": KNUTH,
    "irving": 5696,
    "kooi": 5668,
    "entropy": 5722,
    "lc": None,
}


def y_pixels(ax, value: float) -> float:
    return float(ax.transData.transform((0, value))[1])


def texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_one_guess_shows_at_the_optimum_and_far_from_it():
    fig = fitness_figure(logbook(), 1296, baselines=BASELINES, optimum=OPTIMUM)
    ax = fig.axes[0]
    fig.canvas.draw()
    # 1 guess above the optimum is as far from it as 10 is from 1, and 177 from 176.
    assert y_pixels(ax, 1) - y_pixels(ax, 0) > 15
    assert y_pixels(ax, 10) - y_pixels(ax, 1) > 15
    assert y_pixels(ax, KNUTH + 1 - OPTIMUM) > y_pixels(ax, KNUTH - OPTIMUM)
    plt.close(fig)


def test_the_population_band_does_not_set_the_range():
    low = fitness_figure(logbook(highest=8000), 1296, baselines=BASELINES, optimum=OPTIMUM)
    high = fitness_figure(logbook(highest=90000), 1296, baselines=BASELINES, optimum=OPTIMUM)
    assert low.axes[0].get_ylim() == high.axes[0].get_ylim()
    top = low.axes[0].get_ylim()[1]
    assert top < 90000 - OPTIMUM and top >= 7000 - OPTIMUM  # the best's start shows
    plt.close("all")


def test_baselines_are_labelled_at_their_lines_not_in_the_legend():
    fig = fitness_figure(logbook(), 1296, baselines=BASELINES, optimum=OPTIMUM)
    ax = fig.axes[0]
    shown = texts(ax)
    assert "knuth, knuth-consistent 5801" in shown  # equal totals: one label
    assert {"irving 5696", "kooi 5668", "entropy 5722", "optimum 5625"} <= set(shown)
    assert not any(t.startswith("lc") for t in shown)  # not available: no line
    assert "best 5629" in shown
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(legend) == 3 and not any("knuth" in t for t in legend)
    # Each label sits next to its line (within the spread of close labels).
    fig.canvas.draw()
    for text in ax.texts:
        if text.get_text() == "optimum 5625":
            y = text.get_window_extent().y0 + text.get_window_extent().height / 2
            assert abs(y - y_pixels(ax, 0)) < 20
    plt.close(fig)


def test_without_an_optimum_the_lowest_total_is_the_reference():
    fig = fitness_figure(logbook(), 1296, baselines={"knuth": KNUTH}, optimum=None)
    ax = fig.axes[0]
    assert "5629" in ax.get_ylabel() and "optimum" not in " ".join(texts(ax))
    plt.close(fig)


def test_log_time_axis():
    lin = fitness_figure(logbook(), 1296, optimum=OPTIMUM)
    log = fitness_figure(logbook(), 1296, optimum=OPTIMUM, log_time=True)
    assert lin.axes[0].get_xscale() == "linear"
    assert log.axes[0].get_xscale() == "symlog"
    assert "log" in log.axes[0].get_xlabel()
    plt.close("all")


def test_spread_labels_keeps_labels_apart_and_near_their_lines():
    assert spread_labels([0.1, 0.5, 0.9], gap=0.05) == [0.1, 0.5, 0.9]  # nothing to move
    moved = spread_labels([0.50, 0.51, 0.2], gap=0.1)
    assert moved[2] == 0.2
    assert moved[1] - moved[0] == pytest.approx(0.1)
    assert (moved[0] + moved[1]) / 2 == pytest.approx(0.505)  # centred on their lines
    many = spread_labels([0.3] * 5 + [0.32], gap=0.04)
    ordered = sorted(many)
    assert all(b - a >= 0.04 - 1e-12 for a, b in zip(ordered, ordered[1:]))


@pytest.mark.parametrize(
    ("suffix", "magic"), [("png", b"\x89PNG"), ("pdf", b"%PDF"), ("svg", b"<?xm")]
)
def test_the_suffix_chooses_the_format(tmp_path, suffix, magic):
    path = plot_fitness(logbook(5), 1296, tmp_path / f"f.{suffix}", optimum=OPTIMUM)
    assert path.read_bytes()[:4] == magic
    path = plot_depths({"a": {1: 1, 2: 3}}, tmp_path / f"d.{suffix}")
    assert path.read_bytes()[:4] == magic
    runs = [RunFigures("r", 4.4, 4.6, 5.2, {"knuth": 4.476, "optimal": 4.34})]
    path = plot_comparison(runs, tmp_path / f"c.{suffix}")
    assert path.read_bytes()[:4] == magic
