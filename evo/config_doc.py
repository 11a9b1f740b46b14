"""The config reference (docs/CONFIG.md), generated from the config models of
:mod:`evo.config`: every key with its type, default, allowed values and meaning.

Meanings come from the models themselves: a field's ``description`` when it has one,
else the comment on its line in the model's source, and each section opens with the
model's docstring. ``scripts/config_doc.py`` writes the file; a test fails when it is out
of date.
"""

from __future__ import annotations

import inspect
import re
import types
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from evo.config import Config

#: What the file says at its top, so that nobody edits it by hand.
HEADER = """# Config reference

<!-- Generated from evo/config.py by `python scripts/config_doc.py`; do not edit by hand. -->

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
        return [a for a in get_args(tp) if _is_model(a)]
    return []


def _kind(model: type[BaseModel]) -> str:
    return str(get_args(model.model_fields["kind"].annotation)[0])


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


def source_comments(model: type[BaseModel]) -> dict[str, str]:
    """The comment at the end of each field's line in the model's source."""
    try:
        source = inspect.getsource(model)
    except (OSError, TypeError):
        return {}
    out = {}
    for line in source.splitlines():
        m = re.match(r"\s+(\w+):[^#]*#\s*(.+)$", line)
        if m and m.group(1) in model.model_fields:
            out[m.group(1)] = m.group(2).strip()
    return out


#: Meanings of the fields that have neither a ``description`` nor a comment in
#: evo/config.py, keyed ``Model.field``. A description given there takes precedence, and
#: an entry here can then go; a test fails when a key has no meaning at all.
MEANINGS: dict[str, str] = {
    "Config.name": "the run's name: the run directory is runs/NAME-DATE-TIME",
    "Config.pool": "guesses the operators may put at a node: any code (`all`) or only "
    "codes still possible there (`consistent`)",
    "Config.elitism": "the best breakers copied unchanged into the next generation",
    "Config.max_guesses": "a limit on the worst case: each code solved later adds "
    "codes × max_guesses to the total, so any breaker within the limit beats any beyond it",
    "Config.hall_of_fame": "how many of the best breakers ever seen the run keeps",
    "Config.workers": "processes that breed and evaluate offspring (same result for any number)",
    "Config.checkpoint_interval": "generations between checkpoints (evo resume starts from "
    "the last)",
    "GameConfig.pegs": "pegs of a code (N)",
    "GameConfig.colors": "colors (Mastermind) or digits (Bulls and Cows) (C)",
    "GameConfig.variant": "`mastermind` (colors may repeat) or `bulls-cows` (distinct digits)",
    "PopulationConfig.size": "breakers in the population (per island)",
    "PopulationConfig.init": "how the first population is made",
    "InitConfig.pool": "guesses of the random growth: any code or only consistent codes",
    "InitConfig.baselines": "baseline strategies (names as `evo baselines` lists them) "
    "put into the first population",
    "StopConfig.generations": "stop after this many generations",
    "StopConfig.seconds": "stop after this wall time",
    "StopConfig.target_total": "stop once the best total is at most this",
    "CrossoverConfig.rate": "probability that a pair of parents is crossed",
    "CrossoverConfig.operator": "the crossover operator",
    "MutationConfig.rate": "probability that an offspring is mutated",
    "MutationConfig.repeat": "mutations a mutated offspring gets",
    "MutationConfig.operators": "the mutation operators, one drawn per mutation with "
    "probability proportional to its weight",
    "SelectionConfig.method": "`tournament` on the total, or `nsga2` on (total, worst case)",
    "SelectionConfig.tournament_size": "breakers in each tournament",
    "MigrationConfig.interval": "generations between migrations (an epoch)",
    "MigrationConfig.migrants": "breakers each island sends to the next one on the ring",
    "MigrationConfig.replace": "which breakers the migrants replace: the worst or random ones",
    "IslandsConfig.count": "islands (sub-populations); 1: a single population",
    "IslandsConfig.migration": "how breakers move between islands",
    "IslandsConfig.overrides": "per island, config keys that differ from the run's",
    "ClusterConfig.address": "a Dask scheduler `tcp://host:port`; null: a local cluster",
    "ClusterConfig.workers": "processes of the local cluster (default: the run's workers)",
    "GraftConfig.kind": "the operator",
    "GraftConfig.node_weight": "how the node is picked: uniformly, or weighted by its code "
    "set's size or its square root",
    "ExchangeConfig.kind": "the operator",
    "ExchangeConfig.bias": "probability that the first offspring takes the better subtree "
    "at a divergence point",
    "RegrowConfig.kind": "the operator",
    "RegrowConfig.weight": "relative probability of this operator",
    "RegrowConfig.node_weight": "how the node is picked: uniformly, or weighted by its code "
    "set's size or its square root",
    "BestOfKConfig.kind": "the operator",
    "BestOfKConfig.weight": "relative probability of this operator",
    "BestOfKConfig.node_weight": "how the node is picked",
    "BestOfKConfig.k": "random regrows tried",
    "BestOfKConfig.keep_current": "keep the current subtree when every try is worse",
    "GreedyConfig.kind": "the operator",
    "GreedyConfig.weight": "relative probability of this operator",
    "GreedyConfig.node_weight": "how the node is picked",
    "GreedyConfig.heuristic": "the one-step look-ahead score: Knuth's largest part, "
    "Irving's expected size, Kooi's most parts, or entropy",
    "GreedyConfig.tries": "root guesses tried (the best one, and others from the top)",
    "GreedyConfig.top": "how many of the best-ranked guesses the tries are drawn from",
    "GreedyConfig.exact_below": "code sets of at most this many codes are solved exactly",
    "GreedyConfig.keep_current": "keep the current subtree when every try is worse",
    "GreedyConfig.max_codes": "only nodes of at most this many codes are rebuilt (null: any)",
    "ExhaustiveConfig.kind": "the operator",
    "ExhaustiveConfig.weight": "relative probability of this operator",
    "ExhaustiveConfig.node_weight": "how the node is picked",
    "ExhaustiveConfig.max_codes": "largest code set replaced by an optimal subtree",
}


def meaning(model: type[BaseModel], name: str) -> str:
    """A field's meaning: its description, else its source comment, else
    :data:`MEANINGS`, else empty."""
    field = model.model_fields[name]
    return (
        field.description
        or source_comments(model).get(name)
        or MEANINGS.get(f"{model.__name__}.{name}", "")
    )


def _doc(model: type[BaseModel]) -> str:
    doc = inspect.getdoc(model) or ""
    return "" if doc == inspect.getdoc(BaseModel) else " ".join(doc.split())


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
