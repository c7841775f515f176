"""TLS to the club broker (issue 51): the shipped club config's TLS listener in a real Mosquitto
with a certificate from a CA made here (openssl); a table's Mosquitto bridges to it over TLS
with the installer's bridge config (verifying the club's certificate against that CA), the hub
connects over TLS with the same CA, and a table's state crosses. A hub that does not know the
CA is refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.hub.config import ClubBroker
from companion.hub.mqtt import HubClient
from companion.hub.store import HubStore
from companion.hub.tables import Hub
from companion.service.club import bridge_config
from companion.service.config import parse_settings
from tests.firmware_bridge.conftest import Broker, wait_until
from tests.firmware_bridge.test_mqtt_bridge import make_certificates
from tests.hub.club_broker import DEPLOY, club_broker, password

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def test_a_table_bridges_and_the_hub_connects_over_tls_with_the_clubs_own_ca(
    tmp_path: Path,
) -> None:
    (tmp_path / "certs").mkdir()
    ca, cert, key = make_certificates(tmp_path / "certs")
    club = club_broker(tmp_path / "club", ["hub", "t1"], tls=(cert, key))
    assert club.tls_port is not None
    (tmp_path / "table").mkdir()
    table = Broker(tmp_path / "table")
    document = {
        "mqtt": {"host": table.host, "port": table.port, "table_id": "t1"},
        "club": {
            "host": "127.0.0.1",
            "port": club.tls_port,
            "username": "t1",
            "password": password("t1"),
            "tls": True,
            "ca_file": str(ca),
        },
    }
    bridge = bridge_config(
        parse_settings(document), (DEPLOY / "mosquitto-club-bridge.conf").read_text()
    )
    assert f"bridge_cafile {ca}" in bridge
    table.config.write_text(table.config.read_text() + bridge)
    store = HubStore(tmp_path / "hub.sqlite3")
    hub = Hub(store, tables=("t1",))

    def hub_client(ca_file: str | None) -> HubClient:
        return HubClient(
            ClubBroker(
                host="127.0.0.1",
                port=club.tls_port or 0,
                username="hub",
                password=password("hub"),
                tls=True,
                ca_file=ca_file,
            ),
            hub,
        )

    secure = hub_client(str(ca))
    stranger = hub_client(None)  # the system's CAs: it has never heard of the club's
    service = paho.Client(CallbackAPIVersion.VERSION2, client_id="table-service")
    club.start()
    table.start()
    try:
        secure.start()
        stranger.start()
        wait_until(lambda: secure.connected, what="the hub over TLS")
        wait_until(lambda: stranger.last_error is not None, what="the unknown CA's refusal")
        assert not stranger.connected
        assert "certificate verify failed" in (stranger.last_error or "")
        # the table's service publishes on its own broker; the bridge carries it over TLS
        service.connect(table.host, table.port)
        service.loop_start()
        state = {
            "schema": 1,
            "game": "tiny-race",
            "game_id": 1,
            "seq": 0,
            "players": [{"name": "Ana", "total": 3, "colour": "red"}],
            "status": {},
        }
        payload = json.dumps(state)

        def arrived() -> bool:
            service.publish("trackside/t1/state", payload, qos=1, retain=True)
            view = hub.view("t1")
            return bool(view and view["players"])

        wait_until(arrived, 60, "t1's state at the hub through the TLS bridge")
        assert [p["name"] for p in (hub.view("t1") or {})["players"]] == ["Ana"]
        assert not stranger.connected and secure.connected
    finally:
        service.loop_stop()
        service.disconnect()
        secure.stop()
        stranger.stop()
        store.close()
        table.stop()
        club.stop()
