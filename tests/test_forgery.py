"""No file makes evo state a false bound or optimum (issue 50's high findings): a bound's
certificate is checked part by part whatever its spelling, a certificate or results file
not sealed on this machine is proved again or not used, and the cache of baselines takes
no edited optimum. The optimum of (4,5), 2,463, is the exact search's and published
(Goddard)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.forgery import consistent_totals, proves_no_more

from evo.baselines.optimal import Where, optimal
from evo.cli import main
from evo.core.game import make_game
from evo.core.seal import is_sealed, key_path, seal
from evo.proofs.bound import (
    CertificateError,
    certificate_sealed,
    check_certificate,
    write_certificate,
)
from evo.proofs.refine import lower_bound
from evo.search import spread

OPTIMUM_4_5 = 2463
OPTIMUM_3_4 = 206  # Goddard, "Mastermind revisited"


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


# ---------------------------------------------------------------- the seal
def test_a_seal_needs_the_machine_key(monkeypatch, tmp_path):
    mark = seal({"a": 1})
    assert is_sealed({"a": 1}, mark)
    assert not is_sealed({"a": 2}, mark)
    assert not is_sealed({"a": 1}, mark[:-1] + ("0" if mark[-1] != "0" else "1"))
    assert not is_sealed({"a": 1}, None)
    assert oct(key_path().stat().st_mode & 0o777) == "0o600"
    monkeypatch.setenv("EVO_CACHE", str(tmp_path / "elsewhere"))  # another machine's key
    assert not is_sealed({"a": 1}, mark)
    assert is_sealed({"a": 1}, seal({"a": 1}))


# ---------------------------------------------------------------- certificates
def _certificate(tmp_path: Path, pegs: int = 4, colors: int = 5, depth: int = 1) -> dict:
    path = tmp_path / "c.json"
    write_certificate(lower_bound(make_game(pegs, colors), depth=depth), path)
    return json.loads(path.read_text())


@pytest.mark.parametrize("spelling", ["as written", "no space", "lower case"])
def test_a_part_listed_twice_is_refused_however_spelled(tmp_path, spelling):
    data = _certificate(tmp_path)
    for c in data["classes"]:
        copy = dict(max(c["parts"], key=lambda p: p["size"]))
        if spelling == "no space":
            copy["feedback"] = copy["feedback"].replace(" ", "")
        elif spelling == "lower case":
            copy["feedback"] = copy["feedback"].lower()
        c["parts"].append(copy)
    consistent_totals(data)
    assert data["lower_bound"] > OPTIMUM_4_5  # what the forgery would claim
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    with pytest.raises(CertificateError, match="listed twice"):
        check_certificate(data, prove=False)
    res = _run("bound", "--check", str(forged))
    assert res.exit_code == 2 and "listed twice" in res.output
    res = _run(
        "bound", "--workers", "1", "-n", "4", "-c", "5", "--certificate", str(forged), "--resume"
    )
    assert res.exit_code == 2 and "listed twice" in res.output, res.output
    assert "optimum" not in res.output


def test_a_raised_bound_resumed_is_proved_again_and_refused(tmp_path):
    data = _certificate(tmp_path)
    part = max(data["classes"][0]["parts"], key=lambda p: p["size"])
    part["bound"] += 400
    consistent_totals(data)
    path = tmp_path / "raised.json"
    path.write_text(json.dumps(data))
    assert not certificate_sealed(data)
    res = _run(
        "bound", "--workers", "1", "-n", "4", "-c", "5", "--certificate", str(path), "--resume"
    )
    assert res.exit_code == 2, res.output
    assert "proved again" in res.output and "not the" in res.output
    assert "optimum" not in res.output


def test_a_lowered_exact_part_resumed_gives_no_false_optimum():
    # Found by the fuzz test below: lowering an exact part's bound passed the check (a
    # lower claim is proved), and the search went on from the claim: "205 is the optimum"
    # of (3,4), whose optimum is 206. It goes on from what was proved.
    game = make_game(3, 4)
    data = lower_bound(game, depth=1).to_json()
    lowered = 0
    for c in data["classes"]:
        for p in c["parts"]:
            if p["depth"] == "exact" and p["size"] > 2:
                p["bound"] -= 1
                lowered += 1
    consistent_totals(data)
    assert lowered
    assert not certificate_sealed(data) and data["lower_bound"] < OPTIMUM_3_4
    resumed = lower_bound(game, resume=data)
    assert resumed.optimal and resumed.lower_bound == OPTIMUM_3_4


def test_a_sealed_certificate_goes_on_without_proving_again(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    res = _run(
        "bound", "--workers", "1", "-n", "4", "-c", "5", "--depth", "1", "--certificate", str(path)
    )
    assert res.exit_code == 0, res.output
    assert certificate_sealed(json.loads(path.read_text()))
    import evo.proofs.bound as bound

    checked = bound.check_certificate

    def no_proof(data, *, prove=True, **k):
        if prove:
            raise AssertionError("a sealed certificate was proved again")
        return checked(data, prove=False, **k)

    monkeypatch.setattr(bound, "check_certificate", no_proof)
    monkeypatch.setattr("evo.proofs.refine.check_certificate", no_proof)
    res = _run(
        "bound", "--workers", "1", "-n", "4", "-c", "5", "--certificate", str(path), "--resume"
    )
    assert res.exit_code == 0, res.output
    assert f"{OPTIMUM_4_5:,} is the optimum" in res.output


def test_another_machines_certificate_is_proved_again_then_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    assert (
        _run(
            "bound",
            "--workers",
            "1",
            "-n",
            "4",
            "-c",
            "5",
            "--depth",
            "1",
            "--certificate",
            str(path),
        ).exit_code
        == 0
    )
    monkeypatch.setenv("EVO_CACHE", str(tmp_path / "other-machine"))
    res = _run(
        "bound", "--workers", "1", "-n", "4", "-c", "5", "--certificate", str(path), "--resume"
    )
    assert res.exit_code == 0, res.output
    assert "proved again" in res.output
    assert f"{OPTIMUM_4_5:,} is the optimum" in res.output
    assert certificate_sealed(json.loads(path.read_text()))  # sealed here from now on


@pytest.mark.parametrize("value", [-5, 10**9, "7", None])
def test_exact_below_out_of_range_is_one_line(tmp_path, value):
    data = _certificate(tmp_path)
    data["exact_below"] = value
    path = tmp_path / "e.json"
    path.write_text(json.dumps(data))
    res = _run("bound", "--check", str(path))
    assert res.exit_code == 2 and "exact_below" in res.output, res.output
    assert "Traceback" not in res.output


def test_a_certificate_is_not_overwritten_without_resume(tmp_path):
    path = tmp_path / "c.json"
    assert (
        _run("bound", "-n", "3", "-c", "4", "--depth", "1", "--certificate", str(path)).exit_code
        == 0
    )
    before = path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no lock left beside
    res = _run("bound", "-n", "4", "-c", "5", "--depth", "1", "--certificate", str(path))
    assert res.exit_code == 2 and "--resume" in res.output
    assert path.read_bytes() == before


def test_two_bound_processes_cannot_write_one_certificate(tmp_path):
    from evo.core.files import exclusive, lock_beside

    path = tmp_path / "c.json"
    with exclusive(lock_beside(path), what=str(path)):  # as another process holds it
        code = "import sys; from evo.cli import main; sys.argv = ['evo'] + sys.argv[1:]; main()"
        out = subprocess.run(
            [sys.executable, "-c", code, "bound", "-n", "3", "-c", "4", "--certificate", str(path)],
            capture_output=True,
            text=True,
            env={**os.environ},
        )
    assert out.returncode == 2, out.stderr
    assert "being written by process" in out.stderr
    assert not path.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0"])
def test_seconds_must_be_finite(value):
    res = _run("bound", "-n", "3", "-c", "3", "--seconds", value)
    assert res.exit_code == 2 and "--seconds" in res.output


def _signalled_bound(path: Path, sig: int) -> tuple[int, str]:
    """``evo bound`` of (5,7) at depth 2 on 2 workers, sent ``sig`` a second after its
    certificate first appears: its exit status and its stderr (read to the end, so once
    the resource tracker, which holds it too, is done)."""
    code = "import sys; from evo.cli import main; sys.argv = ['evo'] + sys.argv[1:]; main()"
    args = ["bound", "-n", "5", "-c", "7", "--depth", "2", "--workers", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args, "--certificate", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_bound_says_what_it_proved_and_how_to_go_on(tmp_path, sig):
    path = tmp_path / "c.json"
    status, err = _signalled_bound(path, sig)
    assert status == 128 + sig, err
    assert "is proved (a lower bound), kept in" in err and "--resume" in err
    assert "leaked" not in err and "Traceback" not in err
    data = json.loads(path.read_text())
    assert certificate_sealed(data)
    check_certificate(data, prove=False)


@pytest.mark.slow
def test_a_killed_bound_leaves_no_leaked_semaphore_warning(tmp_path):
    """kill -9 on a bound with 2 workers: the resource tracker cleans up, quietly (issue 50:
    "SIGTERM and SIGKILL print 'leaked semaphore' warnings"); the sealed certificate stays."""
    path = tmp_path / "c.json"
    status, err = _signalled_bound(path, signal.SIGKILL)
    assert status == -signal.SIGKILL
    assert "leaked" not in err and "Traceback" not in err, err
    check_certificate(json.loads(path.read_text()), prove=False)


_EDITS = st.sampled_from(["int", "string", "drop", "duplicate", "swap", "type"])


def _edit(data: dict, draw) -> None:
    """One random edit of one random field of a certificate, anywhere in it."""
    places: list[tuple[object, object]] = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                places.append((node, k))
                walk(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                places.append((node, i))
                walk(v)

    walk(data)
    holder, key = draw(st.sampled_from(places))
    value = holder[key]  # type: ignore[index]
    kind = draw(_EDITS)
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        holder[key] = value + draw(st.integers(-50, 500).filter(bool))  # type: ignore[index]
    elif kind == "string" and isinstance(value, str) and value:
        holder[key] = draw(  # type: ignore[index]
            st.sampled_from(
                [value.replace(" ", ""), value.lower(), value[:-1], value + "1", "1B 1W", "1123"]
            )
        )
    elif kind == "drop" and isinstance(holder, dict):
        del holder[key]
    elif kind == "duplicate" and isinstance(holder, list):
        holder.append(json.loads(json.dumps(value)))
    elif kind == "swap" and isinstance(holder, list) and len(holder) > 1:
        holder[0], holder[-1] = holder[-1], holder[0]
    elif kind == "type":
        holder[key] = draw(st.sampled_from([None, True, 1.5, "x", [], {}, -1]))  # type: ignore[index]


@pytest.fixture(scope="module")
def small_certificate(tmp_path_factory):
    os.environ.setdefault("EVO_CACHE", str(tmp_path_factory.mktemp("cache")))
    return lower_bound(make_game(3, 4), depth=1).to_json()


@pytest.fixture(scope="module")
def budget_certificate(tmp_path_factory):
    """A (3,4) certificate of the gap-directed bound: parts exact, by the perfect split
    and by the exact search's budget, with uppers and a gap."""
    import evo
    from evo.proofs.bound import lookahead_uppers, tree_uppers

    os.environ.setdefault("EVO_CACHE", str(tmp_path_factory.mktemp("cache")))
    game = make_game(3, 4)
    up = tree_uppers(evo.baseline(game, "knuth")).merged(lookahead_uppers(game))
    data = lower_bound(game, seconds=30, uppers=up).to_json()
    assert "budget" in {p["depth"] for c in data["classes"] for p in c["parts"]}
    return data


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_edit_of_a_certificate_is_refused_or_proves_no_more(small_certificate, data):
    _edited_proves_no_more(small_certificate, data)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_edit_of_a_budget_certificate_is_refused_or_proves_no_more(budget_certificate, data):
    _edited_proves_no_more(budget_certificate, data)


