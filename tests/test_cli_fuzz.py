"""Property test of the command line's error boundary: random and mutated configs,
``--set`` values and tree files, and hostile file names, never give a traceback, only exit
status 0, or 2 with one line on standard error (without raw control characters); what is
written is still valid (SVG that parses, a page whose data cannot end its block)."""

from __future__ import annotations

import copy
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.cli import main
from evo.core.game import make_game
from evo.core.treeio import from_nested, tree_document

#: A valid config of a tiny game that runs in well under a second.
BASE = {
    "name": "fuzz",
    "seed": 1,
    "game": {"pegs": 2, "colors": 3},
    "population": {"size": 4, "init": {"pool": "all", "baselines": []}},
    "stop": {"generations": 1},
    "crossover": {"rate": 0.5, "operator": {"kind": "graft"}},
    "mutation": {"rate": 0.5, "operators": [{"kind": "regrow", "weight": 1}]},
    "selection": {"method": "tournament", "tournament_size": 2},
    "elitism": 1,
    "hall_of_fame": 2,
    "workers": 1,
    "checkpoint_interval": 1,
}

#: Key paths the mutations aim at (and a few that do not exist).
KEYS = [
    "name", "seed", "game", "game.pegs", "game.colors", "game.variant", "population",
    "population.size", "population.init.pool", "population.init.baselines",
    "population.init.baselines.0", "stop", "stop.generations", "stop.target_total", "pool",
    "crossover.rate", "crossover.operator", "crossover.operator.kind", "crossover.operator.bias",
    "mutation.rate", "mutation.repeat", "mutation.operators", "mutation.operators.0",
    "mutation.operators.0.kind", "mutation.operators.0.k", "mutation.operators.0.max_codes",
    "mutation.operators.1.weight", "selection.method", "selection.tournament_size", "elitism",
    "max_guesses", "hall_of_fame", "checkpoint_interval", "nothing", "game.nothing", "a.b.c",
]  # fmt: skip

