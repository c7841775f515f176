"""MQTT carries no player's secret: on a real Mosquitto, a Trains & Stations speculation and a
special-card report entered privately reach the event topic as "who, what kind" only, and the
retained state never holds anyone's goods before the end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.core import Observation
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from tests.games.trains_and_stations.playthroughs import START, TO_SPECULATION, action_input

from .conftest import Broker, Subscriber


def submit(service: Trackside, body: dict[str, Any], source: str = "table-page") -> str:
    observation = Observation.from_json({"source": source, **body})
    return str(service.submit_and_wait(observation, 10)["outcome"])


def test_private_moves_reach_mqtt_without_their_arguments(
    tmp_path: Path,
    broker: Broker,
    subscribe: Callable[..., Subscriber],
    eventually: Callable[..., None],
) -> None:
    settings = parse_settings(
        {
            "web": {"enabled": False},
            "mqtt": {"host": broker.host, "port": broker.port, "table_id": "secret"},
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    sub = subscribe(["trackside/secret/#"])
    service.start(web=False)
    try:
        assert submit(service, {"kind": "command", "payload": START}) == "applied"
        for kind, player, args in TO_SPECULATION:
            assert submit(service, action_input(kind, player, args)) == "applied"
        report = action_input("report_special_goods", 1, {"cards": [["silver", "gold"]]})
        assert submit(service, report, "private:Ben") == "applied"
        trade = action_input("speculate", 0, {"goods": {"cattle": 4}})
        assert submit(service, trade, "private:Ann") == "applied"
        last_seq = 1 + len(TO_SPECULATION) + 2
        eventually(
            lambda: any(
                json.loads(m.payload)["seq"] == last_seq for m in sub.on("trackside/secret/event")
            ),
            what=f"event {last_seq}",
        )
        events = {
            json.loads(m.payload)["seq"]: json.loads(m.payload)["event"]
            for m in sub.on("trackside/secret/event")
        }
        assert events[last_seq - 1] == {
            "game_id": 1,
            "type": "action_applied",
            "action": {"kind": "report_special_goods", "player": 1},
            "private": True,
        }
        assert events[last_seq]["action"] == {"kind": "speculate", "player": 0}
        # the public moves keep their arguments
        assert events[2]["action"]["args"] == {
            "dice": ["ranch", "ranch", "ranch", "train", "train"]
        }
        for message in sub.messages:
            for secret in ('"cattle":4', '["silver","gold"]', "silver, gold", "4×cattle"):
                assert secret not in message.payload, (message.topic, secret)
        state = json.loads(sub.last("trackside/secret/state").payload)  # type: ignore[union-attr]
        assert all("goods" not in p for p in state["table"]["players"])
        assert state["status"]["recent"][-1]["message"] == "Ann: speculate (private)"
    finally:
        service.stop()
