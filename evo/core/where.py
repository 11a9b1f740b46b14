"""Where this evo lies on disk, for what starts a fresh interpreter on the same code (a
worker, a compiling process) or checks that it did: a leaf, so that no module below the
package's face imports ``evo`` itself for its path."""

from __future__ import annotations

from pathlib import Path


def package_folder() -> Path:
    """The folder of the evo package this module belongs to (``.../evo``)."""
    return Path(__file__).resolve().parent.parent
