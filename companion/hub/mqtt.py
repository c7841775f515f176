"""The hub's MQTT client on the club broker: a persistent session (a client id of its own per
install, ``clean_session`` false, QoS 1), so the broker keeps the tables' events while the hub is away;
it subscribes to every table's ``status``, ``state``, ``event`` and ``resend`` and hands each
message to :class:`companion.hub.tables.Hub`, publishing the requests it returns."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from companion.core.tls import tls_context
from companion.hub.config import ClubBroker
from companion.hub.tables import Hub

log = logging.getLogger(__name__)

TOPICS = [
    ("trackside/+/status", 1),
    ("trackside/+/state", 1),
    ("trackside/+/event", 1),
    ("trackside/+/resend", 1),
]
TICK_S = 1.0


class HubClient:
    def __init__(self, broker: ClubBroker, hub: Hub) -> None:
        self.broker = broker
        self.hub = hub
        self.connected = False
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.client_id = broker.client_id or f"trackside-hub-{hub.store.install_id()}"
        self.disconnects = 0
        self.client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=self.client_id, clean_session=False
        )
        if broker.username is not None:
            self.client.username_pw_set(broker.username, broker.password)
        if broker.tls:  # verifies the club's certificate and host name
            self.client.tls_set_context(tls_context(broker.ca_file))
        self.client.reconnect_delay_set(1, 30)
        self.client.max_inflight_messages_set(100)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, self.broker.keepalive_s)
        self.client.loop_start()
        self._ticker = threading.Thread(target=self._tick, name="hub-tick", daemon=True)
        self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(5)
        self.client.disconnect()
        self.client.loop_stop()

    def _send(self, requests: list[tuple[str, str]]) -> None:
        for topic, payload in requests:
            self.client.publish(topic, payload, qos=1)

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            if self.connected:
                try:
                    self._send(self.hub.tick())
                except Exception:  # the ticker never dies
                    log.exception("hub: tick failed")

    def _on_connect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if reason.is_failure:
            self.last_error = f"the club broker refused the connection: {reason}"
            log.warning("hub: %s", self.last_error)
            return
        self.connected = True
        self.last_error = None
        log.info("hub: connected to the club broker %s:%s", self.broker.host, self.broker.port)
        client.subscribe(TOPICS)
        self._send(self.hub.sync_all())

    def _on_connect_fail(self, client: paho.Client, userdata: Any) -> None:
        # paho calls this inside its ``except OSError``: the error (a certificate the CA did
        # not sign, say) is still at hand. Logged when it changes, not at every retry.
        error = sys.exc_info()[1]
        reason = f"cannot connect to {self.broker.host}:{self.broker.port}: {error}"
        if reason != self.last_error:
            log.warning("hub: %s", reason)
        self.last_error = reason

    def _on_disconnect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        if self.connected and not self._stop.is_set():
            self.disconnects += 1
            log.warning("hub: lost the club broker: %s", reason)
            self.last_error = f"connection lost: {reason}"
        self.connected = False

    def _on_message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        try:
            requests = self.hub.handle(
                message.topic, bytes(message.payload), retained=bool(message.retain)
            )
            self._send(requests)
        except Exception:  # a bug must not end paho's thread; the message is logged
            log.exception("hub: handling a message on %s failed", message.topic)
