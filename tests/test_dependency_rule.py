"""The dependency rule (DESIGN.md): core ← games ← adapters ← service.

core and games import only the standard library (and each other, in that order); the adapters
(firmware_bridge, vision, web) import core and games but never each other. Checked on the
source with ``ast``, so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = ("firmware_bridge", "vision", "web")
# the outside libraries each adapter exists to wrap, and nothing else
THIRD_PARTY = {
    "firmware_bridge": {"serial", "evdev", "paho"},
    # Pillow only for a photo's size from its header (vision/see.py)
    "vision": {"cv2", "numpy", "picamera2", "libcamera", "PIL"},
    "web": {"flask", "werkzeug", "jinja2", "markupsafe", "segno", "waitress", "babel", "icu"},
}
STDLIB = set(sys.stdlib_module_names)


def modules_imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


def top(name: str) -> str:
    return name.split(".", maxsplit=1)[0]


@pytest.mark.parametrize("package", ["companion.core", "companion.games"])
def test_core_and_games_import_only_the_standard_library(package: str) -> None:
    allowed = (
        {"companion.core"} if package == "companion.core" else {"companion.core", "companion.games"}
    )
    offences = []
    for path in sources(package):
        for name in modules_imported(path):
            if top(name) in STDLIB or name == "__future__":
                continue
            if any(name == a or name.startswith(a + ".") for a in allowed):
                continue
            offences.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offences == []


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapters_import_core_games_and_their_own_library_only(adapter: str) -> None:
    offences = []
    for path in sources(adapter):
        for name in modules_imported(path):
            ok = (
                top(name) in STDLIB
                or name == "__future__"
                or top(name) == adapter
                or top(name) in THIRD_PARTY[adapter]
                or name.startswith("companion.core")
                # the web renders the games' public views: no game module (issue 45)
                or (adapter != "web" and name.startswith("companion.games"))
            )
            if not ok:  # e.g. another adapter, or companion.service
                offences.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offences == []


GAME_IMPORT = re.compile(r"^\s*(from\s+companion\.games\b|import\s+companion\.games\b)", re.M)


def test_web_imports_no_game_module() -> None:
    """DESIGN.md: the web package renders the games' public views and imports no game module
    (a screen that works a game out gets it wrong: issue 45's trains left and failed tickets).
    A plain text search, so even an import in a string-built module path shows up."""
    offences = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
        for path in sources("web")
        for text in [path.read_text(encoding="utf-8")]
        for m in GAME_IMPORT.finditer(text)
    ]
    assert offences == []


def test_the_rule_finds_offences(tmp_path: Path) -> None:
    """The checker itself works: a file importing flask is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    import flask\n    from web import app\n")
    assert modules_imported(bad) == {"flask", "web"}


# The club hub (docs/hub.md) is a composition root like companion.service: it may use core,
# games and its own libraries (paho for the club broker, Flask for its pages), but not the
# table's service, its adapters or its web pages (it is a separate program on another machine
# with its own pages), and nothing imports it.
HUB_THIRD_PARTY = {"paho", "flask", "werkzeug", "jinja2", "markupsafe"}


def test_the_hub_imports_core_games_and_its_own_libraries_only() -> None:
    offences = []
    for path in sources("companion.hub"):
        for name in modules_imported(path):
            ok = (
                top(name) in STDLIB
                or name == "__future__"
                or top(name) in HUB_THIRD_PARTY
                or name.startswith(("companion.core", "companion.games", "companion.hub"))
            )
            if not ok:
                offences.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offences == []


def test_nothing_imports_the_hub() -> None:
    offences = []
    for package in ("companion.core", "companion.games", "companion.service", *ADAPTERS):
        for path in sources(package):
            for name in modules_imported(path):
                if name.startswith("companion.hub"):
                    offences.append(f"{path.relative_to(ROOT)} imports {name}")
    # the command line starts it (a lazy import in `trackside hub`), and only there
    assert sorted(offences) == [
        "companion/service/cli.py imports companion.hub.config",
        "companion/service/cli.py imports companion.hub.run",
    ]
