"""No key, cache or memo file makes evo state a false optimum (issue 63, items 2, 9, 10
and 11): a seal key that is not exactly 64 hex digits is never used (set aside and made
again, said in one line, or refused in one line), a broken memo beside a certificate is
set aside rather than blocking ``--resume``, and a cached optimum that contradicts the
proven one is not shown. The optimum of (4,5), 2,463, is published (Goddard)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.forgery import consistent_totals

from evo.baselines import cache
from evo.baselines.known import KNOWN_OPTIMA
from evo.cli import main
from evo.core import seal as seal_module
from evo.core.files import cache_dir
from evo.core.game import make_game
from evo.core.seal import canonical, is_sealed, key_path, machine_key, seal
from evo.proofs.bound import SEAL_KEY, certificate_sealed
from evo.proofs.memo_file import memo_path

OPTIMUM_4_5 = 2463

#: Key files that are not 64 hex digits: empty, one byte, short, long, not hex, and 64
#: characters that ``bytes.fromhex`` would read as 31 bytes.
BAD_KEYS = {
    "empty": b"",
    "one byte": b"00\n",
    "short": b"ab" * 31 + b"\n",
    "long": b"ab" * 33 + b"\n",
    "not hex": b"zz" * 32 + b"\n",
    "spaced": b"ab" * 31 + b"  \n",
}


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


def _new_process() -> None:
    """Forget the key read, as a new process would."""
    seal_module._key.cache_clear()


def _aside(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f"{name}.bad-*"))


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("evo: ")]


# ---------------------------------------------------------------- item 2: the key's size
@pytest.mark.parametrize("what", sorted(BAD_KEYS))
def test_a_key_file_not_of_64_hex_digits_is_set_aside_and_made_again(what, capsys):
    path = key_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(BAD_KEYS[what])
    _new_process()
    key = machine_key()
    assert len(key) == 32 and key.hex() == path.read_text().strip()
    (aside,) = _aside(path.parent, path.name)
    assert aside.read_bytes() == BAD_KEYS[what]  # kept, not lost
    notes = _notes(capsys.readouterr().err)
    assert len(notes) == 1 and str(path) in notes[0] and aside.name in notes[0], notes
    _new_process()  # the next process reads the new key back, says nothing
    assert machine_key() == key and not _notes(capsys.readouterr().err)


def _forged_under_an_empty_key(
    tmp_path: Path, *, by: int = 10, guess: str | None = None
) -> tuple[Path, dict]:
    """The issue's forgery: with an empty key file, a (4,5) certificate of depth 1 whose
    parts (of the class of first guess ``guess``; None: of every class) are raised by
    ``by`` and marked exact, sealed with the empty key."""
    key_path().parent.mkdir(parents=True, exist_ok=True)
    key_path().write_bytes(b"")
    _new_process()
    cert = tmp_path / "k.json"
    res = _run("bound", "-n", "4", "-c", "5", "--depth", "1", "--workers", "1",
               "--certificate", str(cert))  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(cert.read_text())
    for c in data["classes"]:
        for p in c["parts"] if guess in (None, c["guess"]) else []:
            p["bound"] += by
            p["depth"] = "exact"
    consistent_totals(data)
    body = {k: v for k, v in data.items() if k != SEAL_KEY}
    data[SEAL_KEY] = hmac.new(b"", canonical(body), hashlib.sha256).hexdigest()
    cert.write_text(json.dumps(data))
    return cert, data


def test_a_certificate_forged_under_an_empty_key_states_no_optimum(tmp_path):
    """Gone on from as proved, it stated "2,573 is the optimum". The empty file is never
    the key, so the forgery is proved again and refused."""
    cert, data = _forged_under_an_empty_key(tmp_path)
    assert not certificate_sealed(data)
    res = _run("bound", "-n", "4", "-c", "5", "--workers", "1", "--certificate", str(cert),
               "--resume")  # fmt: skip
    assert f"{data['lower_bound']:,}" not in res.output
    assert res.exit_code == 2 and "proved again" in res.output, res.output
    assert "Traceback" not in res.output


def test_floors_forged_under_an_empty_key_state_no_optimum(tmp_path):
    """As ``--floors``, the optimal first guess's class raised made the optimum 2,486
    (cached, and shown above "best-known optimum: 2463"); proved again now, it is refused
    in one line."""
    cert, data = _forged_under_an_empty_key(tmp_path, by=30, guess="1123")
    res = _run("baselines", "-n", "4", "-c", "5", "--only", "optimal", "--json",
               "--floors", str(cert), "--upper", "2600")  # fmt: skip
    assert res.exit_code == 2 and "--floors" in res.output, res.output
    assert "total" not in res.output and "Traceback" not in res.output
    game = make_game(4, 5, cache=cache_dir())
    assert cache.cached(game, "optimal") is None


def test_a_key_that_cannot_be_kept_is_said(monkeypatch, capsys):
    """A cache where no key can be written: this process's own key, said in one line."""

    def refuse(src, dst, *a, **k):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(seal_module.os, "link", refuse)
    _new_process()
    assert len(machine_key()) == 32 and not key_path().exists()
    notes = _notes(capsys.readouterr().err)
    assert len(notes) == 1 and str(key_path().parent) in notes[0], notes


