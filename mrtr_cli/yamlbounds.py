"""YAML from an untrusted source (a skill's frontmatter from a server, a host's config file),
read within bounds: its size before parsing, and the number of nodes it expands to (an
alias counts as every node it repeats), so a few kilobytes of nested aliases (a "billion
laughs") cannot make a structure that takes hours to walk.

Parsing (PyYAML's safe loader) and what follows it (turning the value into JSON,
comparing it) run C code that holds the interpreter: a signal (Ctrl-C, SIGTERM) cannot
stop it while it runs. Bounding the input is what keeps every such step short.
"""

from __future__ import annotations

from typing import Any

#: The largest YAML text read (bytes of UTF-8).
MAX_YAML_BYTES = 64 * 1024
#: The most nodes (scalars, sequences, mappings) a YAML text may expand to, aliases
#: counted as the nodes they repeat.
MAX_YAML_NODES = 10_000
#: The deepest nesting of sequences and mappings.
MAX_YAML_DEPTH = 64


class YamlTooLarge(ValueError):
    """The YAML is over one of the bounds; the message names the bound and its value."""


def load_bounded_yaml(text: str, *, max_bytes: int = MAX_YAML_BYTES, max_nodes: int = MAX_YAML_NODES) -> Any:
    """Parse one YAML document from an untrusted source into JSON values (str keys;
    dates and other YAML-only scalars as strings).

    Args:
        text: the YAML text.
        max_bytes: the largest text accepted (its UTF-8 size), checked before parsing.
        max_nodes: the most nodes the document may expand to (aliases included).

    Returns:
        dict / list / str / int / float / bool / None.

    Raises:
        YamlTooLarge: over `max_bytes`, `max_nodes` or `MAX_YAML_DEPTH`, or an alias
            inside the node it names (a structure without end); the message says which.
        ValueError: not valid YAML (message: "not valid YAML", with its line when known).
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise YamlTooLarge(f"is {size} bytes, more than the limit of {max_bytes} bytes")
    import yaml  # noqa: PLC0415 - only when YAML is read

    loader = None
    try:
        loader = _loader_class(yaml)(text, max_nodes)  # reading starts here: bad characters raise
        value = loader.get_single_data()
    except YamlTooLarge:
        raise
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:  # int() of 5000 digits, bad keys
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"is not valid YAML{where}") from None
    finally:
        if loader is not None:
            loader.dispose()
    return _as_json(value)


_LOADERS: dict[int, type] = {}


def _loader_class(yaml: Any) -> type:
    """A `yaml.SafeLoader` that counts the nodes it composes, aliases by their weight."""
    cached = _LOADERS.get(id(yaml))
    if cached is not None:
        return cached

    class BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]  # `yaml` is the module passed in (Any here)
        def __init__(self, stream: str, max_nodes: int) -> None:
            super().__init__(stream)
            self.max_nodes = max_nodes
            self.expanded = 0
            self.weights: dict[Any, int] = {}
            self.depth = 0

        def _spend(self, weight: int) -> None:
            self.expanded += weight
            if self.expanded > self.max_nodes:
                raise YamlTooLarge(f"expands to more than {self.max_nodes} YAML nodes (aliases counted as "
                                   "the nodes they repeat), the limit")

        def compose_node(self, parent: object, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                anchor = self.peek_event().anchor
                target = self.anchors.get(anchor)
                if target is not None:
                    weight = self.weights.get(target)
                    if weight is None:  # the anchor's own node is still being composed
                        raise YamlTooLarge(f"has an alias (*{anchor[:40]}) inside the node it names, "
                                           "a structure without end")
                    self._spend(weight)
                return super().compose_node(parent, index)
            start = self.expanded
            self._spend(1)
            self.depth += 1
            if self.depth > MAX_YAML_DEPTH:
                raise YamlTooLarge(f"is nested more than {MAX_YAML_DEPTH} levels deep, the limit")
            try:
                node = super().compose_node(parent, index)
            finally:
                self.depth -= 1
            self.weights[node] = self.expanded - start
            return node

    _LOADERS[id(yaml)] = BoundedLoader
    return BoundedLoader


def _as_json(value: object) -> Any:
    """`value` (from the safe loader, bounded in nodes) as JSON values: keys as strings,
    a set as a mapping to nulls, dates and other YAML-only scalars as `str()` of them."""
    if isinstance(value, dict):
        return {_key(k): _as_json(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return {_key(k): None for k in value}
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


def _key(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    return str(key)