def _edited_proves_no_more(certificate: dict, data) -> None:
    """One to three random edits of a (3,4) certificate, its sums kept consistent or
    not: --check refuses it or proves at most the optimum, and so does going on from it."""
    edited = json.loads(json.dumps(certificate))
    for _ in range(data.draw(st.integers(1, 3))):
        _edit(edited, data.draw)
    if data.draw(st.booleans()):
        try:
            consistent_totals(edited)  # a forger keeps the sums consistent
        except (KeyError, TypeError, ValueError):
            pass
    proves_no_more(make_game(3, 4), edited, OPTIMUM_3_4)


# ---------------------------------------------------------------- floors
def _floors_forged(tmp_path: Path, *, how: str) -> tuple[Path, Path]:
    """A (4,5) certificate whose optimal first guess's class is raised far above the
    optimum (totals kept consistent; ``how``: seal left as written, dropped or forged),
    and a worse breaker's file to search against."""
    from evo.core.treeio import save_tree
    from evo.search.build import build_tree

    game = make_game(4, 5)
    data = _certificate(tmp_path)
    root = game.format_code(int(optimal(game, time_limit=None).guess[0]))
    (cls,) = [c for c in data["classes"] if c["guess"] == root]
    max(cls["parts"], key=lambda p: p["size"])["bound"] += 1000
    consistent_totals(data)
    if how == "dropped":
        data.pop("seal")
    elif how == "forged":
        data["seal"] = seal({"forged": 1})
    path = tmp_path / "floors.json"
    path.write_text(json.dumps(data))
    worse = build_tree(game, lambda s, node: int(s[0]))
    assert worse.total > OPTIMUM_4_5
    return path, save_tree(worse, tmp_path / "worse.json")


