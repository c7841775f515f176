"""The MQTT bridge: table state, events and status on ``trackside/<table>/…``, the LED scene
on WLED and Home Assistant lights, optional Home Assistant discovery, and the answers to the
club hub's resend requests (``HubRequests``, docs/hub.md).

paho-mqtt 2.x (``CallbackAPIVersion.VERSION2``) with its own network thread (``loop_start``),
which reconnects forever with exponential backoff. Nothing here blocks or raises into the
caller because the broker is away: publishing while disconnected keeps the latest state (sent
on the next connect) and queues events (QoS 1, bounded; beyond the bound they are counted as
dropped). Topics and payloads: ``docs/mqtt.md``.

Threads: the caller (the service's engine thread) calls ``publish_*``; paho's thread runs the
callbacks; a small LED worker renders the scene (pure, ``firmware_bridge.leds``) and hands
frames to the drivers, so a blink keeps blinking between snapshots. The callbacks only set
flags and wake the worker; the drivers are touched by the worker alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import secrets
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from companion.core.ids import ReaderId
from companion.core.observation import Observation, ObservationKind
from companion.core.tls import tls_context
from firmware_bridge.frames import FrameRejected
from firmware_bridge.ha_light import HaLightConfig, HaLightDriver
from firmware_bridge.homeassistant import (
    TableEvents,
    TagScans,
    discovery_filter,
    discovery_messages,
    discovery_topics,
    event_entity_message,
    event_topic,
    player_names,
    tag_scanner_message,
    tag_topic,
)
from firmware_bridge.leds import scene
from firmware_bridge.seat_pads import PadTag, pad_topic_filter, parse_pad_message
from firmware_bridge.wled import WledDriver

log = logging.getLogger(__name__)

STATE_SCHEMA = 1
EVENT_SCHEMA = 1
QUEUE_HEADROOM = 100


MAX_PAD_PAYLOAD = 1024
"""A seat pad's tag event is well under 100 bytes; larger messages are refused unread."""
MAX_COMMAND_PAYLOAD = 16
BUTTON_COMMANDS = ("undo", "redo")
"""What a Home Assistant button may press: the table's own one-tap steps, nothing that starts,
ends or changes a game's moves."""
HA_COMMAND_SOURCE = "home-assistant"
PAD_REFUSALS_PER_S = 2.0
PAD_REFUSALS_BURST = 5.0


def _short(text: str, limit: int = 80) -> str:
    """A refusal quotes at most ``limit`` characters of what it refuses."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def install_client_id(table_id: str) -> str:
    """``trackside-<table>-<8 hex>``: unique per install (from ``/etc/machine-id``, else random
    per run), so a stranger on the broker cannot guess it and knock the bridge off by
    connecting with the same id."""
    try:
        seed = Path("/etc/machine-id").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        seed = ""
    if not seed:
        return f"trackside-{table_id}-{secrets.token_hex(4)}"
    digest = hashlib.sha256(f"trackside-mqtt:{seed}:{table_id}".encode()).hexdigest()[:8]
    return f"trackside-{table_id}-{digest}"


def default_table_id() -> str:
    """The host name, made safe for a topic level (the contract's default)."""
    name = socket.gethostname().split(".")[0] or "table"
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)


