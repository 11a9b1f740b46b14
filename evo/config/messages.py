"""Validation errors as people read them: one line per problem, ``file: key.path: what
is wrong; allowed: ...``."""

from __future__ import annotations

from typing import Annotated, Any, TypeGuard, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from evo.config.operators import (
    BUILTIN_CROSSOVERS,
    BUILTIN_KINDS,
    BUILTIN_MUTATIONS,
    REGISTERED,
    RegisteredMutationConfig,
)


def format_errors(where: str, error: ValidationError, *, model: type[BaseModel]) -> str:
    """One line per problem: ``file: key.path: what is wrong; allowed: ...``, the key
    paths those of ``model``, the model validated (the config's, :class:`Config`)."""
    lines = []
    for err in error.errors():
        loc = [str(p) for p in err["loc"] if not _is_union_tag(p)]
        key = ".".join(loc) or "(top level)"
        kind = err["type"]
        if kind == "extra_forbidden":
            tags = [p for p in err["loc"] if _is_union_tag(p)]
            at = _KIND_MODELS[tags[-1]] if tags else _model_at(model, loc[:-1])
            allowed = list(at.model_fields) if at is not None else []
            msg = f"unknown key; allowed keys here: {', '.join(allowed)}"
        elif kind == "literal_error":
            msg = f"{err['input']!r} is not allowed; allowed: {err['ctx']['expected']}"
        elif kind == "union_tag_invalid":
            msg = f"kind {err['ctx']['tag']!r} is not known; allowed kinds: {_kinds(loc)}"
        elif kind == "union_tag_not_found":
            msg = f"needs a 'kind' (one of {_kinds(loc)})"
        else:
            msg = err["msg"]
            if "input" in err and kind not in ("missing", "value_error"):
                msg = f"{err['input']!r}: {msg}"
            msg = msg.replace("Value error, ", "")
        lines.append(f"{where}: {key}: {msg}")
    return "\n".join(lines)


def _is_union_tag(p: object) -> TypeGuard[str]:
    return isinstance(p, str) and p in _KIND_MODELS


def _model_at(root: type[BaseModel], loc: list[str]) -> Any:
    """The pydantic model (or None) at a key path of ``root``."""
    model: Any = root
    for part in loc:
        if part.isdigit():
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        field = model.model_fields.get(part)
        if field is None:
            return None
        model = _unwrap(field.annotation)
    return model


def _unwrap(tp: Any) -> Any:
    """A list/optional/annotated type down to its model, when there is a single one."""
    while get_origin(tp) in (list, Annotated) or (
        get_origin(tp) is Union and sum(a is not type(None) for a in get_args(tp)) == 1
    ):
        args = [a for a in get_args(tp) if a is not type(None)]
        tp = args[0]
    return tp


_KIND_MODELS: dict[str, type[BaseModel]] = {
    **BUILTIN_KINDS,
    "registered": RegisteredMutationConfig,
}


def _kinds(loc: list[str]) -> str:
    """The operator kinds allowed at ``loc``: the built-in ones and those registered from
    Python for its role."""
    role = "crossover" if loc and loc[0] == "crossover" else "mutation"
    builtin = BUILTIN_CROSSOVERS if role == "crossover" else BUILTIN_MUTATIONS
    kinds = [*builtin, *(k for k, (r, _) in REGISTERED.items() if r == role)]
    return ", ".join(repr(k) for k in kinds)
