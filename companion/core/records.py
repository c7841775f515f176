"""Frozen, slotted records changed fast: :func:`evolve`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")

_Copy = Callable[[Any], Any]

_COPIES: dict[type, tuple[_Copy, frozenset[str]] | None] = {}
"""Per class: a function that copies a record field by field (made for the class, one line
per field), and its fields; ``None`` when :func:`evolve` must leave the class to ``replace``."""


def copier(cls: type) -> tuple[_Copy, frozenset[str]] | None:
    """How :func:`evolve` copies a ``cls`` record itself, or ``None`` (it leaves it to
    ``dataclasses.replace``)."""
    if cls not in _COPIES:
        slots: Any = getattr(cls, "__slots__", None)
        fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
        plain = (
            isinstance(slots, tuple)
            and bool(fields)
            and not hasattr(cls, "__post_init__")
            and all(f.init for f in fields)
            and tuple(slots) == tuple(f.name for f in fields)
            and all(name.isidentifier() for name in slots)
        )
        if not plain:
            _COPIES[cls] = None
        else:
            body = "".join(f"    put(new, {name!r}, obj.{name})\n" for name in slots)
            code = f"def copy(obj):\n    new = make(cls)\n{body}    return new\n"
            scope: dict[str, Any] = {"make": object.__new__, "put": object.__setattr__, "cls": cls}
            exec(code, scope)  # (made here from the class's own field names)
            _COPIES[cls] = (scope["copy"], frozenset(slots))
    return _COPIES[cls]


def evolve(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``, without going through ``__init__`` for a
    slotted dataclass with no ``__post_init__`` (a game's ``apply`` is on the choices tree's
    and the correction listing's hot path: every leaf offered is applied, and every correction
    replays the later actions); any other record goes through ``replace``. A name that is not
    a field is refused, as ``replace`` refuses it."""
    known = copier(type(obj))
    if known is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    copy, names = known
    if not changes.keys() <= names:
        unknown = sorted(set(changes) - names)
        raise TypeError(
            f"{type(obj).__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}"
        )
    new = copy(obj)
    for name, value in changes.items():
        object.__setattr__(new, name, value)
    return cast("T", new)