# ---------------------------------------------------------------- item 9: one key for all
@pytest.mark.parametrize("what", ["a folder", "not hex"])
def test_a_folder_or_text_as_key_is_set_aside_and_one_key_is_kept(what, tmp_path, capsys):
    """Each process used a key of its own, silently: the user's own certificate was then
    "not written on this machine". Now the file is set aside once, said, and one key made
    that every process reads."""
    path = key_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if what == "a folder":
        path.mkdir()
    else:
        path.write_text("this is not a key\n")
    _new_process()
    mark = seal({"a": 1})
    notes = _notes(capsys.readouterr().err)
    assert len(notes) == 1 and str(path) in notes[0] and what in notes[0], notes
    assert len(_aside(path.parent, path.name)) == 1
    _new_process()  # another process: the same key
    assert is_sealed({"a": 1}, mark)


def test_the_own_certificate_of_a_folder_key_goes_on(tmp_path):
    key_path().mkdir(parents=True)
    _new_process()
    cert = tmp_path / "k.json"
    args = ["bound", "-n", "4", "-c", "5", "--depth", "1", "--workers", "1"]
    res = _run(*args, "--certificate", str(cert))
    assert res.exit_code == 0 and "set aside" in res.stderr, res.output
    _new_process()
    assert certificate_sealed(json.loads(cert.read_text()))
    res = _run(*args, "--certificate", str(cert), "--resume")
    assert res.exit_code == 0 and "not written on this machine" not in res.output, res.output


def test_a_bad_key_that_cannot_be_set_aside_is_refused_in_one_line(tmp_path, monkeypatch):
    path = key_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"00\n")
    _new_process()

    def refuse(src, dst, *a, **k):
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(seal_module.os, "rename", refuse)
    res = _run("bound", "-n", "3", "-c", "3", "--depth", "1", "--workers", "1",
               "--certificate", str(tmp_path / "k.json"))  # fmt: skip
    assert res.exit_code == 2, res.output
    errors = [x for x in res.stderr.splitlines() if x.startswith("Error")]
    assert len(errors) == 1 and str(path) in errors[0], res.stderr
    assert "Traceback" not in res.output and path.read_bytes() == b"00\n"


# ---------------------------------------------------------------- item 10: the memo
def _certificate_with_memo(tmp_path):
    """A (4,5) bound's certificate and its memo file, and the command's arguments."""
    cert = tmp_path / "k.json"
    args = ["bound", "-n", "4", "-c", "5", "--depth", "1", "--workers", "1"]
    res = _run(*args, "--certificate", str(cert))
    assert res.exit_code == 0, res.output
    return cert, memo_path(cert), args