@dataclass(frozen=True, slots=True)
class MqttConfig:
    """The ``[mqtt]`` config section, validated. ``wled`` are WLED device ids (the part of
    the device topic after ``wled/``); ``wled_group`` a WLED group topic of the table's own
    (e.g. ``wled/trackside-table-1``; never ``wled/all``, every WLED's factory group) to send
    frames to all of them at once."""

    host: str
    port: int = 1883
    table_id: str = field(default_factory=default_table_id)
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    keepalive_s: int = 30
    ha_discovery: bool = False
    ha_prefix: str = "homeassistant"
    ha_buttons: bool = False
    """Undo and redo as Home Assistant buttons, pressed on ``trackside/<table>/command``. Only
    with a broker login: the broker's ACL lets only Home Assistant's user write there (docs/mqtt.md,
    "The broker"), which is what the table PIN is on the pages."""
    wled: tuple[str, ...] = ()
    wled_group: str | None = None
    ha_lights: tuple[HaLightConfig, ...] = ()
    leds_per_seat: int = 30
    seats: int = 4
    led_fps: float = 15.0
    client_id: str | None = None
    reconnect_min_s: int = 1
    reconnect_max_s: int = 60
    max_queued_events: int = 1000
    seat_pads: bool = False
    """Listen for ESP32 seat pads on ``trackside/<table>/pads/+/tag`` (docs/protocols/seat-pads.md)."""
    language: str = "en"
    """The table's language (``[web] language``): Home Assistant's entity names are in it."""
    pads: tuple[tuple[str, int], ...] = ()
    """``[mqtt.pads]``: each seat pad's id and its seat. Only these pads are heard, and the seat
    is this one, whatever a message says (a stranger on the broker cannot move for a player)."""

    def __post_init__(self) -> None:
        def bad(option: str, reason: str) -> ValueError:
            return ValueError(f"mqtt.{option}: {reason}")

        if not self.host:
            raise bad("host", "must not be empty")
        if not 1 <= self.port <= 65535:
            raise bad("port", f"{self.port!r} is not a TCP port")
        if not self.table_id or any(ch in self.table_id for ch in "/+#\x00"):
            raise bad("table_id", f"{self.table_id!r} cannot be one MQTT topic level")
        if self.password is not None and self.username is None:
            raise bad("password", "given without a username")
        if self.ca_file is not None and not self.tls:
            raise bad("ca_file", "given but tls is false")
        if self.keepalive_s < 5:
            raise bad("keepalive_s", f"{self.keepalive_s!r} is below 5 seconds")
        if self.seats < 1 or self.seats > 16:
            raise bad("seats", f"{self.seats!r} is not 1–16")
        if self.leds_per_seat < 1 or self.leds_per_seat > 1000:
            raise bad("leds_per_seat", f"{self.leds_per_seat!r} is not 1–1000")
        if not 0.5 <= self.led_fps <= 60:
            raise bad("led_fps", f"{self.led_fps!r} is not 0.5–60")
        if not 0 < self.reconnect_min_s <= self.reconnect_max_s:
            raise bad("reconnect_min_s", "must be positive and at most reconnect_max_s")
        for light in self.ha_lights:
            if light.seat is not None and not 1 <= light.seat <= self.seats:
                raise bad("ha_lights", f"seat {light.seat!r} is not 1–{self.seats}")
        for pad, seat in self.pads:
            if not pad or any(ch in pad for ch in "/+#\x00"):
                raise bad("pads", f"{pad!r} cannot be one MQTT topic level")
            if not 1 <= seat <= 16:
                raise bad(f"pads.{pad}", f"seat {seat!r} is not 1–16")
        if self.ha_buttons and not self.ha_discovery:
            raise bad("ha_buttons", "needs ha_discovery = true (the buttons are discovered)")
        if self.ha_buttons and self.username is None:
            raise bad(
                "ha_buttons",
                "needs a broker login (username): on an anonymous broker anyone could press undo",
            )
        if self.seat_pads and not self.pads:
            raise bad(
                "pads",
                "seat_pads = true needs the pads and their seats, e.g. [mqtt.pads] pad-red = 1: "
                "messages from any other pad id are refused",
            )
        # The WLED driver checks its ids and group topic the same way at construction (WLED's
        # 32-character topics, no device topic that starts the group topic): refused here, at
        # start-up, naming the option.
        for option, group in (("wled", None), ("wled_group", self.wled_group)):
            try:
                WledDriver(lambda _t, _p: False, self.wled, group)
            except ValueError as exc:
                raise bad(option, str(exc)) from None

    @property
    def has_lights(self) -> bool:
        return bool(self.wled or self.wled_group or self.ha_lights)

    @classmethod
    def from_mapping(cls, section: Mapping[str, Any]) -> MqttConfig:
        """From the parsed ``[mqtt]`` TOML table. Raises ValueError naming the option."""
        known = set(cls.__dataclass_fields__)
        for key in section:
            if key not in known:
                raise ValueError(f"mqtt.{key}: unknown option (known: {', '.join(sorted(known))})")
        kwargs: dict[str, Any] = {}
        types: dict[str, type | tuple[type, ...]] = {
            "host": str,
            "port": int,
            "table_id": str,
            "username": str,
            "password": str,
            "tls": bool,
            "ca_file": str,
            "keepalive_s": int,
            "ha_discovery": bool,
            "ha_prefix": str,
            "ha_buttons": bool,
            "wled_group": str,
            "leds_per_seat": int,
            "seats": int,
            "led_fps": (int, float),
            "client_id": str,
            "reconnect_min_s": int,
            "reconnect_max_s": int,
            "max_queued_events": int,
            "seat_pads": bool,
        }
        if "host" not in section:
            raise ValueError("mqtt.host: missing")
        for key, value in section.items():
            if key == "wled":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"mqtt.wled: expected a list of WLED ids, got {value!r}")
                kwargs[key] = tuple(value)
            elif key == "pads":
                if not isinstance(value, Mapping) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value.values()
                ):
                    raise ValueError(
                        f'mqtt.pads: expected pad ids with seats, e.g. {{"pad-red" = 1}}, got {value!r}'
                    )
                kwargs[key] = tuple((str(k), int(v)) for k, v in value.items())
            elif key == "ha_lights":
                kwargs[key] = tuple(_ha_light(i, v) for i, v in enumerate(_list(key, value)))
            else:
                wanted = types[key]
                bool_for_number = isinstance(value, bool) and wanted is not bool
                if not isinstance(value, wanted) or bool_for_number:
                    raise ValueError(f"mqtt.{key}: {value!r} has the wrong type")
                kwargs[key] = value
        return cls(**kwargs)


