"""Frozen, slotted records changed fast: :func:`evolve`."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS: dict[type, tuple[tuple[str, ...], frozenset[str]] | None] = {}
"""Per class: its fields when :func:`evolve` may copy them itself, else ``None``."""


def _fields(cls: type) -> tuple[tuple[str, ...], frozenset[str]] | None:
    if cls not in _FIELDS:
        slots: Any = getattr(cls, "__slots__", None)
        fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
        plain = (
            isinstance(slots, tuple)
            and bool(fields)
            and not hasattr(cls, "__post_init__")
            and all(f.init for f in fields)
            and tuple(slots) == tuple(f.name for f in fields)
        )
        _FIELDS[cls] = (tuple(slots), frozenset(slots)) if plain else None
    return _FIELDS[cls]


def evolve(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``, without going through ``__init__`` for a
    slotted dataclass with no ``__post_init__`` (a game's ``apply`` is on the choices tree's
    and the correction listing's hot path: every leaf offered is applied, and every correction
    replays the later actions); any other record goes through ``replace``. A name that is not
    a field is refused, as ``replace`` refuses it."""
    cls = type(obj)
    known = _fields(cls)
    if known is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    slots, names = known
    new = object.__new__(cls)
    for name in slots:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(obj, name))
    if not changes.keys() <= names:
        unknown = sorted(set(changes) - names)
        raise TypeError(
            f"{cls.__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}"
        )
    return new
