"""Run configs: YAML files checked by pydantic models before anything runs.

A config names the game, the population, the stop criteria, the operators and the
selection (see ``configs/*.yaml`` for commented examples). Any key can be overridden
from the command line with ``--set a.b=value`` (the value read as a YAML scalar, list
items by index: ``mutation.operators.0.weight=2``). Errors name the key path and what is
allowed::

    configs/x.yaml: selection.method: 'tourney' is not allowed; allowed: 'tournament', 'nsga2'

The package is split by role: :mod:`~evo.config.schema` (the models),
:mod:`~evo.config.operators` (operator entries and the names registered from Python),
:mod:`~evo.config.loading` (files, mappings, ``evo resume``'s extension),
:mod:`~evo.config.overrides` (``--set`` and config data), :mod:`~evo.config.yaml_text`
(safe YAML) and :mod:`~evo.config.messages` (errors as one line per problem). It is a
leaf: it imports nothing of evo but the game's vocabulary (``evo.core``).
"""

from __future__ import annotations

from evo.config.base import ConfigError, ConfigModel
from evo.config.loading import (
    EXTENDABLE,
    MAX_CONFIG_BYTES,
    config_path,
    extend_config,
    load_config,
    shipped_configs,
)
from evo.config.messages import format_errors
from evo.config.operators import (
    BUILTIN_CROSSOVERS,
    BUILTIN_KINDS,
    BUILTIN_MUTATIONS,
    BUILTIN_SELECTIONS,
    REGISTERED,
    CrossoverOp,
    MutationOp,
    register_kind,
)
from evo.config.overrides import apply_override, config_differences, merge, parse_override
from evo.config.schema import (
    AutoValues,
    ClusterConfig,
    Config,
    CrossoverConfig,
    GameConfig,
    InitConfig,
    IslandsConfig,
    MigrationConfig,
    MutationConfig,
    PopulationConfig,
    SelectionConfig,
    StopConfig,
    auto_values,
)
from evo.config.yaml_text import MAX_YAML_VALUES, parse_yaml

__all__ = [
    "BUILTIN_CROSSOVERS",
    "BUILTIN_KINDS",
    "BUILTIN_MUTATIONS",
    "BUILTIN_SELECTIONS",
    "EXTENDABLE",
    "MAX_CONFIG_BYTES",
    "MAX_YAML_VALUES",
    "REGISTERED",
    "AutoValues",
    "ClusterConfig",
    "Config",
    "ConfigError",
    "ConfigModel",
    "CrossoverConfig",
    "CrossoverOp",
    "GameConfig",
    "InitConfig",
    "IslandsConfig",
    "MigrationConfig",
    "MutationConfig",
    "MutationOp",
    "PopulationConfig",
    "SelectionConfig",
    "StopConfig",
    "apply_override",
    "auto_values",
    "config_differences",
    "config_path",
    "extend_config",
    "format_errors",
    "load_config",
    "merge",
    "parse_override",
    "parse_yaml",
    "register_kind",
    "shipped_configs",
]
