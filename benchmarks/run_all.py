"""Run every benchmarks/bench_*.py (its ``main()``), or those named on the command line,
then bring the current tables of benchmarks/RESULTS.md up to date.

    python benchmarks/run_all.py            # all of them (`make bench`)
    python benchmarks/run_all.py growth     # benchmarks/bench_growth.py only
    python benchmarks/run_all.py --dry-run growth   # RESULTS.md and history/ left alone

What the scripts print (markdown sections) is appended to ``benchmarks/history/DATE.md``,
the day's round. A row of RESULTS.md whose first cell carries a bench key,
``<!-- bench:SCRIPT/ROW -->`` (ROW: the slug of the first cell of the row that
``bench_SCRIPT.py`` prints), is rewritten from that run: its evo, peer and ratio cells,
its status judged against its target, its command (``benchmarks/run_all.py SCRIPT``), its
date and its machine. Options after the key
pick the printed columns (``evo=evo-compute``: the column whose header's slug that is) or
take a cell from another printed row of the same script (``peer=@1``: the evo cell of row
``1``). The rows left as they were are listed at the end: those whose script did not run
or did not print them, and those measured by hand (records, proofs, hour-long runs), whose
command cell says how.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib.util
import io
import re
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
HISTORY = HERE / "history"

#: The hidden key of a row: ``<!-- bench:SCRIPT/ROW opt=value ... -->``.
MARK = re.compile(
    r"<!--\s*bench:(?P<key>[a-z0-9_]+/[a-z0-9-]+)(?P<opts>(?:\s+\w+=[@\w.-]+)*)\s*-->"
)
#: The role of a column of RESULTS.md's tables, by the first word of its header.
ROLES = {
    **{r: r for r in ("what", "evo", "peer", "ratio", "command", "date", "machine")},
    "gap": "ratio",
    "target": "status",
}
#: Which printed column gives a role, by the start of its header's slug.
ALIASES = {
    "evo": ("evo", "measured", "wall", "median"),
    "peer": ("peer", "other", "mmstrat"),
    "ratio": ("ratio", "against"),
}
_UNITS = {"ms": 1e-3, "s": 1.0, "min": 60.0}


def slug(text: str) -> str:
    """The key form of a cell: its words, lower case, joined by ``-`` (markers dropped)."""
    text = re.sub(r"<!--.*?-->", "", text)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def cells(line: str) -> list[str]:
    """The cells of a markdown table row."""
    return [c.strip() for c in line.strip().removeprefix("|").removesuffix("|").split("|")]


def _is_rule(line: str) -> bool:
    return bool(re.fullmatch(r"\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*\|?", line.strip()))


def tables(lines: list[str]):
    """Each table of ``lines``: (its header's cells, the indexes of its rows)."""
    i = 0
    while i < len(lines) - 1:
        if lines[i].lstrip().startswith("|") and _is_rule(lines[i + 1]):
            header, rows = cells(lines[i]), []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(i)
                i += 1
            yield header, rows
        else:
            i += 1


def printed_rows(script: str, text: str) -> dict[str, dict[str, str]]:
    """The rows of the tables a bench script printed, keyed ``script/slug of the first
    cell``: each a dict of its cells by their header's slug (a bare number under a header
    naming its unit, ``median (ms)``, gets the unit)."""
    out: dict[str, dict[str, str]] = {}
    lines = text.splitlines()
    for header, rows in tables(lines):
        heads = [slug(h) for h in header]
        for i in rows:
            row = cells(lines[i])
            named = {}
            for h, raw, c in zip(heads, header, row):
                unit = re.search(r"\((ms|s|min)\)\s*$", raw)
                named[h] = f"{c} {unit.group(1)}" if unit and re.fullmatch(r"[\d.]+", c) else c
            out[f"{script}/{slug(row[0])}"] = named
    return out


def _pick(role: str, opts: dict[str, str], row: dict[str, str], script_rows: dict) -> str:
    """The printed cell that gives ``role``, or "-" when the run has none."""
    if role in opts:
        want = opts[role]
        if want.startswith("@"):
            other = script_rows.get(want[1:])
            return _pick("evo", {}, other, {}) if other else "-"
        return row.get(want, "-")
    for head, cell in row.items():
        if head.startswith(ALIASES[role]):
            return cell
    return "-"


def _value(text: str, unit: str) -> float | None:
    """The first figure of ``text`` in ``unit`` (times converted), or None."""
    if unit == "x":  # a ratio: ``0.62x``, or a bare number
        m = re.search(r"(\d+(?:\.\d+)?)\s*[x×]", text) or re.fullmatch(
            r"\s*(\d+(?:\.\d+)?)\s*", text
        )
        return float(m.group(1)) if m else None
    m = re.search(r"(\d+(?:\.\d+)?)\s*(ms|s|min)(?![a-z])", text)
    return float(m.group(1)) * _UNITS[m.group(2)] / _UNITS[unit] if m else None


def judge(target: str, evo: str, ratio: str) -> str | None:
    """``met`` or ``not met`` for a target such as ``<= 2 ms``, ``<= 1.0x`` or ``>= 1.7x
    faster`` (the ratio inverted), from the evo cell (times) or the ratio cell (``x``);
    None when the target or the figure cannot be read."""
    m = re.match(r"\s*(<=|>=)\s*(\d+(?:\.\d+)?)\s*(x|ms|s|min)\b(.*)$", target)
    if not m:
        return None
    op, bound, unit, rest = m.group(1), float(m.group(2)), m.group(3), m.group(4)
    value = _value(ratio if unit == "x" else evo, unit)
    if value is None or value <= 0:
        return None
    if unit == "x" and "faster" in rest:
        value = 1 / value
    return "met" if (value <= bound if op == "<=" else value >= bound) else "not met"


def update_rows(
    doc: str, measured: dict[str, dict[str, str]], date: str, machine: str
) -> tuple[str, list[str], list[str]]:
    """Rewrite the rows of ``doc``'s tables whose bench key is in ``measured`` (from
    :func:`printed_rows`). Returns the new text, the rows updated and the rows left as
    they were (each named by its section and its first cell; a keyed row left says so)."""
    lines = doc.splitlines()
    heading_at = {i: ln[3:].strip() for i, ln in enumerate(lines) if ln.startswith("## ")}
    updated, left = [], []
    for header, rows in tables(lines):
        roles = [ROLES.get(slug(h).split("-")[0], "") for h in header]
        if "what" not in roles or "date" not in roles:
            continue
        section = next((heading_at[j] for j in sorted(heading_at, reverse=True) if j < rows[0]), "")
        for i in rows:
            row = cells(lines[i])
            name = f"{section}: {re.sub(r'<!--.*?-->', '', row[0]).strip()}"
            mark = MARK.search(row[0])
            got = measured.get(mark.group("key")) if mark else None
            if got is None:
                why = f" (bench key {mark.group('key')}: not measured this run)" if mark else ""
                left.append(name + why)
                continue
            script = mark.group("key").split("/")[0]
            script_rows = {
                k.split("/", 1)[1]: v for k, v in measured.items() if k.startswith(script + "/")
            }
            opts = dict(o.split("=", 1) for o in mark.group("opts").split())
            new = {r: _pick(r, opts, got, script_rows) for r in ("evo", "peer", "ratio")}
            if new["evo"] in ("", "-", "–"):  # the script said why (an error, a skip)
                left.append(f"{name} (bench key {mark.group('key')}: no figure this run)")
                continue
            for k, role in enumerate(roles):
                if role in new:
                    row[k] = new[role]
                elif role == "date":
                    row[k] = date
                elif role == "machine":
                    row[k] = machine
                elif role == "command":
                    row[k] = f"`benchmarks/run_all.py {script}`"
                elif role == "status" and row[k] not in ("", "-"):
                    target = row[k].split(":")[0].strip()
                    verdict = judge(target, new["evo"], new["ratio"])
                    row[k] = f"{target}: {verdict or 'not judged by `make bench`'}"
            lines[i] = "| " + " | ".join(row) + " |"
            updated.append(name)
    return "\n".join(lines) + ("\n" if doc.endswith("\n") else ""), updated, left


def machine_short(line: str) -> str:
    """``2 cores (AMD EPYC), 24 GiB`` from :func:`benchmarks.machine.machine_line`."""
    return line.split(", ", 1)[1].split(", Python")[0]


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, out) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, s: str) -> int:
        self.out.write(s)
        self.kept.write(s)
        return len(s)

    def flush(self) -> None:
        self.out.flush()


