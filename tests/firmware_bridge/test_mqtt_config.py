"""The [mqtt] config section: what a hobbyist writes, and the message when they get it wrong."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from firmware_bridge.ha_light import HaLightConfig
from firmware_bridge.mqtt import (
    MqttBridge,
    MqttConfig,
    MqttStatus,
    default_table_id,
    discovery_messages,
)

EXAMPLE = """
[mqtt]
host = "192.168.1.10"
port = 1884
table_id = "table-1"
username = "trackside"
password = "s3cret"
tls = true
ca_file = "/etc/ssl/my-ca.pem"
ha_discovery = true
seats = 5
leds_per_seat = 60
led_fps = 20
wled = ["table-strip", "shelf"]
wled_group = "wled/trackside-table-1"

[[mqtt.ha_lights]]
command_topic = "seat1/light/ring/command"
availability_topic = "seat1/status"
seat = 1

[[mqtt.ha_lights]]
command_topic = "lamp/light/lamp/command"
"""


def test_the_documented_example_reads_as_written() -> None:
    config = MqttConfig.from_mapping(tomllib.loads(EXAMPLE)["mqtt"])
    assert config.host == "192.168.1.10" and config.port == 1884
    assert config.table_id == "table-1"
    assert (config.username, config.password, config.tls) == ("trackside", "s3cret", True)
    assert config.wled == ("table-strip", "shelf") and config.wled_group == "wled/trackside-table-1"
    assert config.ha_lights == (
        HaLightConfig("seat1/light/ring/command", 1, "seat1/status"),
        HaLightConfig("lamp/light/lamp/command"),
    )
    assert config.seats == 5 and config.leds_per_seat == 60 and config.led_fps == 20
    assert config.has_lights


def test_a_minimal_section_takes_the_defaults() -> None:
    config = MqttConfig.from_mapping({"host": "127.0.0.1"})
    assert config.port == 1883
    assert config.table_id == default_table_id() and config.table_id
    assert "/" not in config.table_id and "." not in config.table_id
    assert not config.has_lights and not config.ha_discovery


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({}, "mqtt.host: missing"),
        ({"host": "h", "prot": 1883}, "mqtt.prot: unknown option"),
        ({"host": "h", "port": "1883"}, "mqtt.port: '1883' has the wrong type"),
        ({"host": "h", "port": 70000}, "mqtt.port: 70000 is not a TCP port"),
        ({"host": "h", "tls": 1}, "mqtt.tls: 1 has the wrong type"),
        ({"host": "h", "seats": True}, "mqtt.seats: True has the wrong type"),
        ({"host": "h", "table_id": "a/b"}, "mqtt.table_id: 'a/b' cannot be one MQTT topic level"),
        ({"host": "h", "password": "x"}, "mqtt.password: given without a username"),
        ({"host": "h", "ca_file": "ca.pem"}, "mqtt.ca_file: given but tls is false"),
        ({"host": "h", "wled": "strip"}, "mqtt.wled: expected a list of WLED ids"),
        (
            {"host": "h", "wled": ["a/b"]},
            "mqtt.wled: wled device id 'a/b' is not a usable MQTT topic part",
        ),
        ({"host": "h", "leds_per_seat": 0}, "mqtt.leds_per_seat: 0 is not 1–1000"),
        (
            {"host": "h", "ha_lights": [{"command_topic": "x", "seat": 7}]},
            "mqtt.ha_lights: seat 7 is not 1–4",
        ),
        (
            {"host": "h", "ha_lights": [{"command_topic": "x/#"}]},
            "mqtt.ha_lights[0].command_topic: 'x/#' is not a topic to publish to",
        ),
        (
            {"host": "h", "ha_lights": [{"command_topic": "x", "colour": "red"}]},
            "mqtt.ha_lights[0].colour: unknown option",
        ),
    ],
)
def test_a_bad_option_is_named_with_the_reason(section: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        MqttConfig.from_mapping(section)
    assert str(raised.value).startswith(message)


def test_the_status_chip_json() -> None:
    status = MqttStatus("disconnected", "pi:1883", "connection lost: keepalive", 2)
    assert not status.connected
    assert status.to_json() == {
        "state": "disconnected",
        "broker": "pi:1883",
        "last_error": "connection lost: keepalive",
        "dropped_events": 2,
    }


def test_discovery_names_each_player_and_clears_the_seats_left_empty() -> None:
    config = MqttConfig(host="h", table_id="table-1", ha_discovery=True)
    messages = dict(discovery_messages(config, ("Ann", "Ben")))
    prefix = "homeassistant/sensor/trackside_table_1"
    assert messages[f"{prefix}/player_1_score/config"]["name"] == "Ann score"  # type: ignore[index]
    assert messages[f"{prefix}/player_2_score/config"]["unique_id"] == (  # type: ignore[index]
        "trackside_table_1_player_2_score"
    )
    assert messages[f"{prefix}/player_3_score/config"] is None
    assert messages[f"{prefix}/player_8_score/config"] is None
    assert f"{prefix}/status/config" in messages


def test_a_ca_file_that_is_not_there_stops_start_up_with_its_name(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.pem"
    with pytest.raises(ValueError, match=r"mqtt\.ca_file: cannot use '.*nowhere\.pem'"):
        MqttBridge(MqttConfig(host="h", tls=True, ca_file=str(missing)))


def test_a_bridge_never_started_stops_quietly_and_keeps_its_state_for_later() -> None:
    bridge = MqttBridge(MqttConfig(host="127.0.0.1", port=1, table_id="idle"))
    bridge.publish_state({"schema": 1, "game": None, "players": [], "status": {}})
    bridge.publish_event(1, {"type": "game_started"})
    assert bridge.status().state == "stopped" and not bridge.status().connected
    bridge.stop()
    bridge.stop()
    assert bridge.status().state == "stopped"
