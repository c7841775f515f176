"""Latency of the MQTT half of "scan → lights": from ``MqttBridge.publish_state()`` to (a) the
retained state and (b) the WLED frame arriving at a subscriber, through a real Mosquitto on a
free 127.0.0.1 port (started and stopped here). The turn passes each time, so each snapshot
changes two seat zones on a 4 × 60 LED strip.

Run from the checkout root:  PYTHONPATH=. python bench/bench_mqtt_latency.py [--n 1000]
[--broker-default]
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import getpass
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from firmware_bridge.mqtt import MqttBridge, MqttConfig


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def table(active: int) -> dict[str, Any]:
    return {
        "schema": 1,
        "game": "russian-railroads",
        "players": [
            {"name": n, "colour": c, "seat": i + 1, "total": i}
            for i, (n, c) in enumerate(
                [("Ann", "red"), ("Ben", "blue"), ("Cy", "green"), ("Dee", "yellow")]
            )
        ],
        "status": {"active_players": [active]},
    }


def wait(condition: threading.Condition, predicate: Any, timeout_s: float = 30) -> None:
    with condition:
        if not condition.wait_for(predicate, timeout_s):
            raise SystemExit("timed out: is mosquitto running?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument(
        "--broker-default",
        action="store_true",
        help="leave Mosquitto's set_tcp_nodelay at its default (false)",
    )
    args = parser.parse_args()
    n = args.n
    # The broker's side of Nagle: without this each delivery may wait ~40 ms for an ACK.
    nodelay = "" if args.broker_default else "set_tcp_nodelay true\n"
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "mosquitto.conf"
        conf.write_text(
            f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            f"user {getpass.getuser()}\n" + nodelay
        )
        broker = subprocess.Popen(
            ["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            run(port, n)
        finally:
            broker.terminate()
            broker.wait(timeout=30)


def run(port: int, n: int) -> None:
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    arrived = threading.Condition()
    seen: dict[str, list[float]] = {"state": [], "wled": []}

    def on_message(client: paho.Client, userdata: object, msg: paho.MQTTMessage) -> None:
        key = "wled" if msg.topic.startswith("wled/") else "state"
        with arrived:
            seen[key].append(time.perf_counter())
            arrived.notify_all()

    watcher = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-watcher")
    watcher.on_message = on_message
    watcher.connect("127.0.0.1", port)
    watcher.subscribe([("wled/strip/api", 0), ("trackside/bench/state", 1)])
    watcher.loop_start()
    bridge = MqttBridge(
        MqttConfig(
            host="127.0.0.1",
            port=port,
            table_id="bench",
            wled=("strip",),
            seats=4,
            leds_per_seat=60,
        )
    )
    bridge.start()
    try:
        deadline = time.monotonic() + 30
        while not bridge.status().connected and time.monotonic() < deadline:
            time.sleep(0.01)
        bridge.publish_state(table(3))
        wait(arrived, lambda: len(seen["wled"]) >= 2 and len(seen["state"]) >= 1)
        to_state: list[float] = []
        to_wled: list[float] = []
        for i in range(n):
            with arrived:
                states, frames = len(seen["state"]), len(seen["wled"])
            began = time.perf_counter()
            bridge.publish_state(table(i % 3))
            wait(arrived, lambda: len(seen["state"]) > states and len(seen["wled"]) > frames)  # noqa: B023
            with arrived:
                to_state.append((seen["state"][states] - began) * 1e3)
                to_wled.append((seen["wled"][frames] - began) * 1e3)
    finally:
        bridge.stop()
        watcher.disconnect()
        watcher.loop_stop()
    for name, samples in (("state at subscriber", to_state), ("WLED frame at subscriber", to_wled)):
        ordered = sorted(samples)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        print(
            f"publish_state → {name:26s} n={len(samples)}  p50 {statistics.median(samples):6.2f} ms"
            f"  p99 {p99:6.2f} ms  max {max(samples):6.2f} ms"
        )


if __name__ == "__main__":
    main()
