"""The hub deployed (issue 51): its systemd unit hardened (``systemd-analyze security
--offline=yes`` at most 2.5), ``trackside hub`` saying READY=1 to systemd's notify socket, and
``install.sh --hub`` staged: the club broker's config, ACL and password file, the hub's config
with its own login (never printed), table logins from CLUB_TABLES, the unit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.hub.config import load_hub_settings
from tests.deploy.test_systemd import NotifySocket
from tests.firmware_bridge.conftest import free_port

pytestmark = pytest.mark.slow  # runs systemd-analyze, the installer, the hub
ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "hardware" / "deploy"
UNIT = DEPLOY / "trackside-hub.service"
MAX_EXPOSURE = 2.5


def test_the_hub_unit_scores_at_most_2_5_in_systemd_analyze_security(tmp_path: Path) -> None:
    shutil.copy(UNIT, tmp_path / UNIT.name)
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", UNIT.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = re.search(
        r"Overall exposure level for trackside-hub\.service: ([0-9.]+)", result.stdout
    )
    assert found is not None, result.stdout + result.stderr
    assert float(found.group(1)) <= MAX_EXPOSURE, result.stdout
    lines = UNIT.read_text().splitlines()
    assert (
        "ExecStart=/opt/trackside/venv/bin/trackside hub --config /var/lib/trackside/config/hub.toml"
        in lines
    )
    assert (
        "Type=notify" in lines
        and "PrivateDevices=yes" in lines
        and "CapabilityBoundingSet=" in lines
    )


def test_the_hub_says_ready_to_systemd_once_it_serves(tmp_path: Path) -> None:
    notify = NotifySocket(tmp_path / "notify")
    config = tmp_path / "hub.toml"
    config.write_text(
        f'[hub]\nhost = "127.0.0.1"\nport = {free_port()}\n'
        f'database = "{tmp_path / "hub.sqlite3"}"\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {free_port()}\n'  # no broker there: it retries
    )
    env = {**os.environ, "NOTIFY_SOCKET": str(notify.path)}
    with (tmp_path / "hub.log").open("wb") as log:
        hub = subprocess.Popen(
            [sys.executable, "-m", "companion.service.cli", "hub", "--config", str(config)],
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        notify.wait_for("READY=1", 60)
    finally:
        hub.terminate()
        hub.wait(20)
        notify.close()


def install_hub(stage: Path, tables: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DESTDIR", "DRY_RUN", "HUB")}
    env |= {"DESTDIR": str(stage), "CLUB_TABLES": tables}
    return subprocess.run(
        ["bash", str(DEPLOY / "install.sh"), "--hub"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_install_hub_puts_the_club_broker_and_the_hub_in_place(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    result = install_hub(stage, "table-1 table-2")
    assert result.returncode == 0, result.stderr
    etc = stage / "etc"
    assert (etc / "mosquitto/conf.d/trackside-club-broker.conf").read_text() == (
        DEPLOY / "mosquitto-club.conf"
    ).read_text()
    assert (etc / "mosquitto/club.acl").read_text() == (DEPLOY / "mosquitto-club.acl").read_text()
    assert (etc / "systemd/system/trackside-hub.service").read_text() == UNIT.read_text()
    assert not (etc / "systemd/system/trackside.service").exists()  # not a table
    # the hub's config: its own login on the club broker, a fresh password never printed
    config = stage / "var/lib/trackside/config/hub.toml"
    assert oct(config.stat().st_mode)[-3:] == "640"
    settings = load_hub_settings(config)
    assert settings.broker.username == "hub" and settings.broker.host == "127.0.0.1"
    secret = settings.broker.password or ""
    assert len(secret) == 24 and secret.isalnum() and secret not in result.stdout
    assert "would run: mosquitto_passwd -b /etc/mosquitto/club.passwd hub <" in result.stdout
    # each table named gets a login of its own, listed for the operator only
    logins = stage / "var/lib/trackside/config/club-logins"
    assert oct(logins.stat().st_mode)[-3:] == "600"
    made = dict(line.split() for line in logins.read_text().splitlines())
    assert sorted(made) == ["table-1", "table-2"] and len(set(made.values())) == 2
    assert all(p not in result.stdout for p in made.values())
    assert "would run: systemctl enable trackside-hub.service" in result.stdout
    # again: the hub's config (and its password) is kept
    again = install_hub(stage)
    assert again.returncode == 0, again.stderr
    assert "keeping the existing hub config" in again.stdout
    assert load_hub_settings(config).broker.password == secret


def test_the_installed_hub_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    assert install_hub(stage).returncode == 0
    # verify resolves the unit's dependencies and ExecStart inside --root: the system's own
    # unit files and a stand-in for the venv's entry point (no pip install in a test)
    shutil.copytree("/usr/lib/systemd/system", stage / "usr/lib/systemd/system", symlinks=True)
    entry = stage / "opt/trackside/venv/bin/trackside"
    entry.parent.mkdir(parents=True)
    entry.write_text("#!/bin/sh\n")
    entry.chmod(0o755)
    result = subprocess.run(
        ["systemd-analyze", "verify", f"--root={stage}", "/etc/systemd/system/" + UNIT.name],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def test_install_hub_refuses_a_table_id_that_cannot_be_a_login(tmp_path: Path) -> None:
    result = install_hub(tmp_path / "stage", "table-1 bad/id")
    assert result.returncode != 0
    assert "CLUB_TABLES: 'bad/id' cannot be a table id" in result.stderr
