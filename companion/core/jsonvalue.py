"""JSON values, frozen for immutable records and thawed for output."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject: TypeAlias = dict[str, JsonValue]

FrozenJson: TypeAlias = Any
"""A frozen JSON value: mappings are read-only proxies, lists are tuples."""


def freeze(value: object) -> FrozenJson:
    """Deep-copy a JSON-like value into an immutable one (dict → read-only mapping, list → tuple)."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"not a JSON value: {value!r}")


def thaw(value: object) -> JsonValue:
    """The inverse of :func:`freeze`: plain dicts and lists, ready for ``json.dumps``."""
    if isinstance(value, Mapping):
        return {str(k): thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"not a JSON value: {value!r}")


def dumps(value: object) -> str:
    """Canonical compact JSON (sorted keys), so equal values give equal text."""
    return json.dumps(thaw(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
