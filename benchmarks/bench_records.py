"""Quality on the games where the records are (issue 11): each shipped config run from
random breakers (or with baselines planted), the time it takes to pass Knuth and to
reach its target, and the best total at the end. Prints a markdown section for
benchmarks/RESULTS.md; each run's directory (best.json, logbook) stays under
``runs/records/``, and its trace in ``runs/records/<case>-seed<k>.json``.

    .venv/bin/python benchmarks/bench_records.py                      # every case (~7 h)
    .venv/bin/python benchmarks/bench_records.py 4x6 4x7              # some cases
    .venv/bin/python benchmarks/bench_records.py 5x8 --seconds 3600 --workers 1
    .venv/bin/python benchmarks/bench_records.py 5x8-chain --seeds 4 --resume   # a cut run
    .venv/bin/python benchmarks/bench_records.py 5x8-seed1 5x8-planted-seed1 --plot out.png
    .venv/bin/python benchmarks/bench_records.py polish-1 --polish best.json --band 81:400:mixed
    .venv/bin/python benchmarks/bench_records.py 5x8-planted-seed1+polish-1 --plot o.png
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine_line  # noqa: E402
from evo.config import load_config  # noqa: E402
from evo.core.files import atomic_write_text  # noqa: E402
from evo.ea.individuals import as_tree  # noqa: E402
from evo.runs.driver import run_config  # noqa: E402
from evo.runs.rundir import create_run_dir, load_run  # noqa: E402

OUT = ROOT / "runs" / "records"


@dataclass(frozen=True)
class Case:
    """A config run for the record table, with its seeds and extra settings."""

    config: str
    seeds: tuple[int, ...] = (1,)
    overrides: tuple[str, ...] = ()
    note: str = ""
    worst: int | None = None  # also trace the best total of breakers within this worst case
    marks: tuple[int, ...] = field(default=(600, 900, 3600))  # seconds: best total then


CASES = {
    "4x6": Case("configs/mastermind-4-6.yaml", seeds=(1, 2, 3)),
    "4x6-pareto": Case("configs/mastermind-4-6-pareto.yaml", worst=5),
    "4x7": Case("configs/mastermind-4-7.yaml", seeds=(1, 2, 3)),
    "4x8": Case("configs/mastermind-4-8.yaml"),
    "bc4": Case("configs/bulls-cows-4.yaml"),
    "5x8": Case("configs/mastermind-5-8.yaml"),
    "5x8-planted": Case(
        "configs/mastermind-5-8.yaml",
        overrides=("population.init.baselines=[entropy, kooi, irving, knuth]",),
        note="entropy, Kooi, Irving and Knuth planted in the first population",
    ),
    "5x8-chain": Case(
        "configs/mastermind-5-8.yaml",
        overrides=("population.init.trees=[breakers/mastermind-5-8.json]",),
        note="the shipped breaker planted: a run continuing the last",
    ),
}


def run_case(name: str, case: Case, seed: int, extra: list[str], *, resume: bool = False) -> dict:
    """One run; returns its trace and figures (also written as JSON). ``resume``: continue
    the run that the case's partial trace names (cut by a restart), its trace carried on
    from where it stopped."""
    partial_file = OUT / f"{name}-seed{seed}.partial.json"
    trace: list[tuple[float, int, int]] = []
    if resume:
        partial = json.loads(partial_file.read_text())
        run_dir = Path(partial["run_dir"])
        cfg = load_run(run_dir).config
        lines = (run_dir / "logbook.jsonl").read_text().splitlines()
        done = json.loads(lines[-1])["gen"]  # the checkpoint's: later ones are run again
        trace = [tuple(p) for p in partial["trace"] if p[1] <= done]
    else:
        cfg = load_config(ROOT / case.config, [*case.overrides, f"seed={seed}", *extra])
        OUT.mkdir(parents=True, exist_ok=True)
        run_dir = create_run_dir(cfg, root=OUT)
    t0 = time.perf_counter() - (trace[-1][0] if trace else 0.0)

    def hook(gen, pop, logbook):
        point = [round(time.perf_counter() - t0, 2), gen, int(logbook[-1]["min"])]
        if case.worst is not None:
            within = [t.total for t in map(as_tree, pop) if t.worst <= case.worst]
            point.append(min(within, default=None))
        trace.append(tuple(point))
        partial = {"case": name, "seed": seed, "run_dir": str(run_dir), "trace": trace}
        atomic_write_text(partial_file, json.dumps(partial) + "\n")

    result = run_config(cfg, run_dir=run_dir, resume=resume, progress=False, on_generation=hook)
    s = result.summary
    record = {
        "case": name,
        "seed": seed,
        "config": case.config,
        "overrides": [*case.overrides, *extra],
        "run_dir": str(run_dir.relative_to(ROOT)),
        "best_total": s["best_total"],
        "best_worst": s["best_worst"],
        "knuth_total": s["knuth_total"],
        "best_known_total": s["best_known_total"],
        "target_total": cfg.stop.target_total,
        "worst": case.worst,
        "seconds": s["seconds"],
        "generations": s["generations"],
        "stopped_by": s["stopped_by"],
        "workers": cfg.workers,
        "pareto_front": s.get("pareto_front"),
        "trace": trace,
    }
    atomic_write_text(OUT / f"{name}-seed{seed}.json", json.dumps(record) + "\n")
    partial_file.unlink(missing_ok=True)
    return record


def polish_case(name: str, tree_file: str, bands: list[str]) -> None:
    """``evo polish`` of ``tree_file`` by ``bands``, traced as a run is (a point per band),
    for a chained plot; the tree is written beside the trace."""
    from evo.core.files import cache_dir
    from evo.core.treeio import load_tree, save_tree
    from evo.ea.polish import Band, polish

    tree = load_tree(tree_file, cache=cache_dir())
    t0 = time.perf_counter()
    trace = [[0.0, 0, tree.total]]

    def hook(done) -> None:
        trace.append([round(time.perf_counter() - t0, 2), len(trace), done.after])
        say = f"band {done.band}: {done.before} -> {done.after}"
        print(f"{say} in {done.seconds:.0f} s", flush=True)

    best, _ = polish(tree, [Band.parse(b) for b in bands], on_band=hook)
    OUT.mkdir(parents=True, exist_ok=True)
    save_tree(best, OUT / f"{name}-best.json")
    label = "evo polish " + " ".join(f"--band {b}" for b in bands)
    record = {"case": name, "label": label, "tree": tree_file, "trace": trace, "best": best.total}
    atomic_write_text(OUT / f"{name}.json", json.dumps(record) + "\n")


def _trace_file(name: str) -> dict:
    """A run's (or polishing step's) trace file, with its summary's figures while the run
    is still going."""
    path = OUT / f"{name}.json"
    if not path.exists():
        path = OUT / f"{name}.partial.json"
    r = json.loads(path.read_text())
    summary = ROOT / r.get("run_dir", "-") / "summary.json"
    if "knuth_total" not in r and summary.exists():
        r = {**json.loads(summary.read_text()), **r}
    return r


def first_time(trace: list, below: int | None, column: int = 2) -> float | None:
    """Seconds (from the run's start) of the first generation whose best total (or the
    trace's ``column``) is at or under ``below``."""
    if below is None:
        return None
    return next((p[0] for p in trace if p[column] is not None and p[column] <= below), None)


def best_at(trace: list, seconds: float) -> int | None:
    """The best total of the last generation finished by ``seconds``."""
    done = [p[2] for p in trace if p[0] <= seconds]
    return done[-1] if done else None


def _fmt(t: float | None) -> str:
    return "not reached" if t is None else f"{t:.0f} s"


def row(r: dict, marks: tuple[int, ...]) -> str:
    trace = r["trace"]
    knuth = r["knuth_total"]
    beat = first_time(trace, knuth - 1 if knuth is not None else None)
    target = first_time(trace, r["target_total"])
    goal = f"{r['target_total']}: {_fmt(target)}"
    if r.get("worst") is not None:
        best_within = min((p[3] for p in trace if p[3] is not None), default=None)
        at_best = first_time(trace, best_within, column=3)
        goal = f"best of worst case {r['worst']}: {best_within} at {_fmt(at_best)}"
    at = " / ".join(
        str(best_at(trace, m) or "-") for m in marks if m <= r["seconds"] + 1 or m == marks[0]
    )
    end = f"{r['best_total']} (worst {r['best_worst']})"
    if r.get("pareto_front"):
        end = "front " + ", ".join(f"{t}/{w}" for t, w in r["pareto_front"])
    return (
        f"| {r['case']} | {r['seed']} | {r['workers']} | {trace[0][2]} | {_fmt(beat)} "
        f"| {goal} | {at} | {end} "
        f"| {r['seconds']:.0f} s, {r['generations']} gen. |"
    )


def plot(names: list[str], out: Path, *, title: str, zoom: bool = False) -> None:
    """The best total against time of the runs ``names`` (their trace files), with
    Knuth's total and the best known as lines. A name ``a+b+c`` chains runs that continue
    each other (a run planted with the last one's best, a polishing step, whose trace
    file says ``label``): each drawn from where the one before ended. ``zoom``: the axis
    spans the traces only (lines outside it are left out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5.4 if zoom else 4.2))
    lines: dict[str, int] = {}
    drawn: list[int] = []
    for chain in names:
        offset = 0.0
        for name in chain.split("+"):
            r = _trace_file(name)
            trace = r["trace"]
            case = CASES.get(str(r.get("case", "")))
            label = r.get("label") or (case.note if case and case.note else "from random breakers")
            if "seed" in r and "+" in chain:
                label += f" (seed {r['seed']})"
            x = [(offset + p[0]) / 60 for p in trace]
            ax.step(x, [p[2] for p in trace], where="post", label=label)
            drawn += [p[2] for p in trace]
            offset += trace[-1][0]
            if r.get("knuth_total"):
                lines["Knuth"] = r["knuth_total"]
            if r.get("best_known_total"):
                lines["best known"] = r["best_known_total"]
    if zoom and drawn:
        pad = (max(drawn) - min(drawn)) * 0.05 + 1
        lo, hi = min(drawn) - pad, max(drawn) + pad
        lines = {k: v for k, v in lines.items() if lo <= v <= hi}
    for label, total in lines.items():
        ax.axhline(total, color="grey", linestyle="--", linewidth=0.8)
        ax.annotate(
            f"{label} {total}",
            (0.99, total),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="bottom",
            fontsize=8,
            color="grey",
        )
    ax.set_xlabel("minutes")
    ax.set_ylabel("best total (lower is better)")
    ax.set_title(title)
    if zoom and drawn:
        ax.set_ylim(lo, hi)
    elif lines:  # from under the best known and the traces to over Knuth: random starts off
        ax.set_ylim(min([*lines.values(), *drawn]) * 0.999, max(lines.values()) * 1.01)
    if zoom:  # the traces fill the axes: the legend goes under them
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), fontsize=8)
    else:
        ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help=f"among {', '.join(CASES)} (default: all)")
    ap.add_argument("--seconds", type=float, help="stop.seconds of every run")
    ap.add_argument("--workers", type=int, help="worker processes of every run")
    ap.add_argument("--seeds", help="comma-separated seeds instead of the case's")
    ap.add_argument("--set", action="append", default=[], help="a config override")
    ap.add_argument("--tag", default="", help="added to the case's name in the output")
    ap.add_argument(
        "--plot", metavar="PNG", help="only draw the traces named as cases (a+b: chained)"
    )
    ap.add_argument("--title", default="", help="the plot's title")
    ap.add_argument("--zoom", action="store_true", help="the plot's axis spans the traces only")
    ap.add_argument("--polish", metavar="TREE", help="trace `evo polish TREE` as case NAME")
    ap.add_argument("--band", action="append", default=[], help="--polish: MIN:MAX:SEARCH")
    ap.add_argument(
        "--resume", action="store_true", help="continue each case's cut run (its partial trace)"
    )
    args = ap.parse_args([] if argv is None else argv)
    if args.plot:
        plot(args.cases, Path(args.plot), title=args.title, zoom=args.zoom)
        return
    if args.polish:
        polish_case(args.cases[0], args.polish, args.band)
        return
    extra = []
    if args.seconds is not None:
        extra.append(f"stop.seconds={args.seconds}")
    if args.workers is not None:
        extra.append(f"workers={args.workers}")
    extra += args.set
    print(machine_line(), flush=True)
    rows = []
    for name in args.cases or list(CASES):
        case = CASES[name]
        seeds = tuple(int(s) for s in args.seeds.split(",")) if args.seeds else case.seeds
        for seed in seeds:
            r = run_case(name + args.tag, case, seed, extra, resume=args.resume)
            rows.append(row(r, case.marks))
            print(rows[-1], flush=True)
    print("\n### Quality where the records are (issue 11)\n")
    print(machine_line() + "\n")
    print(
        "| case | seed | workers | random start | below Knuth at | target at | best at"
        " 600 / 900 / 3600 s | best at the end | run |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
