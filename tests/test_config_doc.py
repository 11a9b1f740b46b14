"""docs/CONFIG.md is generated from the config models and kept up to date; ``evo config
show`` prints a config with every default filled in."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Literal

import yaml
from click.testing import CliRunner
from pydantic import BaseModel, ConfigDict, Field

from evo.cli import main
from evo.config import Config, load_config
from evo.show.config_doc import config_reference, sections

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "CONFIG.md"


def test_config_md_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == config_reference(), (
        "docs/CONFIG.md is out of date: run `python scripts/config_doc.py`"
    )


def all_keys(data, prefix=""):
    """Every key path of a config as plain data (list items as ``[]``)."""
    for key, value in data.items():
        path = f"{prefix}{key}"
        yield path
        if isinstance(value, dict) and value:
            yield from all_keys(value, f"{path}.")
        if isinstance(value, list) and value and isinstance(value[0], dict):
            yield from all_keys(value[0], f"{path}[].")


def test_every_key_of_every_example_config_is_documented_with_a_meaning():
    documented = {k.path: k for _, _, keys in sections() for k in keys}
    for path in sorted(ROOT.glob("configs/*.yaml")):
        data = load_config(path).model_dump(mode="json")
        for key in all_keys(data):
            if key.startswith("islands.overrides[]"):
                continue  # any key of the config itself
            assert key in documented, f"{path.name}: {key}"
    for path, key in documented.items():
        assert key.meaning, f"{path} has no meaning"
        assert key.type and key.default, path


def test_defaults_in_the_reference_are_the_models_defaults():
    documented = {k.path: k for _, _, keys in sections() for k in keys}
    defaults = Config().model_dump(mode="json")
    assert documented["population.size"].default == str(defaults["population"]["size"])
    # A config without ``stop`` stops after 50 generations; a ``stop`` given without
    # ``generations`` has none.
    assert "generations: 50" in documented["stop"].default
    assert documented["stop.generations"].default == "null"
    assert documented["seed"].default == "0"
    assert documented["selection.method"].allowed == (
        "`tournament`, `nsga2`, or a name registered from Python"
    )
    assert documented["workers"].allowed == "≥ 1; ≤ 256"
    assert documented["mutation.operators[].k"].default == "4"


class Inner(BaseModel):
    """An inner model."""

    flag: bool = True


class Toy(BaseModel):
    """A toy model."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    size: int = Field(3, ge=1, le=9, description="how many")
    mode: Literal["a", "b"] = "b"
    """the mode, from its docstring"""
    limit: float | None = Field(None, gt=0)
    inner: Inner = Inner()


def test_a_model_is_documented_from_its_fields():
    (title, doc, keys), (sub_title, sub_doc, sub_keys) = sections(Toy)
    assert doc == "A toy model." and sub_title == "`inner`" and sub_doc == "An inner model."
    by = {k.path: k for k in keys}
    assert (by["size"].type, by["size"].default, by["size"].allowed, by["size"].meaning) == (
        "integer",
        "3",
        "≥ 1; ≤ 9",
        "how many",
    )
    assert (by["mode"].type, by["mode"].allowed, by["mode"].meaning) == (
        "string",
        "`a`, `b`",
        "the mode, from its docstring",
    )
    assert (by["limit"].type, by["limit"].default, by["limit"].allowed) == (
        "number or null",
        "null",
        "> 0",
    )
    assert by["inner"].default == "{flag: true}" and "`inner`" in by["inner"].meaning
    assert [k.path for k in sub_keys] == ["inner.flag"]


def test_check_script(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("config_doc", ROOT / "scripts/config_doc.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setattr(script, "TARGET", tmp_path / "CONFIG.md")
    assert script.main(["--check"]) == 1  # missing
    assert script.main([]) == 0
    assert script.main(["--check"]) == 0
    (tmp_path / "CONFIG.md").write_text("stale\n")
    assert script.main(["--check"]) == 1


def test_config_show_fills_in_the_defaults(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: mine\ngame: {pegs: 3, colors: 3}\nstop: {generations: 4}\n")
    res = CliRunner().invoke(main, ["config", "show", str(path)])
    assert res.exit_code == 0, res.output
    shown = yaml.safe_load(res.output)
    assert shown == load_config(path).model_dump(mode="json")
    assert shown["game"] == {
        "kind": "mastermind",
        "pegs": 3,
        "colors": 3,
        "name": None,
        "digest": None,
        "memory_gib": None,
    }
    assert shown["population"]["size"] == Config().population.size  # left out: default
    res = CliRunner().invoke(main, ["config", "show", str(path), "--set", "population.size=7"])
    assert yaml.safe_load(res.output)["population"]["size"] == 7
    path.write_text("game: {pegs: 0}\n")
    res = CliRunner().invoke(main, ["config", "show", str(path)])
    assert res.exit_code == 2 and "game.pegs" in res.output