@pytest.mark.parametrize("how", ["empty", "cut", "not JSON"])
def test_a_broken_memo_is_set_aside_and_the_certificate_goes_on(tmp_path, how):
    cert, memo, args = _certificate_with_memo(tmp_path)
    text = memo.read_text()
    memo.write_text({"empty": "", "cut": text[: len(text) // 2], "not JSON": "garbage\n"}[how])
    broken = memo.read_bytes()
    res = _run(*args, "--certificate", str(cert), "--resume")
    assert res.exit_code == 0, res.output
    (aside,) = _aside(tmp_path, memo.name)
    assert aside.read_bytes() == broken
    said = [x for x in res.stderr.splitlines() if str(memo) in x]
    assert len(said) == 1 and "set aside" in said[0] and aside.name in said[0], res.stderr
    assert "Traceback" not in res.output


def test_a_broken_memo_that_cannot_be_set_aside_is_refused_in_one_line(tmp_path, monkeypatch):
    cert, memo, args = _certificate_with_memo(tmp_path)
    memo.write_text("")

    def refuse(src, dst, *a, **k):
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(seal_module.os, "rename", refuse)
    res = _run(*args, "--certificate", str(cert), "--resume")
    assert res.exit_code == 2, res.output
    errors = [x for x in res.stderr.splitlines() if x.startswith("Error")]
    assert len(errors) == 1 and str(memo) in errors[0] and "set aside" in errors[0], res.stderr
    assert "Traceback" not in res.output and memo.read_text() == ""


# ---------------------------------------------------------------- item 11: the cache
def _cache_as_optimal(game, tree) -> Path:
    """``tree`` written in the cache as the game's optimum, sealed on this machine."""
    from evo.baselines.runner import run

    found = run(game, "knuth", rc_seeds=0)
    result = {**found.result, **tree.summary(), "name": "optimal", "cached": False}
    path = cache.store(game, "optimal", tree, result, name="optimal")
    assert path is not None and path.is_file()
    return path


def test_a_cached_optimum_above_the_proven_one_is_not_shown(tmp_path):
    from evo.search.build import build_tree

    game = make_game(3, 4, cache=cache_dir())
    worse = build_tree(game, lambda s, node: int(s[0]))
    known = KNOWN_OPTIMA[game.key]
    assert worse.total > known
    path = _cache_as_optimal(game, worse)
    res = _run("baselines", "-n", "3", "-c", "4", "--only", "optimal")
    assert res.exit_code == 0, res.output
    rows = [x.split() for x in res.stdout.splitlines() if x.startswith("optimal")]
    assert rows and rows[0][1] == str(known), res.stdout
    said = [x for x in res.stderr.splitlines() if str(path) in x]
    assert len(said) == 1, res.stderr
    assert f"{worse.total:,}" in said[0] and f"{known:,}" in said[0] and "set aside" in said[0]
    assert len(_aside(path.parent, path.name)) == 1
    assert cache.cached(game, "optimal").result["total"] == known  # computed again, kept


def test_a_cached_optimum_below_the_proven_one_is_not_taken(monkeypatch, capsys):
    from evo.baselines.runner import run

    game = make_game(3, 4, cache=cache_dir())
    tree = run(game, "optimal", time_limit=None).tree
    path = cache.cache_path(game, "optimal")
    assert path is not None and path.is_file()
    capsys.readouterr()
    monkeypatch.setitem(KNOWN_OPTIMA, game.key, tree.total + 5)  # a record it contradicts
    assert cache.cached(game, "optimal") is None
    said = _notes(capsys.readouterr().err)
    assert len(said) == 1 and str(path) in said[0] and f"{tree.total + 5:,}" in said[0]
    assert not path.exists() and len(_aside(path.parent, path.name)) == 1


def test_a_cached_optimum_that_agrees_is_shown_from_the_cache(capsys):
    from evo.baselines.runner import run

    game = make_game(3, 4, cache=cache_dir())
    run(game, "optimal", time_limit=None)
    capsys.readouterr()
    hit = cache.cached(game, "optimal")
    assert hit is not None and hit.result["total"] == KNOWN_OPTIMA[game.key]
    assert not capsys.readouterr().err


def test_the_key_file_is_the_owners_alone(tmp_path):
    machine_key()
    assert oct(os.stat(key_path()).st_mode & 0o777) == "0o600"
