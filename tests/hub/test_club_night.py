"""A club night end to end: two real Mosquitto brokers (the tables' and the club's, the club's
as ``install.sh --hub`` ships it: passwords and the per-table ACL) bridged with the installer's
bridge config, each table logging in as itself, three ``trackside run`` processes replaying recorded nights, and
``trackside hub`` on the club broker. Mid-game the club broker stops and comes back, one
table is killed and restarted, and then the hub itself restarts. The hub must end with every finished game's result exactly
once, identical to each table's own ``trackside export``."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from companion.service.club import bridge_config
from companion.service.config import parse_settings
from companion.service.store import EventStore
from tests.firmware_bridge.conftest import Broker, free_port, wait_until
from tests.hub.club_broker import club_broker, password

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "hardware" / "deploy" / "mosquitto-club-bridge.conf"
DIE_UIDS = {n: f"04C1B000000{n}" for n in (1, 2, 3)}
TABLES = ("t1", "t2", "t3")
GAMES_PER_TABLE = 3


def night(path: Path, seed: int, games: int = GAMES_PER_TABLE, target: int = 30) -> int:
    """Tiny Race games, each played to the target and ended as finished; returns the count."""
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = [
        {
            "format": "trackside-recording",
            "version": 1,
            "title": f"club night {seed}",
            "enrol": [
                {"uid": uid, "game": "tiny-race", "component": f"die-{n}"}
                for n, uid in DIE_UIDS.items()
            ],
        }
    ]
    t = 0.0
    names = [["Ana", "Petr"], ["Jana", "ana "], ["Petr", "Luis"]][seed % 3]

    def add(observation: dict[str, Any], step: float = 1.0) -> None:
        nonlocal t
        t += step
        lines.append({"at_s": t, "observation": observation})

    for _ in range(games):
        players = [
            {"name": names[0], "colour": "red", "seat": 1},
            {"name": names[1], "colour": "blue", "seat": 2},
        ]
        start = {
            "command": "start_game",
            "game": "tiny-race",
            "players": players,
            "options": {"target": target},
        }
        add({"source": "table-page", "kind": "command", "payload": start})
        positions, turn = [0, 0], 0
        while max(positions) < target:
            die = rng.randint(1, 3)
            seat = turn + 1
            add(
                {
                    "source": f"seat-{seat}",
                    "kind": "tag_present",
                    "payload": {"uid": DIE_UIDS[die]},
                    "seat": seat,
                }
            )
            positions[turn] += die
            turn = 1 - turn
        add(
            {
                "source": "table-page",
                "kind": "command",
                "payload": {"command": "end_game", "reason": "finished"},
            }
        )
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return games


def get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return json.load(response)
    except OSError:
        return None


class Table:
    def __init__(self, tmp: Path, table_id: str, broker: Broker, club: Broker, seed: int) -> None:
        self.id = table_id
        self.dir = tmp / table_id
        self.dir.mkdir()
        self.port = free_port()
        self.db = self.dir / "db" / "trackside.sqlite3"
        recording = self.dir / "night.jsonl"
        self.games = night(recording, seed)
        self.document = {
            "web": {"host": "127.0.0.1", "port": self.port},
            "database": {"path": str(self.db)},
            "mqtt": {
                "host": broker.host,
                "port": broker.port,
                "table_id": table_id,
                "reconnect_max_s": 2,
            },
            "club": {
                "host": club.host,
                "port": club.port,
                "username": table_id,
                "password": password(table_id),
            },
            "readers": [
                {"name": "night", "protocol": "replay", "port": str(recording), "speed": 4}
            ],
        }
        self.config = self.dir / "trackside.toml"
        self.config.write_text(toml(self.document))
        self.process: subprocess.Popen[bytes] | None = None

    def enrol(self) -> None:
        """The dice were enrolled at this table before the night."""
        store = EventStore(self.db)
        for n, uid in DIE_UIDS.items():
            store.enrol(uid, "tiny-race", f"die-{n}")
        store.close()

    def start(self) -> None:
        env = {**os.environ, "TRACKSIDE_DATA": str(self.dir)}
        with (self.dir / "service.log").open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "companion.service.cli",
                    "run",
                    "--config",
                    str(self.config),
                ],
                env=env,
                stdout=log,
                stderr=log,
            )

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def state(self) -> dict[str, Any] | None:
        data = get(f"http://127.0.0.1:{self.port}/api/state")
        return data if isinstance(data, dict) else None

    def finished(self) -> bool:
        s = self.state()
        return bool(s and s["status"]["devices"].get("night", {}).get("state") == "finished")

    def export(self, game_id: int) -> dict[str, Any]:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "companion.service.cli",
                "export",
                str(game_id),
                "--format",
                "json",
            ],
            env={**os.environ, "TRACKSIDE_DATA": str(self.dir)},
            cwd=self.dir,
            capture_output=True,
            check=True,
            timeout=60,
            input=b"",
        )
        data: dict[str, Any] = json.loads(out.stdout)
        return data


def toml(document: dict[str, Any]) -> str:
    """The few shapes these configs use."""
    out: list[str] = []

    def value(v: Any) -> str:
        return json.dumps(v)

    for key, section in document.items():
        if isinstance(section, list):
            for item in section:
                out.append(f"[[{key}]]")
                out += [f"{k} = {value(v)}" for k, v in item.items()]
        else:
            out.append(f"[{key}]")
            out += [f"{k} = {value(v)}" for k, v in section.items()]
    return "\n".join(out) + "\n"


def persistent(broker: Broker, directory: Path, extra: str = "") -> None:
    """A club broker as Debian ships it: persistence on, so a restart keeps sessions."""
    text = broker.config.read_text().replace(
        "persistence false",
        f"persistence true\npersistence_location {directory}/\nautosave_interval 1",
    )
    broker.config.write_text(text + extra)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_club_night_ends_with_every_result_once_and_as_the_tables_export_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "tablebroker").mkdir()
    club = club_broker(tmp_path / "club", ["hub", *TABLES], persistent=True)
    table_broker = Broker(tmp_path / "tablebroker")
    tables: list[Table] = []
    hub_process: subprocess.Popen[bytes] | None = None
    try:
        tables = [Table(tmp_path, t, table_broker, club, seed) for seed, t in enumerate(TABLES)]
        # The installer's bridge, one per table (here all on one table-side broker).
        bridges = "\n".join(
            bridge_config(parse_settings(t.document), TEMPLATE.read_text()) for t in tables
        )
        persistent(table_broker, tmp_path / "tablebroker", "\n" + bridges)
        (tmp_path / "bridges.conf").write_text(bridges)
        club.start()
        table_broker.start()

        hub_port = free_port()
        hub_config = tmp_path / "hub.toml"
        hub_config.write_text(
            toml(
                {
                    "hub": {
                        "host": "127.0.0.1",
                        "port": hub_port,
                        "database": str(tmp_path / "hub.sqlite3"),
                        "tables": list(TABLES),
                    },
                    "mqtt": {
                        "host": club.host,
                        "port": club.port,
                        "username": "hub",
                        "password": password("hub"),
                    },
                }
            )
        )

        def start_hub() -> subprocess.Popen[bytes]:
            with (tmp_path / "hub.log").open("ab") as hub_log:
                return subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "companion.service.cli",
                        "-v",
                        "hub",
                        "--config",
                        str(hub_config),
                    ],
                    stdout=hub_log,
                    stderr=hub_log,
                )

        hub_process = start_hub()
        hub = f"http://127.0.0.1:{hub_port}"
        wait_until(lambda: get(hub + "/api/tables") is not None, 30, "the hub's web server")

        for t in tables:
            t.enrol()
            t.start()
        # Mid-game: t2 is killed and restarted, the club broker goes away and comes back.
        wait_until(
            lambda: (s := tables[1].state()) is not None and s["seq"] >= 8, 60, "t2 to be mid-game"
        )
        tables[1].kill()
        club.stop()
        time.sleep(1.5)
        tables[1].start()
        time.sleep(2.0)
        club.start()
        # and the hub itself restarts a little later (its results and its session stay)
        wait_until(
            lambda: (s := tables[0].state()) is not None and s["game_id"] >= 2,
            60,
            "t1 to be in its second game",
        )
        hub_process.terminate()
        hub_process.wait(15)
        hub_process = start_hub()
        wait_until(lambda: get(hub + "/api/tables") is not None, 30, "the hub to be back")

        wait_until(lambda: all(t.finished() for t in tables), 150, "every replay to finish")
        total = sum(t.games for t in tables)

        def results() -> list[dict[str, Any]]:
            data = get(hub + "/api/results")
            return list(data["results"]) if data else []

        wait_until(lambda: len(results()) >= total, 60, f"the hub to have {total} results")
        time.sleep(2.0)  # anything late (a duplicate, a resend) would show up now
        got = results()
        keys = [(r["table_id"], r["db"], r["game_id"]) for r in got]
        assert len(keys) == len(set(keys)) == total, got

        for t in tables:
            mine = sorted((r for r in got if r["table_id"] == t.id), key=lambda r: r["game_id"])
            assert [r["game_id"] for r in mine] == list(range(1, t.games + 1))
            for r in mine:
                export = t.export(r["game_id"])
                assert r["game"] == export["game"]
                assert r["ended_at"] == export["ended_at"]
                assert r["started_at"] == export["started_at"]
                assert r["players"] == [
                    {"name": p["name"], "total": p["total"]} for p in export["score"]["players"]
                ]
                assert r["winners"] == export["score"]["winners"]

        # The wall screen shows each table's last state, as the table itself does.
        views = {v["table_id"]: v for v in get(hub + "/api/tables")["tables"]}
        assert sorted(views) == list(TABLES)
        for t in tables:
            own = t.state()
            assert own is not None
            assert (views[t.id]["game_id"], views[t.id]["seq"]) == (own["game_id"], own["seq"])
            assert [p["total"] for p in views[t.id]["players"]] == [
                p["total"] for p in own["players"]
            ]
            with urllib.request.urlopen(f"{hub}/t/{t.id}", timeout=5) as page:
                assert t.id in page.read().decode()
        league = get(hub + "/api/league?period=night")["players"]
        assert sum(p["games"] for p in league) == 2 * total
        log = (tmp_path / "hub.log").read_text()
        assert "lost the club broker" in log  # the outage happened while the hub ran
        assert "new database" not in log and "Traceback" not in log
        assert "message from table" not in log  # no message of an honest table was refused
        # "Ana" and "ana " are one player across tables.
        assert len([p for p in league if p["name"].strip().lower() == "ana"]) == 1
    finally:
        for t in tables:
            t.stop()
        if hub_process is not None:
            hub_process.terminate()
            hub_process.wait(15)
        table_broker.stop()
        club.stop()