def _list(key: str, value: object) -> list[object]:
    if not isinstance(value, list):
        raise ValueError(f"mqtt.{key}: expected a list, got {value!r}")
    return value


def _ha_light(index: int, value: object) -> HaLightConfig:
    where = f"mqtt.ha_lights[{index}]"
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected a table, got {value!r}")
    unknown = set(value) - {"command_topic", "seat", "availability_topic"}
    if unknown:
        raise ValueError(f"{where}.{sorted(unknown)[0]}: unknown option")
    topic = value.get("command_topic")
    if not isinstance(topic, str) or not topic or any(ch in topic for ch in "+#"):
        raise ValueError(f"{where}.command_topic: {topic!r} is not a topic to publish to")
    seat = value.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
        raise ValueError(f"{where}.seat: {seat!r} is not a seat number")
    availability = value.get("availability_topic")
    if availability is not None and (not isinstance(availability, str) or not availability):
        raise ValueError(f"{where}.availability_topic: {availability!r} is not a topic")
    return HaLightConfig(topic, seat, availability)


@dataclass(frozen=True, slots=True)
class MqttStatus:
    """What the status chip shows. ``state``: ``stopped`` (not started or stopped),
    ``connecting`` (started, not connected and subscribed yet), ``connected``,
    ``disconnected``."""

    state: str
    broker: str
    last_error: str | None = None
    dropped_events: int = 0

    @property
    def connected(self) -> bool:
        return self.state == "connected"

    def to_json(self) -> dict[str, object]:
        return {
            "state": self.state,
            "broker": self.broker,
            "last_error": self.last_error,
            "dropped_events": self.dropped_events,
        }


