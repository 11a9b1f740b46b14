"""Write each shipped breaker's provenance into its tree file.

The chain of commands that made ``breakers/NAME.json`` (or ``.json.gz``) is written in
``breakers/provenance/NAME.md``, under "## How it was found"; this copies that text into
the tree file's document as its ``provenance`` (read by ``evo table FILE --provenance``),
before its nodes. Nothing else of the file changes: the document is written as evo writes
it, and a ``.json.gz`` is compressed as it was (evo's writer, or ``gzip -9 -n``), so the
same text gives the same bytes. ``--check`` only says which files differ::

    .venv/bin/python scripts/provenance.py           # after editing a provenance document
    .venv/bin/python scripts/provenance.py --check
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

from evo.core.files import atomic_write_bytes, gzip_bytes
from evo.core.treeio import PROVENANCE, is_tree_name, tree_stem

BREAKERS = Path(__file__).resolve().parent.parent / "breakers"
SECTION = "## How it was found"


def documented(name: str) -> str:
    """The text under "## How it was found" in the provenance document of tree file
    ``name`` (up to the next heading)."""
    text = (BREAKERS / "provenance" / f"{tree_stem(name)}.md").read_text(encoding="utf-8")
    _, found, rest = text.partition(f"\n{SECTION}\n")
    if not found:
        raise SystemExit(f"{name}: its provenance document has no {SECTION!r} section")
    return rest.split("\n## ", 1)[0].strip()


def with_provenance(raw: bytes, text: str) -> bytes:
    """A tree file's bytes with ``text`` as its provenance, written as the file is."""
    zipped = raw[:2] == b"\x1f\x8b"
    plain = gzip.decompress(raw) if zipped else raw
    doc = json.loads(plain)
    doc.pop(PROVENANCE, None)
    root = doc.pop("root")
    doc.update({PROVENANCE: text, "root": root})  # before the nodes, as save_tree puts it
    out = (json.dumps(doc) + "\n").encode("utf-8")  # as atomic_write_json writes it
    if not zipped:
        return out
    if gzip_bytes(plain) == raw:  # written by evo
        return gzip_bytes(out)
    gz = shutil.which("gzip")
    if gz is None:
        raise SystemExit("gzip is needed to write a file compressed with `gzip -9 -n`")
    return subprocess.run([gz, "-9", "-n", "-c"], input=out, capture_output=True, check=True).stdout


def main() -> None:
    check = sys.argv[1:] == ["--check"]
    differ = []
    for path in sorted(BREAKERS.iterdir()):
        if not is_tree_name(path) or path.name == "bounds.json":
            continue
        raw = path.read_bytes()
        new = with_provenance(raw, documented(path.name))
        if new != raw:
            differ.append(path.name)
            if not check:
                atomic_write_bytes(path, new)
    verb = "differ from their provenance document" if check else "written"
    print(f"{len(differ)} file(s) {verb}" + "".join(f"\n  {n}" for n in differ))
    sys.exit(1 if check and differ else 0)


if __name__ == "__main__":
    main()
