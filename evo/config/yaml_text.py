"""YAML text read safely: PyYAML's safe loader (no object of the file's choosing is
built), with aliases bounded (a few lines cannot expand to billions of values) and
errors on one line naming where they are."""

from __future__ import annotations

from typing import Any

import yaml

from evo.config.base import ConfigError

#: Values a config may hold once its YAML aliases (``*name``) are expanded: each alias
#: repeats a whole subtree, so a few nested ones make a file of a few lines expand to
#: billions of values.
MAX_YAML_VALUES = 100_000


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses an alias inside the node it names (a structure
    that contains itself)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._open: list[str] = []

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            if event.anchor in self._open:
                raise ConfigError(
                    f"{self.name}: line {event.start_mark.line + 1}: *{event.anchor} refers to "
                    "the node that contains it (a YAML structure cannot contain itself)"
                )
            return super().compose_node(parent, index)
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._open.append(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            if anchor is not None:
                self._open.remove(anchor)


def _expanded_size(node: yaml.Node) -> int:
    """How many values ``node`` holds once its aliases are expanded (shared nodes are
    counted once per use, each computed once)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in sizes:
            continue
        kids: list[yaml.Node] = []
        if isinstance(n, yaml.SequenceNode):
            kids = list(n.value)
        elif isinstance(n, yaml.MappingNode):
            kids = [x for pair in n.value for x in pair]
        if done or not kids:
            sizes[id(n)] = 1 + sum(sizes[id(k)] for k in kids)
        else:
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in sizes)
    return sizes[id(node)]


def parse_yaml(text: str, *, where: str) -> Any:
    """YAML text as plain data (safe types only), with one-line errors naming ``where``:
    invalid YAML, nested too deep, a structure that contains itself, or one that expands
    (through aliases) to more than :data:`MAX_YAML_VALUES` values."""
    try:
        loader = _SafeLoader(text)  # checks the characters at once
    except yaml.YAMLError as e:
        raise ConfigError(f"{where} is not valid YAML: {_one_line(str(e))}") from None
    loader.name = where
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        size = _expanded_size(node)
        if size > MAX_YAML_VALUES:
            raise ConfigError(
                f"{where}: its YAML aliases (*name) expand to {size:,} values, more than "
                f"{MAX_YAML_VALUES:,}"
            )
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        raise ConfigError(f"{where} is not valid YAML: {_one_line(str(e))}") from None
    except RecursionError:
        raise ConfigError(
            f"{where} is nested too deep to read (mappings or lists inside each other)"
        ) from None
    finally:
        loader.dispose()


def _one_line(text: str) -> str:
    return " ".join(text.split())
