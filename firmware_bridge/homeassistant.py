"""Home Assistant MQTT discovery for a table: what Home Assistant is told, as pure data.

The bridge (``firmware_bridge.mqtt``) publishes these retained configs; Home Assistant then
reads the table's retained ``state`` topic through the templates below. The templates run in
Home Assistant's sandboxed Jinja, against every snapshot the service publishes — with no game
(``status`` has no ``round``, ``players`` is empty), a game just started, mid-game and ended —
so they use ``.get`` with defaults instead of attribute access: a missing key in
``json_attributes_template`` is a TypeError in Home Assistant's log on every message, and the
entity keeps the previous game's attributes. ``tests/firmware_bridge/test_homeassistant.py``
renders each template against every snapshot shape the way Home Assistant does.

Entity ids are fixed by ``default_entity_id`` (Home Assistant 2025.10 and later; it replaced
``object_id``), so ``sensor.trackside_<table>_player_1_score`` stays the first player's sensor
whatever the players are called tonight; the *name* follows the players.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any

from companion.core.i18n import translations
from companion.core.messages import Message, msg

MAX_DISCOVERY_PLAYERS = 8  # score sensors beyond the current players are removed up to here
MAX_STATE_CHARS = 255  # Home Assistant refuses a longer state
MAX_NAME_CHARS = 64


def software_version() -> str:
    """The installed Trackside version (what ``pip`` installed), for ``sw_version``."""
    try:
        return metadata.version("trackside")
    except metadata.PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown"


def node_id(table_id: str) -> str:
    """The discovery node id and entity-id stem: ``trackside_<table id>`` with ``-`` as ``_``."""
    return f"trackside_{table_id}".replace("-", "_").lower()


STATUS_VALUE_TEMPLATE = (
    "{% set s = value_json.get('status') or {} %}"
    "{{ ((s.get('waiting_for') or s.get('phase')"
    " or (value_json.get('game') and 'playing') or 'idle') | string)[:"
    + str(MAX_STATE_CHARS)
    + "] }}"
)
STATUS_ATTRIBUTES_TEMPLATE = (
    "{% set s = value_json.get('status') or {} %}"
    "{{ {'game': value_json.get('game'),"
    " 'title': value_json.get('title') or none,"
    " 'game_id': value_json.get('game_id'),"
    " 'round': s.get('round'),"
    " 'over': value_json.get('over', false),"
    " 'players': (value_json.get('players') or []) | length} | tojson }}"
)


def score_value_template(index: int) -> str:
    """Player ``index``'s total, or ``None`` (Home Assistant's "unknown") without that player."""
    return (
        "{% set p = value_json.get('players') or [] %}"
        f"{{{{ p[{index}].get('total') if (p | length) > {index} else None }}}}"
    )


def device_info(table_id: str, version: str, configuration_url: str | None) -> dict[str, Any]:
    """The one Home Assistant device all the table's entities belong to."""
    device: dict[str, Any] = {
        "identifiers": [node_id(table_id)],
        "name": f"Trackside {table_id}",
        "manufacturer": "Trackside",
        "model": "table companion",
        "sw_version": version,
    }
    if configuration_url:
        device["configuration_url"] = configuration_url
    return device


def _name(config: Any, text: Message) -> str:
    """An entity's name in the table's language (``[web] language``)."""
    return text.render(translations(getattr(config, "language", "en")))


