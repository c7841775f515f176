"""The running service, in this process, with its web server on 127.0.0.1 (a free port), and
ways to look at it the way a player and an operator do: the scoreboard's JSON, the table
page's POST, the database file (opened read-only, as a second process would), the log."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.core import Observation
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from tests.firmware_bridge.conftest import (  # the real-Mosquitto fixtures
    Broker,
    Subscriber,
    broker,
    subscribe,
    wait_until,
)

__all__ = ["Broker", "Subscriber", "broker", "subscribe", "wait_until"]

PIN = "471108"
RED_BLUE = [
    {"name": "Red", "colour": "red", "seat": 1},
    {"name": "Blue", "colour": "blue", "seat": 2},
]
# Tiny Race dice as RDM6300 cards (10 hex digits: what an RDM6300 reports).
DIE_UIDS = {1: "0F002A7F81", 2: "0F002A7F82", 3: "0F002A7F83"}


@dataclass
class Running:
    service: Trackside
    base_url: str

    @property
    def db(self) -> Path:
        return self.service.settings.database.path

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.base_url + "/api/state", timeout=10) as response:
            data: dict[str, Any] = json.load(response)
            return data

    def post(
        self,
        body: bytes | dict[str, Any] | list[Any],
        *,
        content_type: str = "application/json",
        pin: str | None = PIN,
    ) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"Content-Type": content_type}
        if pin is not None:
            headers["X-Trackside-Pin"] = pin
        request = urllib.request.Request(
            self.base_url + "/api/input", data=data, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            with error:
                return error.code, json.loads(error.read() or b"{}")

    def start_tiny_race(self, target: int = 100) -> None:
        status, outcome = self.post(
            {
                "kind": "command",
                "payload": {
                    "command": "start_game",
                    "game": "tiny-race",
                    "players": RED_BLUE,
                    "options": {"target": target},
                },
            }
        )
        assert status == 200, outcome

    def totals(self) -> list[int]:
        return [p["total"] for p in self.state()["players"]]

    def inputs(self) -> list[tuple[str, str, dict[str, Any], str]]:
        """(source, kind, payload, outcome) of every recorded input, from the file."""
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT i.source, i.kind, i.payload, o.outcome FROM inputs i"
                " JOIN outcomes o ON o.input_id = i.id ORDER BY i.id"
            ).fetchall()
        finally:
            conn.close()
        return [(s, k, json.loads(p), o) for s, k, p, o in rows]

    def scans(self, source: str | None = None) -> list[str]:
        """The uids of the tag_present inputs in the database, in order."""
        return [
            str(payload["uid"])
            for s, kind, payload, _ in self.inputs()
            if kind == "tag_present" and (source is None or s == source)
        ]

    def device(self, name: str) -> dict[str, Any]:
        devices: dict[str, Any] = self.state()["status"]["devices"]
        return dict(devices.get(name) or {})


ServiceFactory = Callable[..., Running]


@pytest.fixture
def run_service(tmp_path: Path) -> Iterator[ServiceFactory]:
    """``run_service(config_dict, enrol=True, db=None)``: a started service; stopped after."""
    started: list[Trackside] = []

    def make(
        config: dict[str, Any] | None = None, *, enrol: bool = True, db: Path | None = None
    ) -> Running:
        document: dict[str, Any] = {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN}}
        document.update(config or {})
        if db is not None:
            document["database"] = {"path": str(db)}
        settings = parse_settings(document, data_dir=tmp_path / "data")
        service = Trackside(settings)
        if enrol:
            for n, uid in DIE_UIDS.items():
                service.store.enrol(uid, "tiny-race", f"die-{n}")
        service.start()
        started.append(service)
        return Running(service, f"http://127.0.0.1:{service.web_port}")

    yield make
    for service in started:
        service.stop()


def scan(running: Running, reader: str, uid: str) -> Observation:
    """A scan on a virtual reader, waited for."""
    observation = running.service.scan(reader, uid)
    running.service.wait_idle()
    return observation
