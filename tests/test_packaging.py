"""What a Pi gets from `pip install .` (a wheel, not this checkout): the pages' templates and
assets and the demo's recording must be in it, or the scoreboard and `trackside demo` break
only on the Pi."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.locks import one_build_at_a_time

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_carries_templates_assets_and_the_demo_night(tmp_path: Path) -> None:
    with one_build_at_a_time():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "-q",
                "-w",
                str(tmp_path),
                str(ROOT),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    (wheel,) = tmp_path.glob("trackside-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for source in [*ROOT.glob("web/templates/*.html"), *ROOT.glob("web/static/*")]:
        assert str(source.relative_to(ROOT)) in names
    assert "companion/service/recordings/game-night.jsonl" in names
    assert "companion/games/russian_railroads/__init__.py" in names
