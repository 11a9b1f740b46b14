"""The API reference, generated from the docstrings by pdoc. ``make docs`` writes it into
``docs/api/``: its front page (``index.html``) is the public API, the names of ``import
evo`` and :mod:`evo.ops`; the packages inside, for those who extend evo, have a reference
of their own in ``docs/api/internals/``::

    .venv/bin/python scripts/api_doc.py [OUTPUT_DIR]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pdoc
import pdoc.docstrings

#: The public API: the front page.
PUBLIC = ["evo"]  # with evo.ops, which it names in __all__

#: The layers inside, from the bottom up (docs/DESIGN.md §6), written apart.
INTERNALS = [
    "evo.core",
    "evo.search",
    "evo.baselines",
    "evo.ea",
    "evo.runs",
    "evo.show",
    "evo.config",
]

#: A line ending a paragraph with reStructuredText's ``::``, which pdoc does not know.
_LITERAL_HEAD = re.compile(r"^(?P<indent>[ ]*)(?P<text>.*?)(?P<space>[ ]?)::[ ]*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def literal_blocks(text: str) -> str:
    """reStructuredText's literal blocks as Markdown code blocks: ``word::`` becomes
    ``word:`` (``word ::`` and a lone ``::`` vanish) and the indented block after it a
    fenced code block; directives (``.. note::``) are left to pdoc."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _LITERAL_HEAD.match(lines[i])
        j = i + 1
        while m and j < len(lines) and not lines[j].strip():
            j += 1
        if (
            not m
            or m["text"].lstrip().startswith("..")
            or j == len(lines)
            or _indent(lines[j]) <= len(m["indent"])
        ):
            out.append(lines[i])
            i += 1
            continue
        k = j
        while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > len(m["indent"])):
            k += 1
        block = lines[j:k]
        while block and not block[-1].strip():
            block.pop()
        cut = min(_indent(line) for line in block if line.strip())
        text_before = m["text"] + ("" if m["space"] or not m["text"].strip() else ":")
        if text_before.strip():
            out += [m["indent"] + text_before, ""]
        out.append(m["indent"] + "```python")
        out += [m["indent"] + line[cut:] if line.strip() else "" for line in block]
        out += [m["indent"] + "```", ""]
        i = k
    return "\n".join(out)


def _install_literal_blocks() -> None:
    """Make pdoc's reStructuredText conversion turn literal blocks into code first."""
    convert = pdoc.docstrings.rst
    if getattr(convert, "literal_blocks", False):
        return

    def rst(contents: str, source_file: Path | None) -> str:
        return convert(literal_blocks(contents), source_file)

    rst.literal_blocks = True  # type: ignore[attr-defined]
    pdoc.docstrings.rst = rst


def write(out: Path) -> Path:
    """Write the reference into ``out``; return the front page."""
    _install_literal_blocks()
    pdoc.render.configure(docformat="restructuredtext", show_source=False)
    pdoc.pdoc(*PUBLIC, output_directory=out)
    pdoc.pdoc(*INTERNALS, output_directory=out / "internals")
    return out / "index.html"


def main() -> None:
    print(write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/api")))


if __name__ == "__main__":
    main()
