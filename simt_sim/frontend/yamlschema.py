"""Load YAML with source positions and check it against a small schema.

Every complaint names file:line:column and what was expected, for configs and manifests alike.
A schema is a dict: key -> Field, or key -> nested dict for a mapping.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import yaml

from simt_sim.errors import InputError, SourceLoc


@dataclass(frozen=True)
class Field:
    kind: type | tuple            # int, float, str, bool, list, dict or a tuple of them
    check: Callable[[Any], str | None] | None = None   # returns an error message or None
    required: bool = False
    doc: str = ""


def positive(v) -> str | None:
    return None if v > 0 else "must be positive"


def non_negative(v) -> str | None:
    return None if v >= 0 else "must not be negative"


def one_of(*choices) -> Callable[[Any], str | None]:
    def check(v):
        return None if v in choices else f"must be one of {', '.join(map(str, choices))}"
    return check


def between(lo, hi) -> Callable[[Any], str | None]:
    def check(v):
        return None if lo <= v <= hi else f"must be between {lo} and {hi}"
    return check


def _loc(path: str, node: yaml.Node) -> SourceLoc:
    return SourceLoc(path, node.start_mark.line + 1, node.start_mark.column + 1)


def load_yaml_nodes(path: str, text: str | None = None) -> tuple[Any, yaml.Node]:
    """(python data, node tree) of a YAML file; syntax errors become InputError with a position."""
    try:
        if text is None:
            text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read {path}: not UTF-8 text (byte {e.start})") from None
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        loc = SourceLoc(path, mark.line + 1, mark.column + 1) if mark else None
        raise InputError(f"invalid YAML: {e.problem or e.context}", loc) from None
    except yaml.reader.ReaderError as e:          # a control character; position indexes the text
        line = text.count("\n", 0, e.position) + 1
        column = e.position - text.rfind("\n", 0, e.position)
        raise InputError(f"invalid YAML: character {e.character:#x} is not allowed",
                         SourceLoc(path, line, column)) from None
    except RecursionError:
        raise InputError("invalid YAML: nested too deeply", SourceLoc(path, 1, 1)) from None
    return data, node


def node_at(node: yaml.Node, *keys) -> yaml.Node | None:
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == key:
                    node = v
                    break
            else:
                return None
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return None
    return node


def key_node(node: yaml.Node, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, _ in node.value:
            if k.value == key:
                return k
    return None


def error_at(path: str, root: yaml.Node | None, keys: tuple, message: str) -> InputError:
    node = node_at(root, *keys) if keys else root
    node = node if node is not None else root
    # root is None for an empty document: point at its start
    return InputError(message, _loc(path, node) if node is not None else SourceLoc(path, 1, 1))


def validate(data: Any, schema: dict, path: str, root: yaml.Node, prefix: tuple = ()) -> None:
    where = ".".join(map(str, prefix))
    if not isinstance(data, dict):
        raise error_at(path, root, prefix, f"expected a mapping{' for ' + where if where else ''}")
    for key, value in data.items():
        if key not in schema:
            parent = node_at(root, *prefix) if prefix else root
            knode = key_node(parent, key) if parent is not None else None
            allowed = ", ".join(sorted(schema))
            raise InputError(f"unknown key {'.'.join(map(str, prefix + (key,)))!r} (expected one of: {allowed})",
                             _loc(path, knode) if knode is not None else None)
        spec = schema[key]
        if isinstance(spec, dict):
            validate(value, spec, path, root, prefix + (key,))
            continue
        kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok and float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        name = ".".join(map(str, prefix + (key,)))
        if not ok:
            want = " or ".join(k.__name__ for k in kinds)
            raise error_at(path, root, prefix + (key,), f"{name}: expected {want}, found {type(value).__name__} {value!r}")
        if spec.check:
            problem = spec.check(value)
            if problem:
                raise error_at(path, root, prefix + (key,), f"{name} {problem} (found {value!r})")
    for key, spec in schema.items():
        if isinstance(spec, Field) and spec.required and key not in data:
            raise error_at(path, root, prefix, f"missing required key {'.'.join(map(str, prefix + (key,)))!r}")
