"""The composition root: builds the store, the engine thread, the readers and the web server
from settings, starts them, and stops them in order. Each part may be absent."""

from __future__ import annotations

import contextlib
import errno
import gettext
import logging
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from companion.core.choices import Choice
from companion.core.errors import ConfigError
from companion.core.i18n import LANGUAGES, translations
from companion.core.jsonvalue import JsonObject
from companion.core.messages import render_json
from companion.core.observation import Observation
from companion.games import all_games
from companion.service.advertise import (
    HTTPS_SERVICE_TYPE,
    SERVICE_TYPE,
    Advertisement,
    Advertiser,
    local_addresses,
)
from companion.service.backup import (
    StagedRestore,
    apply_pending_restore,
    cancel_restore,
    pending_files,
    stage_restore,
    write_backup,
)
from companion.service.broker import acl_problem
from companion.service.catalogue import CATALOGUE
from companion.service.club import ClubResponder, DatabaseIdentity
from companion.service.config import ReaderSettings, Settings, parse_settings
from companion.service.engine import Engine, Publication
from companion.service.enrolment import parse_tags_document, tags_document
from companion.service.export import SummaryCache, export_game, game_summaries, log_page
from companion.service.known_players import KnownPlayers
from companion.service.store import EventStore, TagBinding
from companion.service.tls import certificate_fingerprint
from companion.service.watchdog import Notifier, Watchdog, watchdog_interval_s
from firmware_bridge.homeassistant import software_version
from firmware_bridge.mqtt import MqttBridge, default_table_id
from firmware_bridge.ports import detected_ports
from firmware_bridge.readers import ProtocolName, ReaderConfig, open_reader
from firmware_bridge.virtual import ReplayReader, VirtualReader
from web import create_app
from web.server import ServerLimits, TableServer, sse_slots

if TYPE_CHECKING:  # OpenCV is imported only when a camera is configured
    from vision.table_calibration import LiveCalibration, ShotOutcome

log = logging.getLogger(__name__)
STATUS_POLL_S = 1.0
WAIT_SLICE_S = 0.5


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


HTTPS_PORT = 443
"""Where the installer's HTTPS proxy serves the pages (hardware/deploy/nginx-trackside.conf)."""


def behind_https(settings: Settings) -> bool:
    """The pages are served through the installer's HTTPS proxy (``install.sh --https`` sets
    ``[web] tls_certificate``, with the service on the loopback behind it)."""
    return settings.web.tls_certificate is not None


def mdns_host() -> str:
    return f"{socket.gethostname().split('.')[0] or 'trackside'}.local"


def page_url(settings: Settings) -> str:
    """The table's pages as other devices on the network reach them (mDNS name; the host's
    address when the server listens on one; the HTTPS proxy's address behind it: the
    certificate names ``<host>.local``)."""
    if behind_https(settings):
        return f"https://{mdns_host()}/"
    host = settings.web.host
    if host in ("0.0.0.0", "::", ""):
        host = f"{socket.gethostname().split('.')[0]}.local"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.web.port}/"


