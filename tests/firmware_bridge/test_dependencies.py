"""firmware_bridge is an adapter: it may import the core and the games, never its neighbours."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "firmware_bridge"
ALLOWED_THIRD_PARTY = {"serial", "evdev"}
FORBIDDEN = ("web", "vision", "companion.service")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_firmware_bridge_imports_only_the_core_games_stdlib_pyserial_and_evdev() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert files
    for path in files:
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert not name.startswith(FORBIDDEN), f"{path.name} imports {name}"
            ok = (
                top in sys.stdlib_module_names
                or top in ALLOWED_THIRD_PARTY
                or top == "firmware_bridge"
                or name.startswith(("companion.core", "companion.games"))
                or name == "__future__"
            )
            assert ok, f"{path.name} imports {name}"
