"""``trackside demo``: a fresh temporary database, virtual readers replaying a recorded game
night, the scoreboard on 127.0.0.1. The recordings live in ``recordings/`` beside this file
(format: docs/formats/recording.md); their header lists the tags the table had enrolled."""

from __future__ import annotations

import tempfile
from pathlib import Path

from companion.core.errors import ConfigError
from companion.core.snapshot import Field
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from firmware_bridge.virtual import read_recording

RECORDINGS = Path(__file__).parent / "recordings"
# The game nights the demo plays, in order of preference.
DEMO_RECORDINGS = ("game-night.jsonl",)
DEMO_PIN = "000000"
"""The demo table's PIN (the table page asks for it before any change); printed at start."""


def default_recording() -> Path:
    for name in DEMO_RECORDINGS:
        path = RECORDINGS / name
        if path.is_file():
            return path
    raise ConfigError("--recording", f"no recording found in {RECORDINGS}")


def start_demo(
    *, port: int = 8080, speed: float = 20.0, recording: str | None = None, host: str = "127.0.0.1"
) -> tuple[Trackside, str]:
    path = Path(recording) if recording else default_recording()
    if not path.is_file():
        raise ConfigError("--recording", f"no such file {str(path)!r}")
    if not 0 < speed <= 10000:
        raise ConfigError("--speed", f"expected a number above 0 (up to 10000), got {speed!r}")
    header, _ = read_recording(path)
    data_dir = Path(tempfile.mkdtemp(prefix="trackside-demo-"))
    settings = parse_settings(
        {
            "web": {"host": host, "port": port, "pin": DEMO_PIN},
            "readers": [
                {"name": "demo-replay", "protocol": "replay", "port": str(path), "speed": speed}
            ],
        },
        data_dir=data_dir,
    )
    service = Trackside(settings)
    for tag in Field(header, "header").get("enrol", []).list():
        tag.only("uid", "game", "component")
        service.store.enrol(tag.get("uid").str(), tag.get("game").str(), tag.get("component").str())
    service.start()
    url = f"http://{host}:{service.web_port}/"
    print(f"Trackside demo: the table page is {url}table — its PIN is {DEMO_PIN}.", flush=True)
    return service, url
