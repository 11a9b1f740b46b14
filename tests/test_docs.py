"""The API reference of `make docs`: it builds, its front page is the public API (the names
of ``import evo`` and evo.ops) with the packages inside apart, opening on what a user needs
first; literal blocks render as code, and the Config page says what its keys are. Its
Markdown form, docs/API.md, is committed and up to date."""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pdoc.doc
import pytest
from pydantic import BaseModel

import evo
import evo.ops

#: The module's reference (pdoc, about 8 CPU-seconds) built once, on one worker
#: (pytest-xdist --dist loadgroup).
pytestmark = pytest.mark.xdist_group("docs")

ROOT = Path(__file__).resolve().parent.parent


def _api_doc():
    spec = importlib.util.spec_from_file_location("api_doc", ROOT / "scripts" / "api_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: pdoc's modules that read the objects it documents (docstrings, annotations, members):
#: a warning raised there is about evo's docstrings. Warnings raised while pdoc finds the
#: modules (pdoc.extract: e.g. "evo" both installed and a folder of the current
#: directory) are about the environment, and do not fail the tests.
DOC_READERS = {"doc.py", "doc_ast.py", "doc_pyi.py", "doc_types.py", "docstrings.py"}


def about_evos_docstrings(warnings: list[dict]) -> list[dict]:
    """The warnings (as ``support/api_reference.py`` prints them) raised by pdoc while
    reading evo's objects."""
    return [
        w
        for w in warnings
        if Path(w["filename"]).name in DOC_READERS and Path(w["filename"]).parent.name == "pdoc"
    ]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The reference of this checkout's evo, built from a folder that holds another
    ``evo/`` (so pdoc warns that the name is both a module and a folder there): only
    warnings about evo's docstrings fail."""
    out = tmp_path_factory.mktemp("api")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "evo").mkdir()
    (elsewhere / "evo" / "__init__.py").write_text('"""Another evo."""\n')
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "support" / "api_reference.py"),
            str(out),
            str(out / "API.md"),
        ],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    warnings = [json.loads(line) for line in done.stdout.splitlines()]
    assert about_evos_docstrings(warnings) == []
    # The environment's warning was raised, and let pass.
    assert any("may refer to either" in w["message"] for w in warnings), warnings
    return out


