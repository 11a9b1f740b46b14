"""evo as a package people install: the distribution lists every package of evo, carries
the configs, and a wheel built from the checkout runs from an empty folder in a fresh
virtual environment, with no trace of the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import evo

ROOT = Path(__file__).resolve().parent.parent
tomllib = pytest.importorskip("tomllib")  # Python 3.11 on


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_distribution_lists_every_package_of_evo():
    """The packages are listed by hand (evo.configs is the checkout's configs/ folder):
    a new subpackage left out would be missing from the wheel."""
    listed = set(_project()["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.relative_to(ROOT).parts[:-1])
        for p in (ROOT / "evo").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    data = {"evo.show.explore_assets"}  # a folder of the explorer's script and style
    assert listed == found | {"evo.configs"} | data
    assert _project()["tool"]["setuptools"]["package-dir"]["evo.configs"] == "configs"


def test_the_name_version_and_license_are_in_one_place_each():
    project = _project()["project"]
    assert project["name"] == "evo-breakers" and "version" in project["dynamic"]
    assert _project()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "evo.__version__"}
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert f"## {evo.__version__}" in (ROOT / "CHANGELOG.md").read_text()


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel built from this checkout installed in
    it (evo's dependencies are this environment's: only evo is installed anew)."""
    where = tmp_path_factory.mktemp("package")
    wheels = where / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(ROOT), "-w", wheels],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheels.glob("evo_breakers-*.whl")
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    bin_dir = venv / "bin"
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    ours = sysconfig.get_path("purelib")
    (purelib / "dependencies.pth").write_text(ours + "\n")  # numpy, numba, deap... of this venv
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "--quiet"]
        + ["--no-deps", "--no-index", wheel],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return venv


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return env


@pytest.mark.slow
def test_the_wheel_runs_a_shipped_config_from_an_empty_folder(installed, tmp_path):
    """``pip install`` of the wheel, then ``evo run quick --set stop.seconds=5`` from an
    empty folder: the config comes from the package, the code from the venv."""
    folder = tmp_path / "empty"
    folder.mkdir()
    python = installed / "bin" / "python"
    where = subprocess.run(
        [python, "-c", "import evo, evo.configs; print(evo.__file__, evo.__version__)"],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert where.returncode == 0, where.stderr
    path, version = where.stdout.split()
    assert str(installed) in path and str(ROOT) not in path and version == evo.__version__
    run = subprocess.run(
        [installed / "bin" / "evo", "run", "quick", "--set", "stop.seconds=5", "--no-report"],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "best total" in run.stdout
    (run_dir,) = (folder / "runs").iterdir()
    assert run_dir.name.startswith("quick-") and (run_dir / "best.json").is_file()
    listed = subprocess.run(
        [installed / "bin" / "evo", "config", "list"], cwd=folder, env=_env(), capture_output=True,
        text=True,
    )  # fmt: skip
    assert "mastermind-4-7" in listed.stdout and str(installed) in listed.stdout
