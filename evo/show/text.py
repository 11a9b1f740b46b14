"""Text from users (file names, run names, values they typed) made safe to show: a
hostile name must not drive the terminal, flood it, or break the XML or HTML it lands in;
and the format an output file's suffix asks for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

#: A value in an error message longer than this is cut (:func:`short_message`).
VALUE_LIMIT = 200

#: An error message longer than this (after its values are cut) keeps its start and end.
LINE_LIMIT = 1000

_ELLIPSIS = "…"


def _escaped(ch: str) -> str:
    return ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")


def printable(text: str, *, limit: int | None = None) -> str:
    """``text`` with every unprintable character (controls such as ESC, line and format
    separators, surrogates of undecodable file names, unassigned code points) written as
    Python escapes it (``\\x1b``), so that what is left is valid in XML and harmless on a
    terminal; past ``limit`` characters, cut with an ellipsis and the original length."""
    out = text if text.isprintable() else "".join(map(_escaped, text))
    if limit is not None and len(out) > limit:
        out = f"{out[:limit]}{_ELLIPSIS} ({len(text)} characters)"
    return out


#: Quoted values (as ``repr`` writes them; a quote after a letter is an apostrophe) and
#: runs of non-space characters.
_VALUE = re.compile(r"""(?<!\w)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|\S+""")


def short_message(text: str) -> str:
    """An error message made safe for one terminal line: unprintable characters escaped,
    each value (quoted, or a run of non-space characters) cut at :data:`VALUE_LIMIT`, and
    the whole kept to about :data:`LINE_LIMIT` characters (its start and its end)."""

    def cut(m: re.Match[str]) -> str:
        value = m.group()
        if len(value) <= VALUE_LIMIT:
            return value
        quote = value[0] if value[0] in "'\"" and value[-1] == value[0] else ""
        end = "" if quote or value[-1] not in ":;," else value[-1]  # punctuation, kept
        inner = value[len(quote) : len(value) - len(quote or end)]
        return f"{quote}{inner[:VALUE_LIMIT]}{_ELLIPSIS}{quote} ({len(inner)} characters){end}"

    out = _VALUE.sub(cut, printable(text))
    if len(out) > LINE_LIMIT:
        head, tail = LINE_LIMIT * 3 // 4, LINE_LIMIT // 4
        left_out = f"{_ELLIPSIS} ({len(out) - head - tail} characters) {_ELLIPSIS}"
        out = f"{out[:head]} {left_out} {out[-tail:]}"
    return out


def suffix_format(path: str | os.PathLike, formats: Sequence[str], *, default: str) -> str:
    """The format ``path``'s suffix names (``default`` when it has none): a suffix naming
    none of ``formats`` is a ValueError listing them, so that no file is written in a
    format other than the one its name says."""
    suffix = Path(path).suffix.lstrip(".").lower()
    if not suffix:
        return default
    if suffix not in formats:
        known = ", ".join(f".{f}" for f in formats)
        raise ValueError(f"{os.fspath(path)}: the suffix .{suffix} is none of {known}")
    return suffix
