"""Home Assistant's undo and redo buttons against a real Mosquitto: discovered as buttons, a
press on the table's command topic enters the table's own one-tap step, and nothing else that
arrives there reaches the engine (issue 20: "undo/next as buttons through a command topic")."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.core import Observation
from companion.core.messages import render_text
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from firmware_bridge.mqtt import MqttConfig

from .conftest import Broker, Subscriber, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
COMMAND = "trackside/ha/command"


def test_buttons_need_discovery_and_a_broker_login() -> None:
    with pytest.raises(ValueError, match=r"mqtt\.ha_buttons: needs ha_discovery"):
        MqttConfig(host="h", ha_buttons=True, username="u")
    with pytest.raises(ValueError, match=r"mqtt\.ha_buttons: needs a broker login"):
        MqttConfig(host="h", ha_buttons=True, ha_discovery=True)


@pytest.fixture
def table(tmp_path: Path, broker: Broker) -> Iterator[Trackside]:
    settings = parse_settings(
        {
            "web": {"enabled": False},
            "mqtt": {
                "host": broker.host,
                "port": broker.port,
                "table_id": "ha",
                "username": "trackside",
                "ha_discovery": True,
                "ha_buttons": True,
            },
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    service.start()
    players = [{"name": "Red", "colour": "red", "seat": 1}, {"name": "Blue", "colour": "blue"}]
    start = {"command": "start_game", "game": "tiny-race", "players": players}
    service.submit_and_wait(
        Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
    )
    advance = {"action": {"kind": "advance", "player": 0, "args": {"steps": 3}}}
    service.submit_and_wait(
        Observation.from_json({"source": "table-page", "kind": "action", "payload": advance}), 5
    )
    wait_until(
        lambda: service.mqtt is not None and service.mqtt.status().connected, what="bridge up"
    )
    try:
        yield service
    finally:
        service.stop()


def totals(service: Trackside) -> list[int]:
    service.wait_idle()
    return [p["total"] for p in service.latest()[1]["players"]]


def test_a_button_press_undoes_and_redoes_and_nothing_else_gets_through(
    table: Trackside, subscribe: Callable[..., Subscriber]
) -> None:
    bridge = table.mqtt
    assert bridge is not None
    ha = subscribe(["homeassistant/button/#"])
    wait_until(lambda: ha.last("homeassistant/button/trackside_ha/undo/config") is not None)
    found = ha.last("homeassistant/button/trackside_ha/undo/config")
    assert found is not None
    config = json.loads(found.payload)
    assert config["command_topic"] == COMMAND and config["payload_press"] == "undo"
    assert config["name"] == "Undo last entry"
    assert totals(table) == [3, 0]

    ha.publish(COMMAND, "undo")
    wait_until(lambda: totals(table) == [0, 0], what="the undo")
    for junk in ("end", "start_game", "undo; redo", "x" * 100_000, "[" * 5000, "\xff\xfe"):
        ha.publish(COMMAND, junk)
    wait_until(lambda: bridge.commands_refused >= 6, what="six refusals")
    assert totals(table) == [0, 0]
    assert bridge.status().connected
    ha.publish(COMMAND, "redo")
    wait_until(lambda: totals(table) == [3, 0], what="the redo")
    # the table's log says who pressed: exactly the two presses, nothing of the junk
    recent = table.latest()[1]["status"]["recent"]
    pressed = [
        (r["outcome"], render_text(r["message"])) for r in recent if r["source"] == "home-assistant"
    ]
    assert [outcome for outcome, _ in pressed] == ["applied", "applied"]
    assert pressed[0][1].startswith("Undone: ") and pressed[1][1].startswith("Done again: ")
    # the same move, named: undone, then done again
    assert pressed[0][1].removeprefix("Undone: ") == pressed[1][1].removeprefix("Done again: ")