def discovery_messages(
    config: Any,
    players: tuple[str, ...],
    *,
    configuration_url: str | None = None,
    sw_version: str | None = None,
) -> list[tuple[str, dict[str, Any] | None]]:
    """(config topic, config) pairs for ``config`` (an ``MqttConfig``); a None config is an
    empty retained payload, which removes that entity. ``configuration_url``: the table's web
    page, shown as "Visit" on the device in Home Assistant."""
    version = sw_version if sw_version is not None else software_version()
    node = node_id(config.table_id)
    base = f"trackside/{config.table_id}"
    device = device_info(config.table_id, version, configuration_url)
    common: dict[str, Any] = {
        "state_topic": f"{base}/state",
        "availability_topic": f"{base}/status",
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device,
        "origin": {"name": "Trackside", "sw_version": version},
    }
    out: list[tuple[str, dict[str, Any] | None]] = [
        (
            f"{config.ha_prefix}/sensor/{node}/status/config",
            {
                **common,
                "name": _name(config, msg("Table status")),
                "unique_id": f"{node}_status",
                "default_entity_id": f"sensor.{node}_status",
                "icon": "mdi:train",
                "value_template": STATUS_VALUE_TEMPLATE,
                "json_attributes_topic": f"{base}/state",
                "json_attributes_template": STATUS_ATTRIBUTES_TEMPLATE,
            },
        )
    ]
    for index in range(MAX_DISCOVERY_PLAYERS):
        topic = f"{config.ha_prefix}/sensor/{node}/player_{index + 1}_score/config"
        if index >= len(players):
            out.append((topic, None))
            continue
        name = players[index].strip()[:MAX_NAME_CHARS] or _name(
            config, msg("Player {n}", n=index + 1)
        )
        out.append(
            (
                topic,
                {
                    **common,
                    "name": _name(config, msg("{player} score", player=name)),
                    "unique_id": f"{node}_player_{index + 1}_score",
                    "default_entity_id": f"sensor.{node}_player_{index + 1}_score",
                    "icon": "mdi:trophy",
                    "unit_of_measurement": _name(config, msg("points", context="unit")),
                    "state_class": "measurement",
                    "value_template": score_value_template(index),
                },
            )
        )
    buttons: tuple[tuple[str, Message, str], ...] = (
        ("undo", msg("Undo last entry"), "mdi:undo"),
        ("redo", msg("Redo"), "mdi:redo"),
    )
    for command, label, icon in buttons:
        topic = f"{config.ha_prefix}/button/{node}/{command}/config"
        if not getattr(config, "ha_buttons", False):
            out.append((topic, None))  # removes a button an earlier config announced
            continue
        out.append(
            (
                topic,
                {
                    "name": _name(config, label),
                    "unique_id": f"{node}_{command}",
                    "default_entity_id": f"button.{node}_{command}",
                    "icon": icon,
                    "command_topic": f"{base}/command",
                    "payload_press": command,
                    "qos": 1,
                    "availability_topic": f"{base}/status",
                    "payload_available": "online",
                    "payload_not_available": "offline",
                    "device": device,
                    "origin": common["origin"],
                },
            )
        )
    return out


