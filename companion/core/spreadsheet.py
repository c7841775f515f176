"""Cells for CSV files people open in a spreadsheet: the table's export
(``companion.service.export``) and the club hub's league and results (``companion.hub.web``)
escape with this one function."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell a spreadsheet will not run: text starting with ``= + - @`` (or a tab or carriage
    return) gets a leading apostrophe (OWASP "CSV injection"), so a player named
    ``=HYPERLINK(…)`` stays a name. Numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