def test_a_warning_about_a_docstring_is_caught(tmp_path):
    """An annotation pdoc cannot resolve, in a module's function: its warning counts."""
    path = tmp_path / "evo_probe.py"
    path.write_text("def f(x: 'NoSuchType') -> None:\n    'A probe.'\n")
    spec = importlib.util.spec_from_file_location("evo_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.doc.Module(module).members["f"].signature  # noqa: B018 - reading it warns
    raised = [
        {"category": w.category.__name__, "filename": w.filename, "message": str(w.message)}
        for w in caught
    ]
    found = about_evos_docstrings(raised)
    assert found and "NoSuchType" in found[0]["message"], raised


def text_of(page: str) -> str:
    """A page's text, without its scripts, styles and tags."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.slow
def test_the_front_page_is_the_public_api(reference):
    index = (reference / "index.html").read_text()
    assert 'url=./evo.html"' in index  # the front page is evo's
    page = (reference / "evo.html").read_text()
    for name in evo.__all__:
        if name != "ops":
            assert f'id="{name}"' in page, name
    assert 'href="evo/ops.html"' in page
    ops = (reference / "evo" / "ops.html").read_text()
    for name in evo.ops.__all__:
        assert f'id="{name}"' in ops, name
    # Nothing of the packages inside on the front page, but a link to their reference.
    assert not re.search(r'href="[^"]*evo/(core|search|baselines|ea|runs|show|config)\b', page)
    assert not re.search(r'href="[^"]*_kernel', page)
    assert 'href="internals/index.html"' in page
    assert sorted(p.name for p in (reference / "evo").iterdir()) == ["ops.html"]


def test_the_packages_inside_are_apart(reference):
    index = (reference / "internals" / "index.html").read_text()
    for package in _api_doc().INTERNALS:
        path = package.replace(".", "/") + ".html"
        assert f'href="{path}"' in index, package
        assert (reference / "internals" / path).exists()
    assert (reference / "internals" / "evo" / "ea" / "operators.html").exists()


def test_no_page_shows_a_literal_block_marker(reference):
    """reStructuredText's ``word::`` ends a paragraph as ``word:`` and the block below it
    is code: the front page's example (issue 34: it showed "optimum::")."""
    front = (reference / "evo.html").read_text()
    assert "optimum::" not in front and "the exact optimum:</p>" in front
    assert re.search(r"optimum:</p>\s*<div class=\"pdoc-code codehilite\">", front)
    ops = (reference / "evo" / "ops.html").read_text()
    assert "in a config:</p>" in ops and '<span class="nf">regrow_best_of_two</span>' in ops
    for path in reference.rglob("*.html"):
        paragraphs = re.findall(r"<p>(.*?)</p>", path.read_text(), flags=re.S)
        assert not [p for p in paragraphs if p.rstrip().endswith("::")], path


def test_literal_blocks_become_code_blocks():
    convert = _api_doc().literal_blocks
    text = "An example::\n\n    x = 1\n\n      y = 2\n\nAfter it.\n"
    assert convert(text) == "An example:\n\n```python\nx = 1\n\n  y = 2\n```\n\nAfter it.\n"
    assert convert("Then ::\n\n    z\n") == "Then\n\n```python\nz\n```\n"
    assert convert("::\n\n    z\n").startswith("```python\nz\n```")
    directive = ".. note::\n\n    A note.\n"
    assert convert(directive) == directive  # pdoc's own
    assert convert("No block after it::\nhere.\n") == "No block after it::\nhere.\n"


def _keys(model: type[BaseModel]) -> set[str]:
    """A model's keys and its sections' keys (one level down)."""
    out = set()
    for name, field in model.model_fields.items():
        out.add(name)
        tp = field.annotation
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            out |= set(tp.model_fields)
    return out


def test_the_config_page_says_what_its_keys_are(reference):
    """Config's docstring names every key of every section (so the list cannot drift from
    the models), and its page links docs/CONFIG.md."""
    doc = evo.Config.__doc__
    missing = sorted(k for k in _keys(evo.Config) if f"``{k}``" not in doc)
    assert not missing, missing
    page = (reference / "evo.html").read_text()
    start = page.index('id="Config"')
    config = page[start : page.index("<section id=", start)]  # to the next name
    assert 'href="../CONFIG.md"' in config and "evo config show" in config
    for key in ("target_total", "tournament_size", "memory_gib", "migration"):
        assert key in text_of(config), key
    assert (ROOT / "docs" / "CONFIG.md").exists()  # what the link points to


# ------------------------------------------------------------------ docs/API.md
MARKDOWN = ROOT / "docs" / "API.md"


def test_the_markdown_reference_is_committed_and_up_to_date(reference):
    """docs/API.md is what `make docs` writes from today's docstrings (issue 51: the
    reference was not published in the repository)."""
    assert MARKDOWN.read_text(encoding="utf-8") == _api_doc().markdown(), (
        "docs/API.md is out of date: run `make docs`"
    )
    assert (reference / "API.md").read_text(encoding="utf-8") == MARKDOWN.read_text("utf-8")


def test_the_reference_opens_on_what_a_user_needs_first(reference):
    """The functions a user calls first (a game, the classic strategies, evolve) open
    both forms of the reference, in the order of ``evo.__all__``; the exception comes
    last (issue 51: the front page opened on BaselineRefused)."""
    public = [n for n in evo.__all__ if n != "ops"]
    assert public[:4] == ["make_game", "baseline", "random_breaker", "evolve"]
    exceptions = [n for n in public if isinstance(getattr(evo, n), type)
                  and issubclass(getattr(evo, n), Exception)]  # fmt: skip
    assert exceptions and public[-len(exceptions) :] == exceptions
    page = (reference / "evo.html").read_text()
    ids = [i for i in re.findall(r'<section id="([A-Za-z_]+)">', page) if i in public]
    assert ids == public
    text = MARKDOWN.read_text(encoding="utf-8")
    headings = re.findall(r"^### evo\.(\w+)$", text, flags=re.M)
    assert headings == public
    first = text.index("### evo.make_game")
    assert "import evo" in text[:first] and "evo.make_game(pegs=4, colors=6)" in text[:first]


def test_the_markdown_reference_has_no_restructuredtext_and_its_links_hold():
    """No role, literal-block marker or double backquote is left; every link within the
    page names a heading of it, every other relative link a file of the checkout."""
    text = MARKDOWN.read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    assert not re.search(r":(func|class|meth|data|mod|attr|exc):`", prose)
    assert "``" not in prose and ">`_" not in prose
    assert not [ln for ln in prose.splitlines() if ln.rstrip().endswith("::")]
    anchors = {_api_doc().anchor(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    links = re.findall(r"\]\(([^)\s]+)\)", prose)
    assert links
    for target in links:
        if target.startswith("#"):
            assert target[1:] in anchors, target
        elif "://" not in target:
            assert (MARKDOWN.parent / target.split("#")[0]).exists(), target
    # Every public name has a section with its signature and its docstring's examples.
    for name in [n for n in evo.__all__ if n != "ops"] + [f"ops.{n}" for n in evo.ops.__all__]:
        obj = getattr(evo.ops if name.startswith("ops.") else evo, name.removeprefix("ops."))
        section = text.split(f"### evo.{name}\n", 1)[1].split("\n### ", 1)[0]
        head = "class " if isinstance(obj, type) else f"evo.{name}("
        assert section.lstrip().startswith(f"```python\n{head}"), name
        examples = [ln.strip() for ln in obj.__doc__.splitlines() if ln.strip().startswith(">>>")]
        assert examples and all(f"\n{e}\n" in section for e in examples), name


def test_doctest_blocks_become_code_blocks():
    convert = _api_doc().doctest_blocks
    text = "Example.\n\n>>> 1 + 1\n2\n\nAfter.\n```python\n>>> kept\n```"
    assert convert(text) == (
        "Example.\n\n```pycon\n>>> 1 + 1\n2\n```\n\nAfter.\n```python\n>>> kept\n```"
    )
    assert convert(">>> x") == "```pycon\n>>> x\n```"
