"""The command line, run as users run it: a real subprocess of the installed entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.service.engine import Engine
from companion.service.store import EventStore

from .conftest import action, command, start_tiny

TINY = {
    "game": "tiny-race",
    "format": 1,
    "target": 10,
    "turn": 0,
    "finished_by": 0,
    "players": [{"name": "Red", "position": 10}, {"name": "Blue", "position": 6}],
}


def trackside(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.service.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version() -> None:
    result = trackside("--version")
    assert result.returncode == 0 and result.stdout.startswith("trackside ")


def test_games_lists_no_test_games() -> None:
    result = trackside("games")
    assert result.returncode == 0
    assert "tiny-race" not in result.stdout


def test_score_from_stdin_prints_the_contract_shape() -> None:
    result = trackside("score", "-", stdin=json.dumps(TINY))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["game"] == "tiny-race" and out["winners"] == ["Red"]
    red = out["players"][0]
    assert red["total"] == 15 == sum(line["points"] for line in red["lines"])


def test_score_from_file(tmp_path: Path) -> None:
    path = tmp_path / "table.json"
    path.write_text(json.dumps(TINY))
    assert json.loads(trackside("score", str(path)).stdout)["winners"] == ["Red"]


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("{not json", "stdin:1:2: not valid JSON"),
        ("[1, 2]", "the snapshot must be a JSON object"),
        ('{"format": 1}', "game: missing"),
        ('{"game": "chess"}', "unknown game 'chess'"),
        (
            json.dumps({**TINY, "players": [{"name": "Red", "position": -1}]}),
            "players[0].position: -1 is below the minimum 0",
        ),
    ],
)
def test_bad_snapshot_is_one_line_exit_2(stdin: str, message: str) -> None:
    result = trackside("score", "-", stdin=stdin)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_file_is_exit_2(tmp_path: Path) -> None:
    result = trackside("score", str(tmp_path / "nope.json"))
    assert result.returncode == 2 and "nope.json" in result.stderr


def test_export_json_and_csv(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    store = EventStore(db)
    engine = Engine(store)
    engine.handle(start_tiny(target=3))
    engine.handle(action("advance", 0, steps=3))
    engine.handle(command({"command": "end_game"}))
    store.close()
    out = json.loads(trackside("export", "1", "--db", str(db)).stdout)
    assert out["game"] == "tiny-race" and out["end_reason"] == "finished"
    assert [e["type"] for e in out["events"]] == ["game_started", "action_applied", "game_ended"]
    assert out["score"]["winners"] == ["Red"]
    csv = trackside("export", "1", "--db", str(db), "--format", "csv").stdout.splitlines()
    assert csv[0] == "game_id,game,player,category,points,note,label"
    assert "1,tiny-race,Red,total,8,,Total" in csv
    # the words for people follow LANG (issue 17); the columns stay the interface's ids
    env = {**os.environ, "LANG": "cs_CZ.UTF-8", "LANGUAGE": "", "LC_ALL": ""}
    czech = subprocess.run(
        [sys.executable, "-m", "companion.service.cli", "export", "1", "--db", str(db), "--format", "csv"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert czech[0] == csv[0] and "1,tiny-race,Red,total,8,,Celkem" in czech


def test_export_unknown_game_and_foreign_db_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    EventStore(db).close()
    result = trackside("export", "7", "--db", str(db))
    assert result.returncode == 2 and "no game 7" in result.stderr
    foreign = tmp_path / "foreign.db"
    foreign.write_bytes(b"garbage" * 200)
    result = trackside("export", "1", "--db", str(foreign))
    assert result.returncode == 2 and "not a Trackside database" in result.stderr
    assert foreign.read_bytes() == b"garbage" * 200


def test_bad_config_stops_run_with_option_path(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[web]\nport = 'eighty'\n")
    result = trackside("run", "--config", str(config))
    assert result.returncode == 2
    assert "web.port: expected a whole number" in result.stderr


def test_see_prints_cards_and_refuses_a_missing_image(tmp_path: Path) -> None:
    import cv2

    from vision.synthetic import SceneSpec, render_scene

    image = tmp_path / "tunnel.png"
    cv2.imwrite(
        str(image),
        render_scene(SceneSpec(cards=("red", "locomotive", "blue"), layout="row", seed=3)).image,
    )
    result = trackside("see", str(image))
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert sorted(c["colour"] for c in found["train_cards"]) == ["blue", "locomotive", "red"]
    missing = trackside("see", str(tmp_path / "nope.png"))
    assert missing.returncode == 2 and "nope.png" in missing.stderr


def test_readers_lists_ports_without_a_config(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "companion.service.cli", "readers"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"TRACKSIDE_DATA": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr


def test_human_lines_follow_lang_and_json_does_not(tmp_path: Path) -> None:
    """Issue 17: the command line speaks the language of LANG; the score JSON stays the
    contract's (English notes)."""
    import os

    bad = tmp_path / "bad.json"
    bad.write_text("[1]", encoding="utf-8")
    env = {**os.environ, "LANG": "cs_CZ.UTF-8", "LANGUAGE": "", "LC_ALL": ""}
    run = subprocess.run(
        [sys.executable, "-m", "companion.service.cli", "score", str(bad)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.startswith("trackside: chyba: ")
    games = subprocess.run(
        [sys.executable, "-m", "companion.service.cli", "games"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "hráči" in games.stdout


def test_a_serving_process_freezes_what_it_loaded_to_start() -> None:
    """``trackside run`` (and the hub, the demo) settles its heap once started: what it loaded
    is kept out of the garbage collector's full collections (issue 48: a full collection over
    it landed on a tap), and garbage is collected between requests by the idle collector
    (companion/service/collector.py), the automatic one off meanwhile. Run in a subprocess: a
    frozen heap stays frozen."""
    script = (
        "import gc, threading, signal\n"
        "from companion.service import cli\n"
        "class Service:\n"
        "    stopped = False\n"
        "    def stop(self):\n"
        "        Service.stopped = True\n"
        "done = threading.Event(); seen = []\n"
        "def look():\n"
        "    seen.append((gc.isenabled(), gc.get_freeze_count(),\n"
        "                 any(t.name == 'idle-collector' for t in threading.enumerate())))\n"
        "    done.set()\n"
        "threading.Timer(0.3, look).start()\n"
        "assert gc.get_freeze_count() == 0\n"
        "assert cli._serve(Service(), until=done) == 0\n"
        "assert Service.stopped\n"
        "enabled, frozen, collecting = seen[0]\n"
        "assert not enabled and collecting, seen  # collected between requests meanwhile\n"
        "assert gc.isenabled()  # as it was, once stopped\n"
        "print(frozen)\n"
    )
    assert int(python(script)) > 10_000


def python(script: str) -> str:
    """What ``script`` prints, run in a fresh Python (a process of its own: what it changes of
    the garbage collector stays there); it must succeed."""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_started_service_warms_up_what_its_first_pages_need(tmp_path: Path) -> None:
    """``trackside run`` warms the service up before the first player taps (issue 48: the first
    table page after a start took 84 ms, the scoreboard 55): every template is compiled and
    every game's module loaded once it is started, before the heap is settled."""
    script = (
        "import sys, threading\n"
        "from pathlib import Path\n"
        "from companion.service import cli\n"
        "from companion.service.config import parse_settings\n"
        "from companion.service.runtime import Trackside\n"
        "settings = parse_settings({'web': {'host': '127.0.0.1', 'port': 0}},"
        f" data_dir=Path({str(tmp_path)!r}))\n"
        "service = Trackside(settings)\n"
        "service.start(web=False)\n"
        "env = service.app.jinja_env\n"
        "names = [n for n in env.list_templates() if n.endswith('.html')]\n"
        "games = [m for m in sys.modules if m.startswith('companion.games.') and m.count('.') == 2]\n"
        "assert len(env.cache) < len(names), (len(env.cache), len(names))\n"
        "done = threading.Event(); done.set()\n"
        "cli._serve(service, until=done)\n"
        "now = [m for m in sys.modules if m.startswith('companion.games.') and m.count('.') == 2]\n"
        "print(len(names), len(env.cache), len(games), len(now))\n"
    )
    templates, compiled, games_before, games_after = map(int, python(script).split())
    assert templates > 20
    assert compiled >= templates
    assert games_after > games_before