class Trackside:
    """The running service."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        apply_pending_restore(settings.database.path)  # a backup restored from the setup page
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
            try:
                self.mqtt = MqttBridge(settings.mqtt, configuration_url=page_url(settings))
            except ValueError as exc:  # "mqtt.ca_file: cannot use …"
                where, _, reason = str(exc).partition(": ")
                raise ConfigError(where, reason or str(exc), file=settings.source) from None
            problem = acl_problem(settings)
            if problem is not None:
                log.warning("MQTT: %s", problem)
            self.mqtt.listen_for_pads(self.engine)
            self.mqtt.serve_hub_requests(ClubResponder(settings.database.path))  # docs/hub.md
            self.engine.subscribe(self._to_mqtt)
        self._identity = DatabaseIdentity(self.store)
        club = settings.club
        self.known_players = (
            KnownPlayers(club.hub_url) if club is not None and club.hub_url else None
        )
        self._closing = threading.Event()
        self._summaries: SummaryCache = {}
        self._summaries_lock = threading.Lock()
        self._server: TableServer | None = None
        self._threads: list[threading.Thread] = []
        self.notifier = Notifier()  # systemd's $NOTIFY_SOCKET; a no-op without it
        self.advertiser: Advertiser | None = None
        self.watchdog: Watchdog | None = None
        self.catalogue = CATALOGUE
        self.app = create_app(self)
        self.app.config["SSE_MAX_STREAMS"] = sse_slots(self.server_limits())
        self.app.config["SSE_PER_ADDRESS"] = settings.web.streams_per_address

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
        # subscribers (Home Assistant, the club hub) read plain text in the table's language
        self.mqtt.publish_state(render_json(publication.snapshot, translations(self.language)))
        if publication.entry is not None and publication.event is not None:
            # publication.event: a private action (a secret trade) has no arguments until the end
            event = {"game_id": publication.game_id, **publication.event}
            self.mqtt.publish_event(publication.entry.seq, event, db=self._identity())

    # -- lifecycle --------------------------------------------------------------------------
    def start(self, *, web: bool = True) -> None:
        if web and self.settings.web.enabled:  # first: a port in use stops nothing half-started
            self._server = self._make_server()
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
        if self._server is not None:
            self._spawn(self._server.serve_forever, "web")
            self._advertise()
        self._notify_ready()

    @property
    def join_url(self) -> str | None:
        """The table page at this machine's LAN address, for the scoreboard's join QR code;
        None while the pages listen on the loopback only (no phone could open it)."""
        host = self.settings.web.host
        if self._server is not None and behind_https(self.settings):
            return f"{page_url(self.settings)}table"
        if self._server is None or host.startswith("127.") or host in ("::1", "localhost"):
            return None
        addresses = local_addresses() if host in ("0.0.0.0", "::", "") else (host,)
        if not addresses:
            return None
        address = f"[{addresses[0]}]" if ":" in addresses[0] else addresses[0]
        return f"http://{address}:{self.web_port}/table"

    def _advertise(self) -> None:
        """The pages over mDNS (companion/service/advertise.py), unless they listen on the
        loopback only. Never fatal."""
        host = self.settings.web.host
        https = behind_https(self.settings)
        loopback = host.startswith("127.") or host in ("::1", "localhost")
        if (loopback and not https) or self.web_port is None:
            return
        everywhere = https or host in ("0.0.0.0", "::", "")
        addresses = local_addresses() if everywhere else (host,)
        if not addresses:
            log.warning("no network address to advertise the pages on (yet)")
            return
        table = self.settings.mqtt.table_id if self.settings.mqtt else default_table_id()
        ad = Advertisement(
            f"Trackside {table}",
            HTTPS_PORT if https else self.web_port,
            addresses,
            software_version(),
            service_type=HTTPS_SERVICE_TYPE if https else SERVICE_TYPE,
        )
        self.advertiser = Advertiser(ad)
        self.advertiser.start()

    def _notify_ready(self) -> None:
        """Type=notify: ready now; with WatchdogSec=, beat while the engine thread answers."""
        if not self.notifier.enabled:
            return
        interval = watchdog_interval_s()
        if interval is not None:
            self.watchdog = Watchdog(self.notifier, self.engine.barrier, interval)
            self.watchdog.start()
        self.notifier.send("READY=1", "STATUS=Table ready")

    def _make_server(self) -> TableServer:
        """The web server, listening; a host or port it cannot use is a config error naming
        the option (not a traceback)."""
        web = self.settings.web
        file = self.settings.source
        try:
            socket.getaddrinfo(web.host, web.port, type=socket.SOCK_STREAM)
            return TableServer(web.host, web.port, self.app, self.server_limits())
        except ValueError as exc:  # waitress: "Invalid host/port specified."
            raise ConfigError(
                "web.host", f"cannot listen on {web.host!r}: {exc}", file=file
            ) from None
        except socket.gaierror as exc:
            raise ConfigError(
                "web.host", f"cannot resolve {web.host!r}: {exc.strerror}", file=file
            ) from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    "web.port", f"port {web.port} is in use by another program", file=file
                ) from None
            if exc.errno == errno.EADDRNOTAVAIL:
                raise ConfigError(
                    "web.host", f"{web.host!r} is not an address of this machine", file=file
                ) from None
            if exc.errno == errno.EACCES:
                raise ConfigError(
                    "web.port", f"port {web.port} needs root; use 1024 or above", file=file
                ) from None
            raise ConfigError(
                "web.host", f"cannot listen on {web.host}:{web.port}: {exc}"
            ) from None

    def server_limits(self) -> ServerLimits:
        web = self.settings.web
        return ServerLimits(
            threads=web.threads,
            max_connections=web.max_connections,
            trusted_proxy=web.trusted_proxy,
        )

    @property
    def web_port(self) -> int | None:
        return None if self._server is None else self._server.port

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

    def warm_up(self) -> None:
        """What the first pages would otherwise load while a player waits, loaded now: every
        game's module, every template compiled, every language's words (issue 48: the first
        table page after a start took 84 ms here, the scoreboard 55; ~200 ms more at start-up).
        ``trackside run`` calls it once started, before it settles the heap
        (``companion.service.cli``)."""
        all_games(include_hidden=True)
        for language in LANGUAGES:
            translations(language)
        env = self.app.jinja_env
        for name in env.list_templates(filter_func=lambda n: n.endswith(".html")):
            env.get_template(name)

    def stop(self) -> None:
        self._closing.set()
        self.notifier.send("STOPPING=1")
        if self.watchdog is not None:
            self.watchdog.stop()
        if self.advertiser is not None:
            self.advertiser.stop()
        for device in self.devices.values():
            with contextlib.suppress(Exception):
                device.stop(2.0)
        if self.mqtt is not None:
            with contextlib.suppress(Exception):
                self.mqtt.stop()
        if self._server is not None:
            self._server.close()
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
    def hostnames(self) -> tuple[str, ...]:
        return self.settings.web.hostnames

    @property
    def language(self) -> str:
        return self.settings.web.language

    @property
    def tls_fingerprint(self) -> str | None:
        """The SHA-256 fingerprint of the HTTPS proxy's certificate, when there is one."""
        path = self.settings.web.tls_certificate
        return None if path is None else certificate_fingerprint(path)

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def latest(self) -> tuple[int, dict[str, Any]]:
        return self.engine.latest()

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, dict[str, Any]]:
        """The engine's wait, in slices, so that open event streams end promptly on stop (each
        holds a web server thread the server waits for)."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            found = self.engine.wait_newer(version, min(max(0.0, left), WAIT_SLICE_S))
            if found[0] > version or left <= WAIT_SLICE_S or self._closing.is_set():
                return found

    def submit_and_wait(self, observation: Observation, timeout_s: float) -> Mapping[str, Any]:
        outcome = self.engine.submit(observation).wait(timeout_s)
        return {
            **(outcome.reply or {}),  # what only the sender hears (issue_seat_code's code)
            "outcome": outcome.outcome,
            # a message's JSON where there is one: each screen renders it in its language
            "message": outcome.text if outcome.text is not None else outcome.message,
            "game_id": outcome.game_id,
            "seq": outcome.seq,
        }

    def games(self) -> list[dict[str, Any]]:
        with self._summaries_lock:
            return game_summaries(self.store, self._summaries)

    def export(
        self, game_id: int, fmt: str, translations: gettext.NullTranslations | None = None
    ) -> tuple[str, str]:
        """A game's record; the CSV's words for people in the language of ``translations``."""
        return export_game(self.store, game_id, fmt, translations)

    def game_version(self, game_id: int) -> int | None:
        """What a game's history page and exports are kept by (web/limits.py): its last log
        seq; None when there is no such game."""
        return self.store.game_version(game_id)

    def log_page(self, game_id: int, limit: int, before_seq: int | None = None) -> dict[str, Any]:
        """A page of a game's log, newest first, as others at the table may see it
        (:func:`~companion.service.export.log_page`)."""
        revealed = self.engine.revealed(game_id)
        if revealed is None:  # finished is filed only when the rules say over; abandoned is not
            revealed = self.store.game(game_id).end_reason == "finished"
        return dict(
            log_page(self.store, game_id, revealed=revealed, limit=limit, before_seq=before_seq)
        )

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

    def seat_code_matches(self, game_id: int, player: int, code: str) -> bool:
        """Whether ``code`` is the live seat code the table issued for that seat."""
        return self.engine.seat_code_matches(game_id, player, code)

    def seat_codes(self, game_id: int) -> dict[int, tuple[str, float]]:
        """The live seat codes (player → code, seconds left), for the table page."""
        return self.engine.seat_codes(game_id)

    def known_player_names(self) -> list[str]:
        """The club hub's players, for the table page's name boxes (none without a hub)."""
        return [] if self.known_players is None else self.known_players.names()

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

    @property
    def version(self) -> str:
        return software_version()

    def check_config(self, data: Mapping[str, Any], file: str) -> Settings:
        """The setup page's config check: exactly what start-up does (ConfigError naming the
        option)."""
        return parse_settings(data, file=file)

    # -- backups (companion/service/backup.py) ---------------------------------------------
    def make_backup(self) -> bytes:
        """The whole table in one archive: database, config, camera calibration."""
        return write_backup(self.settings)

    def stage_restore(self, data: bytes) -> StagedRestore:
        """Check a backup completely, then stage it for the next start (RestoreRefusedError
        with nothing changed)."""
        return stage_restore(data, self.settings, (self.settings.web.host, self.web_port or 0))

    def cancel_restore(self) -> bool:
        return cancel_restore(self.settings.database.path)

    def restore_pending(self) -> tuple[str, ...]:
        """The files a staged restore brings back at the next start (empty: none)."""
        return tuple(pending_files(self.settings.database.path))

    def tags_document(self) -> dict[str, Any]:
        return tags_document(self.store.tags())

    def parse_tags_document(self, data: Any) -> list[TagBinding]:
        return parse_tags_document(data)

    def serial_ports(self) -> list[dict[str, Any]]:
        """The serial ports on this machine with their stable names (the setup page)."""
        return [asdict(p) for p in detected_ports()]

    def wait_idle(self, timeout_s: float = 10.0) -> None:
        """Block until every input queued so far has been handled (tests, the demo)."""
        self.engine.barrier(timeout_s)