#: Small numbers (valid ones stay fast), huge ones, and values of every other type.
VALUES = st.one_of(
    st.integers(-3, 4),
    st.sampled_from([10**9, -(10**30), 10**30, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.sampled_from(["knuth", "nobody", "11+lc", "graft", "exchange", "regrow", "greedy",
                     "best-of-k", "exhaustive", "nsga2", "consistent", "bulls-cows"]),
    st.lists(st.integers(-2, 3), max_size=3),
    st.dictionaries(st.sampled_from(["kind", "weight", "x"]), st.integers(-1, 2), max_size=2),
)  # fmt: skip

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    database=None,  # nothing written outside the temporary directories
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def put(data, path: str, value) -> None:
    node = data
    parts = path.split(".")
    for p in parts[:-1]:
        key = int(p) if isinstance(node, list) and p.isdigit() else p
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return
    last = parts[-1]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value


def check(res) -> None:
    """Exit status 0, or 2 with one line ``Error: ...`` free of control characters; never
    a traceback."""
    assert isinstance(res.exception, (SystemExit, type(None))), repr(res.exception)
    assert res.exit_code in (0, 2), (res.exit_code, res.output)
    assert "Traceback" not in res.output
    if res.exit_code == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
        assert not re.search(r"[\x00-\x1f\x7f-\x9f]", lines[0]), lines[0]


def text_of(data, form: str) -> bytes:
    if form == "json":
        return json.dumps(data).encode()
    import yaml

    return yaml.safe_dump(data).encode()


@SETTINGS
@given(
    changes=st.lists(st.tuples(st.sampled_from(KEYS), VALUES), max_size=3),
    sets=st.lists(
        st.one_of(
            st.tuples(st.sampled_from(KEYS), st.text(max_size=12)).map(lambda kv: "=".join(kv)),
            st.text(max_size=15),
        ),
        max_size=2,
    ),
    form=st.sampled_from(["json", "yaml"]),
    damage=st.one_of(st.none(), st.binary(max_size=20), st.integers(0, 200)),
)
def test_run_with_random_configs_and_sets(tmp_path_factory, changes, sets, form, damage):
    tmp = tmp_path_factory.mktemp("fuzz")
    data = copy.deepcopy(BASE)
    for key, value in changes:
        put(data, key, value)
    raw = text_of(data, form)
    if isinstance(damage, bytes):
        raw = raw[: len(raw) // 2] + damage + raw[len(raw) // 2 :]
    elif isinstance(damage, int):
        raw = raw[:damage]
    path = tmp / "c.yaml"
    path.write_bytes(raw)
    args = ["run", str(path), "--runs", str(tmp / "runs"), "-q", "--no-report"]
    for s in sets:
        args += ["--set", s]
    args += ["--set", "stop.seconds=0.5"]  # whatever the rest says, a short run
    check(CliRunner().invoke(main, args))


def hand_document() -> dict:
    game = make_game(2, 2)
    nested = {
        "guess": "11",
        "children": {"1,0": {"guess": "12", "children": {"0,2": {"guess": "21"}}},
                     "0,0": {"guess": "22"}},
    }  # fmt: skip
    return tree_document(from_nested(game, nested))


TREE_KEYS = [
    "format", "version", "game", "game.pegs", "game.colors", "game.variant", "summary",
    "summary.total", "summary.worst", "root", "root.guess", "root.children",
    "root.children.1,0", "root.children.1,0.guess", "root.children.0,0.guess",
    "root.children.1,0.children", "root.children.9,9", "extra",
]  # fmt: skip


@SETTINGS
@given(
    changes=st.lists(st.tuples(st.sampled_from(TREE_KEYS), VALUES), max_size=3),
    deep=st.sampled_from([0, 0, 0, 50, 5000]),
    damage=st.one_of(st.none(), st.binary(max_size=10), st.integers(0, 150)),
    command=st.sampled_from(["table", "play"]),
)
def test_tree_files_random_and_mutated(tmp_path_factory, changes, deep, damage, command):
    tmp = tmp_path_factory.mktemp("fuzz")
    doc = hand_document()
    for key, value in changes:
        put(doc, key, value)
    if deep:
        put(doc, "root.children.0,0", json.loads("[" * min(deep, 50) + "]" * min(deep, 50)))
    raw = json.dumps(doc).encode()
    if deep > 50:
        raw = raw[:-1] + b', "deep": ' + b"[" * deep + b"]" * deep + b"}"
    if isinstance(damage, bytes):
        raw = raw[: len(raw) // 2] + damage + raw[len(raw) // 2 :]
    elif isinstance(damage, int):
        raw = raw[:damage]
    path = Path(tmp) / "t.json"
    path.write_bytes(raw)
    args = [command, str(path)] + (["--secret", "12"] if command == "play" else [])
    check(CliRunner().invoke(main, args))


#: Pieces of hostile text: terminal escapes and other controls, markup that would end or
#: comment out a page's script, quotes, entities, Graphviz escapes, mathtext, line and
#: direction marks, and the lone surrogates Python reads in a file name that is not UTF-8.
HOSTILE_PIECES = [
    "\x1b[2J", "\x1b]0;title\x07", "\r", "\n", "\t", "\x7f", "\x85", "<!--", "<script>",
    "</script>", "-->", "'", '"', "&amp;", "&", "<", ">", "\\N", "\\", "$\\foo$", "\u2028",
    "\u202e", "\ufeff", "\udcff", "\udc80", "%s", "{}", "é", "\U0001f600", ".json", " ",
]  # fmt: skip

HOSTILE = st.lists(
    st.one_of(st.sampled_from(HOSTILE_PIECES), st.text(max_size=3)), min_size=1, max_size=6
).map("".join)


def file_name(text: str) -> str:
    """``text`` as a name a command line can carry: no "/" or NUL, at most 200 bytes."""
    name = text.replace("/", "|").replace("\0", "") or "x"
    while len(os.fsencode(name)) > 200:
        name = name[:-1]
    return name if name not in (".", "..") else f"{name}x"


@SETTINGS
@given(
    name=HOSTILE,
    output=st.one_of(st.none(), HOSTILE),
    changes=st.lists(st.tuples(st.sampled_from(TREE_KEYS), HOSTILE), max_size=2),
    command=st.sampled_from(["render", "explore", "table", "play"]),
)
def test_hostile_names_and_tree_text(tmp_path_factory, name, output, changes, command):
    """Tree files under hostile names (given as files or run directories), holding hostile
    text, drawn, explored, tabled or played; pictures and pages named after them."""
    tmp = tmp_path_factory.mktemp("fuzz")
    doc = hand_document()
    for key, value in changes:
        put(doc, key, value)
    name = file_name(name)
    if len(name) % 2:  # a run directory stands for its best.json
        path = tmp / name
        path.mkdir()
        (path / "best.json").write_text(json.dumps(doc))
    else:
        path = tmp / f"{name}.json"
        path.write_text(json.dumps(doc))
    args = [command, str(path)]
    suffix = {"render": ".svg", "explore": ".html"}.get(command)
    out = tmp / f"{file_name(output)}{suffix}" if output is not None and suffix else None
    if out is not None:
        args += ["-o", str(out)]
    if command == "play":
        args += ["--secret", "12"]
    here = Path.cwd()
    os.chdir(tmp)  # where pictures and pages without --output go
    try:
        res = CliRunner().invoke(main, args)
    finally:
        os.chdir(here)
    written = list(tmp.iterdir()) if out is None else [out]
    check(res)
    if res.exit_code == 0 and command == "render":
        (picture,) = [p for p in written if p.suffix == ".svg" and p.is_file()]
        ET.parse(picture)
    if res.exit_code == 0 and command == "explore":
        (page,) = [p for p in written if p.suffix == ".html" and p.is_file()]
        text = page.read_text()
        data = text.split('type="application/json">', 1)[1].split("</script>", 1)[0]
        assert not set("<>&") & set(data)
        assert not re.search("script-src[^;]*unsafe-inline", text)
