"""The composition root: builds the store, the engine thread, the readers and the web server
from settings, starts them, and stops them in order. Each part may be absent."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from werkzeug.serving import BaseWSGIServer, make_server

from companion.core.choices import Choice
from companion.core.errors import ConfigError
from companion.core.jsonvalue import JsonObject
from companion.core.observation import Observation
from companion.service.config import ReaderSettings, Settings
from companion.service.engine import Engine, Publication
from companion.service.export import export_game, game_summaries
from companion.service.store import EventStore
from firmware_bridge.mqtt import MqttBridge
from firmware_bridge.readers import ProtocolName, ReaderConfig, open_reader
from firmware_bridge.virtual import ReplayReader, VirtualReader
from web import create_app

if TYPE_CHECKING:  # OpenCV is imported only when a camera is configured
    from vision.table_calibration import LiveCalibration, ShotOutcome

log = logging.getLogger(__name__)
STATUS_POLL_S = 1.0


class Device(Protocol):
    def start(self) -> None: ...

    def stop(self, timeout_s: float = ...) -> object: ...

    def status(self) -> Any: ...


def _status_json(status: Any) -> JsonObject:
    if is_dataclass(status) and not isinstance(status, type):
        return dict(asdict(status))
    if isinstance(status, Mapping):
        return dict(status)
    return {"state": str(status)}


def reader_config(reader: ReaderSettings) -> ReaderConfig:
    """The serial/HID reader's own config from the ``[[readers]]`` settings."""
    return ReaderConfig(
        name=reader.name,
        protocol=cast(ProtocolName, reader.protocol),
        port=reader.port,
        seat=reader.seat,
        baud=reader.baud,
        vid_pid=reader.vid_pid,
    )


