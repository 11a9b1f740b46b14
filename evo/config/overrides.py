"""Config data edited as plain mappings: ``--set a.b=value`` overrides, mappings merged
key by key, and the key paths where two configs differ."""

from __future__ import annotations

import re
from typing import Any

from evo.config.base import ConfigError
from evo.config.yaml_text import parse_yaml

#: Sections whose ``kind`` is a key like the others (the game's: another kind of game keeps
#: its pegs and colors), not an operator's (whose parameters are its kind's own).
_PLAIN_KIND = ("game",)


def merge(base: Any, extra: Any, *, _path: tuple[str, ...] = ()) -> Any:
    """``base`` with ``extra``'s keys set, mappings merged key by key (lists replaced, and
    an operator of another ``kind`` replaced whole: its parameters are its own)."""
    other_kind = (
        isinstance(extra, dict)
        and extra.get("kind", None) not in (None, _kind(base))
        and _path not in [(p,) for p in _PLAIN_KIND]
    )
    if isinstance(base, dict) and isinstance(extra, dict) and not other_kind:
        out = dict(base)
        for k, v in extra.items():
            out[k] = merge(base.get(k), v, _path=(*_path, str(k))) if k in base else deep_copy(v)
        return out
    return deep_copy(extra)


def parse_override(text: str) -> tuple[list[str], Any]:
    """``a.b.c=value`` → (``["a", "b", "c"]``, the value read as a YAML scalar)."""
    if "=" not in text:
        raise ConfigError(f"--set {text!r}: expected KEY.PATH=VALUE, such as population.size=200")
    key, _, raw = text.partition("=")
    parts = key.strip().split(".")
    if not all(re.fullmatch(r"[A-Za-z0-9_-]+", p) for p in parts):
        raise ConfigError(f"--set {text!r}: {key!r} is not a key path such as population.size")
    value = parse_yaml(raw, where=f"--set {text!r}: the value") if raw.strip() else None
    return parts, value


def apply_override(data: dict, path: list[str], value: Any, defaults: Any = None) -> None:
    """Set ``data[path]`` to ``value``, creating mappings on the way (a list missing on the
    way is copied from ``defaults``, the default config as plain data); list items by index."""
    node: Any = data
    default: Any = defaults
    for i, name in enumerate(path):
        last = i == len(path) - 1
        where = ".".join(path[: i + 1])
        key: str | int = name
        if isinstance(node, list):
            if not name.isdigit() or int(name) >= len(node):
                raise ConfigError(
                    f"--set {'.'.join(path)}: {where} is not an item of the list "
                    f"(it has {len(node)} items, 0..{len(node) - 1})"
                )
            key = int(name)
        elif not isinstance(node, dict):
            raise ConfigError(f"--set {'.'.join(path)}: {'.'.join(path[:i])} is not a mapping")
        if last:
            operator = path[:-1] not in [[p] for p in _PLAIN_KIND]
            if key == "kind" and operator and isinstance(node, dict) and node.get("kind") != value:
                node.clear()  # another operator kind: its own parameters start afresh
            node[key] = value
        else:
            default = _child(default, key)
            if isinstance(node, dict) and (key not in node or node[key] is None):
                node[key] = deep_copy(default) if isinstance(default, list) else {}
            node = node[key]


def config_differences(a: Any, b: Any, prefix: str = "") -> list[str]:
    """The key paths where two configs (as plain data) differ, e.g. ``["population.size"]``."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted({*a, *b}, key=str):
            sub = f"{prefix}.{key}" if prefix else str(key)
            both = key in a and key in b
            out += config_differences(a[key], b[key], sub) if both else [sub]
        return out
    return [] if a == b else [prefix or "(the whole config)"]


def _kind(x: Any) -> Any:
    return x.get("kind") if isinstance(x, dict) else None


def _child(x: Any, key: Any) -> Any:
    if isinstance(x, dict):
        return x.get(key)
    if isinstance(x, list) and isinstance(key, int) and key < len(x):
        return x[key]
    return None


def deep_copy(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: deep_copy(v) for k, v in x.items()}
    if isinstance(x, list):
        return [deep_copy(v) for v in x]
    return x
