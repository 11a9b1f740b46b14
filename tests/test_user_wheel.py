"""Issue 66 from the wheel: the shipped breakers are inside it (not the .json.gz of the
biggest games, which keeps it small) and a player names them from an empty folder."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from support.wheel import build_wheel

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory) -> tuple[Path, Path]:
    """The wheel built from this checkout, and a fresh venv with it installed (evo's
    dependencies are this environment's), as tests/test_package.py makes them."""
    where = tmp_path_factory.mktemp("wheel")
    built = build_wheel(where / "wheels")
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (where / "wheels").glob("evo_breakers-*.whl")
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (purelib / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install",
         "--quiet", "--no-deps", "--no-index", wheel],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return wheel, venv


@pytest.mark.heavy
def test_the_wheel_holds_the_breakers_but_the_biggest(wheel_venv):
    wheel, _ = wheel_venv
    names = {Path(n).name for n in zipfile.ZipFile(wheel).namelist() if "/data/breakers/" in n}
    trees = {p.name for p in (ROOT / "breakers").glob("*.json")} - {"bounds.json"}
    assert names == trees | {"README.md"}
    assert wheel.stat().st_size < 2_000_000  # 1.2 MB: 0.7 of it the breakers


@pytest.mark.heavy
def test_a_player_names_the_breakers_from_an_empty_folder(wheel_venv, tmp_path):
    _, venv = wheel_venv
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def evo(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([venv / "bin" / "evo", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip

    listing = evo("breakers")
    assert listing.returncode == 0, listing.stderr
    assert "wordle " in listing.stdout and "mastermind-6-8 *" in listing.stdout
    for tree in ("wordle", "breakers/wordle.json"):
        res = evo("play", tree, "--secret", "sissy")
        assert res.returncode == 0, res.stderr
        assert res.stdout.rstrip().endswith("Solved in 3 guesses: SISSY")
    res = evo("table", "mastermind-5-8", "--min-count", "5000")
    assert res.returncode == 0 and " 178560 " in res.stdout, res.stderr
    res = evo("play", "mastermind-6-8.json.gz", "--secret", "112233")
    assert res.returncode == 2 and "github.com/evo-breakers/evo/tree/main/breakers" in res.stderr
    assert not list(tmp_path.iterdir())
