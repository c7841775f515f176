"""Problems of an impossible table, python-chess ``status()`` style.

A game's ``problems(state)`` returns every problem it finds (empty: the table is consistent).
Sensors may report a table that cannot be; it is held, and these tell people what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.jsonvalue import JsonObject


@dataclass(frozen=True, slots=True)
class Problem:
    """``code`` is stable for tests and pages; ``where`` names the field or component."""

    code: str
    message: str
    where: str = ""

    def to_json(self) -> JsonObject:
        return {"code": self.code, "message": self.message, "where": self.where}

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message
