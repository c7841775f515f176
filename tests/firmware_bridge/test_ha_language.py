"""Issue 17: Home Assistant's entities are named in the table's language (``[web] language``),
and the published state's texts are plain text in it (no message ids)."""

from __future__ import annotations

import dataclasses

from companion.service.config import parse_settings
from firmware_bridge.homeassistant import discovery_messages, event_entity_message
from firmware_bridge.mqtt import MqttConfig


def names(config: MqttConfig) -> dict[str, str]:
    found = {}
    for topic, body in [*discovery_messages(config, ("Anna",)), event_entity_message(config)]:
        if body is not None and "name" in body:
            found[topic.split("/")[-2]] = body["name"]
    return found


def test_entity_names_follow_the_table_language() -> None:
    base = MqttConfig(host="h", table_id="t1", ha_discovery=True, ha_buttons=True, username="u")
    english = names(base)
    assert english["status"] == "Table status"
    assert english["player_1_score"] == "Anna score"
    czech = names(dataclasses.replace(base, language="cs"))
    spanish = names(dataclasses.replace(base, language="es"))
    assert czech["status"] == "Stav stolu"
    assert czech["player_1_score"] == "Anna – body"
    assert czech["undo"] == "Vrátit poslední zápis"
    assert spanish["table_event"] == "Evento de la mesa"
    assert set(czech) == set(english)


def test_the_config_hands_the_table_language_to_the_bridge() -> None:
    settings = parse_settings({"web": {"language": "sk"}, "mqtt": {"host": "127.0.0.1"}})
    assert settings.mqtt is not None and settings.mqtt.language == "sk"
