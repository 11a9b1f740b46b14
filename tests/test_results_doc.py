"""benchmarks/RESULTS.md holds today's figures (issue 64): at most 800 lines, one section
per area, one table each whose rows give their command, date and machine; every figure
the README quotes in its results is found in those rows; the dated rounds are in
benchmarks/history/; and `make bench` (benchmarks/run_all.py) rewrites the rows it
measured and says which it left as they were."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from benchmarks import run_all

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
HISTORY = ROOT / "benchmarks" / "history"
README = ROOT / "README.md"

SECTIONS = [
    "Records and proofs",
    "The exact search",
    "Heuristics",
    "Growth and evolution",
    "Wordle",
    "Start-up and set-up",
    "The suite",
]

#: README figures that round a figure of RESULTS.md (the README gives fewer digits, or
#: minutes for seconds): the RESULTS figures, one per end of a range.
ROUNDED = {
    "0.7 s": ["0.705 s"],
    "1.4 s": ["1.365 s"],
    "2.4 s": ["2.402 s"],
    "3.5 s": ["3.52 s"],
    "2.8 to 6.8 ms": ["2.8 ms", "6.8 ms"],
    "0.7x": ["0.70x"],
    "0.9x": ["0.90x"],
    "0.13 s": ["126.0 ms"],
    "4.5 s": ["4.48 s"],
    "14.2 s": ["14.16 s"],
    "28 s": ["28.3 s"],
    "96 s": ["96.4 s"],
    "327 s": ["327.0 s"],
    "54 s": ["53.94 s"],
    "36 to 44 s": ["36.2 s", "43.6 s"],
    "38 to 44 s": ["38.23 s", "43.87 s"],
    "25.3 s": ["25.33 s"],
    "16.4 s": ["16.40 s"],
    "0.05 s": ["0.045 s"],
    "0.19 s": ["0.190 s"],
    "2.5 s": ["2.514 s"],
    "0.7 to 0.8 s": ["0.705 s", "0.814 s"],
    "25 s": ["25.2 s"],
    "53 min": ["3,173 s"],
    "35 min": ["2,100 s"],
    "116 min": ["6,972 s"],
    "10 min 2 s": ["601.5 s"],
    "2 min 20 s": ["139.8 s"],
}

#: README figures that no measured round holds as such (reported in issue 64, not
#: invented here): why each is missing.
NOT_IN_RESULTS: dict[str, str] = {}

#: README figures that RESULTS.md holds only as the figure of another measure: the
#: literal is there, the README's measure is not (reported in issue 64 too).
ELSEWHERE: dict[str, str] = {}

_NUM = r"\d+(?:\.\d+)?"
#: A figure: minutes and seconds, a number (or a range) with a unit, or a number with a
#: thousands separator.
FIGURE = re.compile(
    rf"(?<![\w.,])(?:\d+ min \d+ s|{_NUM}(?: to {_NUM})? ?(?:ms|s|min|%|x|GiB|MiB)(?![A-Za-z])"
    r"|\d{1,3}(?:,\d{3})+(?![\d,]))"
)
_SECONDS = {"ms": Decimal("0.001"), "s": Decimal(1), "min": Decimal(60)}


def _normal(text: str) -> str:
    return " ".join(text.replace("×", "x").split())


def readme_results(text: str) -> str:
    """The README's results: from its records to its list of commands, and its Tests
    section; without code blocks (commands and their sample output) and link targets."""
    part = text[text.index("**Records.**") : text.index("\n## What you can do with it")]
    part += text[text.index("\n## Tests") : text.index("\n## Layout")]
    part = re.sub(r"^```.*?^```", "", part, flags=re.S | re.M)
    return _normal(re.sub(r"\]\([^)]*\)", "]", part))


def readme_figures(text: str) -> list[str]:
    found = FIGURE.findall(readme_results(text))
    return list(dict.fromkeys(found))


def rows_with_commands(doc: str) -> list[str]:
    """The table rows of ``doc`` that name the command behind them (normalized)."""
    lines = doc.splitlines()
    out = []
    for header, rows in run_all.tables(lines):
        heads = [run_all.slug(h) for h in header]
        if "command" not in heads:
            continue
        k = heads.index("command")
        for i in rows:
            row = run_all.cells(lines[i])
            if k < len(row) and row[k] not in ("", "-"):
                out.append(_normal(lines[i]))
    return out


def _found(figure: str, rows: list[str]) -> bool:
    pattern = re.compile(rf"(?<![\w.,]){re.escape(figure)}(?!\d)")
    return any(pattern.search(row) for row in rows)


def missing_figures(readme: str, doc: str) -> list[str]:
    """The README's figures found neither in a row of ``doc`` with its command, nor as a
    rounding of one (:data:`ROUNDED`), nor among those known to be missing
    (:data:`NOT_IN_RESULTS`, :data:`ELSEWHERE`)."""
    rows = rows_with_commands(doc)
    missing = []
    for figure in readme_figures(readme):
        if figure in NOT_IN_RESULTS or figure in ELSEWHERE or _found(figure, rows):
            continue
        if figure in ROUNDED and all(_found(f, rows) for f in ROUNDED[figure]):
            continue
        missing.append(figure)
    return missing


def _value(figure: str) -> tuple[Decimal, str]:
    """A figure's value in its unit's base (seconds for times), and the unit's family."""
    m = re.fullmatch(r"(\d+) min (\d+) s", figure)
    if m:
        return Decimal(m.group(1)) * 60 + Decimal(m.group(2)), "s"
    m = re.fullmatch(r"([\d,]+(?:\.\d+)?) ?(ms|s|min|%|x|GiB|MiB)", figure)
    number, unit = Decimal(m.group(1).replace(",", "")), m.group(2)
    return (number * _SECONDS[unit], "s") if unit in _SECONDS else (number, unit)