@pytest.mark.parametrize("how", ["as written", "dropped", "forged"])
def test_raised_floors_are_refused_and_state_no_optimum(tmp_path, monkeypatch, how):
    """``--floors`` with a certificate whose optimal class is raised: taken on trust,
    the search would drop that class and state a worse tree as the optimum; its seal
    does not hold, so it is proved again and refused in one line."""
    import evo.proofs.floors as floors

    path, worse = _floors_forged(tmp_path, how=how)
    args = ["baselines", "-n", "4", "-c", "5", "--only", "optimal", "--no-cache", "--json"]
    args += ["--against", str(worse), "--floors", str(path)]
    with monkeypatch.context() as m:  # what trusting the file would state
        m.setattr(floors, "certificate_sealed", lambda data: True)
        res = _run(*args)
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)[0]["total"] > OPTIMUM_4_5
    res = _run(*args)
    assert res.exit_code == 2 and "--floors" in res.output and "proved" in res.output, res.output
    assert "total" not in res.output and "Traceback" not in res.output


def test_floors_of_another_machine_are_proved_again_then_prune(tmp_path, monkeypatch):
    """An honest certificate sealed elsewhere: proved again, then the optimum, 2,463."""
    import evo.proofs.floors as floors

    path = tmp_path / "c.json"
    write_certificate(lower_bound(make_game(4, 5), depth=2), path)
    monkeypatch.setenv("EVO_CACHE", str(tmp_path / "other-machine"))
    proved: list[bool] = []
    checked = floors.check_certificate

    def spy(data, **k):
        proved.append(True)
        return checked(data, **k)

    monkeypatch.setattr(floors, "check_certificate", spy)
    tree = optimal(make_game(4, 5), time_limit=None, where=Where(floors=path))
    assert proved and tree.total == OPTIMUM_4_5


