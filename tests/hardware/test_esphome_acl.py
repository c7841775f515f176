"""The ESPHome seat pad against the table's broker as installed: a client with the pad's login
(the user name the YAML sets) publishes exactly what the YAML publishes — birth and last will on
the status topic (QoS 1, retained, as docs/protocols/seat-pads.md says), tag events at QoS 1 —
in a real Mosquitto with the shipped conf and ACL, and the service's user receives all of it.
ESPHome's default log topic (``<topic_prefix>/debug``) is refused by that ACL: the YAML switches
it off. Read at the text level (the YAML's ``!secret``/``!lambda`` tags are ESPHome's own)."""

from __future__ import annotations

import re
import socket
import threading
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.deploy.test_broker_acl import Client
from tests.deploy.test_deploy import DEPLOY
from tests.deploy.test_wled_acl import mosquitto
from tests.firmware_bridge.conftest import free_port, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
ROOT = Path(__file__).resolve().parents[2]
PAD = ROOT / "hardware" / "firmware" / "esphome" / "seat-pad.yaml"
DOC = ROOT / "docs" / "protocols" / "seat-pads.md"


def pad_yaml() -> str:
    text = PAD.read_text()
    block = text.split("substitutions:", 1)[1].split("\n\n", 1)[0]
    for name, value in re.findall(r'^\s+(\w+):\s*"?([^"\s#]+)"?', block, flags=re.MULTILINE):
        text = text.replace("${" + name + "}", value)
    return text


def mqtt_block(text: str) -> str:
    return text.split("\nmqtt:\n", 1)[1].split("\n\n", 1)[0]


def message(block: str, name: str) -> dict[str, str]:
    found = re.search(rf"^  {name}:\n((?:    .*\n?)+)", block, re.M)
    assert found, name
    return dict(re.findall(r"^    (\w+): (.*)$", found.group(1), re.M))


def test_the_pad_yaml_matches_the_docs() -> None:
    text = pad_yaml()
    block = mqtt_block(text)
    assert re.search(r"^  username: pad-red$", block, re.M)  # the ACL's %u: the pad id
    assert re.search(r"^  log_topic: null$", block, re.M)
    birth, will = message(block, "birth_message"), message(block, "will_message")
    status = "trackside/table-1/pads/pad-red/status"
    assert birth == {"topic": status, "payload": "online", "qos": "1", "retain": "true"}
    assert will == {"topic": status, "payload": "offline", "qos": "1", "retain": "true"}
    assert message(block, "shutdown_message") == will  # ESPHome's default there is QoS 0
    assert re.search(r"^  discover_ip: false$", block, re.M)  # esphome/discover/…: refused
    doc = DOC.read_text()
    assert "| `trackside/<table_id>/pads/<pad_id>/status` | 1 | yes |" in doc
    assert "| `trackside/<table_id>/pads/<pad_id>/tag` | 1 | no |" in doc
    assert "red-pad" not in doc and "red-pad" not in PAD.read_text()


def test_a_client_with_the_pads_login_publishes_what_the_yaml_publishes(tmp_path: Path) -> None:
    text = pad_yaml()
    block = mqtt_block(text)
    user = re.search(r"^  username: (\S+)$", block, re.M).group(1)  # type: ignore[union-attr]
    prefix = re.search(r"^  topic_prefix: (\S+)$", block, re.M).group(1)  # type: ignore[union-attr]
    birth, will = message(block, "birth_message"), message(block, "will_message")
    tags = re.findall(r"topic: (\S+/tag)\n\s+qos: (\d)\n\s+retain: false", text)
    assert len(tags) == 2 and {q for _, q in tags} == {"1"}
    tag_topic = tags[0][0]
    port = free_port()
    with mosquitto(tmp_path, port, (DEPLOY / "mosquitto-trackside.acl").read_text()):
        service = Client(port, "trackside")
        assert service.connected.wait(10), service.refused
        service.sub("trackside/#")
        connected = threading.Event()
        pad = paho.Client(CallbackAPIVersion.VERSION2, client_id=user)  # as ESPHome connects
        pad.username_pw_set(user, f"pw-{user}")
        pad.will_set(
            will["topic"], will["payload"], qos=int(will["qos"]), retain=will["retain"] == "true"
        )
        pad.on_connect = lambda *args: connected.set()
        pad.connect("127.0.0.1", port)
        pad.loop_start()
        try:
            assert connected.wait(10)
            pad.publish(
                birth["topic"], birth["payload"], qos=int(birth["qos"]), retain=True
            ).wait_for_publish(10)
            # ESPHome's default log topic, had the YAML kept it: refused by the broker
            pad.publish(f"{prefix}/debug", "[D][rc522:123]: log line", qos=1)
            payload = '{"uid":"74-10-37-94","event":"present","seat":1}'
            pad.publish(tag_topic, payload, qos=1).wait_for_publish(10)
            # one sender's messages arrive in order: the log line would be in before the tag
            wait_until(lambda: (tag_topic, payload.encode()) in service.messages, what="the tag")
            assert (birth["topic"], b"online") in service.messages
            assert not any(t.endswith("/debug") for t, _ in service.messages)
            # the pad drops off the network without a goodbye: the broker sends its will
            sock = pad.socket()
            assert isinstance(sock, socket.socket)
            pad.loop_stop()
            sock.close()
            wait_until(
                lambda: (will["topic"], b"offline") in service.messages,
                what="the pad's last will",
            )
        finally:
            pad.loop_stop()
            service.close()
