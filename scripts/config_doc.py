"""Write docs/CONFIG.md from the config models (``--check``: exit 1 when it is out of date).

python scripts/config_doc.py            # write it
python scripts/config_doc.py --check    # only compare
"""

from __future__ import annotations

import sys
from pathlib import Path

from evo.core.files import atomic_write_text
from evo.show.config_doc import config_reference

TARGET = Path(__file__).resolve().parent.parent / "docs" / "CONFIG.md"


def main(argv: list[str]) -> int:
    text = config_reference()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date: run python scripts/config_doc.py", file=sys.stderr)
            return 1
        return 0
    atomic_write_text(TARGET, text)
    print(TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
