"""The Raspberry Pi install, staged into a temporary root: the installer writes every file where
it belongs and prints the system commands it would run; the unit passes `systemd-analyze verify`;
the scripts pass shellcheck; a backup of a live database is a faithful copy; an upgrade keeps the
config and the database; logrotate moves the log away while the service keeps logging.

What cannot run in a container (useradd, systemctl, udevadm, a real pip install into
/opt/trackside) is asserted as the printed command line instead."""

from __future__ import annotations

import grp
import logging
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core import Observation, ObservationKind
from companion.service.cli import _log_to_file
from companion.service.config import load_settings
from companion.service.engine import Engine
from companion.service.store import EventStore

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "hardware" / "deploy"
SCRIPTS = ["install.sh", "upgrade.sh", "backup.sh", "common.sh", "uninstall.sh"]
UNIT = "etc/systemd/system/trackside.service"
DATA = "var/lib/trackside"


def run_script(
    name: str, *args: str, destdir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DESTDIR", "DRY_RUN")}
    if destdir is not None:
        env["DESTDIR"] = str(destdir)
    return subprocess.run(
        ["bash", str(DEPLOY / name), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def stage(tmp_path: Path) -> Path:
    root = tmp_path / "stage"
    result = run_script("install.sh", destdir=root)
    assert result.returncode == 0, result.stderr
    return root


def unit_options(path: Path) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            options.setdefault(key, []).append(value)
    return options


def test_the_installer_stages_every_file_and_prints_the_system_commands(tmp_path: Path) -> None:
    root = tmp_path / "stage"
    result = run_script("install.sh", destdir=root)
    assert result.returncode == 0, result.stderr
    for path in (
        UNIT,
        "etc/udev/rules.d/99-trackside-readers.rules",
        "etc/logrotate.d/trackside",
        f"{DATA}/config/trackside.toml",
        "opt/trackside/deploy/backup.sh",
        "opt/trackside/docs/deploy.md",
    ):
        assert (root / path).is_file(), path
    for folder in ("config", "logs", "db", "db/backups"):
        assert (root / DATA / folder).is_dir(), folder
    assert (root / DATA / "config").stat().st_mode & 0o777 == 0o750
    assert (root / DATA / "config/trackside.toml").stat().st_mode & 0o777 == 0o640
    assert os.readlink(root / "usr/local/bin/trackside") == "/opt/trackside/venv/bin/trackside"
    # the udev rules are the readers' own file, not a copy that could drift
    rules = ROOT / "hardware/udev/99-trackside-readers.rules"
    assert (root / "etc/udev/rules.d/99-trackside-readers.rules").read_bytes() == rules.read_bytes()
    out = result.stdout
    assert "would run: python3 -m venv --system-site-packages /opt/trackside/venv" in out
    assert (
        "-m pip install --disable-pip-version-check --upgrade --constraint"
        f" /opt/trackside/deploy/apt-constraints.txt {ROOT}\\[hid\\]"
    ) in out
    # pip is held to apt's numpy (and Pillow, when apt has it): Picamera2 is built against them
    pins = (root / "opt/trackside/deploy/apt-constraints.txt").read_text().splitlines()
    assert any(pin.startswith("numpy==") for pin in pins), pins
    assert "python3-numpy python3-pil" in out
    assert "useradd --system --user-group --home-dir /var/lib/trackside" in out
    assert "usermod --append --groups dialout\\,video trackside" in out
    assert "would run: chown -R trackside:trackside /var/lib/trackside" in out
    # enabled and started only after its file is in place
    assert out.index("installed /etc/systemd/system/trackside.service") < out.index(
        "would run: systemctl enable trackside.service"
    )
    assert "would run: systemctl restart trackside.service" in out


def test_the_written_config_is_a_valid_commented_config(stage: Path) -> None:
    config = stage / DATA / "config/trackside.toml"
    settings = load_settings(config)
    assert settings.database.path == Path("/var/lib/trackside/db/trackside.sqlite3")
    assert settings.web.port == 8080
    assert settings.web.pin is None  # changes from the pages stay off until the owner picks one
    assert settings.readers == ()
    assert settings.mqtt is None
    assert sum(line.startswith("#") for line in config.read_text().splitlines()) > 20


def test_installing_again_keeps_the_owners_config(stage: Path) -> None:
    config = stage / DATA / "config/trackside.toml"
    config.write_text('[web]\npin = "246813"\n')
    again = run_script("install.sh", destdir=stage)
    assert again.returncode == 0, again.stderr
    assert "keeping the existing config /var/lib/trackside/config/trackside.toml" in again.stdout
    assert config.read_text() == '[web]\npin = "246813"\n'


def test_a_dry_run_changes_nothing(tmp_path: Path) -> None:
    before = set(tmp_path.iterdir())
    result = run_script("install.sh", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "would install" in result.stdout
    assert "would run: systemctl enable trackside.service" in result.stdout
    assert set(tmp_path.iterdir()) == before
    assert not Path("/etc/systemd/system/trackside.service").exists()


def test_an_unknown_option_is_refused() -> None:
    result = run_script("install.sh", "--frobnicate")
    assert result.returncode == 1
    assert "unknown option --frobnicate" in result.stderr


def test_the_unit_restarts_forever_as_a_plain_user_with_device_groups(stage: Path) -> None:
    options = unit_options(stage / UNIT)
    assert options["Restart"] == ["always"]
    assert options["StartLimitIntervalSec"] == ["0"]
    assert options["After"] == ["network-online.target"]
    assert options["Wants"] == ["network-online.target"]
    assert options["User"] == ["trackside"]
    assert options["SupplementaryGroups"] == ["dialout video"]  # no input: every keyboard
    assert options["ExecStart"] == [
        "/opt/trackside/venv/bin/trackside run --config /var/lib/trackside/config/trackside.toml"
    ]
    assert options["ReadWritePaths"] == ["/var/lib/trackside"]
    assert options["ProtectSystem"] == ["strict"]
    assert options["RemoveIPC"] == ["yes"]  # no IPC objects outlive the service
    # each of these installs a device allow-list or hides groups: serial, camera and HID die
    for breaks_devices in (
        "PrivateDevices",
        "DevicePolicy",
        "DeviceAllow",
        "ProtectClock",
        "PrivateUsers",
    ):
        assert breaks_devices not in options, breaks_devices
    assert "TRACKSIDE_LOG_FILE=/var/lib/trackside/logs/trackside.log" in options["Environment"]


def test_the_unit_passes_systemd_analyze_verify(stage: Path) -> None:
    # verify resolves the unit's dependencies and ExecStart inside --root: give it the
    # system's own unit files and a stand-in for the venv's entry point
    shutil.copytree("/usr/lib/systemd/system", stage / "usr/lib/systemd/system", symlinks=True)
    entry = stage / "opt/trackside/venv/bin/trackside"
    entry.parent.mkdir(parents=True)
    entry.write_text("#!/bin/sh\n")
    entry.chmod(0o755)
    result = subprocess.run(
        ["systemd-analyze", "verify", f"--root={stage}", "/" + UNIT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr  # unknown keys are only warnings: none allowed


def test_the_scripts_pass_shellcheck() -> None:
    result = subprocess.run(
        ["shellcheck", "--external-sources", *(str(DEPLOY / s) for s in SCRIPTS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout


def live_store(path: Path, scans: int) -> EventStore:
    store = EventStore(path)
    engine = Engine(store)
    for n in range(scans):
        engine.handle(
            Observation("seat-1", ObservationKind.TAG_PRESENT, {"uid": f"04AB{n:08X}"}, 1)
        )
    return store


def inputs(path: Path) -> list[dict[str, object]]:
    store = EventStore.open_readonly(path)
    try:
        return store.inputs(limit=1000)
    finally:
        store.close()


def test_a_backup_of_the_live_database_is_a_checked_faithful_copy(tmp_path: Path) -> None:
    db = tmp_path / "db" / "trackside.sqlite3"
    store = live_store(db, scans=25)  # still open: the service is running
    try:
        result = run_script("backup.sh", str(db))
        assert result.returncode == 0, result.stderr
        copy = Path(result.stdout.splitlines()[-1])
        assert copy.parent == db.parent / "backups"
        assert copy.stat().st_mode & 0o777 == 0o640
        assert inputs(copy) == inputs(db)
        assert len(inputs(copy)) == 25
    finally:
        store.close()


def test_a_backup_without_a_database_says_so(tmp_path: Path) -> None:
    result = run_script("backup.sh", str(tmp_path / "nothing.sqlite3"))
    assert result.returncode == 1
    assert f"no database at {tmp_path / 'nothing.sqlite3'}" in result.stderr


def test_an_upgrade_stops_backs_up_reinstalls_and_keeps_config_and_database(stage: Path) -> None:
    config = stage / DATA / "config/trackside.toml"
    config.write_text('[web]\npin = "246813"\n')
    db = stage / DATA / "db/trackside.sqlite3"
    live_store(db, scans=7).close()
    before = inputs(db)
    result = run_script("upgrade.sh", destdir=stage)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    stop = out.index("would run: systemctl stop trackside.service")
    copied = out.index("database copied to ")
    assert stop < copied < out.index("pip install") < out.index("systemctl restart")
    backups = list((stage / DATA / "db/backups").iterdir())
    assert len(backups) == 1
    assert inputs(backups[0]) == before
    assert inputs(db) == before
    assert config.read_text() == '[web]\npin = "246813"\n'


def test_logrotate_moves_the_log_and_the_service_keeps_logging_to_a_new_file(
    stage: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    me, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    conf = (stage / "etc/logrotate.d/trackside").read_text()
    conf = conf.replace("/var/lib/trackside/logs", str(logs)).replace(
        "trackside trackside", f"{me} {group}"
    )
    (tmp_path / "logrotate.conf").write_text(conf)
    log = logging.getLogger("trackside.deploy-test")
    handlers = _attached_file_handler(logs / "trackside.log")
    try:
        log.warning("before the rotation")
        result = subprocess.run(
            [
                "logrotate",
                "--force",
                "--state",
                str(tmp_path / "state"),
                str(tmp_path / "logrotate.conf"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        log.warning("after the rotation")
    finally:
        for handler in handlers:
            logging.getLogger().removeHandler(handler)
            handler.close()
    assert "before the rotation" in (logs / "trackside.log.1").read_text()
    current = (logs / "trackside.log").read_text()
    assert "after the rotation" in current
    assert "before the rotation" not in current


def _attached_file_handler(path: Path) -> Iterator[logging.Handler]:
    root = logging.getLogger()
    known = set(root.handlers)
    _log_to_file(str(path))
    return iter([h for h in root.handlers if h not in known])


def test_uninstall_removes_the_program_and_system_files_and_keeps_the_data(stage: Path) -> None:
    (stage / DATA / "config/trackside.toml").write_text('[web]\npin = "246813"\n')
    db = stage / DATA / "db/trackside.sqlite3"
    live_store(db, scans=3).close()
    assert (stage / "opt/trackside/deploy/uninstall.sh").is_file()  # the installed copy
    result = run_script("uninstall.sh", destdir=stage)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # stopped first, then Home Assistant's device removed (one connection per broker name)
    assert out.index("would run: systemctl disable --now trackside.service") < out.index(
        "ha-remove --config /var/lib/trackside/config/trackside.toml"
    )
    for gone in (
        UNIT,
        "etc/udev/rules.d/99-trackside-readers.rules",
        "etc/logrotate.d/trackside",
        "etc/mosquitto/conf.d/trackside.conf",
        "etc/mosquitto/trackside.acl",
        "opt/trackside",
        "usr/local/bin/trackside",
    ):
        assert not (stage / gone).exists() and not (stage / gone).is_symlink(), gone
    assert inputs(db) and len(inputs(db)) == 3  # the table's data stays
    assert (stage / DATA / "config/trackside.toml").read_text() == '[web]\npin = "246813"\n'
    assert "kept in /var/lib/trackside" in out
    assert "userdel" not in out


def test_uninstall_with_purge_deletes_the_data_and_the_user(stage: Path) -> None:
    result = run_script("uninstall.sh", "--purge", destdir=stage)
    assert result.returncode == 0, result.stderr
    assert not (stage / DATA).exists()
    assert "would run: userdel trackside" in result.stdout


def test_an_uninstall_dry_run_changes_nothing(stage: Path) -> None:
    before = sorted(str(p.relative_to(stage)) for p in stage.rglob("*"))
    result = run_script("uninstall.sh", "--dry-run", destdir=stage)
    assert result.returncode == 0, result.stderr
    assert "would remove /opt/trackside" in result.stdout
    assert sorted(str(p.relative_to(stage)) for p in stage.rglob("*")) == before