# ---------------------------------------------------------------- RESULTS.md itself
def test_results_is_short_and_has_one_section_per_area():
    text = RESULTS.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 800
    assert re.findall(r"^## (.+)$", text, flags=re.M) == SECTIONS
    for name, body in zip(SECTIONS, re.split(r"^## .+$", text, flags=re.M)[1:]):
        lines = body.splitlines()
        found = list(run_all.tables(lines))
        assert len(found) == 1, name
        roles = [run_all.ROLES.get(run_all.slug(h).split("-")[0]) for h in found[0][0]]
        for role in ("what", "evo", "peer", "ratio", "status", "command", "date", "machine"):
            assert role in roles, (name, role)
        history = [ln for ln in body.split("\n\n") if ln.startswith("History:")]
        assert len(history) == 1, name
        links = re.findall(r"\]\((history/[^)]+)\)", history[0])
        assert links, name
        for link in links:
            assert (RESULTS.parent / link).exists(), link


def test_every_row_gives_its_command_date_and_machine():
    lines = RESULTS.read_text(encoding="utf-8").splitlines()
    count = 0
    for header, rows in run_all.tables(lines):
        roles = [run_all.ROLES.get(run_all.slug(h).split("-")[0]) for h in header]
        for i in rows:
            row = dict(zip(roles, run_all.cells(lines[i])))
            assert len(run_all.cells(lines[i])) == len(header), lines[i]
            for role in ("command", "date", "machine"):
                assert row[role] not in ("", "-"), (role, lines[i][:80])
            assert re.match(r"20\d\d-\d\d-\d\d", row["date"]), row["date"]
            count += 1
    assert count >= 60


def test_a_status_says_met_or_not_met_once():
    """A target's cell gives its status as of the row's measurement only: one verdict."""
    lines = RESULTS.read_text(encoding="utf-8").splitlines()
    for header, rows in run_all.tables(lines):
        roles = [run_all.ROLES.get(run_all.slug(h).split("-")[0]) for h in header]
        for i in rows:
            status = dict(zip(roles, run_all.cells(lines[i])))["status"]
            if status != "-":
                assert ":" in status, status
                verdicts = re.findall(r"\b(?:not met|met|not reached|cannot be met)\b", status)
                assert verdicts, status


def test_every_bench_key_names_a_benchmark_script():
    rows = [ln for ln in RESULTS.read_text(encoding="utf-8").splitlines() if ln.startswith("|")]
    keys = [m.group("key") for ln in rows for m in run_all.MARK.finditer(ln)]
    assert len(keys) >= 15
    assert len(set(keys)) == len(keys)
    for key in keys:
        script = key.split("/")[0]
        assert (ROOT / "benchmarks" / f"bench_{script}.py").exists(), key
    assert sum(ln.count("<!-- bench:") for ln in rows) == len(keys)  # none malformed


