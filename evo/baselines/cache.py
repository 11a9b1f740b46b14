"""Cache of baseline trees: ``$EVO_CACHE`` (default ``~/.cache/evo``) ``/<game>/<name>.json``.

Each file is a tree document (:func:`evo.treeio.tree_document`) that also holds the
baseline's result dict (with the seconds of the original computation). Files are
written atomically; a file that cannot be read back, or whose tree disagrees with its
result, is treated as missing: the baseline is recomputed and the file rewritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from evo.files import atomic_write_json
from evo.game import Game
from evo.tree import Tree
from evo.treeio import tree_document, tree_from_document


def cache_dir() -> Path:
    """The cache root: ``$EVO_CACHE``, else ``~/.cache/evo``."""
    root = os.environ.get("EVO_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "evo"


def cache_path(game: Game, key: str) -> Path:
    """The file of baseline ``key`` (its name, with ``-seed`` for seeded ones)."""
    return cache_dir() / game.name / f"{key}.json"


def load(game: Game, key: str) -> tuple[Tree, dict] | None:
    """The cached tree and result, or None when missing or unreadable."""
    path = cache_path(game, key)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        tree = tree_from_document(doc, game=game)
        result = dict(doc["result"])
        if result.get("total") != tree.total:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return tree, result


def store(game: Game, key: str, tree: Tree, result: dict) -> Path | None:
    """Write the tree and result; a cache that cannot be written is skipped silently
    (the result stands, it will be recomputed next time)."""
    try:
        return atomic_write_json(cache_path(game, key), tree_document(tree, result=result), None)
    except OSError:
        return None
