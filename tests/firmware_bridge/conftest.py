"""Fixtures for the edge: a real Mosquitto broker on a free 127.0.0.1 port, and a recording
MQTT subscriber to watch what the bridge publishes.

The machine running the tests is shared and slow at times: everything waits on a condition
with a generous timeout, never on a fixed sleep.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
WAIT_S = 30.0


def wait_until(condition: Callable[[], bool], timeout_s: float = WAIT_S, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout_s:.0f} s waiting for {what or condition}"
            )
        time.sleep(0.02)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Broker:
    """A Mosquitto on 127.0.0.1 only, no persistence (a restart forgets retained messages,
    which is what the resync tests need). ``stop``/``start`` restart it on the same port."""

    def __init__(
        self,
        directory: Path,
        *,
        password_file: Path | None = None,
        tls_files: tuple[Path, Path, Path] | None = None,
    ) -> None:
        """``tls_files``: (CA certificate, server certificate, server key) for a TLS listener."""
        self.host = "127.0.0.1"
        self.port = free_port()
        self.directory = directory
        lines = [
            f"listener {self.port} 127.0.0.1",
            "persistence false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if password_file is None:
            lines.append("allow_anonymous true")
        else:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        if tls_files is not None:
            ca, cert, key = tls_files
            lines += [f"cafile {ca}", f"certfile {cert}", f"keyfile {key}"]
        # Run as whoever runs the tests (mosquitto would otherwise switch to its own user).
        lines.append("user " + _user())
        self.config = directory / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with (self.directory / "mosquitto.log").open("ab") as log:
            self.process = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=log
            )
        wait_until(self._accepts, what=f"mosquitto on port {self.port}")

    def _accepts(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            log = (self.directory / "mosquitto.log").read_text(errors="replace")
            raise AssertionError(f"mosquitto exited with {self.process.returncode}: {log}")
        try:
            with socket.create_connection((self.host, self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=WAIT_S)


def _user() -> str:
    import getpass

    return getpass.getuser()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    server = Broker(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass(frozen=True, slots=True)
class Received:
    topic: str
    payload: str
    retain: bool
    qos: int


class Subscriber:
    """A plain paho client that records every message on ``topics`` (and reconnects and
    resubscribes by itself, like any sensible MQTT client)."""

    def __init__(self, broker: Broker, topics: list[str], status_topic: str | None = None) -> None:
        self.topics = topics
        self.status_topic = status_topic
        self.messages: list[Received] = []
        self._lock = threading.Lock()
        self.connections = 0
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{uuid.uuid4()}")
        self.client.reconnect_delay_set(1, 2)
        if status_topic is not None:
            # Like a WLED or ESPHome device: retained "online", "offline" as the last will.
            self.client.will_set(status_topic, "offline", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.connect(broker.host, broker.port, keepalive=30)
        self.client.loop_start()
        wait_until(lambda: self.connections > 0, what="the test subscriber to connect")

    def _on_connect(self, client: paho.Client, *_: object) -> None:
        # Subscribe from here so a reconnect subscribes again. A connection counts once the
        # broker has acknowledged the subscription: counted at the CONNACK, a test that
        # publishes right after making a subscriber could be ahead of its SUBSCRIBE on a busy
        # machine, and wait 30 s for a message the broker never sent it.
        if self.topics:
            client.subscribe([(t, 1) for t in self.topics])
        if self.status_topic is not None:
            client.publish(self.status_topic, "online", qos=1, retain=True)
        if not self.topics:
            with self._lock:
                self.connections += 1

    def _on_subscribe(self, client: paho.Client, *_: object) -> None:
        with self._lock:
            self.connections += 1

    def _on_message(self, client: paho.Client, userdata: object, msg: paho.MQTTMessage) -> None:
        with self._lock:
            self.messages.append(
                Received(msg.topic, msg.payload.decode(), bool(msg.retain), msg.qos)
            )

    def on(self, topic: str) -> list[Received]:
        with self._lock:
            return [m for m in self.messages if m.topic == topic]

    def last(self, topic: str) -> Received | None:
        found = self.on(topic)
        return found[-1] if found else None

    def clear(self) -> None:
        with self._lock:
            self.messages.clear()

    def publish(self, topic: str, payload: str, *, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(WAIT_S)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def subscribe(broker: Broker) -> Iterator[Callable[..., Subscriber]]:
    made: list[Subscriber] = []

    def make(topics: list[str], status_topic: str | None = None) -> Subscriber:
        sub = Subscriber(broker, topics, status_topic)
        made.append(sub)
        return sub

    yield make
    for sub in made:
        sub.close()


@pytest.fixture
def eventually() -> Callable[..., None]:
    """``eventually(condition, what=...)``: wait (generously) until it holds, else fail."""
    return wait_until