# ---------------------------------------------------------------- results files
def _worse(game, codes: np.ndarray) -> tuple[list[int], int]:
    """A valid subtree of ``codes`` in the results file's order (its guesses in preorder,
    parts smallest first, ties by feedback, sets of one or two codes left out) and its
    total: the lowest code guessed at every set (played literally, not searched)."""
    n = len(codes)
    if n <= 2:
        return [], 2 * n - 1
    g = int(codes.min())
    fb = game.feedback_row(g, codes)
    parts = sorted((int((fb == f).sum()), f) for f in set(fb.tolist()) if f != game.win)
    guesses, total = [g], n
    for _, f in parts:
        below, cost = _worse(game, codes[fb == f])
        guesses += below
        total += cost
    return guesses, total


def _proof(tmp_path: Path, monkeypatch) -> tuple[Path, dict[str, np.ndarray]]:
    """A results file of (4,5)'s optimum, and the codes of each line's set."""
    seen: dict[str, np.ndarray] = {}
    add = spread.Results.add

    def spy(self, codes, outcome):
        seen[spread.set_key(codes)] = np.array(codes)
        add(self, codes, outcome)

    monkeypatch.setattr(spread.Results, "add", spy)
    path = tmp_path / "r.jsonl"
    tree = optimal(make_game(4, 5), time_limit=None, where=Where(results=path))
    assert tree.total == OPTIMUM_4_5
    monkeypatch.setattr(spread.Results, "add", add)
    return path, seen