class MqttBridge:
    """See the module docstring. ``start`` once, ``stop`` once."""

    def __init__(self, config: MqttConfig, *, configuration_url: str | None = None) -> None:
        self.config = config
        self.configuration_url = configuration_url
        """The table's web page, for Home Assistant's device card ("Visit")."""
        base = f"trackside/{config.table_id}"
        self.status_topic = f"{base}/status"
        self.state_topic = f"{base}/state"
        self.event_topic = f"{base}/event"
        self.request_topic = f"{base}/request"  # the club hub asks (docs/hub.md)
        self.command_topic = f"{base}/command"  # Home Assistant's undo/redo buttons
        self.resend_topic = f"{base}/resend"  # the table answers
        self._lock = threading.Lock()
        # One retained state or discovery announcement at a time, each of the state as it is
        # then (see _send_state)
        self._send_lock = threading.Lock()
        self._state = "stopped"
        # Connected and subscribed (the end of _on_connect): only then does the status say
        # "connected" and the LED thread send frames. A state published between the two is
        # still retained (it only needs the connection).
        self._ready = False
        self._subscribing: int | None = None  # the connect's SUBSCRIBE, not yet acknowledged
        self._last_error: str | None = None
        self._dropped_events = 0
        self._state_payload: str | None = None
        self._discovered_players: tuple[str, ...] | None = None
        self._ha_events = TableEvents()
        self._ha_tags = TagScans()
        self.discovery_removed = 0
        """Retained discovery configs cleared because ``ha_discovery`` is off."""

        client_id = config.client_id or install_client_id(config.table_id)
        self._client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True
        )
        self._client.will_set(self.status_topic, "offline", qos=1, retain=True)
        if config.username is not None:
            self._client.username_pw_set(config.username, config.password)
        if config.tls:
            try:
                context = tls_context(config.ca_file)
            except (OSError, ssl.SSLError) as err:  # a start-up error, named like the config's
                raise ValueError(f"mqtt.ca_file: cannot use {config.ca_file!r}: {err}") from err
            self._client.tls_set_context(context)
        self._client.reconnect_delay_set(
            min_delay=config.reconnect_min_s, max_delay=config.reconnect_max_s
        )
        # The event bound is ours (below); paho's own bound only stops a runaway, and leaves
        # room for what every connect sends (status, state, discovery) behind a full queue.
        self._client.max_queued_messages_set(config.max_queued_events + QUEUE_HEADROOM)
        self._events_while_down = 0
        self._client.on_connect = self._on_connect
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_subscribe = self._on_subscribe
        self._client.on_socket_open = _no_delay

        # LEDs: the worker owns the drivers; the others talk to it through these, under _lock.
        self._wled = WledDriver(self._publish_light, config.wled, config.wled_group)
        self._ha = HaLightDriver(
            self._publish_light, config.ha_lights, leds_per_seat=config.leds_per_seat
        )
        self._led_wake = threading.Condition(self._lock)
        self._led_state: Mapping[str, Any] | None = None
        self._led_dirty = False
        self._led_resync = False
        self._light_status: list[tuple[str, str, bool]] = []
        self._led_thread: threading.Thread | None = None
        self._stopping = False
        self._pad_sink: Callable[[Observation], None] | None = None
        self.pad_messages_rejected = 0
        self._requests = HubRequests(self)
        self.pad_messages_unknown = 0
        self.pad_messages_retained = 0
        self.pad_refusals_dropped = 0
        self.messages_failed = 0
        self.commands_refused = 0
        self.network_restarts = 0
        self._pad_buckets: dict[str, tuple[float, float]] = {}

    # -- the caller's side ----------------------------------------------------------------
    def listen_for_pads(self, sink: Callable[[Observation], None]) -> None:
        """Seat pads' tag events become observations for ``sink`` (the engine); a malformed
        message becomes an ``error`` observation, so it is counted and kept, never dropped."""
        self._pad_sink = sink

    def serve_hub_requests(self, handler: Callable[[Mapping[str, Any]], list[Any]]) -> None:
        """Answer the club hub's resend requests on ``…/request`` with ``handler``'s reply
        messages on ``…/resend`` (docs/hub.md). Call before :meth:`start`."""
        self._requests.handler = handler

    def start(self) -> None:
        """Connect in the background (never blocks on the network) and keep connecting."""
        with self._lock:
            if self._state != "stopped" or self._stopping:
                raise RuntimeError("MqttBridge.start: already started")
            self._state = "connecting"
        self._client.connect_async(self.config.host, self.config.port, self.config.keepalive_s)
        self._client.loop_start()
        self._requests.start()
        if self.config.has_lights:
            self._led_thread = threading.Thread(
                target=self._led_loop, name="trackside-leds", daemon=True
            )
            self._led_thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Say ``offline`` (retained) if connected, disconnect, and end both threads."""
        with self._lock:
            if self._stopping:
                return
            self._stopping = True
            was = self._state
            self._led_wake.notify_all()
        if self._led_thread is not None:
            self._led_thread.join(timeout_s)
        self._requests.stop(timeout_s)
        if was == "connected":
            info = self._client.publish(self.status_topic, "offline", qos=1, retain=True)
            try:
                info.wait_for_publish(timeout_s)
            except (RuntimeError, ValueError) as err:  # lost the connection meanwhile
                log.info("MQTT: offline status not confirmed: %s", err)
        self._client.disconnect()
        self._client.loop_stop()
        with self._lock:
            self._state = "stopped"

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """Retain the table snapshot (the ``/api/state`` JSON) on ``…/state``; kept and sent
        again after every reconnect. Also re-renders the LEDs and, with discovery on,
        announces a score sensor per player when the players change."""
        payload = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
        # The worker gets its own copy, so the caller may reuse its dict.
        copy = json.loads(payload)
        with self._lock:
            self._state_payload = payload
            connected = self._state == "connected"
            self._led_state = copy
            self._led_dirty = True
            self._led_wake.notify_all()
        if self.config.ha_discovery:
            # round end, tunnel verdict, game over: once each, queued (QoS 1) while away
            for event in self._ha_events.update(copy):
                body = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
                self._client.publish(event_topic(self.config.table_id), body, qos=1)
            for scan in self._ha_tags.update(copy):
                body = json.dumps(scan, separators=(",", ":"), ensure_ascii=False)
                self._client.publish(tag_topic(self.config.table_id), body, qos=1)
        if connected:
            self._send_state()
            if self.config.ha_discovery:
                self._announce(force=False)

    def publish_event(self, seq: int, event: Mapping[str, Any], *, db: str | None = None) -> None:
        """One applied event, QoS 1, as ``{"schema": 1, "seq": seq, "event": event}`` (and
        ``"db"``, the database's identity, when given: the club hub's sequence check). Queued
        while disconnected (up to ``max_queued_events``; beyond that counted as dropped)."""
        message: dict[str, Any] = {"schema": EVENT_SCHEMA, "seq": seq, "event": event}
        if db is not None:
            message["db"] = db
        payload = json.dumps(
            message,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        with self._lock:
            if self._state != "connected":
                if self._events_while_down >= self.config.max_queued_events:
                    self._dropped_events += 1
                    limit = self.config.max_queued_events
                    self._last_error = f"event queue full ({limit} while disconnected); dropped"
                    return
                self._events_while_down += 1
        info = self._client.publish(self.event_topic, payload, qos=1, retain=False)
        if info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:
            with self._lock:
                self._dropped_events += 1
                self._last_error = "event queue full; dropped"

    def status(self) -> MqttStatus:
        self._watch_network_thread()
        with self._lock:
            ready = self._state != "connected" or self._ready
            return MqttStatus(
                state=self._state if ready else "connecting",
                broker=f"{self.config.host}:{self.config.port}",
                last_error=self._last_error,
                dropped_events=self._dropped_events,
            )

    # -- paho's thread ----------------------------------------------------------------------
    def _on_connect(
        self,
        client: paho.Client,
        userdata: Any,
        flags: paho.ConnectFlags,
        reason_code: ReasonCode,
        properties: Any,
    ) -> None:
        if reason_code.is_failure:
            with self._lock:
                self._last_error = f"broker refused the connection: {reason_code}"
            log.warning("MQTT: %s refused the connection: %s", self.config.host, reason_code)
            return
        with self._lock:
            self._state = "connected"
            self._ready = False
            self._events_while_down = 0
        log.info("MQTT: connected to %s:%s", self.config.host, self.config.port)
        client.publish(self.status_topic, "online", qos=1, retain=True)
        self._send_state()
        topics = [*self._wled.status_topics, *self._ha.status_topics]
        wanted: list[tuple[str, int]] = []
        if self._pad_sink is not None and self.config.seat_pads:
            wanted.append((pad_topic_filter(self.config.table_id), 1))
        if self._requests.handler is not None:
            wanted.append((self.request_topic, 1))
        if self._pad_sink is not None and self.config.ha_buttons:
            wanted.append((self.command_topic, 1))
        if self.config.ha_discovery:
            topics.append(f"{self.config.ha_prefix}/status")
            self._announce(force=True)
        else:
            # Discovery off: any config this table announced before (it stays retained on the
            # broker, and Home Assistant keeps the device and its entities live) comes back
            # as a retained message and is cleared (_handle_message).
            wanted.append((discovery_filter(self.config), 1))
        wanted += [(t, 0) for t in topics]
        # One SUBSCRIBE; ready when the broker acknowledges it (paho calls _on_subscribe on this
        # same thread, so not before this returns).
        mid = client.subscribe(wanted)[1] if wanted else None
        with self._lock:
            self._subscribing = mid
            if mid is None:
                self._now_ready()

    def _on_subscribe(self, client: paho.Client, userdata: Any, mid: int, *_: Any) -> None:
        with self._lock:
            if mid is not None and mid == self._subscribing:
                self._subscribing = None
                if self._state == "connected":
                    self._now_ready()

    def _now_ready(self) -> None:
        """(Holding the lock.) Connected and subscribed: the status says so, and the LED
        thread sends the whole frame."""
        # Only now the whole LED frame, and "connected" on the status (a test publishing to the
        # pads as soon as it read "connected" was ahead of the pads' subscription; a state
        # published meanwhile had its frame sent twice): the devices' status subscription is
        # in place before the frame. A WLED that subscribed before the frame gets it; one that
        # says "online" after our subscription is repainted when that arrives. Woken earlier,
        # the LED thread could send the frame before a device resubscribed, and hear its
        # "online" only as a retained message after (noted, not repainted): a strip left dark
        # after a broker restart.
        self._ready = True
        self._led_resync = True
        self._led_wake.notify_all()

    def _on_connect_fail(self, client: paho.Client, userdata: Any) -> None:
        # paho calls this inside its ``except OSError``, so the error is still at hand.
        error = sys.exc_info()[1]
        reason = f": {error}" if error is not None else ""
        with self._lock:
            self._state = "connecting" if self._state == "connecting" else "disconnected"
            self._last_error = f"cannot connect to {self.config.host}:{self.config.port}{reason}"

    def _on_disconnect(
        self,
        client: paho.Client,
        userdata: Any,
        flags: paho.DisconnectFlags,
        reason_code: ReasonCode,
        properties: Any,
    ) -> None:
        with self._lock:
            was_connected = self._state == "connected"
            if was_connected:
                self._state = "disconnected"
                if not self._stopping:
                    self._last_error = f"connection lost: {reason_code}"
        # (Not connected yet: the refusal or connect failure already said why.)
        if was_connected and not self._stopping:
            log.warning("MQTT: disconnected from %s: %s", self.config.host, reason_code)

    def _on_message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        """paho's thread: nothing a message contains may raise out of here (an exception would
        end paho's network thread, and with it every pad and light)."""
        try:
            self._handle_message(message)
        except Exception as err:
            self.messages_failed += 1
            log.warning(
                "MQTT: a message on %s was dropped: %s", _short(message.topic), _short(repr(err))
            )

    def _handle_message(self, message: paho.MQTTMessage) -> None:
        if message.topic == self.request_topic:
            self._requests.received(bytes(message.payload))
            return
        if self._pad_sink is not None and message.topic == self.command_topic:
            self._command_message(bytes(message.payload))
            return
        if self._pad_sink is not None and "/pads/" in message.topic:
            if message.retain:
                self._retained_pad_message(message.topic)
                return
            self._pad_message(message.topic, bytes(message.payload))
            return
        payload = message.payload.decode("utf-8", "replace").strip()
        if not self.config.ha_discovery and paho.topic_matches_sub(
            discovery_filter(self.config), message.topic
        ):
            if payload:  # an empty one is the removal itself
                log.info("MQTT: Home Assistant discovery is off: removing %s", message.topic)
                self._client.publish(message.topic, b"", qos=1, retain=True)
                self.discovery_removed += 1
            return
        if self.config.ha_discovery and message.topic == f"{self.config.ha_prefix}/status":
            # Home Assistant's birth message: it restarted and wants discovery again.
            if payload == "online" and not message.retain:
                self._announce(force=True)
            return
        with self._lock:
            if self._led_thread is not None:
                self._light_status.append((message.topic, payload, bool(message.retain)))
                self._led_wake.notify_all()

    def _retained_pad_message(self, topic: str) -> None:
        """A scan the broker kept (a pad set to retain, or anyone publishing with the flag) and
        hands to every new subscription: after a restart or a reconnect it would be entered
        again as a new scan. A scan is a moment, so only live messages count (the broker
        delivers a message to those already subscribed without the flag, even one it also
        keeps); a retained one is counted and logged once, never entered."""
        with self._lock:
            self.pad_messages_retained += 1
            first = self.pad_messages_retained == 1
        if first:
            log.warning(
                "MQTT: ignored a retained message on %s: a scan is entered only as it happens "
                "(set the pad not to retain its tag messages)",
                _short(topic),
            )

    def _pad_message(self, topic: str, payload: bytes) -> None:
        """One seat pad message: only from a configured pad, at most ``MAX_PAD_PAYLOAD`` bytes
        (checked before parsing), with that pad's configured seat. A refusal quotes only a
        short prefix, and a pad's refusals are kept at most ``PAD_REFUSALS_PER_S`` a second
        (the rest counted), so a flood never buries a real scan."""
        assert self._pad_sink is not None
        parts = topic.split("/")
        pad = parts[3] if len(parts) == 5 else ""
        seats = dict(self.config.pads)
        if pad not in seats:
            with self._lock:
                self.pad_messages_unknown += 1
                first = self.pad_messages_unknown == 1
            if first:
                log.warning("MQTT: refused a message from pad %r: not in [mqtt.pads]", _short(pad))
            return
        if len(payload) > MAX_PAD_PAYLOAD:
            parsed: PadTag | FrameRejected | None = FrameRejected(
                f"pad {pad}: message is {len(payload)} bytes; a tag event is at most "
                f"{MAX_PAD_PAYLOAD}"
            )
        else:
            parsed = parse_pad_message(self.config.table_id, topic, payload)
        if parsed is None:
            return
        if isinstance(parsed, FrameRejected):
            self.pad_messages_rejected += 1
            if not self._refusal_allowed(pad):
                return
            observation = Observation(
                source=ReaderId(pad),
                kind=ObservationKind.ERROR,
                payload={"message": _short(parsed.message, 200)},
            )
        else:
            observation = parsed.to_observation(seat=seats[pad])
        try:
            self._pad_sink(observation)
        except Exception:  # the engine's queue never refuses; a bug must not kill paho's thread
            log.exception("MQTT: the seat pad sink failed")

    def _command_message(self, payload: bytes) -> None:
        """A Home Assistant button press: exactly ``undo`` or ``redo`` (checked before it is
        decoded, at most ``MAX_COMMAND_PAYLOAD`` bytes), entered as the table page would enter
        it. Anything else is counted and logged once; it never reaches the engine."""
        assert self._pad_sink is not None
        command = (
            payload.strip().decode("ascii", "replace")
            if len(payload) <= MAX_COMMAND_PAYLOAD
            else ""
        )
        if command not in BUTTON_COMMANDS:
            with self._lock:
                self.commands_refused += 1
                first = self.commands_refused == 1
            if first:
                log.warning(
                    "MQTT: refused a command on %s: %s (only %s)",
                    self.command_topic,
                    _short(payload.decode("utf-8", "replace")),
                    " or ".join(BUTTON_COMMANDS),
                )
            return
        observation = Observation(
            source=ReaderId(HA_COMMAND_SOURCE),
            kind=ObservationKind.COMMAND,
            payload={"command": command},
        )
        try:
            self._pad_sink(observation)
        except Exception:  # the engine's queue never refuses; a bug must not kill paho's thread
            log.exception("MQTT: the command sink failed")

    def _refusal_allowed(self, pad: str) -> bool:
        now = time.monotonic()
        with self._lock:
            tokens, last = self._pad_buckets.get(pad, (PAD_REFUSALS_BURST, now))
            tokens = min(PAD_REFUSALS_BURST, tokens + (now - last) * PAD_REFUSALS_PER_S)
            allowed = tokens >= 1.0
            self._pad_buckets[pad] = (tokens - 1.0 if allowed else tokens, now)
            if not allowed:
                self.pad_refusals_dropped += 1
            return allowed

    def _watch_network_thread(self) -> None:
        """paho's network thread died (it should not: see ``_on_message``): start it again and
        say so on the status chip instead of showing "connected" over a dead bridge."""
        thread = getattr(self._client, "_thread", None)
        with self._lock:
            running = self._state != "stopped" and not self._stopping
        if not running or (thread is not None and thread.is_alive()):
            return  # (paho sets _thread to None when its thread ends)
        with self._lock:
            self.network_restarts += 1
            restarts = self.network_restarts
            self._state = "disconnected"
            self._last_error = f"the MQTT network thread stopped; restarted ({restarts}×)"
        log.error("MQTT: the network thread stopped; restarting it (%d)", restarts)
        with contextlib.suppress(Exception):  # the dead thread's socket and wake-up pair;
            self._client._reset_sockets()  # the new thread connects again with its backoff
        self._client._thread = None  # (loop_start refuses while a thread is referenced)
        self._client.loop_start()

    # -- publishing helpers ---------------------------------------------------------------
    def _publish_light(self, topic: str, payload: str) -> bool:
        info = self._client.publish(topic, payload, qos=0, retain=False)
        return info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS

    def _send_state(self) -> None:
        """Retain the latest snapshot on ``…/state``, when connected. One at a time, each
        reading the snapshot when its turn comes: a connect's copy of the snapshot it saw
        before a newer one arrived could otherwise be published after the newer one's, and the
        retained state would be stale until the next change."""
        with self._send_lock:
            with self._lock:
                payload = self._state_payload
                connected = self._state == "connected"
            if payload is not None and connected:
                self._client.publish(self.state_topic, payload, qos=1, retain=True)

    def _announce(self, *, force: bool) -> None:
        """Home Assistant discovery: the table status sensor, and a score sensor per player
        (names from the latest state); sensors of players no longer there are removed.

        One at a time, each reading the state when its turn comes (as :meth:`_send_state`): a
        connect's announcement made from the state it saw before a new game's state arrived
        could otherwise be published after that state's own, and remove the new players'
        sensors (a test on a loaded machine waited 30 s for one)."""
        with self._send_lock:
            with self._lock:
                names = player_names(self._led_state)
                if not force and names == self._discovered_players:
                    return
                self._discovered_players = names
            url = self.configuration_url
            messages = discovery_messages(self.config, names, configuration_url=url)
            messages.append(event_entity_message(self.config, configuration_url=url))
            messages.append(tag_scanner_message(self.config, configuration_url=url))
            for topic, config in messages:
                payload = "" if config is None else json.dumps(config, separators=(",", ":"))
                self._client.publish(topic, payload, qos=1, retain=True)

    # -- the LED worker ---------------------------------------------------------------------
    def _led_loop(self) -> None:
        period = 1.0 / self.config.led_fps
        animated = False
        while True:
            with self._lock:
                self._led_wake.wait_for(
                    lambda: (
                        self._stopping
                        or self._led_dirty
                        or self._led_resync
                        or bool(self._light_status)
                    ),
                    timeout=period if animated else None,
                )
                if self._stopping:
                    return
                state = self._led_state
                resync, self._led_resync = self._led_resync, False
                statuses, self._light_status = self._light_status, []
                self._led_dirty = False
                connected = self._state == "connected" and self._ready
            if resync:
                self._wled.resync()
                self._ha.resync()
            for topic, payload, retained in statuses:
                self._wled.on_message(topic, payload, retained=retained)
                self._ha.on_status(topic, payload, retained=retained)
            if state is None or not connected:
                animated = False
                continue
            try:
                frame = scene(
                    state,
                    seats=self.config.seats,
                    leds_per_seat=self.config.leds_per_seat,
                    now_s=time.time(),
                )
                self._wled.show(frame)
                self._ha.show(frame)
            except Exception as err:  # a light must never take the service down
                log.exception("LED scene or driver failed")
                with self._lock:
                    self._last_error = f"LEDs: {err!r}"
                animated = False
                continue
            animated = frame.animated


