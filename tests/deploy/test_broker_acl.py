"""Issue 18 row 6 and issue 20: the broker set-up the installer ships
(hardware/deploy/mosquitto-trackside.conf and .acl), run in a real Mosquitto on a free loopback
port: nobody without a password, each name only its own topics, and the service's client id
cannot be taken over."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.firmware_bridge.conftest import MOSQUITTO, _user, free_port, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
DEPLOY = Path(__file__).resolve().parents[2] / "hardware" / "deploy"
USERS = ("trackside", "pad-red", "pad-blue", "wled-table", "wled-hall", "homeassistant", "stranger")


class Client:
    def __init__(self, port: int, user: str | None, client_id: str | None = None) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.refused: str | None = None
        self.connected = threading.Event()
        self.disconnected = threading.Event()
        self.client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id or f"c-{uuid.uuid4().hex[:8]}"
        )
        if user is not None:
            self.client.username_pw_set(user, f"pw-{user}")
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.disconnected.set()
        self.client.on_message = lambda c, u, m: self.messages.append((m.topic, m.payload))
        self.client.reconnect_delay_set(30, 60)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client: paho.Client, u: object, f: object, rc: object, p: object) -> None:
        if getattr(rc, "is_failure", False):
            self.refused = str(rc)
        else:
            self.connected.set()

    def sub(self, topic: str) -> None:
        self.client.subscribe(topic, qos=1)
        time.sleep(0.2)

    def pub(self, topic: str, payload: str, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[int]:
    passwd = tmp_path / "trackside.passwd"
    passwd.touch(mode=0o600)
    tool = shutil.which("mosquitto_passwd")
    assert tool, "mosquitto_passwd (Debian's mosquitto package) is needed"
    for user in USERS:
        subprocess.run([tool, "-b", str(passwd), user, f"pw-{user}"], check=True, timeout=10)
    acl = tmp_path / "trackside.acl"
    shutil.copy(DEPLOY / "mosquitto-trackside.acl", acl)
    acl.chmod(0o600)
    port = free_port()
    shipped = (DEPLOY / "mosquitto-trackside.conf").read_text()
    assert "listener 1883\n" in shipped
    conf = (
        shipped.replace("listener 1883\n", f"listener {port} 127.0.0.1\n")
        .replace("/etc/mosquitto/trackside.passwd", str(passwd))
        .replace("/etc/mosquitto/trackside.acl", str(acl))
    )
    conf += f"\npersistence false\nlog_dest stderr\nuser {_user()}\n"
    (tmp_path / "mosquitto.conf").write_text(conf)
    with (tmp_path / "mosquitto.log").open("wb") as log:
        proc = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stderr=log)
    try:
        wait_until(lambda: _accepts(port, proc, tmp_path), what="mosquitto with the shipped conf")
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def _accepts(port: int, proc: subprocess.Popen[bytes], tmp: Path) -> bool:
    import socket

    assert proc.poll() is None, (tmp / "mosquitto.log").read_text()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_the_shipped_broker_config_gives_each_name_only_its_topics(broker: int) -> None:
    made: list[Client] = []

    def client(user: str | None, client_id: str | None = None) -> Client:
        c = Client(broker, user, client_id)
        made.append(c)
        return c

    try:
        anonymous = client(None)
        wait_until(lambda: anonymous.refused is not None, what="the anonymous refusal")
        service = client("trackside")
        ha = client("homeassistant")
        red, stranger, wled = client("pad-red"), client("stranger"), client("wled-table")
        hall = client("wled-hall")
        for c in (service, ha, red, stranger, wled, hall):
            assert c.connected.wait(10), c.refused
        service.sub("trackside/#")
        service.sub("wled/#")
        ha.sub("trackside/#")
        service.pub("trackside/t/state", '{"game": "ok"}', retain=True)
        wait_until(lambda: ("trackside/t/state", b'{"game": "ok"}') in ha.messages)
        # a pad publishes its own tag events only
        red.pub("trackside/t/pads/pad-red/tag", "mine")
        red.pub("trackside/t/pads/pad-blue/tag", "blue's")
        red.pub("trackside/t/state", "overwritten", retain=True)
        stranger.pub("trackside/t/pads/pad-red/tag", "forged")
        stranger.pub("trackside/t/state", "overwritten", retain=True)
        ha.pub("trackside/t/state", "overwritten", retain=True)
        ha.pub("trackside/t/command", "undo")  # its undo button: the one table topic it writes
        red.pub("trackside/t/command", "forged")
        stranger.pub("trackside/t/command", "forged")
        wled.pub("trackside/t/event", "forged")
        wled.pub("wled/wled-table/status", "online")
        wled.pub("wled/wled-hall/status", "forged")
        hall.sub("wled/wled-table/#")
        service.pub("wled/wled-table/api", "frame")
        time.sleep(1.0)
        got = [(t, p.decode()) for t, p in service.messages]
        assert ("trackside/t/pads/pad-red/tag", "mine") in got
        assert ("trackside/t/command", "undo") in got
        assert ("wled/wled-table/status", "online") in got
        assert ("wled/wled-table/api", "frame") in got
        assert hall.messages == []  # one WLED does not hear (or drive) another
        for forged in ("blue's", "overwritten", "forged"):
            assert not any(p == forged for _, p in got), (forged, got)
        # a pad cannot read the table's topics either
        red.sub("trackside/#")
        service.pub("trackside/t/event", "secret-ish")
        time.sleep(0.5)
        assert not any(t.startswith("trackside/t/") for t, _ in red.messages)
        # the retained state is still the service's
        ha.messages.clear()
        ha.sub("trackside/t/state")
        wait_until(lambda: bool(ha.messages))
        assert ha.messages[-1] == ("trackside/t/state", b'{"game": "ok"}')
        # the service's client id cannot be taken: the id is the user name
        thief = client("stranger", client_id="trackside")
        assert thief.connected.wait(10)
        time.sleep(1.0)
        assert not service.disconnected.is_set()
        service.pub("trackside/t/status", "online")
        wait_until(lambda: ("trackside/t/status", b"online") in ha.messages)
    finally:
        for c in made:
            c.close()


def test_the_installer_puts_the_broker_files_in_place(tmp_path: Path) -> None:
    from tests.deploy.test_deploy import run_script

    stage = tmp_path / "stage"
    result = run_script("install.sh", destdir=stage)
    assert result.returncode == 0, result.stderr
    conf = stage / "etc/mosquitto/conf.d/trackside.conf"
    acl = stage / "etc/mosquitto/trackside.acl"
    assert conf.read_text() == (DEPLOY / "mosquitto-trackside.conf").read_text()
    assert acl.read_text() == (DEPLOY / "mosquitto-trackside.acl").read_text()
    assert "would run: mosquitto_passwd -b /etc/mosquitto/trackside.passwd trackside <" in (
        result.stdout
    )
    secret = (stage / "var/lib/trackside/config/mqtt-password").read_text().strip()
    assert len(secret) == 24 and secret.isalnum()
    assert oct((stage / "var/lib/trackside/config/mqtt-password").stat().st_mode)[-3:] == "640"
    assert secret not in result.stdout  # the password is not printed to the install log
    # installing again keeps the password file (and so the password)
    again = run_script("install.sh", destdir=stage)
    assert "keeping the broker's password file" in again.stdout
    assert (stage / "var/lib/trackside/config/mqtt-password").read_text().strip() == secret


def test_the_broker_refuses_an_oversized_packet_and_keeps_the_rest(broker: int) -> None:
    """max_packet_size (Mosquitto 2's, not the deprecated message_size_limit): a client that
    sends a packet over 260 KB is disconnected; normal messages flow."""
    service, big = Client(broker, "trackside"), Client(broker, "pad-red")
    try:
        assert service.connected.wait(10) and big.connected.wait(10)
        service.sub("trackside/#")
        big.pub("trackside/t/pads/pad-red/tag", "x" * 300_000)
        assert big.disconnected.wait(10)
        service.pub("trackside/t/state", "small")
        wait_until(lambda: ("trackside/t/state", b"small") in service.messages)
        assert not any(len(p) > 1000 for _, p in service.messages)
    finally:
        service.close()
        big.close()