def _run(script: Path) -> tuple[str, str | None]:
    """Run one script's ``main()`` (with no arguments of its own); its printed text, and
    the error that stopped it, if any."""
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    tee, argv, error = _Tee(sys.stdout), sys.argv, None
    sys.argv = [str(script)]
    try:
        with contextlib.redirect_stdout(tee):
            print(f"\n<!-- {script.name} -->", flush=True)
            spec.loader.exec_module(module)
            module.main()
    except (Exception, SystemExit):  # a failed bench is reported, the others still run
        error = traceback.format_exc(limit=3)
        print(error, file=sys.stderr)
    finally:
        sys.argv = argv
    return tee.kept.getvalue(), error


def _append_history(date: str, when: str, argv: list[str], text: str) -> Path:
    path = HISTORY / f"{date}.md"
    new = not path.exists()
    with open(path, "a", encoding="utf-8") as f:
        if new:
            f.write(f"# Benchmark rounds of {date}\n")
        f.write(f"\n## `make bench`, {when} (`benchmarks/run_all.py {' '.join(argv)}`)\n{text}")
    if new:
        with open(HISTORY / "README.md", "a", encoding="utf-8") as f:
            f.write(f"\n## [{date}]({date}.md)\n\n- `make bench`, {when}\n")
    return path


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.machine import machine_line

    dry = "--dry-run" in argv
    names = [a for a in argv if not a.startswith("--")]
    scripts = sorted(HERE.glob("bench_*.py"))
    if names:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in names]
    machine = machine_line()
    printed, failed, measured = [], [], {}
    for script in scripts:
        text, error = _run(script)
        printed.append(text)
        if error:
            failed.append(script.name)
        measured.update(printed_rows(script.stem.removeprefix("bench_"), text))
    now = datetime.datetime.now(datetime.timezone.utc)
    date = now.date().isoformat()
    doc, updated, left = update_rows(
        RESULTS.read_text(encoding="utf-8"), measured, date, machine_short(machine)
    )
    if not dry:
        RESULTS.write_text(doc, encoding="utf-8")
        where = _append_history(date, f"{now:%Y-%m-%d %H:%M} UTC", argv, "".join(printed))
    said = " (dry run: nothing written)" if dry else f", its output appended to {where}"
    print(f"\nbenchmarks/RESULTS.md: {len(updated)} rows updated from this run{said}:")
    for name in updated:
        print(f"  updated: {name}")
    print(f"{len(left)} rows left as they were (their own date, machine and command):")
    for name in left:
        print(f"  left: {name}")
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