# ---------------------------------------------------------------- the README's figures
def test_every_figure_the_readme_quotes_is_in_results_with_its_command():
    readme = README.read_text(encoding="utf-8")
    doc = RESULTS.read_text(encoding="utf-8")
    assert len(readme_figures(readme)) >= 100
    assert missing_figures(readme, doc) == []


def test_the_check_fails_when_a_figure_leaves_results():
    readme = README.read_text(encoding="utf-8")
    doc = RESULTS.read_text(encoding="utf-8")
    for figure in ("178,560", "1,445,266", "9 min 21 s", "7,920", "0.089 s"):
        row = next(ln for ln in doc.splitlines() if figure in ln and ln.startswith("|"))
        cut = "\n".join(ln for ln in doc.splitlines() if figure not in ln)
        assert figure in missing_figures(readme, cut), (figure, row[:60])
    # A rounded figure needs the one it rounds; a figure without its command is not found.
    cut = doc.replace("14.16 s", "14.31 s")
    assert "14.2 s" in missing_figures(readme, cut)
    lines = [ln for ln in doc.splitlines() if "7,920" in ln and ln.startswith("|")]
    no_command = doc
    for ln in lines:
        row = run_all.cells(ln)
        row[5] = "-"
        no_command = no_command.replace(ln, "| " + " | ".join(row) + " |")
    assert "7,920" in missing_figures(readme, no_command)


def test_the_rounded_figures_round_what_results_holds():
    figures = readme_figures(README.read_text(encoding="utf-8"))
    for figure, sources in ROUNDED.items():
        assert figure in figures, f"{figure} is no longer in the README: drop it here"
        m = re.fullmatch(rf"({_NUM}) to ({_NUM}) ?(\S+)", figure)
        ends = [f"{m.group(1)} {m.group(3)}", f"{m.group(2)} {m.group(3)}"] if m else [figure]
        assert len(ends) == len(sources), figure
        for end, source in zip(ends, sources):
            want, unit = _value(end)
            got, unit2 = _value(source)
            assert unit == unit2, (figure, source)
            digits = re.search(r"\.(\d+)", end.split(" min ")[0])
            places = Decimal(1).scaleb(-len(digits.group(1))) if digits else Decimal(1)
            scale = _value("1 " + end.split()[-1])[0] if unit == "s" else Decimal(1)
            rounded = (got / scale).quantize(places, rounding=ROUND_HALF_UP)
            assert rounded * scale == want, (figure, source, rounded)


def test_the_figures_not_in_results_are_still_missing_and_still_quoted():
    readme = README.read_text(encoding="utf-8")
    rows = rows_with_commands(RESULTS.read_text(encoding="utf-8"))
    figures = readme_figures(readme)
    for figure in NOT_IN_RESULTS:
        assert figure in figures, f"{figure} is no longer in the README: drop it here"
        assert not _found(figure, rows), f"{figure} is in RESULTS.md now: drop it here"
    for figure in ELSEWHERE:
        assert figure in figures, f"{figure} is no longer in the README: drop it here"


# ---------------------------------------------------------------- the history
def test_the_dated_rounds_are_in_the_history_and_its_index():
    days = sorted(HISTORY.glob("20*.md"))
    assert len(days) >= 7
    index = (HISTORY / "README.md").read_text(encoding="utf-8")
    sections = 0
    for day in days:
        assert f"]({day.name})" in index, day.name
        text = day.read_text(encoding="utf-8")
        sections += len(re.findall(r"^## ", text, flags=re.M))
        for target in re.findall(r"\]\((\.\./[^)#]+)\)", text):
            assert (HISTORY / target).resolve().exists(), (day.name, target)
    assert sections >= 50  # the old notebook's sections, and what `make bench` adds
    old = (HISTORY / "2026-11-29.md").read_text(encoding="utf-8")
    assert "## Proofs, tenth round: the bound's schedule in named steps" in old


