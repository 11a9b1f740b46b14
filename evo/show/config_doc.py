"""The config reference (docs/CONFIG.md), generated from the config models of
:mod:`evo.config`: every key with its type, default, allowed values and meaning.

Meanings come from the models themselves: a field's ``description`` (in evo.config, the
docstring under the field), and each section opens with the model's docstring.
``scripts/config_doc.py`` writes the file; a test fails when it is out of date.
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from evo.config import Config

#: What the file says at its top, so that nobody edits it by hand.
HEADER = """# Config reference

<!-- Generated from evo/config/ by `python scripts/config_doc.py`; do not edit by hand. -->

A run's config is a YAML file (`configs/*.yaml` are commented examples). Every key is
optional: a missing key takes its default. A mapping left out entirely takes the default
of its own row, which can differ from its keys' defaults: without `stop`, a run stops
after {stop_generations} generations; with `stop: {{seconds: 60}}`, only after 60 s.
Override any key with `--set key.path=value` on the command line (list items by index:
`mutation.operators.0.weight=2`), and see a config with every default filled in with
`evo config show CONFIG`.
"""


@dataclass(frozen=True)
class KeyDoc:
    """One key of the reference."""

    path: str
    type: str
    default: str
    allowed: str
    meaning: str


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _non_none(tp: Any) -> list[Any]:
    return [a for a in get_args(tp) if a is not type(None)]


def _is_optional(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType) and type(None) in get_args(tp)


def _strip(tp: Any) -> Any:
    """``Annotated[X, ...]`` → ``X``; ``X | None`` → ``X``."""
    while True:
        if get_origin(tp) is Annotated:
            tp = get_args(tp)[0]
        elif _is_optional(tp) and len(_non_none(tp)) == 1:
            tp = _non_none(tp)[0]
        else:
            return tp


def kind_models(tp: Any) -> list[type[BaseModel]]:
    """The operator models of a discriminated union (each with a ``kind`` literal)."""
    tp = _strip(tp)
    if get_origin(tp) in (Union, types.UnionType):
        return [_strip(a) for a in get_args(tp) if _is_model(_strip(a))]
    return []


def _kind(model: type[BaseModel]) -> str:
    """An operator model's kind: its literal, or what an operator registered from Python
    is named (any name)."""
    kinds = get_args(model.model_fields["kind"].annotation)
    return str(kinds[0]) if kinds else "NAME"


def type_text(tp: Any) -> str:
    """A field type as people read it."""
    optional = _is_optional(tp)
    tp = _strip(tp)
    if get_origin(tp) is Literal:
        text = "string" if all(isinstance(a, str) for a in get_args(tp)) else "value"
    elif get_origin(tp) is list:
        inner = get_args(tp)[0]
        if kind_models(inner):
            text = "list of operators"
        elif _is_model(_strip(inner)):
            text = "list of mappings"
        else:
            text = f"list of {type_text(inner)}"
    elif kind_models(tp):
        text = "operator (mapping with a kind)"
    elif _is_model(tp):
        text = "mapping"
    elif get_origin(tp) is dict:
        text = "mapping"
    else:
        text = {int: "integer", float: "number", str: "string", bool: "true/false"}.get(
            tp, getattr(tp, "__name__", str(tp))
        )
    return f"{text} or null" if optional else text


def allowed_text(field: FieldInfo) -> str:
    """The values a field accepts: its literal choices and its bounds."""
    tp = _strip(field.annotation)
    parts = []
    if get_origin(tp) is Literal:
        parts.append(", ".join(f"`{a}`" for a in get_args(tp)))
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    choices = extra.get("choices")
    if isinstance(choices, list):  # names, more of which may be registered
        names = ", ".join(f"`{a}`" for a in choices)
        parts.append(
            names + (", or a name registered from Python" if extra.get("registered") else "")
        )
    kinds = kind_models(tp) or (kind_models(get_args(tp)[0]) if get_origin(tp) is list else [])
    if kinds:
        parts.append("kind: " + ", ".join(f"`{_kind(m)}`" for m in kinds))
    for meta in field.metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if getattr(meta, attr, None) is not None:
                parts.append(f"{sign} {getattr(meta, attr)}")
        if getattr(meta, "max_length", None) is not None:
            parts.append(f"at most {meta.max_length} characters")
        if getattr(meta, "pattern", None) is not None:
            parts.append(f"matches `{meta.pattern}`")
    return "; ".join(parts)


def default_text(value: Any) -> str:
    """A default as it would be written in YAML (one line)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    elif isinstance(value, list):
        value = [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def meaning(model: type[BaseModel], name: str) -> str:
    """A field's meaning: its description (the docstring under it in the model)."""
    return " ".join((model.model_fields[name].description or "").split())


def _doc(model: type[BaseModel]) -> str:
    """A model's own docstring (not one it inherits), its first paragraph: an example
    below it is for the API reference."""
    doc = inspect.cleandoc(model.__dict__.get("__doc__") or "")
    return " ".join(doc.split("\n\n")[0].split())


def sections(
    model: type[BaseModel] = Config, prefix: str = ""
) -> list[tuple[str, str, list[KeyDoc]]]:
    """The reference as (title, model docstring, keys) sections, depth first: a model's own
    keys, then one section per nested model and per operator kind."""
    keys, nested = [], []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        tp = _strip(field.annotation)
        keys.append(
            KeyDoc(
                path,
                type_text(field.annotation),
                "(required)"
                if field.is_required()
                else default_text(field.get_default(call_default_factory=True)),
                allowed_text(field),
                meaning(model, name) or (f"see `{path}` below" if _is_model(tp) else ""),
            )
        )
        if _is_model(tp):
            nested += sections(tp, f"{path}.")
        inner = get_args(tp)[0] if get_origin(tp) is list and get_args(tp) else tp
        for sub in kind_models(inner) or kind_models(tp):
            item = f"{path}[]" if get_origin(tp) is list else path
            nested += [
                (f"`{item}` of kind `{_kind(sub)}`", _doc(sub), ks)
                for _, _, ks in sections(sub, f"{item}.")[:1]
            ]
    title = f"`{prefix.rstrip('.')}`" if prefix else "Top-level keys"
    return [(title, _doc(model), keys), *nested]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def config_reference() -> str:
    """docs/CONFIG.md's text."""
    out = [HEADER.format(stop_generations=Config().stop.generations)]
    for title, doc, keys in sections():
        out += [f"## {title}", ""]
        if doc:
            out += [doc, ""]
        out += ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        for k in keys:
            default = k.default if k.default == "(required)" else f"`{k.default}`"
            cells = [f"`{k.path}`", k.type, default, k.allowed, k.meaning]
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        out.append("")
    return "\n".join(out)
