"""vision/ is an adapter: it imports the core and the games, never the service, the web app
or the firmware bridge (DESIGN.md, the dependency rule); Picamera2 only inside its back end;
Pillow only to read a photo's size."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"
# Pillow only for a photo's size from its header (vision/see.py: a huge photo is decoded smaller
# at once); OpenCV cannot tell an image's size without decoding it.
ALLOWED_THIRD_PARTY = {"numpy", "cv2", "PIL"}
ALLOWED_OWN = ("companion.core", "companion.games", "vision")


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, line, at top level) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno, id(node) in top) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, node.lineno, id(node) in top))
    return found


def test_vision_imports_only_the_core_the_games_numpy_opencv_and_pillow() -> None:
    offending = []
    for path in sorted(VISION.glob("*.py")):
        for module, line, at_top in _imports(path):
            root = module.split(".")[0]
            if module == "picamera2" and not at_top:
                continue  # the Pi camera library, imported when that back end opens
            if root in sys.stdlib_module_names or root in ALLOWED_THIRD_PARTY:
                continue
            if any(module == own or module.startswith(own + ".") for own in ALLOWED_OWN):
                continue
            offending.append(f"{path.name}:{line} imports {module}")
    assert offending == []
