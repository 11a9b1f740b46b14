"""What every config model shares: the base model (unknown keys refused, a field's
docstring its description) and the error a config that cannot be used raises."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ConfigError(ValueError):
    """A config cannot be read or is not valid: the message names the key and the rule."""


class ConfigModel(BaseModel):
    """A part of a config: unknown keys are refused, defaults validated, and a field's
    docstring is its description (docs/CONFIG.md is generated from them)."""

    model_config = ConfigDict(extra="forbid", validate_default=True, use_attribute_docstrings=True)