# ---------------------------------------------------------------- `make bench`
SAMPLE = """# Results

## Area

| what | evo | peer (same run) | ratio | target: status | command | date | machine |
|---|---|---|---|---|---|---|---|
| one breaker <!-- bench:growth/one-breaker --> | 1.88 ms | - | - | <= 2 ms: met | `g` | 11-22 | A |
| two <!-- bench:spread/2 peer=@1 --> | 17.9 s | 23.1 s | 1.29x | <= 0.5x: met | `s` | 11-29 | A |
| a record | 178,560 | 179,274 | 2.59% | - | `evo polish ...` | 11-29 | A |
| not run <!-- bench:exact/4-6 --> | 0.086 s | 0.090 s | 0.96x | <= 1.0x: met | `e` | 11-25 | A |

History: [old](history/x.md).
"""

GROWTH = """## Game, trees and random growth (issue 2)

| what | measured | target |
|---|---|---|
| one breaker | 2.40 ms | <= 2 ms |
| one big breaker | 30.0 ms | <= 100 ms |
"""

SPREAD = """| side | wall (median) | all runs | against the first side | peak | total, tree |
|---|---|---|---|---|---|
| 1 | 20.00 s | 20.0 | 1.00x | 0.3 GiB | t |
| 2 | 12.50 s | 12.5 | 1.60x | 0.4 GiB | t |
"""


def test_make_bench_rewrites_the_rows_it_measured_and_reports_the_others():
    measured = {**run_all.printed_rows("growth", GROWTH), **run_all.printed_rows("spread", SPREAD)}
    assert measured["growth/one-breaker"]["measured"] == "2.40 ms"
    doc, updated, left = run_all.update_rows(SAMPLE, measured, "2026-12-07", "2 cores (X), 8 GiB")
    lines = doc.splitlines()
    one = next(ln for ln in lines if "one breaker" in ln)
    assert run_all.cells(one) == [
        "one breaker <!-- bench:growth/one-breaker -->",
        "2.40 ms",
        "-",
        "-",
        "<= 2 ms: not met",
        "`benchmarks/run_all.py growth`",
        "2026-12-07",
        "2 cores (X), 8 GiB",
    ]
    two = run_all.cells(next(ln for ln in lines if "bench:spread/2" in ln))
    assert two[1:5] == ["12.50 s", "20.00 s", "1.60x", "<= 0.5x: not met"]
    assert updated == ["Area: one breaker", "Area: two"]
    assert left == ["Area: a record", "Area: not run (bench key exact/4-6: not measured this run)"]
    # The rows left are as they were, and so is everything around the tables.
    for ln in SAMPLE.splitlines():
        if "one breaker" not in ln and "bench:spread/2" not in ln:
            assert ln in lines
    assert doc.endswith("\n") and len(lines) == len(SAMPLE.splitlines())
    # A row the script printed without a figure (an error, a skip) is left as it was.
    failed = {"exact/4-6": {"game": "(4,6)", "total": "–", "evo-compute": ""}}
    doc, updated, left = run_all.update_rows(SAMPLE, failed, "2026-12-07", "box")
    assert doc == SAMPLE and updated == []
    assert "Area: not run (bench key exact/4-6: no figure this run)" in left


def test_a_row_is_judged_against_its_target():
    assert run_all.judge("<= 2 ms", "1.88 ms", "-") == "met"
    assert run_all.judge("<= 3 s", "3.26 s", "-") == "not met"
    assert run_all.judge("<= 0.5 s", "190 ms", "-") == "met"
    assert run_all.judge("<= 1.0x", "-", "0.96x") == "met"
    assert run_all.judge("<= 3x", "161 ms", "1.83") == "met"
    assert run_all.judge(">= 1.7x faster", "1.365 s", "0.57x") == "met"
    assert run_all.judge(">= 1.7x faster", "1.5 s", "0.62x") == "not met"
    assert run_all.judge("within 10% of the ceiling", "1 s", "1.2x") is None
    assert run_all.judge("<= 1.0x", "1 s", "-") is None
    doc, _, _ = run_all.update_rows(
        SAMPLE.replace("<= 0.5x: met", "within 10% of the ceiling: met"),
        run_all.printed_rows("spread", SPREAD),
        "2026-12-07",
        "box",
    )
    assert "within 10% of the ceiling: not judged by `make bench`" in doc


def test_the_machine_cell_is_the_machine_line_without_date_and_load():
    line = "2026-12-07, 2 cores (AMD EPYC), 24 GiB, Python 3.11.7, load average 7.4 at the start"
    assert run_all.machine_short(line) == "2 cores (AMD EPYC), 24 GiB"
