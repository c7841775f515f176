"""The club broker as shipped (hardware/deploy/mosquitto-club.conf and .acl) in a real
Mosquitto, with the real hub connected to it: a table's login cannot speak for another table,
a guest cannot pose as the hub, nobody gets in without a password, and nobody can knock the hub
off the broker with its client id (issue 51)."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from companion.hub.config import ClubBroker
from companion.hub.mqtt import HubClient
from companion.hub.store import HubStore
from companion.hub.tables import Hub
from tests.firmware_bridge.conftest import Broker, wait_until
from tests.hub.club_broker import club_broker, password

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
NOT_AUTHORIZED = 135  # MQTT 5 reason code "Not authorized"


class Client:
    """An MQTT 5 client, so the broker says what it did with each publish (PUBACK reason)."""

    def __init__(self, broker: Broker, user: str | None, client_id: str | None = None) -> None:
        self.acks: dict[int, int] = {}
        self.messages: list[tuple[str, bytes]] = []
        self.refused: str | None = None
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self.client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"c-{uuid.uuid4().hex[:8]}",
            protocol=paho.MQTTv5,
        )
        if user is not None:
            self.client.username_pw_set(user, password(user))
        self.client.on_connect = self._on_connect
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = lambda c, u, m: self.messages.append((m.topic, m.payload))
        self.client.reconnect_delay_set(30, 60)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def _on_connect(self, c: paho.Client, u: Any, f: Any, rc: ReasonCode, p: Any) -> None:
        if rc.is_failure:
            self.refused = str(rc)
        else:
            self.connected.set()

    def _on_publish(self, c: paho.Client, u: Any, mid: int, rc: ReasonCode, p: Any) -> None:
        self.acks[mid] = rc.value

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> int:
        """The broker's answer to a QoS 1 publish: 0 taken, 135 not authorised."""
        info = self.client.publish(topic, payload, qos=1, retain=retain, properties=Properties(3))
        wait_until(lambda: info.mid in self.acks, what=f"the broker's PUBACK on {topic}")
        return self.acks[info.mid]

    def subscribe(self, topic: str) -> None:
        self.subscribed.clear()
        self.client.subscribe(topic, qos=1)
        assert self.subscribed.wait(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Broker]:
    broker = club_broker(tmp_path / "club", ["hub", "t1", "t2", "guest"])
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def state(name: str) -> str:
    return json.dumps(
        {
            "schema": 1,
            "game": "tiny-race",
            "game_id": 1,
            "seq": 0,
            "players": [{"name": name, "total": 999, "colour": "red"}],
            "status": {},
        }
    )


def forged_answer(request_id: str = "") -> str:
    return json.dumps(
        {
            "schema": 1,
            "request_id": request_id,
            "db": "forged",
            "done": True,
            "results": [
                {
                    "game_id": 1,
                    "game": "tiny-race",
                    "ended_at": 1_800_000_000,
                    "players": [{"name": "Mallory", "total": 999}],
                    "winners": ["Mallory"],
                }
            ],
        }
    )


def test_a_table_cannot_speak_for_another_and_a_guest_cannot_pose_as_the_hub(
    club: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = HubStore(tmp_path / "hub.sqlite3")
    hub = Hub(store, tables=("t1", "t2"))
    hub_client = HubClient(
        ClubBroker(host=club.host, port=club.port, username="hub", password=password("hub")), hub
    )
    made: list[Client] = []

    def client(user: str | None, client_id: str | None = None) -> Client:
        made.append(Client(club, user, client_id))
        return made[-1]

    hub_client.start()
    try:
        wait_until(lambda: hub_client.connected, what="the hub on the club broker")
        anonymous = client(None)
        wait_until(lambda: anonymous.refused is not None, what="the anonymous refusal")
        t1, t2 = client("t1"), client("t2")
        for c in (t1, t2):
            assert c.connected.wait(10), c.refused
        t2.subscribe("trackside/t2/request")
        t1.subscribe("trackside/t1/request")

        refused = 0
        # table-1's login posing as table-2: its state, its events, its answer with a result
        for topic, payload in (
            ("trackside/t2/state", state("Mallory")),
            ("trackside/t2/status", "offline"),
            ("trackside/t2/event", '{"schema":1,"seq":1,"db":"x","event":{"game_id":1}}'),
            ("trackside/t2/resend", forged_answer()),
            ("trackside/t2/request", '{"schema":1}'),  # nor make table-2 replay its log
        ):
            assert t1.publish(topic, payload, retain=topic.endswith("state")) == NOT_AUTHORIZED
            refused += 1
        # a guest posing as the hub: with the hub's own client id, asking the tables to replay
        impostor = client("guest", client_id=hub_client.client_id)
        assert impostor.connected.wait(10), impostor.refused
        for target in ("t1", "t2"):
            request = '{"schema":1,"request_id":"x","since":{"game_id":0,"seq":0}}'
            assert impostor.publish(f"trackside/{target}/request", request) == NOT_AUTHORIZED
            refused += 1
        assert impostor.publish("trackside/t1/state", state("Guest"), retain=True) == NOT_AUTHORIZED
        refused += 1
        # nor can a table ask itself or read another table's requests
        assert t2.publish("trackside/t1/request", '{"schema":1}') == NOT_AUTHORIZED
        refused += 1

        # What each may do still works: t1 under its own id, the hub's requests to a table.
        assert t1.publish("trackside/t1/status", "online") == 0
        assert t1.publish("trackside/t1/state", state("Ana"), retain=True) == 0
        wait_until(lambda: (hub.view("t1") or {}).get("players"), what="t1's state at the hub")
        wait_until(
            lambda: any(t == "trackside/t1/request" for t, _ in t1.messages),
            what="the hub's request reaching t1 (t1 came online)",
        )
        assert [p["name"] for p in (hub.view("t1") or {})["players"]] == ["Ana"]
        # Every forgery was refused by the broker: the hub never saw any of it.
        assert hub.view("t2") is None or not (hub.view("t2") or {}).get("players")
        assert store.results() == []
        forged = ('{"schema":1}', '"request_id":"x"')
        assert not any(f.encode() in m for f in forged for _, m in t1.messages + t2.messages)
        assert hub.refused == 0  # nothing got as far as the hub's own checks
        # The impostor with the hub's client id did not knock the hub off (the client id is
        # the login on this broker), and the hub's client id is its own install's.
        assert hub_client.connected and hub_client.disconnects == 0
        assert hub_client.client_id.startswith("trackside-hub-")
        assert hub_client.client_id == f"trackside-hub-{store.install_id()}"
        assert "lost the club broker" not in caplog.text
        assert refused == 9
    finally:
        for c in made:
            c.close()
        hub_client.stop()
        store.close()
