"""evo as a package people install: the distribution lists every package of evo, carries
the configs, describes itself on the package index with absolute links and ``pip
install`` usage, and a wheel built from the checkout runs from an empty folder in a fresh
virtual environment, with no trace of the checkout, as its description says."""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from support.wheel import build_wheel

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
    data = {
        "evo.show.explore_assets",
        "evo.data.wordle",
        "evo.data.breakers",  # the checkout's breakers/ (issue 66)
    }  # a folder of the explorer's script and style
    assert listed == found | {"evo.configs"} | data
    assert _project()["tool"]["setuptools"]["package-dir"]["evo.configs"] == "configs"


def test_the_name_version_and_license_are_in_one_place_each():
    project = _project()["project"]
    assert project["name"] == "evo-breakers" and "version" in project["dynamic"]
    assert _project()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "evo.__version__"}
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert f"## {evo.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def _description() -> tuple[str, str]:
    """The distribution's description (its file's text) and its content type, as
    pyproject.toml gives them (the metadata of the wheel is checked against it below)."""
    readme = _project()["project"]["readme"]
    if isinstance(readme, str):  # a file name alone: its type by its suffix
        readme = {"file": readme, "content-type": "text/markdown" * readme.endswith(".md")}
    return (ROOT / readme["file"]).read_text(encoding="utf-8"), readme["content-type"]


#: Where the project lives: the repository's URL, as [project.urls] gives it.
def _repository() -> str:
    return _project()["project"]["urls"]["Repository"]


def _checked_url(url: str) -> None:
    """A URL into the repository names a file or folder of the checkout."""
    base = _repository()
    if url.startswith(base + "/blob/main/"):
        path = url.removeprefix(base + "/blob/main/").split("#")[0]
        assert (ROOT / path).exists(), url


def test_the_package_index_page_says_what_evo_is_with_absolute_links():
    """The distribution's description is written for the package index (issue 51:
    it was the README, with relative image links, `make` commands and no project URLs):
    Markdown, `pip install evo-breakers`, no relative link (each link into the repository
    names a file of it), no `make` command, the commands of evo it shows exist, and the
    project's URLs are set."""
    from evo.cli import COMMANDS
    from evo.config import shipped_configs

    text, content_type = _description()
    assert content_type == "text/markdown"
    assert "pip install evo-breakers" in text and "import evo" in text
    links = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)", text) + re.findall(r'src="([^"]+)"', text)
    assert links
    relative = [u for u in links if not u.startswith("https://")]
    assert not relative, f"relative links do not work on the package index: {relative}"
    for url in links:
        _checked_url(url)
    shell = re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)
    lines = [ln.split("  #")[0].strip() for block in shell for ln in block.splitlines()]
    assert not [ln for ln in lines if ln.startswith("make")]
    for line in [ln for ln in lines if ln.startswith("evo ")]:
        assert line.split()[1] in COMMANDS, line
        named = re.match(r"evo (run|config show) (\S+)", line)
        assert named is None or named[2] in shipped_configs(), line
    urls = _project()["project"]["urls"]
    assert {"Homepage", "Documentation", "Repository", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith(_repository()) for u in urls.values())
    for url in urls.values():
        _checked_url(url)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel built from this checkout installed in
    it (evo's dependencies are this environment's: only evo is installed anew)."""
    where = tmp_path_factory.mktemp("package")
    wheels = where / "wheels"
    built = build_wheel(wheels)
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


@pytest.mark.heavy
@pytest.mark.xdist_group("wheel")  # one wheel built in the checkout, one venv
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


@pytest.mark.heavy
@pytest.mark.xdist_group("wheel")  # one wheel built in the checkout, one venv
def test_the_package_index_page_works_as_written_from_the_wheel(installed, tmp_path):
    """The wheel's metadata carries the description and the project's URLs; the
    description's commands and its Python, run from an empty folder with only the wheel
    installed (no configs/ folder, no checkout), succeed, and the Python prints Knuth's
    total and the optimum."""
    from test_readme import python_blocks, shell_blocks

    text, content_type = _description()
    (metadata,) = installed.glob("lib/python*/site-packages/evo_breakers-*.dist-info/METADATA")
    meta = email.parser.Parser().parsestr(metadata.read_text(encoding="utf-8"))
    assert meta["Description-Content-Type"] == content_type
    assert meta.get_payload().strip() == text.strip()
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls == _project()["project"]["urls"]
    folder = tmp_path / "empty"
    folder.mkdir()
    env = {**_env(), "PATH": f"{installed / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    for block in shell_blocks(text):
        lines = [ln for ln in block if not ln.startswith("pip ")]  # the wheel is installed
        script = "set -euo pipefail\n" + "\n".join(lines)
        res = subprocess.run(
            ["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True,
            timeout=900,
        )  # fmt: skip
        assert res.returncode == 0, f"{res.stderr[-3000:]}\n{res.stdout[-2000:]}"
    assert (folder / "explore.html").is_file() and (folder / "mine.yaml").is_file()
    assert [p.name.split("-")[0] for p in (folder / "runs").iterdir()] == ["quick"]
    (block,) = python_blocks(text)
    res = subprocess.run(
        [installed / "bin" / "python", "-c", block], cwd=folder, env=env,
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.splitlines()[0] == "5801 5625"
    assert (folder / "best.json").is_file()
