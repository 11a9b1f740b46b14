"""Run reports and comparisons, on run directories built here in the documented layout."""

from __future__ import annotations

import json
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

import evo.baselines.reference
import evo.show.report
from evo.baselines import OptimalRefused
from evo.cli import main
from evo.config import load_config
from evo.core.game import make_game
from evo.core.population import random_population
from evo.core.treeio import save_tree
from evo.runs.rundir import write_config
from evo.show.report import pareto_rows, write_report

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def no_baselines(monkeypatch):
    """Baselines that cannot be had: none is cached, computing any is refused, and no
    optimum is known."""

    def refuse(game, name, **kwargs):
        raise OptimalRefused(f"{name} cannot be computed here")

    ref = evo.baselines.reference
    monkeypatch.setattr(ref, "run", refuse)
    monkeypatch.setattr(ref, "cached", lambda *args, **kwargs: None)
    monkeypatch.setattr(ref, "known_optimum", lambda game: None)
    monkeypatch.setattr(evo.show.report, "known_optimum", lambda game: None)


def make_run(run_dir: Path, pegs=3, colors=3, variant="mastermind", gens=4, size=8, seed=7):
    """A run directory as ``evo run`` writes it: random populations stand in for the
    generations, the logbook holds their real statistics, best.json the best tree."""
    game = make_game(pegs, colors, variant)
    run_dir.mkdir(parents=True)
    best, log = None, []
    for gen in range(gens):
        pop = random_population(game, size, seed=seed + gen)
        totals = [t.total for t in pop]
        leader = min(pop, key=lambda t: t.total)
        if best is None or leader.total < best.total:
            best = leader
        log.append(
            {
                "gen": gen,
                "nevals": size,
                "min": best.total,  # elitism: the best so far stays in the population
                "avg": sum(totals) / size,
                "max": max(totals),
                "std": 0.0,
                "worst": leader.worst,
                "roots": len({int(t.guess[0]) for t in pop}),
                "seconds": 0.1 * gen,
            }
        )
    (run_dir / "logbook.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    save_tree(best, run_dir / "best.json")
    summary = {
        "name": run_dir.name,
        "best_total": best.total,
        "best_average": best.average,
        "best_worst": best.worst,
        "generations": gens,
        "seconds": 1.5,
        "knuth_total": None,
        "game": {"pegs": pegs, "colors": colors, "variant": variant},
    }
    (run_dir / "summary.json").write_text(json.dumps(summary))
    config = load_config(
        {"name": "test", "game": {"pegs": pegs, "colors": colors, "variant": variant}}
    )
    write_config(run_dir, config)
    return run_dir, best, log


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("src", "href") and v]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_pages(run_dir: Path, page: Path) -> str:
    assert page == run_dir / "report.html"
    html = page.read_text()
    parser = Links()
    parser.feed(html)
    assert {"fitness.png", "depths.png", "best.svg", "explore.html"} <= set(parser.links)
    for link in parser.links:
        assert "://" not in link and not link.startswith("/")
        assert (run_dir / link).is_file(), link
    assert "://" not in html  # no CDN, no web font, nothing from the network
    md = (run_dir / "report.md").read_text()
    for link in re.findall(r"\]\(([^)]+)\)", md):
        assert (run_dir / link).is_file(), link
    return html


def test_report_without_baselines(tmp_path, no_baselines):
    run_dir, best, log = make_run(tmp_path / "run-a")
    page = write_report(run_dir)
    html = check_pages(run_dir, page)
    assert png_size(run_dir / "fitness.png") == (800, 500)
    assert png_size(run_dir / "depths.png") == (800, 450)
    svg = (run_dir / "best.svg").read_text()
    for code in {best.game.format_code(int(g)) for g in best.guess}:
        assert f'xlink:title="{code}:' in svg
    assert f"<td>{best.total}</td>" in html
    for name in ("knuth", "kooi", "optimal"):
        assert re.search(rf"<td>{name}</td><td>not available</td>", html)
    assert f"last generation: best {log[-1]['min']}" in (run_dir / "report.md").read_text().replace(
        "**", ""
    )


def test_report_knuth_from_the_run(tmp_path, no_baselines):
    run_dir, best, _ = make_run(tmp_path / "run-k")
    summary = json.loads((run_dir / "summary.json").read_text())
    summary["knuth_total"] = 81
    (run_dir / "summary.json").write_text(json.dumps(summary))
    html = write_report(run_dir, baselines=["knuth"]).read_text()
    assert f"<td>knuth</td><td>81</td><td>3.0000</td><td></td><td>{81 - best.total:+d}</td>" in html
    assert "Islands" not in html and not (run_dir / "islands.png").exists()  # one population


