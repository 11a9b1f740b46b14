"""Configs from a YAML file or a mapping: read, overridden, validated; and a run's config
extended for ``evo resume``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evo.config.base import ConfigError
from evo.config.messages import format_errors
from evo.config.overrides import (
    apply_override,
    config_differences,
    deep_copy,
    parse_override,
)
from evo.config.schema import Config
from evo.config.yaml_text import parse_yaml
from evo.core.files import read_text

#: A config is a page of settings; a larger file is a mistake (or an attack).
MAX_CONFIG_BYTES = 1 << 20


def shipped_configs() -> dict[str, Path]:
    """The configs shipped with evo (the package ``evo.configs``: ``configs/`` of a
    checkout), by name: ``quick``, ``mastermind-4-7``..."""
    from importlib.resources import files

    try:
        folder = files("evo.configs")
    except ModuleNotFoundError:  # a copy of evo without its configs
        return {}
    return {Path(p.name).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(".yaml")}


#: How a user finds the configs shipped with evo (an installed evo has no configs/ folder).
LIST_HINT = "`evo config list` lists them"


def config_path(source: str | os.PathLike) -> Path:
    """The file a config argument names: the path itself when it exists, else the
    shipped config of that name (``quick`` or ``quick.yaml``); a file that does not exist
    is refused with the shipped names (those of a checkout's ``configs/`` are run by name
    from an installed evo, which has no such folder)."""
    path = Path(source)
    if path.exists():
        return path
    shipped = shipped_configs()
    name = path.name.removesuffix(".yaml")
    if path.parent == Path(".") and name in shipped:
        return shipped[name]
    if name in shipped:  # configs/quick.yaml outside a checkout
        raise ConfigError(
            f"no config file {path}; evo's own config {name!r} is named without a folder: "
            f"{name} ({LIST_HINT})"
        )
    raise ConfigError(
        f"no config file {path}, and no config of evo's is called {name!r} "
        f"(evo's: {', '.join(sorted(shipped)) or 'none in this installation'}; {LIST_HINT})"
    )


def load_config(
    source: str | os.PathLike | dict | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> Config:
    """Read (a YAML file, the name of a config shipped with evo such as ``quick``, or a
    dict), apply ``--set`` overrides, validate. Raises :class:`ConfigError` naming the
    file, the key path and what is allowed.

    >>> config = load_config("quick", ["seed=7"])
    >>> config.name, config.seed, config.game.pegs
    ('quick', 7, 4)
    """
    where = "config"
    if source is None:
        data: Any = {}
    elif isinstance(source, dict):
        data = source
    else:
        path = config_path(source)
        where = str(source) if Path(source) != path else str(path)
        text = read_text(path, what="config", error=ConfigError, max_bytes=MAX_CONFIG_BYTES)
        data = parse_yaml(text, where=where)
        if data is None:
            raise ConfigError(
                f"{path} is empty: a config names at least the game and when to stop "
                "(see `evo config show quick`)"
            )
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the top level should be a mapping of keys to values")
    data = deep_copy(data)
    defaults = Config().model_dump(mode="json")
    for text in overrides:
        path_, value = parse_override(text)
        apply_override(data, path_, value, defaults)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(format_errors(where, e, model=Config)) from None
    except RecursionError:
        raise ConfigError(
            f"{where} is nested too deep (mappings or lists inside each other)"
        ) from None


#: Config keys a run may change when it is resumed: when to stop, and where it runs (the
#: result does not depend on the number of workers or on the cluster).
EXTENDABLE = ("stop", "workers", "cluster")


def fixed_differences(a: Config, b: Config) -> list[str]:
    """The keys in which two configs differ, but for the :data:`EXTENDABLE` ones (those a
    resumed run may change)."""
    return [
        k
        for k in config_differences(a.model_dump(mode="json"), b.model_dump(mode="json"))
        if k.split(".")[0] not in EXTENDABLE
    ]


def extend_config(config: Config, overrides: list[str] | tuple[str, ...]) -> Config:
    """``config`` with ``--set`` overrides of its :data:`EXTENDABLE` keys (to extend a run
    on ``evo resume``); raises :class:`ConfigError` naming any other key that would change."""
    new = load_config(config.model_dump(mode="json"), overrides)
    fixed = fixed_differences(config, new)
    if fixed:
        raise ConfigError(
            f"--set: {', '.join(fixed)} cannot change when a run is resumed "
            f"(only the keys under {', '.join(EXTENDABLE)} can)"
        )
    return new
