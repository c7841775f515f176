"""Home Assistant discovery: every template rendered against every snapshot shape the service
publishes, in a sandbox as strict as Home Assistant's (its ImmutableSandboxedEnvironment; an
undefined value raises instead of logging, so a missing key cannot hide).

The snapshots are real: an engine on a real SQLite file plays each game's golden playthrough,
and the snapshot is taken with no game, right after the start, halfway and at the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jinja2 import StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

from companion.core import Observation, ObservationKind
from companion.core.actions import Action
from companion.core.i18n import translations
from companion.core.messages import render_json
from companion.service.engine import Engine
from companion.service.store import EventStore
from firmware_bridge.homeassistant import (
    EVENT_TYPES,
    MAX_STATE_CHARS,
    TableEvents,
    TagScans,
    discovery_messages,
    event_entity_message,
    node_id,
    player_names,
    tag_scanner_message,
)
from firmware_bridge.mqtt import MqttConfig

GOLDEN = Path(__file__).parents[1] / "games" / "golden"
GAMES = ("russian-railroads", "ticket-to-ride-europe", "mini-express", "trains-and-stations")

ENV = ImmutableSandboxedEnvironment(undefined=StrictUndefined)


def render(template: str, snapshot: dict[str, Any]) -> str:
    """As Home Assistant does for an MQTT entity: ``value_json`` is the parsed payload."""
    payload = json.loads(json.dumps(snapshot))
    return ENV.from_string(template).render(value_json=payload, value=json.dumps(payload))


def command(payload: dict[str, Any]) -> Observation:
    return Observation("table-page", ObservationKind.COMMAND, payload)  # type: ignore[arg-type]


def published(engine: Engine) -> dict[str, Any]:
    """The snapshot as the service publishes it over MQTT: its messages in the table's
    language (English here), as ``Trackside._to_mqtt`` renders them."""
    return json.loads(json.dumps(render_json(engine.latest()[1], translations("en"))))


def snapshots(tmp_path: Path, game: str) -> dict[str, dict[str, Any]]:
    """The snapshots of ``game``'s golden playthrough: none, start, mid, end."""
    every = playthrough(tmp_path, game)
    return {"none": every[0], "start": every[1], "mid": every[len(every) // 2], "end": every[-1]}


def playthrough(tmp_path: Path, game: str) -> list[dict[str, Any]]:
    """Every snapshot of ``game``'s golden playthrough: none, after the start, after each step."""
    golden = json.loads((GOLDEN / f"{game}.json").read_text(encoding="utf-8"))
    store = EventStore(tmp_path / f"{game}.sqlite3")
    try:
        engine = Engine(store)
        shapes = [published(engine)]
        started = engine.handle(
            command(
                {
                    "command": "start_game",
                    "game": game,
                    "players": golden["players"],
                    "options": golden.get("options", {}),
                }
            )
        )
        assert started.outcome == "applied", started.message
        shapes.append(published(engine))
        steps = golden["steps"]
        for n, step in enumerate(steps):
            session = engine.session()
            assert session is not None
            if "scan" in step:
                scan = step["scan"]
                action = session.game.interpret(
                    session.state, scan.get("player"), scan["component"]
                )
                assert isinstance(action, Action)
            else:
                action = Action.from_json(step["action"])
            outcome = engine.handle(
                Observation(
                    "table-page",
                    ObservationKind.ACTION,
                    {"action": action.to_json()},  # type: ignore[arg-type]
                )
            )
            assert (outcome.outcome == "rejected") == ("refused" in step), (n, outcome.message)
            shapes.append(published(engine))
        assert shapes[-1]["over"] is golden["final"]["over"]
        return shapes
    finally:
        store.close()


CONFIG = MqttConfig(host="h", table_id="table-1", ha_discovery=True)


@pytest.mark.parametrize("game", GAMES)
def test_every_template_renders_for_every_snapshot_shape(tmp_path: Path, game: str) -> None:
    for shape, snapshot in snapshots(tmp_path, game).items():
        names = player_names(snapshot)
        messages = discovery_messages(CONFIG, names, sw_version="1.2.3")
        rendered = 0
        for topic, config in messages:
            if config is None:
                continue
            where = f"{game} {shape} {topic}"
            state = render(config["value_template"], snapshot)
            assert 0 < len(state) <= MAX_STATE_CHARS, where
            if "json_attributes_template" in config:
                attributes = json.loads(render(config["json_attributes_template"], snapshot))
                assert isinstance(attributes, dict), where
                assert attributes["game"] == snapshot["game"], where
                assert attributes["round"] == snapshot["status"].get("round"), where
                assert attributes["players"] == len(snapshot["players"]), where
            if "_player_" in topic:
                index = int(topic.split("player_")[1].split("_")[0]) - 1
                assert state == str(snapshot["players"][index]["total"]), where
            rendered += 1
        assert rendered == 1 + len(names), f"{game} {shape}"
        if shape == "none":
            status = render(messages[0][1]["value_template"], snapshot)  # type: ignore[index]
            assert status == "a game to start"
            assert names == ()
        else:
            assert names == tuple(p["name"] for p in snapshot["players"])


def test_no_game_snapshot_has_no_round_and_the_attributes_still_render(tmp_path: Path) -> None:
    # The old template read value_json.status.round: a TypeError in Home Assistant's log on
    # every message without a game, and the last game's attributes kept.
    snapshot = snapshots(tmp_path, "mini-express")["none"]
    assert "round" not in snapshot["status"]
    config = discovery_messages(CONFIG, ())[0][1]
    assert config is not None
    assert json.loads(render(config["json_attributes_template"], snapshot)) == {
        "game": None,
        "title": None,
        "game_id": None,
        "round": None,
        "over": False,
        "players": 0,
    }


def test_a_score_sensor_without_its_player_reads_none_which_ha_shows_as_unknown() -> None:
    config = discovery_messages(CONFIG, ("Ann", "Ben"))[2][1]
    assert config is not None
    assert render(config["value_template"], {"players": [{"total": 3}]}) == "None"


def test_a_long_status_is_cut_to_what_home_assistant_accepts() -> None:
    config = discovery_messages(CONFIG, ())[0][1]
    assert config is not None
    snapshot = {"game": "x", "status": {"waiting_for": "a" * 1000}}
    assert render(config["value_template"], snapshot) == "a" * MAX_STATE_CHARS


def test_device_origin_and_stable_entity_ids() -> None:
    url = "http://table-1.local:8080/"
    first = dict(discovery_messages(CONFIG, ("Ann",), configuration_url=url, sw_version="2.0"))
    renamed = dict(discovery_messages(CONFIG, ("Zoë",), configuration_url=url, sw_version="2.0"))
    node = node_id("table-1")
    topic = f"homeassistant/sensor/{node}/player_1_score/config"
    ann, zoe = first[topic], renamed[topic]
    assert ann is not None and zoe is not None
    # the entity id does not come from the name: renaming the player keeps the sensor
    assert ann["default_entity_id"] == zoe["default_entity_id"] == f"sensor.{node}_player_1_score"
    assert ann["unique_id"] == zoe["unique_id"]
    assert (ann["name"], zoe["name"]) == ("Ann score", "Zoë score")
    for config in first.values():
        if config is None:
            continue
        assert config["origin"] == {"name": "Trackside", "sw_version": "2.0"}
        assert config["device"]["sw_version"] == "2.0"
        assert config["device"]["configuration_url"] == url
        assert config["device"]["identifiers"] == [node]
        assert config["default_entity_id"].startswith(f"sensor.{node}_")


@pytest.mark.parametrize("game", GAMES)
def test_round_ends_tunnels_and_game_over_become_one_event_each(tmp_path: Path, game: str) -> None:
    every = playthrough(tmp_path, game)
    events = TableEvents()
    sent: list[dict[str, Any]] = []
    for snapshot in every:
        sent += events.update(snapshot)
        assert events.update(snapshot) == []  # the same snapshot again: nothing new
    cues = {
        (c["kind"], c["at_s"])
        for snap in every
        for c in snap["cues"]
        if c["kind"] in ("round_end", "tunnel", "last_round")
    }
    assert len([e for e in sent if e["event_type"] != "game_over"]) == len(cues)
    over = [e for e in sent if e["event_type"] == "game_over"]
    assert len(over) == (1 if every[-1]["over"] else 0)
    for event in sent:
        assert event["event_type"] in EVENT_TYPES
        assert event["game"] == game
        json.dumps(event)  # what goes on the wire
    if over:
        assert over[0]["winners"] == every[-1]["winners"]


def test_round_end_cues_reach_home_assistant_for_russian_railroads(tmp_path: Path) -> None:
    # the golden Russian Railroads night crosses rounds: the event entity must see them
    sent = []
    events = TableEvents()
    for snapshot in playthrough(tmp_path, "russian-railroads"):
        sent += events.update(snapshot)
    rounds = [e["round"] for e in sent if e["event_type"] == "round_end"]
    assert rounds and rounds == sorted(rounds)
    # the last round's start, once, from the game's view (round 7 of a 4-player game)
    assert [e for e in sent if e["event_type"] == "last_round"] == [
        {"event_type": "last_round", "game": "russian-railroads", "round": 7}
    ]


def test_the_event_entity_belongs_to_the_table_device() -> None:
    topic, config = event_entity_message(CONFIG, configuration_url="http://t.local:8080/")
    assert config is not None
    node = node_id("table-1")
    assert topic == f"homeassistant/event/{node}/table_event/config"
    assert config["state_topic"] == "trackside/table-1/ha/event"
    assert config["event_types"] == list(EVENT_TYPES)
    assert config["device"]["identifiers"] == [node]
    assert config["default_entity_id"] == f"event.{node}_table_event"


def test_only_tags_that_are_not_game_pieces_reach_the_tag_scanner(tmp_path: Path) -> None:
    golden = json.loads((GOLDEN / "mini-express.json").read_text(encoding="utf-8"))
    store = EventStore(tmp_path / "tags.sqlite3")
    try:
        engine = Engine(store)
        store.enrol("04PIECE01", "mini-express", "share-leather")
        start = {
            "command": "start_game",
            "game": "mini-express",
            "players": golden["players"],
            "options": golden["options"],
        }
        assert engine.handle(command(start)).outcome == "applied"
        scans = TagScans()
        sent: list[dict[str, Any]] = []

        def scan(uid: str) -> None:
            observation = Observation(
                "seat-1-reader",  # type: ignore[arg-type]
                ObservationKind.TAG_PRESENT,
                {"uid": uid},
                1,  # type: ignore[arg-type]
            )
            engine.handle(observation)
            snapshot = published(engine)
            sent.extend(scans.update(snapshot))
            assert scans.update(snapshot) == []  # once each

        scan("04SPARE77")  # a spare tag: not a game piece
        scan("04PIECE01")  # a game piece: never on the bus for Home Assistant
        scan("04SPARE77")  # held again later: a new scan
        assert sent == [{"uid": "04SPARE77", "seat": 1}, {"uid": "04SPARE77", "seat": 1}]
    finally:
        store.close()


def test_the_tag_scanner_config_reads_the_uid() -> None:
    topic, config = tag_scanner_message(CONFIG, sw_version="1")
    assert config is not None
    assert topic == f"homeassistant/tag/{node_id('table-1')}/table_tags/config"
    assert config["topic"] == "trackside/table-1/ha/tag"
    assert render(config["value_template"], {"uid": "04SPARE77", "seat": 1}) == "04SPARE77"
    assert config["device"]["identifiers"] == [node_id("table-1")]