MAX_REQUEST_BYTES = 2048
MAX_PENDING_REQUESTS = 4
REQUEST_BURST = 10
REQUEST_EVERY_S = 5.0
"""Requests answered at most: a burst of 10, then one per 5 s (each makes the table replay
its log; the hub asks once per gap, game end or 5 minutes, one at a time)."""


class HubRequests:
    """The club hub's resend requests (docs/hub.md): bounded before parsing, answered one at
    a time on a worker thread (reading the log must not hold up paho's thread), the replies
    published QoS 1 on ``…/resend``. A malformed request is logged and answered with an
    ``error``; a flood beyond a few pending requests, or faster than :data:`REQUEST_BURST`
    then one per :data:`REQUEST_EVERY_S`, is dropped (the hub asks again after 15 s) and
    logged: the first ten, then every hundredth."""

    def __init__(self, bridge: MqttBridge, clock: Callable[[], float] = time.monotonic) -> None:
        self.bridge = bridge
        self.handler: Callable[[Mapping[str, Any]], list[Any]] | None = None
        self.rejected = 0
        self._clock = clock
        self._tokens = float(REQUEST_BURST)
        self._filled_at = clock()
        self._pending: list[dict[str, Any]] = []
        self._wake = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.handler is None:
            return
        self._thread = threading.Thread(target=self._loop, name="trackside-hub-requests")
        self._thread.daemon = True
        self._thread.start()

    def stop(self, timeout_s: float) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def received(self, payload: bytes) -> None:
        """paho's thread: check and queue; never raises."""
        if self.handler is None:
            return
        reason = None
        request: Any = None
        if len(payload) > MAX_REQUEST_BYTES:
            reason = f"{len(payload)} bytes, more than {MAX_REQUEST_BYTES}"
        else:
            try:
                request = json.loads(payload.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as err:
                reason = f"not JSON: {err}"
            else:
                if not isinstance(request, dict):
                    reason = "not a JSON object"
        with self._wake:
            if reason is None and len(self._pending) >= MAX_PENDING_REQUESTS:
                reason = f"{MAX_PENDING_REQUESTS} requests already waiting"
            if reason is None:
                now = self._clock()
                self._tokens = min(
                    float(REQUEST_BURST),
                    self._tokens + (now - self._filled_at) / REQUEST_EVERY_S,
                )
                self._filled_at = now
                if self._tokens < 1.0:
                    reason = (
                        f"more than {REQUEST_BURST} requests, then one per {REQUEST_EVERY_S:g} s"
                    )
                else:
                    self._tokens -= 1.0
            if reason is not None:
                self.rejected += 1
                if self.rejected <= 10 or self.rejected % 100 == 0:
                    log.warning(
                        "MQTT: hub request on %s refused (%d so far): %s",
                        self.bridge.request_topic,
                        self.rejected,
                        reason,
                    )
                return
            self._pending.append(request)
            self._wake.notify_all()

    def _loop(self) -> None:
        assert self.handler is not None
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._stopping or bool(self._pending))
                if self._stopping:
                    return
                request = self._pending.pop(0)
            try:
                replies = self.handler(request)
            except Exception:  # a bug answering must not end the worker
                log.exception("MQTT: answering a hub request failed")
                continue
            for reply in replies:
                payload = json.dumps(reply, separators=(",", ":"), ensure_ascii=False)
                self.bridge._client.publish(self.bridge.resend_topic, payload, qos=1)