def _lines(path: Path) -> tuple[str, list[dict]]:
    head, *rest = path.read_text().splitlines()
    return head, [json.loads(line) for line in rest]


def _write(path: Path, head: str, recs: list[dict]) -> None:
    path.write_text("\n".join([head, *(json.dumps(r) for r in recs)]) + "\n")


def test_worse_valid_subtrees_in_a_results_file_change_nothing(tmp_path, monkeypatch):
    path, seen = _proof(tmp_path, monkeypatch)
    head, recs = _lines(path)
    raised = 0
    for rec in recs:
        if rec["exact"]:
            guesses, cost = _worse(make_game(4, 5), seen[rec["set"]])
            raised += cost > rec["cost"]
            rec.update(guesses=guesses, cost=cost)
    assert raised > 0  # the forgery would raise the optimum
    _write(path, head, recs)
    notes: list[str] = []
    tree = optimal(make_game(4, 5), time_limit=None, where=Where(results=path, note=notes.append))
    assert tree.total == OPTIMUM_4_5
    assert notes and "not used" in notes[0]


@pytest.mark.parametrize(
    "field", ["set", "n", "cost", "exact", "guesses", "nodes", "seconds", "seal"]
)
def test_each_field_of_a_results_file_tampered_gives_the_same_optimum(tmp_path, monkeypatch, field):
    path, _ = _proof(tmp_path, monkeypatch)
    head, recs = _lines(path)
    for rec in recs:
        if field == "set":
            rec["set"] = recs[0]["set"] if rec is not recs[0] else recs[-1]["set"]
        elif field in ("n", "nodes"):
            rec[field] += 7
        elif field == "cost":
            rec["cost"] += 100
        elif field == "exact":
            rec["exact"] = not rec["exact"]
            rec["guesses"] = None if not rec["exact"] else [0, 1, 2]
        elif field == "guesses" and rec["exact"]:
            rec["guesses"] = rec["guesses"][::-1]
        elif field == "seconds":
            rec["seconds"] = 0.0
        elif field == "seal":
            rec["seal"] = seal({"forged": rec["set"]})
    _write(path, head, recs)
    tree = optimal(make_game(4, 5), time_limit=None, where=Where(results=path))
    assert tree.total == OPTIMUM_4_5


def test_a_results_file_of_another_machine_is_searched_again(tmp_path, monkeypatch):
    path, _ = _proof(tmp_path, monkeypatch)
    _, recs = _lines(path)
    monkeypatch.setenv("EVO_CACHE", str(tmp_path / "other-machine"))
    results = spread.Results(
        path, {"game": ["mastermind", 4, 5], "pool": "all", "policy": "symmetry"}
    )
    try:
        assert results.unsealed == len(recs) > 0 and len(results) == 0
    finally:
        results.close()


_LINE = '{"set": "%%s", "n": 5, "cost": %s, "exact": %s, "guesses": %s, "nodes": 1, "seconds": 0}'


