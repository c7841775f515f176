"""Home Assistant keeps no ghost device: the discovery configs a table announced stay retained on
the broker (and Home Assistant keeps the device and its entities live) until they are cleared
with empty retained payloads. ``trackside ha-remove`` clears them (uninstall.sh runs it), and so
does the bridge itself when it starts with ``ha_discovery = false``. Against a real Mosquitto;
what is retained is read by a fresh subscriber, which has had every retained message once its
own ping comes back (the broker queues the retained messages at the SUBSCRIBE, before it)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.service.cli import main
from firmware_bridge.homeassistant import discovery_topics
from firmware_bridge.mqtt import MqttBridge, MqttConfig
from tests.firmware_bridge.conftest import Broker, Subscriber, wait_until

pytestmark = pytest.mark.slow

Subscribe = Callable[..., Subscriber]
PREFIX = "homeassistant"
NODE = "trackside_table_1"
STATE = {
    "schema": 1,
    "game": "russian-railroads",
    "players": [
        {"name": "Ann", "colour": "red", "seat": 1, "total": 12},
        {"name": "Ben", "colour": "blue", "seat": 2, "total": 9},
    ],
    "status": {"active_players": [0], "phase": "work", "waiting_for": "", "round": 2},
}


def config(broker: Broker, **more: Any) -> MqttConfig:
    return MqttConfig(
        host=broker.host, port=broker.port, table_id="table-1", reconnect_max_s=2, **more
    )


def retained(subscribe: Subscribe) -> dict[str, str]:
    """Every retained message under ``homeassistant/`` now, as a new client sees it."""
    ping = f"test/ping/{uuid.uuid4()}"
    sub = subscribe([f"{PREFIX}/#", ping])
    sub.publish(ping, "after the retained ones")
    wait_until(lambda: bool(sub.on(ping)), what="the subscriber's own ping")
    found = {m.topic: m.payload for m in sub.messages if m.retain and m.topic.startswith(PREFIX)}
    sub.close()
    return found


def announce(broker: Broker, subscribe: Subscribe) -> dict[str, str]:
    """A table with discovery on and two players, as Home Assistant sees it after."""
    watch = subscribe([f"{PREFIX}/#"])
    bridge = MqttBridge(config(broker, ha_discovery=True))
    bridge.start()
    try:
        wait_until(lambda: bridge.status().connected, what="the bridge to connect")
        bridge.publish_state(STATE)
        score = f"{PREFIX}/sensor/{NODE}/player_2_score/config"
        wait_until(
            lambda: (m := watch.last(score)) is not None and "Ben" in m.payload,
            what="Ben's score sensor",
        )
    finally:
        bridge.stop()
    found = retained(subscribe)
    assert set(found) == {
        f"{PREFIX}/sensor/{NODE}/status/config",
        f"{PREFIX}/sensor/{NODE}/player_1_score/config",
        f"{PREFIX}/sensor/{NODE}/player_2_score/config",
        f"{PREFIX}/event/{NODE}/table_event/config",
        f"{PREFIX}/tag/{NODE}/table_tags/config",
    }
    assert set(found) <= set(discovery_topics(config(broker)))
    return found


def test_ha_remove_clears_every_discovery_config_of_the_table(
    broker: Broker, subscribe: Subscribe, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    announce(broker, subscribe)
    other = f"{PREFIX}/sensor/kitchen_fridge/temperature/config"  # another device's: kept
    neighbour = subscribe([])
    neighbour.publish(other, json.dumps({"name": "Fridge"}), retain=True)
    path = tmp_path / "trackside.toml"
    path.write_text(
        f'[web]\nenabled = false\n\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
        'table_id = "table-1"\nha_discovery = false\n',
        encoding="utf-8",
    )
    assert main(["ha-remove", "--config", str(path)]) == 0
    out = capsys.readouterr()
    assert f"13 discovery configs of table table-1 cleared on {broker.host}:{broker.port}" in (
        out.out
    )
    assert out.err == ""
    assert retained(subscribe) == {other: json.dumps({"name": "Fridge"})}


def test_ha_remove_says_when_the_config_still_announces_and_when_there_is_no_broker(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "trackside.toml"
    path.write_text(
        f'[web]\nenabled = false\n\n[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
        'table_id = "table-1"\nha_discovery = true\n',
        encoding="utf-8",
    )
    assert main(["ha-remove", "--config", str(path)]) == 0
    assert "ha_discovery = true" in capsys.readouterr().err
    broker.stop()
    with pytest.raises(SystemExit) as stopped:
        main(["ha-remove", "--config", str(path)])
    assert stopped.value.code == 2
    assert f"cannot connect to the broker {broker.host}:{broker.port}" in capsys.readouterr().err
    path.write_text("[web]\nenabled = false\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["ha-remove", "--config", str(path)])
    assert "no [mqtt] section" in capsys.readouterr().err


def test_a_bridge_started_with_discovery_off_removes_what_it_announced_before(
    broker: Broker, subscribe: Subscribe
) -> None:
    announced = announce(broker, subscribe)
    bridge = MqttBridge(config(broker, ha_discovery=False))
    bridge.start()
    try:
        wait_until(
            lambda: bridge.discovery_removed == len(announced),
            what="the bridge to clear the discovery configs",
        )
        assert retained(subscribe) == {}
    finally:
        bridge.stop()
    # and a table that never announced anything publishes nothing under homeassistant/
    watch = subscribe([f"{PREFIX}/#"])
    again = MqttBridge(config(broker, ha_discovery=False))
    again.start()
    try:
        wait_until(lambda: again.status().connected, what="the bridge to connect again")
        ping = f"{PREFIX}/zz-ping/{uuid.uuid4()}"
        watch.publish(ping, "x")
        wait_until(lambda: bool(watch.on(ping)), what="the watcher's ping")
        assert again.discovery_removed == 0
        assert [m.topic for m in watch.messages] == [ping]
    finally:
        again.stop()