def test_report_with_real_baselines(tmp_path):
    from evo import baselines

    run_dir, _, _ = make_run(tmp_path / "run-b")
    html = check_pages(
        run_dir, write_report(run_dir, baselines=["knuth", "optimal", "no-such-player"])
    )
    knuth = baselines.run(make_game(3, 3), "knuth").tree
    assert re.search(rf"<td>knuth</td><td>{knuth.total}</td>", html)
    assert "<td>optimal</td><td>73</td>" in html  # the (3,3) optimum (Goddard 2004)
    assert "<td>no-such-player</td><td>not available</td>" in html
    html = write_report(run_dir).read_text()  # default: every baseline of the game
    for name in baselines.default_names(make_game(3, 3)):
        assert f"<td>{name}</td>" in html


def explorer_data(run_dir: Path) -> dict:
    page = (run_dir / "explore.html").read_text()
    m = re.search(r'<script id="evo-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


def test_report_links_an_explorer_of_the_best_beside_knuth(tmp_path):
    from evo import baselines

    run_dir, best, _ = make_run(tmp_path / "run-e")
    check_pages(run_dir, write_report(run_dir, baselines=["knuth"]))
    trees = explorer_data(run_dir)["trees"]
    knuth = baselines.run(make_game(3, 3), "knuth").tree
    assert [(t["name"], t["total"]) for t in trees] == [
        ("best evolved", best.total),
        ("knuth", knuth.total),
    ]
    assert [trees[0]["guesses"][k] for k in trees[0]["guess"]] == [
        best.game.format_code(int(g)) for g in best.guess
    ]


def test_report_explorer_without_knuth(tmp_path, no_baselines):
    run_dir, best, _ = make_run(tmp_path / "run-f")
    html = check_pages(run_dir, write_report(run_dir))
    assert [t["total"] for t in explorer_data(run_dir)["trees"]] == [best.total]
    assert "departs from Knuth" not in html


def test_report_of_an_unfinished_run(tmp_path, no_baselines):
    run_dir, best, _ = make_run(tmp_path / "run-u")
    (run_dir / "summary.json").unlink()
    html = check_pages(run_dir, write_report(run_dir))
    assert "not finished" in html and f"<td>{best.total}</td>" in html


def test_cli_report_and_errors(tmp_path, no_baselines):
    run_dir, _, _ = make_run(tmp_path / "run-c", pegs=3, colors=5, variant="bulls-cows")
    runner = CliRunner()
    res = runner.invoke(main, ["report", str(run_dir), "--baselines", "knuth"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == str(run_dir / "report.html")
    check_pages(run_dir, run_dir / "report.html")
    (run_dir / "logbook.jsonl").write_text('{"gen": 0}\n')
    res = runner.invoke(main, ["report", str(run_dir)])
    assert res.exit_code != 0 and "logbook.jsonl, record 1: missing key(s)" in res.output
    res = runner.invoke(main, ["report", str(tmp_path / "nowhere")])
    assert res.exit_code != 0 and "nowhere" in res.output


def test_cli_compare(tmp_path, no_baselines):
    a, _, log_a = make_run(tmp_path / "run-1", gens=3, seed=1)
    b, _, log_b = make_run(tmp_path / "run-2", pegs=2, colors=4, gens=5, seed=2)
    out = tmp_path / "cmp.png"
    res = CliRunner().invoke(
        main, ["compare", str(a), str(b), "--baselines", "knuth,optimal", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    rows = {
        line.split()[0]: line.split() for line in res.output.splitlines() if line.startswith("run-")
    }
    for name, log, m in (("run-1", log_a, 27), ("run-2", log_b, 16)):
        last = log[-1]
        cells = rows[name]
        assert cells[3:6] == [str(last["min"]), f"{last['avg']:.1f}", str(last["max"])]
        assert cells[6] == f"{last['min'] / m:.4f}"
        assert cells[7] == str(last["worst"])  # worst case: guesses, not a total
        assert cells[8:] == ["n/a", "n/a"]
    header = res.output.splitlines()[0]
    assert "highest total" in header and "worst case" in header
    assert "knuth: not available" in res.output
    assert png_size(out) == (620, 500)
    pdf = tmp_path / "cmp.pdf"
    res = CliRunner().invoke(main, ["compare", str(a), "--baselines", "knuth", "-o", str(pdf)])
    assert res.exit_code == 0, res.output
    assert pdf.read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize(
    ("suffix", "magic"), [("jpg", b"\xff\xd8\xff"), ("svg", b"<?xml"), ("eps", b"%!PS")]
)
def test_cli_compare_writes_the_format_of_the_suffix(tmp_path, no_baselines, suffix, magic):
    a, _, _ = make_run(tmp_path / "run-1", gens=2)
    out = tmp_path / f"cmp.{suffix}"
    res = CliRunner().invoke(main, ["compare", str(a), "--baselines", "knuth", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[: len(magic)] == magic


def test_cli_compare_refuses_a_suffix_of_no_format(tmp_path, no_baselines):
    a, _, _ = make_run(tmp_path / "run-1", gens=2)
    out = tmp_path / "foo.txt"
    res = CliRunner().invoke(main, ["compare", str(a), "--baselines", "knuth", "-o", str(out)])
    assert res.exit_code == 2, res.output
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("Error: ") and "--output" in line
    assert "foo.txt: the suffix .txt is none of .png, .pdf, .svg, .jpg" in line
    assert not out.exists() and res.stdout == ""  # refused before any work


#: A run directory's name with mathtext that matplotlib cannot parse, a terminal escape,
#: markup and an undecodable byte (a lone surrogate, as Python reads such a name).
HOSTILE_RUN = "a$\\foo$ \x1b[2J<b>&amp;\udcff"


def test_hostile_run_names_in_compare_and_report(tmp_path, no_baselines):
    """Run names reach tables, plot titles and labels, the report's pages and the tree's
    picture: they are shown escaped where unprintable, as text everywhere."""
    import xml.etree.ElementTree as ET
    from html import escape

    from evo.show.text import printable

    run_dir, _, _ = make_run(tmp_path / HOSTILE_RUN, gens=2)
    out = tmp_path / "cmp.svg"
    res = CliRunner().invoke(
        main, ["compare", str(run_dir), "--baselines", "knuth", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output and printable(HOSTILE_RUN) in res.stdout
    ET.parse(out)
    res = CliRunner().invoke(main, ["report", str(run_dir), "--baselines", "knuth"])
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output
    ET.parse(run_dir / "best.svg")
    html = check_pages(run_dir, run_dir / "report.html")
    assert f"<h1>evo run {escape(printable(HOSTILE_RUN))}</h1>" in html


def test_report_of_an_nsga2_run_shows_its_pareto_front(tmp_path, no_baselines):
    run_dir, best, _ = make_run(tmp_path / "run-p")
    summary = json.loads((run_dir / "summary.json").read_text())
    front = [[best.total + 6, 3], [best.total, best.worst]]
    summary["pareto_front"] = front
    (run_dir / "summary.json").write_text(json.dumps(summary))
    html = write_report(run_dir, baselines=["knuth"]).read_text()
    md = (run_dir / "report.md").read_text()
    assert "Pareto front" in html and "Pareto front" in md
    for total, worst in front:
        assert f"<td>{total}</td><td>{total / 27:.4f}</td><td>{worst}</td>" in html
        assert f"| {total} | {total / 27:.4f} | {worst} |" in md
    assert pareto_rows(summary, 27) == [[str(t), f"{t / 27:.4f}", str(w)] for t, w in front]


def test_report_of_a_tournament_run_has_no_pareto_front(tmp_path, no_baselines):
    run_dir, _, _ = make_run(tmp_path / "run-t")
    html = write_report(run_dir, baselines=["knuth"]).read_text()
    assert "Pareto" not in html and "Pareto" not in (run_dir / "report.md").read_text()


def test_cli_report_log_time(tmp_path, no_baselines, monkeypatch):
    run_dir, _, _ = make_run(tmp_path / "run-l")
    seen = []
    real = evo.show.report.plot_fitness

    def spy(*args, **kwargs):
        seen.append(kwargs["log_time"])
        return real(*args, **kwargs)

    monkeypatch.setattr(evo.show.report, "plot_fitness", spy)
    for args in (["report", str(run_dir)], ["report", str(run_dir), "--log-time"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0, res.output
    assert seen == [False, True]


def test_cli_report_progress(tmp_path, no_baselines):
    run_dir, _, _ = make_run(tmp_path / "run-g")
    args = ["report", str(run_dir), "--baselines", "knuth,kooi"]
    res = CliRunner().invoke(main, [*args, "--progress"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        "report: baseline knuth (1/2)...",
        "report: baseline kooi (2/2)...",
        "report: plots...",
        "report: tree picture...",
        "report: explorer...",
    ]
    for flag in (["--no-progress"], []):  # by default, only on a terminal
        res = CliRunner().invoke(main, [*args, *flag])
        assert res.exit_code == 0 and res.stderr == ""


def test_cli_compare_progress(tmp_path, no_baselines):
    a, _, _ = make_run(tmp_path / "run-h")
    b, _, _ = make_run(tmp_path / "run-i", seed=3)  # the same game: baselines once
    args = ["compare", str(a), str(b), "--baselines", "knuth,kooi", "-o", str(tmp_path / "c.png")]
    res = CliRunner().invoke(main, [*args, "--progress"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        "compare: baseline knuth of mastermind-3-3 (1/2)...",
        "compare: baseline kooi of mastermind-3-3 (2/2)...",
    ]
    for flag in (["--no-progress"], []):
        res = CliRunner().invoke(main, [*args, *flag])
        assert res.exit_code == 0 and res.stderr == ""