@pytest.mark.parametrize(
    "line",
    [
        _LINE % ("1e999", "false", "null"),
        _LINE % ("9", "true", "[1180591620717411303424]"),
        _LINE % ("true", "true", "[1]"),
        "[1, 2]",
    ],
    ids=["infinite cost", "huge guess", "boolean cost", "not an object"],
)
def test_a_malformed_results_line_is_one_line(tmp_path, line):
    path = tmp_path / "r.jsonl"
    what = {"game": ["mastermind", 4, 5], "pool": "all", "policy": "symmetry"}
    spread.Results(path, what).close()
    with open(path, "a") as f:
        f.write((line % ("0" * 32) if "%s" in line else line) + "\n")
    res = _run(
        "baselines", "-n", "4", "-c", "5", "--only", "optimal", "--no-cache", "--resume", str(path)
    )
    assert res.exit_code == 2, res.output
    assert "line 2: not a result" in res.output and "Traceback" not in res.output


def test_two_searches_cannot_extend_one_results_file(tmp_path):
    path = tmp_path / "r.jsonl"
    what = {"game": ["mastermind", 4, 5]}
    first = spread.Results(path, what)
    try:
        res = _run(
            "baselines",
            "-n",
            "4",
            "-c",
            "5",
            "--only",
            "optimal",
            "--no-cache",
            "--resume",
            str(path),
        )
        assert res.exit_code == 2 and "being written by process" in res.output, res.output
    finally:
        first.close()
    spread.Results(path, what).close()  # free again


def test_an_edited_cached_optimum_is_recomputed(tmp_path):
    from evo.baselines import cache

    res = _run("baselines", "-n", "3", "-c", "4", "--only", "optimal")
    assert res.exit_code == 0
    game = make_game(3, 4)
    path = Path(os.environ["EVO_CACHE"]) / game.name / "optimal.json"
    doc = json.loads(path.read_text())
    assert cache.HASH_KEY in doc
    doc["result"]["seconds"] = 123.0
    import hashlib

    body = {k: v for k, v in doc.items() if k != cache.HASH_KEY}
    doc[cache.HASH_KEY] = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    path.write_text(json.dumps(doc))  # a digest anyone can compute: not a seal
    assert cache.load(game, "optimal", name="optimal") is None


@pytest.fixture(scope="module")
def proof_lines(tmp_path_factory):
    """A results file of (4,5)'s optimum, written under a key kept for the module."""
    cache = tmp_path_factory.mktemp("key")
    folder = tmp_path_factory.mktemp("proof")
    old = os.environ.get("EVO_CACHE")
    os.environ["EVO_CACHE"] = str(cache)
    try:
        path = folder / "r.jsonl"
        optimal(make_game(4, 5), time_limit=None, where=Where(results=path))
    finally:
        if old is None:
            del os.environ["EVO_CACHE"]
        else:
            os.environ["EVO_CACHE"] = old
    return cache, path.read_text().splitlines()


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_edit_of_a_results_file_is_refused_or_gives_the_optimum(
    proof_lines, tmp_path, monkeypatch, data
):
    cache, lines = proof_lines
    monkeypatch.setenv("EVO_CACHE", str(cache))  # the key that sealed the lines
    head, recs = lines[0], [json.loads(line) for line in lines[1:]]
    for _ in range(data.draw(st.integers(1, 4))):
        rec = data.draw(st.sampled_from(recs))
        key = data.draw(st.sampled_from(sorted(rec)))
        rec[key] = data.draw(
            st.one_of(
                st.integers(-5, 10**6),
                st.sampled_from([None, True, False, "x", [], [0, 1, 2], 1.5, 1e300]),
                st.just(rec[key]),
                st.builds(lambda v: v[::-1] if isinstance(v, list | str) else v, st.just(rec[key])),
            )
        )
    path = tmp_path / f"r{data.draw(st.integers(0, 10**9))}.jsonl"
    path.write_text("\n".join([head, *(json.dumps(r) for r in recs)]) + "\n")
    try:
        tree = optimal(make_game(4, 5), time_limit=None, where=Where(results=path))
    except spread.ResultsError:
        return
    assert tree.total == OPTIMUM_4_5