def _no_delay(client: paho.Client, userdata: Any, sock: Any) -> None:
    """Small messages go out at once: without TCP_NODELAY, Nagle's algorithm holds a message
    back until the broker acknowledges the previous one, and the broker's delayed ACK makes
    that about 40 ms — a WLED frame right after the state would wait for it every time."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError) as err:  # not a TCP socket (e.g. a proxy); harmless
        log.debug("MQTT: could not set TCP_NODELAY: %s", err)


def remove_discovery(config: MqttConfig, timeout_s: float = 10.0) -> tuple[str, ...]:
    """``trackside ha-remove``: clear every discovery config this table may have announced
    (empty retained payloads, QoS 1, each acknowledged by the broker), so Home Assistant drops
    the device and its entities. Connects with the table's own login; raises ConnectionError
    naming the broker when it cannot. Returns the topics cleared."""
    connected = threading.Event()
    refused: list[str] = []

    def on_connect(client: paho.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            refused.append(str(reason))
        connected.set()

    client = paho.Client(
        CallbackAPIVersion.VERSION2,
        client_id=f"{config.client_id or install_client_id(config.table_id)}-ha-remove",
        clean_session=True,
    )
    if config.username is not None:
        client.username_pw_set(config.username, config.password)
    if config.tls:
        client.tls_set_context(tls_context(config.ca_file))
    client.on_connect = on_connect
    where = f"{config.host}:{config.port}"
    try:
        client.connect(config.host, config.port, keepalive=30)
    except OSError as err:
        raise ConnectionError(f"cannot connect to the broker {where}: {err}") from None
    client.loop_start()
    try:
        if not connected.wait(timeout_s):
            raise ConnectionError(f"the broker {where} did not answer in {timeout_s:.0f} s")
        if refused:
            raise ConnectionError(f"the broker {where} refused the connection: {refused[0]}")
        topics = discovery_topics(config)
        sent = [client.publish(topic, b"", qos=1, retain=True) for topic in topics]
        for info in sent:
            info.wait_for_publish(timeout_s)
            if not info.is_published():
                raise ConnectionError(f"the broker {where} did not acknowledge the removal")
        return topics
    finally:
        client.disconnect()
        client.loop_stop()
