"""WLED group mode under the broker set-up the installer writes: a strip logged in with its own
name receives the table's frames on the group topic (``[mqtt] wled_group``) because the ACL is
written from the config (companion/service/broker.py); with the ACL as shipped, without the
group's rules, it receives none (issue 50: the strips stayed dark). Real Mosquitto, the shipped
conf and ACL, the real bridge."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.service.broker import PLACEHOLDER, acl_problem, render_acl
from companion.service.config import load_settings
from firmware_bridge.mqtt import MqttBridge
from tests.deploy.test_broker_acl import USERS, Client, _accepts
from tests.deploy.test_deploy import DEPLOY, run_script
from tests.firmware_bridge.conftest import MOSQUITTO, _user, free_port, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
GROUP = "wled/trackside-t1"
TABLE = {
    "schema": 1,
    "game": "russian-railroads",
    "players": [{"name": "Ann", "colour": "red", "seat": 1, "total": 3}],
    "status": {"active_players": [0], "phase": "work", "waiting_for": "", "round": 1},
}


def config_file(tmp_path: Path, port: int) -> Path:
    path = tmp_path / "trackside.toml"
    path.write_text(
        f'[web]\nenabled = false\n\n[mqtt]\nhost = "127.0.0.1"\nport = {port}\n'
        'table_id = "t1"\nusername = "trackside"\npassword = "pw-trackside"\n'
        f'wled = ["wled-table", "wled-hall"]\nwled_group = "{GROUP}"\nseats = 1\n'
        "leds_per_seat = 4\n",
        encoding="utf-8",
    )
    return path


@contextmanager
def mosquitto(tmp_path: Path, port: int, acl_text: str) -> Iterator[None]:
    passwd = tmp_path / "trackside.passwd"
    passwd.touch(mode=0o600)
    tool = shutil.which("mosquitto_passwd")
    assert tool, "mosquitto_passwd (Debian's mosquitto package) is needed"
    for user in USERS:
        subprocess.run([tool, "-b", str(passwd), user, f"pw-{user}"], check=True, timeout=10)
    acl = tmp_path / "trackside.acl"
    acl.write_text(acl_text)
    acl.chmod(0o600)
    conf = (
        (DEPLOY / "mosquitto-trackside.conf")
        .read_text()
        .replace("listener 1883\n", f"listener {port} 127.0.0.1\n")
        .replace("/etc/mosquitto/trackside.passwd", str(passwd))
        .replace("/etc/mosquitto/trackside.acl", str(acl))
    )
    conf += f"\npersistence false\nlog_dest stderr\nuser {_user()}\n"
    (tmp_path / "mosquitto.conf").write_text(conf)
    with (tmp_path / "mosquitto.log").open("wb") as log:
        proc = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stderr=log)
    try:
        wait_until(lambda: _accepts(port, proc, tmp_path), what="mosquitto with the ACL")
        yield
    finally:
        proc.terminate()
        proc.wait(10)


def strip(port: int) -> Client:
    """A WLED with MQTT on, as wled00/mqtt.cpp subscribes: its device topic and the group's."""
    wled = Client(port, "wled-table")
    assert wled.connected.wait(10), wled.refused
    for topic in ("wled/wled-table", "wled/wled-table/api", GROUP, f"{GROUP}/api"):
        wled.client.subscribe(topic, qos=0)
    return wled


def frames(wled: Client) -> list[dict[str, object]]:
    return [json.loads(p) for t, p in wled.messages if t == f"{GROUP}/api"]


def test_a_strip_receives_the_group_frames_under_the_acl_written_from_the_config(
    tmp_path: Path,
) -> None:
    port = free_port()
    settings = load_settings(config_file(tmp_path, port))
    acl = render_acl(settings, (DEPLOY / "mosquitto-trackside.acl").read_text())
    assert f"pattern read {GROUP}/#" in acl and PLACEHOLDER not in acl
    with mosquitto(tmp_path, port, acl):
        wled = strip(port)
        assert settings.mqtt is not None
        bridge = MqttBridge(settings.mqtt)
        bridge.start()
        try:
            wait_until(lambda: bridge.status().connected, what="the bridge to connect")
            bridge.publish_state(TABLE)
            wait_until(lambda: any("seg" in f for f in frames(wled)), what="a frame on the group")
            assert bridge.status().last_error is None
        finally:
            bridge.stop()
            wled.close()


def test_with_the_acl_as_shipped_the_group_frames_do_not_reach_the_strip(tmp_path: Path) -> None:
    port = free_port()
    with mosquitto(tmp_path, port, (DEPLOY / "mosquitto-trackside.acl").read_text()):
        wled = strip(port)
        service = Client(port, "trackside")
        try:
            assert service.connected.wait(10), service.refused
            service.pub(f"{GROUP}/api", '{"on": true}')
            service.pub("wled/wled-table/api", '{"ping": 1}')  # its own topic: allowed
            # the broker delivers one sender's messages in order: the ping came after the frame
            wait_until(lambda: any(t == "wled/wled-table/api" for t, _ in wled.messages))
            assert frames(wled) == []
        finally:
            service.close()
            wled.close()


def test_the_installer_writes_the_group_rules_from_the_config(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    first = run_script("install.sh", destdir=stage)
    assert first.returncode == 0, first.stderr
    config = stage / "var/lib/trackside/config/trackside.toml"
    config.write_text(config_file(tmp_path, 1883).read_text())
    env = {**os.environ, "TRACKSIDE_PYTHON": sys.executable}
    again = subprocess.run(
        ["bash", str(DEPLOY / "install.sh")],
        env={**env, "DESTDIR": str(stage)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    acl = (stage / "etc/mosquitto/trackside.acl").read_text()
    assert acl == render_acl(
        load_settings(config), (DEPLOY / "mosquitto-trackside.acl").read_text()
    )
    assert f"pattern read {GROUP}/#" in acl


def test_start_up_says_when_the_installed_acl_does_not_carry_the_group(tmp_path: Path) -> None:
    settings = load_settings(config_file(tmp_path, 1883))
    shipped = (DEPLOY / "mosquitto-trackside.acl").read_text()
    acl = tmp_path / "trackside.acl"
    acl.write_text(render_acl(settings, shipped))
    assert acl_problem(settings, acl) is None
    acl.write_text(shipped)  # the group was set (or changed) after the install
    problem = acl_problem(settings, acl)
    assert problem is not None and f"WLED group topic '{GROUP}'" in problem
    assert "install.sh again" in problem
    assert acl_problem(settings, tmp_path / "no-broker-here.acl") is None  # another broker
    no_group = tmp_path / "plain.toml"
    no_group.write_text('[web]\nenabled = false\n\n[mqtt]\nhost = "h"\nwled = ["strip"]\n')
    assert acl_problem(load_settings(no_group), acl) is None