def player_names(state: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The players' names in a snapshot (``Player n`` for a malformed entry)."""
    players = state.get("players") if state is not None else None
    return tuple(
        str(p.get("name", f"Player {i + 1}")) if isinstance(p, Mapping) else f"Player {i + 1}"
        for i, p in enumerate(players if isinstance(players, list) else [])
    )


EVENT_TYPES = ("round_end", "tunnel", "last_round", "game_over")


CUE_EVENTS = ("round_end", "tunnel", "last_round")
"""The snapshot's cues that are Home Assistant events (the rest light the strip only)."""


def event_topic(table_id: str) -> str:
    """Where the table's Home Assistant events go (not retained: an event happens once)."""
    return f"trackside/{table_id}/ha/event"


def event_entity_message(
    config: Any, *, configuration_url: str | None = None, sw_version: str | None = None
) -> tuple[str, dict[str, Any] | None]:
    """The ``event`` entity "Table event": round end, tunnel verdict, last round begun, game
    over — for automations ("flash the room lights when a round ends")."""
    version = sw_version if sw_version is not None else software_version()
    node = node_id(config.table_id)
    return (
        f"{config.ha_prefix}/event/{node}/table_event/config",
        {
            "name": _name(config, msg("Table event")),
            "unique_id": f"{node}_table_event",
            "default_entity_id": f"event.{node}_table_event",
            "state_topic": event_topic(config.table_id),
            "event_types": list(EVENT_TYPES),
            "availability_topic": f"trackside/{config.table_id}/status",
            "payload_available": "online",
            "payload_not_available": "offline",
            "icon": "mdi:bell-ring",
            "device": device_info(config.table_id, version, configuration_url),
            "origin": {"name": "Trackside", "sw_version": version},
        },
    )


class TableEvents:
    """Turns successive snapshots into Home Assistant event payloads, each once: a cue
    (``round_end``, ``tunnel``) stays in the snapshot for its lifetime, so cues are remembered
    by (kind, time, seat); game over is the step of ``over`` from false to true. Only public
    facts go out: the round, the seat and the number of extra tunnel cards, the winners' names
    — what the scoreboard shows."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, float, object]] = set()
        self._over: tuple[object, bool] | None = None

    def update(self, snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        cues = snapshot.get("cues")
        current: set[tuple[str, float, object]] = set()
        for cue in cues if isinstance(cues, list) else []:
            if not isinstance(cue, Mapping) or cue.get("kind") not in CUE_EVENTS:
                continue
            at = cue.get("at_s")
            if not isinstance(at, int | float) or isinstance(at, bool):
                continue
            key = (str(cue["kind"]), float(at), cue.get("seat"))
            current.add(key)
            if key in self._seen:
                continue
            event: dict[str, Any] = {"event_type": cue["kind"], "game": snapshot.get("game")}
            if cue["kind"] in ("round_end", "last_round"):
                if cue["kind"] == "round_end" or "round" in cue:
                    event["round"] = cue.get("round")
            else:
                event["seat"] = cue.get("seat")
                event["extra_cards"] = cue.get("extra_cards")
            out.append(event)
        self._seen = current
        game_id = snapshot.get("game_id")
        over = snapshot.get("over") is True
        if (
            over
            and game_id is not None
            and self._over is not None
            and self._over[0] == game_id
            and not self._over[1]
        ):
            out.append(
                {
                    "event_type": "game_over",
                    "game": snapshot.get("game"),
                    "winners": list(snapshot.get("winners") or []),
                }
            )
        self._over = (game_id, over)
        return out


def tag_topic(table_id: str) -> str:
    """Where scans of tags that are not game pieces go, for Home Assistant's tag scanner."""
    return f"trackside/{table_id}/ha/tag"


def tag_scanner_message(
    config: Any, *, configuration_url: str | None = None, sw_version: str | None = None
) -> tuple[str, dict[str, Any] | None]:
    """Home Assistant's MQTT tag scanner: each message on :func:`tag_topic` becomes a
    ``tag_scanned`` event with the tag's uid (Settings → Tags)."""
    version = sw_version if sw_version is not None else software_version()
    node = node_id(config.table_id)
    return (
        f"{config.ha_prefix}/tag/{node}/table_tags/config",
        {
            "topic": tag_topic(config.table_id),
            "value_template": "{{ value_json.uid }}",
            "device": device_info(config.table_id, version, configuration_url),
            "origin": {"name": "Trackside", "sw_version": version},
        },
    )


class TagScans:
    """Scans for Home Assistant's tag scanner, each once: only tags that are **not** game pieces
    (the engine's ``unknown_tag`` cue: a tag held on a seat's reader that the registry does not
    know). A game piece's scan never goes out: its uid, matched against the registry, could tell
    a hidden card or ticket to anyone on the bus. So a spare tag at the table can start a Home
    Assistant automation ("dim the lights"), and the game's own tags stay the game's."""

    def __init__(self) -> None:
        self._seen: set[tuple[float, object, str]] = set()

    def update(self, snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        current: set[tuple[float, object, str]] = set()
        cues = snapshot.get("cues")
        for cue in cues if isinstance(cues, list) else []:
            if not isinstance(cue, Mapping) or cue.get("kind") != "unknown_tag":
                continue
            uid, at = cue.get("uid"), cue.get("at_s")
            if not isinstance(uid, str) or not uid or not isinstance(at, int | float):
                continue
            key = (float(at), cue.get("seat"), uid)
            current.add(key)
            if key not in self._seen:
                out.append({"uid": uid, "seat": cue.get("seat")})
        self._seen = current
        return out


def discovery_topics(config: Any) -> tuple[str, ...]:
    """Every discovery config topic this table may have announced (the status sensor, all
    ``MAX_DISCOVERY_PLAYERS`` score sensors, both buttons, the event entity, the tag scanner):
    what removing the table from Home Assistant clears with empty retained payloads."""
    topics = [topic for topic, _ in discovery_messages(config, (), sw_version="")]
    topics.append(event_entity_message(config, sw_version="")[0])
    topics.append(tag_scanner_message(config, sw_version="")[0])
    return tuple(topics)


def discovery_filter(config: Any) -> str:
    """The topic filter matching this table's discovery configs (and no other device's)."""
    return f"{config.ha_prefix}/+/{node_id(config.table_id)}/+/config"
