"""Reading untrusted JSON with field paths in every error.

Games parse table snapshots and action arguments with :class:`Field`, so a malformed input is
refused with the exact place, e.g. ``players[1].rails.kiev.white: Kiev allows black, grey, brown
only``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

from companion.core.errors import SnapshotError

_MISSING = object()


class Field:
    """A value found at ``path`` in an untrusted JSON document."""

    __slots__ = ("path", "value")

    def __init__(self, value: Any, path: str = "") -> None:
        self.value = value
        self.path = path

    def fail(self, reason: str) -> NoReturn:
        raise SnapshotError(self.path, reason)

    def _child(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    # -- containers -------------------------------------------------------------------------
    def obj(self) -> Mapping[str, Any]:
        if not isinstance(self.value, Mapping):
            self.fail(f"expected an object, got {self.value!r}")
        return self.value

    def has(self, key: str) -> bool:
        return key in self.obj()

    def get(self, key: str, default: Any = _MISSING) -> Field:
        """The field ``key``; missing is an error unless a default is given."""
        data = self.obj()
        if key not in data:
            if default is _MISSING:
                raise SnapshotError(self._child(key), "missing")
            return Field(default, self._child(key))
        return Field(data[key], self._child(key))

    def items(self) -> Iterator[tuple[str, Field]]:
        for key, value in self.obj().items():
            yield str(key), Field(value, self._child(str(key)))

    def only(self, *allowed: str) -> None:
        """Refuse keys not in ``allowed`` (a typo must not be silently ignored)."""
        for key in self.obj():
            if key not in allowed:
                raise SnapshotError(self._child(str(key)), "unknown field")

    def list(self, *, max_len: int | None = None) -> list[Field]:
        if not isinstance(self.value, list):
            self.fail(f"expected a list, got {self.value!r}")
        if max_len is not None and len(self.value) > max_len:
            self.fail(f"at most {max_len} entries allowed, got {len(self.value)}")
        return [Field(v, self._child(i)) for i, v in enumerate(self.value)]

    # -- scalars ----------------------------------------------------------------------------
    def int(self, lo: int | None = None, hi: int | None = None) -> int:
        v = self.value
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(f"expected a whole number, got {v!r}")
        if lo is not None and v < lo:
            self.fail(f"{v} is below the minimum {lo}")
        if hi is not None and v > hi:
            self.fail(f"{v} is above the maximum {hi}")
        return v

    def bool(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail(f"expected true or false, got {self.value!r}")
        return self.value

    def str(self, choices: tuple[str, ...] | frozenset[str] | None = None) -> str:
        v = self.value
        if not isinstance(v, str):
            self.fail(f"expected text, got {v!r}")
        if choices is not None and v not in choices:
            self.fail(f"{v!r} is not one of {', '.join(sorted(choices))}")
        return v