class Trackside:
    """The running service."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = EventStore(settings.database.path)
        self.engine = Engine(self.store, game_options=settings.game_options)
        self.devices: dict[str, Device] = {}
        self.virtual: dict[str, VirtualReader] = {}
        self.camera_calibration: LiveCalibration | None = None
        for reader in settings.readers:
            self.devices[reader.name] = self._make_reader(reader)
        if settings.camera is not None:
            from vision.camera import open_camera  # OpenCV only when there is a camera
            from vision.table_calibration import LiveCalibration

            path = str(settings.calibration_path())
            camera = open_camera(settings.camera, self.engine, default_calibration_path=path)
            self.devices[settings.camera.name] = camera
            self.camera_calibration = LiveCalibration(camera, path)
        self.mqtt: MqttBridge | None = None
        if settings.mqtt is not None:
            self.mqtt = MqttBridge(settings.mqtt)
            self.mqtt.listen_for_pads(self.engine)
            self.engine.subscribe(self._to_mqtt)
        self._closing = threading.Event()
        self._server: BaseWSGIServer | None = None
        self._threads: list[threading.Thread] = []
        self.app = create_app(self)

    def _make_reader(self, reader: ReaderSettings) -> Device:
        if reader.protocol == "virtual":
            virtual = VirtualReader(reader.name, self.engine, reader.seat)
            self.virtual[reader.name] = virtual
            return virtual
        if reader.protocol == "replay":
            return ReplayReader(
                reader.name,
                Path(reader.port),
                self.engine,
                speed=reader.speed,
                resume_after=self.store.last_ref_index,
            )
        device: Device = open_reader(reader_config(reader), self.engine)
        return device

    def _to_mqtt(self, publication: Publication) -> None:
        """Engine thread: hand the new state (and its event) to the bridge; never blocks."""
        assert self.mqtt is not None
        self.mqtt.publish_state(publication.snapshot)
        if publication.entry is not None and publication.event is not None:
            # publication.event: a private action (a secret trade) has no arguments until the end
            event = {"game_id": publication.game_id, **publication.event}
            self.mqtt.publish_event(publication.entry.seq, event)

    # -- lifecycle --------------------------------------------------------------------------
    def start(self, *, web: bool = True) -> None:
        self.engine.start()
        if self.mqtt is not None:
            self.mqtt.start()
        for name, device in self.devices.items():
            try:
                device.start()
            except Exception as exc:  # one broken device never stops the table
                log.error("device %s failed to start: %s", name, exc)
                self.engine.report_device(name, {"state": "error", "last_error": str(exc)})
        self._spawn(self._poll_devices, "device-status")
        if web and self.settings.web.enabled:
            self._server = make_server(
                self.settings.web.host, self.settings.web.port, self.app, threaded=True
            )
            self._server.daemon_threads = True  # type: ignore[attr-defined]
            self._spawn(self._server.serve_forever, "web")

    @property
    def web_port(self) -> int | None:
        return None if self._server is None else int(self._server.server_port)

    def _spawn(self, target: Any, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _poll_devices(self) -> None:
        while not self._closing.is_set():
            if self.mqtt is not None:
                self.engine.report_device("mqtt", _status_json(self.mqtt.status()))
            for name, device in self.devices.items():
                try:
                    self.engine.report_device(name, _status_json(device.status()))
                except Exception as exc:
                    self.engine.report_device(name, {"state": "error", "last_error": str(exc)})
            self._closing.wait(STATUS_POLL_S)

    def stop(self) -> None:
        self._closing.set()
        for device in self.devices.values():
            with contextlib.suppress(Exception):
                device.stop(2.0)
        if self.mqtt is not None:
            with contextlib.suppress(Exception):
                self.mqtt.stop()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self.engine.stop()
        self.store.close()

    # -- what the web pages use (web.TableService) ----------------------------------------
    @property
    def pin(self) -> str | None:
        return self.settings.web.pin

    @property
    def trusted_subnets(self) -> tuple[str, ...]:
        return self.settings.web.trusted_subnets

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def latest(self) -> tuple[int, dict[str, Any]]:
        return self.engine.latest()

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, dict[str, Any]]:
        return self.engine.wait_newer(version, timeout_s)

    def submit_and_wait(self, observation: Observation, timeout_s: float) -> Mapping[str, Any]:
        outcome = self.engine.submit(observation).wait(timeout_s)
        return {
            "outcome": outcome.outcome,
            "message": outcome.message,
            "game_id": outcome.game_id,
            "seq": outcome.seq,
        }

    def games(self) -> list[dict[str, Any]]:
        return game_summaries(self.store)

    def export(self, game_id: int, fmt: str) -> tuple[str, str]:
        return export_game(self.store, game_id, fmt)

    def setup_defaults(self, game: str) -> tuple[JsonObject, JsonObject]:
        """(the config's options, the options saved from the table page) for ``game``."""
        return self.engine.setup_defaults(game)

    def camera_calibration_path(self) -> str:
        """Where the camera's calibration lives (the configured camera's, else a camera named
        "camera"): for the calibration page and its command-line hint."""
        return str(self.settings.calibration_path())

    def take_camera_shot(self, frames: int = 3, expect_collected: int | None = None) -> ShotOutcome:
        """The table page's calibration step: keep the live camera's steady view as the next
        shot of the nine cards; the shot that completes them calibrates over all the shots,
        stores the palette atomically and hands it to the running camera (``result`` set).

        Raises ConfigError without a camera, CalibrationError (no frame yet, no card, more
        cards than are missing, a stale page: nothing changes), OSError when the file cannot be
        written (the last shot is not kept; the palette in use and the file stay as they were).
        """
        if self.camera_calibration is None:
            raise ConfigError(
                "camera", "no camera is configured: add a [camera] section (docs/vision.md)"
            )
        return self.camera_calibration.take_shot(frames, expect_collected)

    def player_pin_hash(self, game_id: int, player: int) -> str | None:
        return self.store.player_pin_hash(game_id, player)

    def private_view(self, game_id: int, player: int) -> dict[str, Any] | None:
        return self.engine.private_view(game_id, player)

    def choices(self, viewer: int | None = None) -> tuple[int, str, int, tuple[Choice, ...]] | None:
        """What the table (or player ``viewer``) can enter now, for ``GET /api/choices``."""
        built = self.engine.choices(viewer)
        if built is None:
            return None
        seq, session, game_id, tree = built
        return seq, session.game.name, int(game_id), tree

    def scan(self, reader: str, uid: str | None = None, *, text: str | None = None) -> Observation:
        """Scan on a virtual reader (tests, the demo)."""
        return self.virtual[reader].scan(uid, text=text)

    def wait_idle(self, timeout_s: float = 10.0) -> None:
        """Block until every input queued so far has been handled (tests, the demo)."""
        self.engine.barrier(timeout_s)
