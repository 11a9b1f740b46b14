"""The API reference, generated from the docstrings. ``make docs`` writes it twice:

- ``docs/API.md``, the public API (the names of ``import evo`` and :mod:`evo.ops`, in the
  order of ``evo.__all__``: what a user needs first), committed and read on the
  repository's pages (a test fails when it is out of date);
- ``docs/api/`` (not committed), the same by pdoc as HTML, its front page
  (``index.html``) the public API, and the packages inside, for those who extend evo, in
  ``docs/api/internals/``::

    .venv/bin/python scripts/api_doc.py [HTML_DIR [MARKDOWN]]   # both
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import pdoc
import pdoc.docstrings

ROOT = Path(__file__).resolve().parent.parent

#: The public API in Markdown, committed: the reference a reader of the repository opens.
MARKDOWN = ROOT / "docs" / "API.md"

#: Where pdoc writes the HTML reference by default; links in docstrings are relative to it.
HTML = ROOT / "docs" / "api"

#: The public API: the front page.
PUBLIC = ["evo"]  # with evo.ops, which it names in __all__

#: The layers inside, from the bottom up (docs/DESIGN.md §6), written apart.
INTERNALS = [
    "evo.core",
    "evo.games",
    "evo.search",
    "evo.proofs",
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


# ----------------------------------------------------------------------------- Markdown
#: A reStructuredText role: :func:`name`, :class:`~a.b.Name`...
_ROLE = re.compile(r":(?:func|class|meth|data|mod|attr|exc|obj):`(?P<tilde>~?)(?P<target>[^`]+)`")
#: A reStructuredText hyperlink: `text <target>`_.
_LINK = re.compile(r"`(?P<text>[^`<]+?)\s*<(?P<target>[^>]+)>`_")
_FENCE = re.compile(r"^\s*```")


def anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading (lower case, punctuation dropped but
    ``-`` and ``_``, spaces as ``-``)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def doctest_blocks(text: str) -> str:
    """Doctest examples (``>>>`` lines and the output below them, to a blank line) as
    fenced code blocks, outside the fences already there."""
    out: list[str] = []
    in_fence = in_test = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and not in_test and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            in_test = True
        elif in_test and not line.strip():
            out.append("```")
            in_test = False
        out.append(line)
    if in_test:
        out.append("```")
    return "\n".join(out)


def _link_target(target: str) -> str | None:
    """A docstring's link (relative to the HTML reference's folder, docs/api/) as one from
    docs/API.md, or None when it points into the HTML reference itself, which is not
    committed."""
    if re.match(r"[a-z]+://", target):
        return target
    path = (HTML / target).resolve()
    if path.is_relative_to(HTML.resolve()):
        return None
    return Path(os.path.relpath(path, MARKDOWN.parent)).as_posix()


def inline(text: str, names: dict[str, str]) -> str:
    """Inline reStructuredText as Markdown: roles as code (linked when they name a part of
    this reference: ``names`` maps a name to its anchor), ````code```` as ```code```,
    hyperlinks as Markdown links."""

    def role(m: re.Match) -> str:
        target = m["target"]
        shown = target.rsplit(".", 1)[-1] if m["tilde"] else target
        for key in (target, target.removeprefix("evo."), shown):
            if key in names:
                return f"[`{shown}`](#{names[key]})"
        return f"`{shown}`"

    def link(m: re.Match) -> str:
        target = _link_target(m["target"])
        if target is None:
            return f"{m['text']} (`make docs` writes it: docs/api/{m['target']})"
        return f"[{m['text']}]({target})"

    out = []
    for part in re.split(r"(``.+?``)", text, flags=re.S):
        if part.startswith("``") and part.endswith("``") and len(part) > 4:
            out.append(f"`{part[2:-2]}`")
        else:
            out.append(_ROLE.sub(role, _LINK.sub(link, part)))
    return "".join(out)


def docstring(obj: Any, names: dict[str, str]) -> str:
    """``obj``'s docstring as Markdown: literal and doctest blocks fenced, inline markup
    converted outside the fences."""
    text = doctest_blocks(literal_blocks(inspect.cleandoc(obj.__doc__ or "")))
    out: list[str] = []
    prose: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            if not in_fence:
                out.append(inline("\n".join(prose), names))
                prose = []
            in_fence = not in_fence
            out.append(line)
        elif in_fence:
            out.append(line)
        else:
            prose.append(line)
    out.append(inline("\n".join(prose), names))
    return "\n".join(out).strip()


class _Shown(str):
    """An annotation as written in the source (``from __future__ import annotations``
    keeps them as text), shown without quotes."""

    def __repr__(self) -> str:
        return str(self)


def signature(name: str, function: Callable) -> str:
    """``name(parameters) -> result``, as in the source, one parameter a line when long."""
    sig = inspect.signature(function)

    def shown(annotation: Any) -> Any:
        return _Shown(annotation) if isinstance(annotation, str) else annotation

    params = [p.replace(annotation=shown(p.annotation)) for p in sig.parameters.values()]
    sig = sig.replace(parameters=params, return_annotation=shown(sig.return_annotation))
    text = f"{name}{sig}"
    if len(text) <= 88:
        return text
    parts, star = [], False
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
        star = star or p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)
        parts.append(str(p) if p.kind is not p.VAR_POSITIONAL else f"*{p.name}")
    result = "" if sig.return_annotation is sig.empty else f" -> {sig.return_annotation!r}"
    return f"{name}(\n" + "".join(f"    {p},\n" for p in parts) + f"){result}"


def _members(cls: type) -> Iterator[tuple[str, str, Any]]:
    """The public methods and properties of ``cls`` and of its bases defined in evo, in
    the order of their source: (name, kind, the function that holds the docstring)."""
    seen: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("evo"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(value, property):
                yield name, "property", value.fget
            elif isinstance(value, cached_property):
                yield name, "property", value.func
            elif isinstance(value, classmethod | staticmethod):
                yield name, type(value).__name__, value.__func__
            elif inspect.isfunction(value):
                yield name, "method", value


def _entries(module: ModuleType, names: list[str]) -> Iterator[tuple[str, Any]]:
    for name in names:
        yield name, getattr(module, name)


def markdown() -> str:
    """The public API as one Markdown page: evo's module docstring, a list of its names,
    then each name (signature, docstring; a class's methods and properties below it),
    then :mod:`evo.ops` the same way."""
    import evo
    import evo.ops

    sections = [
        (evo, "evo", [n for n in evo.__all__ if n != "ops"]),
        (evo.ops, "evo.ops", list(evo.ops.__all__)),
    ]
    names = {"evo.ops": anchor("evo.ops"), "ops": anchor("evo.ops")}
    for _, prefix, listed in sections:
        for name in listed:
            obj = getattr(sys.modules[prefix], name)
            heading = f"{prefix}.{name}"
            names.setdefault(name, anchor(heading))
            names[heading] = anchor(heading)
            if inspect.isclass(obj):
                for member, _, _ in _members(obj):
                    names[f"{name}.{member}"] = anchor(f"{heading}.{member}")
    lines = [
        "# The API reference of evo",
        "",
        "<!-- Generated from the docstrings by scripts/api_doc.py (`make docs`); a test "
        "fails when it is out of date. -->",
        "",
        docstring(evo, names),
        "",
        "## Contents",
        "",
        *(
            f"- [`{prefix}`](#{anchor(prefix)}): "
            + ", ".join(f"[`{name}`](#{anchor(f'{prefix}.{name}')})" for name in listed)
            for _, prefix, listed in sections
        ),
    ]
    for module, prefix, listed in sections:
        lines += ["", f"## {prefix}"]
        if module is not evo:
            lines += ["", docstring(module, names)]
        for name, obj in _entries(module, listed):
            heading = f"{prefix}.{name}"
            lines += ["", f"### {heading}", ""]
            if inspect.isclass(obj):
                bases = [b.__name__ for b in obj.__bases__ if b is not object]
                shown = f"class {name}({', '.join(bases)})" if bases else f"class {name}"
                lines += ["```python", shown, "```", "", docstring(obj, names)]
                for member, kind, function in _members(obj):
                    lines += ["", f"#### {heading}.{member}", ""]
                    if kind == "property":
                        lines += [f"A property of {name}.", ""]
                    else:
                        first = list(inspect.signature(function).parameters)[:1]
                        bound = function if first not in (["self"], ["cls"]) else _bound(function)
                        lines += ["```python", signature(f"{name}.{member}", bound), "```", ""]
                    lines.append(docstring(function, names))
            else:
                lines += ["```python", signature(heading, obj), "```", "", docstring(obj, names)]
    return "\n".join(lines).rstrip() + "\n"


def _bound(function: Callable) -> Callable:
    """``function`` without its first parameter (``self`` or ``cls``), for its signature."""
    sig = inspect.signature(function)
    wrapper = _signed(sig.replace(parameters=list(sig.parameters.values())[1:]))
    return wrapper


def _signed(sig: inspect.Signature) -> Callable:
    def stand_in(*args: Any, **kwargs: Any) -> None:
        """A stand-in that carries a signature."""

    stand_in.__signature__ = sig  # type: ignore[attr-defined]
    return stand_in


def main(argv: list[str]) -> None:
    """``[HTML_DIR [MARKDOWN]]`` (default: docs/api and docs/API.md): write both."""
    from evo.core.files import atomic_write_text

    print(atomic_write_text(Path(argv[1]) if len(argv) > 1 else MARKDOWN, markdown()))
    print(write(Path(argv[0]) if argv else HTML))


if __name__ == "__main__":
    main(sys.argv[1:])
