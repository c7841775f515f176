"""The installer's club-bridge step, staged: with [club] in the table's config it writes the
Mosquitto bridge and restarts Mosquitto; without, it says there is none; a bad [club] stops it
naming the option."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs the installer script

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "hardware" / "deploy" / "install.sh"
CONFIG = "var/lib/trackside/config/trackside.toml"
BRIDGE = "etc/mosquitto/conf.d/trackside-club.conf"


def install(stage: Path, config: str | None) -> subprocess.CompletedProcess[str]:
    if config is not None:
        (stage / CONFIG).parent.mkdir(parents=True, exist_ok=True)
        (stage / CONFIG).write_text(config)
    env = {k: v for k, v in os.environ.items() if k not in ("DESTDIR", "DRY_RUN")}
    env |= {"DESTDIR": str(stage), "TRACKSIDE_PYTHON": sys.executable}
    return subprocess.run(
        ["bash", str(INSTALL)], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_club_section_makes_the_bridge(tmp_path: Path) -> None:
    result = install(
        tmp_path,
        '[mqtt]\nhost = "127.0.0.1"\ntable_id = "stul-4"\n\n[club]\nhost = "club.local"\n',
    )
    assert result.returncode == 0, result.stderr
    bridge = (tmp_path / BRIDGE).read_text()
    assert "connection trackside-club-stul-4" in bridge
    assert "address club.local:1883" in bridge and "cleansession false" in bridge
    assert "topic request in 1 trackside/stul-4/ trackside/stul-4/" in bridge
    assert "would run: systemctl restart mosquitto" in result.stdout


def test_without_a_club_section_there_is_no_bridge(tmp_path: Path) -> None:
    result = install(tmp_path, None)
    assert result.returncode == 0, result.stderr
    assert "no [club] section in /var/lib/trackside/config/trackside.toml" in result.stdout
    assert not (tmp_path / BRIDGE).exists()


def test_a_bad_club_section_stops_the_install_naming_the_option(tmp_path: Path) -> None:
    result = install(
        tmp_path, '[mqtt]\nhost = "127.0.0.1"\n[club]\nhost = "club.local"\nport = 0\n'
    )
    assert result.returncode != 0
    assert "club.port" in result.stderr
    assert "could not be written" in result.stderr  # the first step that reads the config
    assert not (tmp_path / BRIDGE).exists()
