"""The config file: one TOML file, validated at start-up into frozen settings.

Every option has a documented default (``docs/config.md``); a bad option stops start-up with
its path and the reason (``readers[1].seat: expected a seat number 1–8, got 0``). Unknown keys
are refused too, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn

from companion.core.errors import ConfigError
from companion.core.i18n import DEFAULT_LANGUAGE, LANGUAGES
from companion.games import game_names
from firmware_bridge.mqtt import MqttConfig

if TYPE_CHECKING:  # the camera pulls in OpenCV: imported only when a camera is configured
    from vision.camera import CameraConfig

READER_PROTOCOLS = ("rdm6300", "id12la", "pn532", "line", "hid", "virtual", "replay")
SERIAL_PROTOCOLS = ("rdm6300", "id12la", "pn532", "line")
MAX_SEATS = 8
DEFAULT_PORT = 8080
MIN_PIN_DIGITS = 6
MAX_TRUSTED_ADDRESSES = 8
"""A trusted network is for the table's own screens: a whole Wi-Fi (/24) would let every guest
use the table page without the PIN."""
HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")


def default_data_dir() -> Path:
    """``$TRACKSIDE_DATA``, else ``/var/lib/trackside`` when it exists (the Pi install), else
    ``~/.local/share/trackside``."""
    env = os.environ.get("TRACKSIDE_DATA")
    if env:
        return Path(env)
    system = Path("/var/lib/trackside")
    if system.is_dir():
        return system
    return Path.home() / ".local" / "share" / "trackside"


@dataclass(frozen=True, slots=True)
class WebSettings:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    pin: str | None = None
    """Needed for every action that changes a game; ``None``: changes from the page are off."""
    enabled: bool = True
    trusted_subnets: tuple[str, ...] = ()
    """Addresses (``192.168.1.50/32``, at most ``MAX_TRUSTED_ADDRESSES`` each) whose devices use
    the table page without the PIN: kiosk screens. Empty: everybody needs the PIN."""
    threads: int = 64
    """Requests served at once; every open scoreboard or phone holds one for its live updates."""
    max_connections: int = 400
    """Open connections at once (below the 1,024 open files a service gets)."""
    streams_per_address: int = 12
    """Live pages (event streams) one address may hold open: a club night behind one NAT
    address (a TV, a tablet, six phones) fits in the default; one device cannot take them all."""
    trusted_proxy: str | None = None
    """The HTTPS proxy in front of the pages (``"127.0.0.1"`` when nginx runs on the Pi):
    its forwarded client addresses are believed, from it alone."""
    tls_certificate: str | None = None
    """The certificate (PEM) the HTTPS proxy serves: the pages show its SHA-256 fingerprint so
    players can check it, and the session cookies are sent over HTTPS only."""
    language: str = "en"
    """The table's language (``cs``, ``sk``, ``es``, ``en``) for screens whose browser asks for
    none of ours and that have not chosen one with the language switch."""
    hostnames: tuple[str, ...] = ()
    """Names the pages are reached by besides IP addresses, localhost and this machine's own
    name (and ``<name>.local``); any other ``Host`` header is refused (DNS rebinding)."""


@dataclass(frozen=True, slots=True)
class DatabaseSettings:
    path: Path


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    name: str
    protocol: str
    port: str = ""
    """Device path (prefer ``/dev/serial/by-id/…``), or the recording file for ``replay``."""
    seat: int | None = None
    baud: int | None = None
    speed: float = 1.0
    """``replay`` only: how much faster than recorded the file plays."""
    vid_pid: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ClubSettings:
    """``[club]``: the club broker this table's Mosquitto bridges to (docs/hub.md); the
    installer writes the bridge from it. The service itself only answers the hub's resend
    requests, which reach it through its own broker."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    hub_url: str | None = None
    """The club hub's pages (``http://hub.local:8090``): the table page offers the hub's known
    players by name when a game starts."""


@dataclass(frozen=True, slots=True)
class Settings:
    data_dir: Path
    web: WebSettings
    database: DatabaseSettings
    mqtt: MqttConfig | None = None
    club: ClubSettings | None = None
    readers: tuple[ReaderSettings, ...] = ()
    camera: CameraConfig | None = None
    game_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """``[games."<game id>"]``: default options for every new game of that kind (e.g. the
    owner's Mini Express share-value table, Russian Railroads board figures). A game's own
    setup checks them when a game starts; options given at the start win."""
    source: str = ""
    """The file these settings came from ('' for built-in defaults)."""

    def calibration_path(self, camera: str | None = None) -> Path:
        """Where a camera's colour calibration is read at start and written by the table page:
        ``[camera] calibration_path`` when set, else ``<data dir>/calibration/<name>.json``
        (``camera`` or the configured camera's name; characters other than letters, digits,
        ``-``, ``_`` and ``.`` become ``_``)."""
        if camera is None and self.camera is not None:
            if self.camera.calibration_path:
                return Path(self.camera.calibration_path)
            camera = self.camera.name
        safe = re.sub(r"[^\w.-]", "_", camera or "camera", flags=re.ASCII)
        return self.data_dir / "calibration" / f"{safe}.json"


# -- validation helpers ---------------------------------------------------------------------
class _Section:
    def __init__(self, data: Any, path: str, file: str) -> None:
        self.path = path
        self.file = file
        if not isinstance(data, Mapping):
            self.fail("", f"expected a table, got {data!r}")
        self.data: Mapping[str, Any] = data

    def fail(self, key: str, reason: str) -> NoReturn:
        where = f"{self.path}.{key}" if self.path and key else (self.path or key)
        raise ConfigError(where, reason, file=self.file)

    def only(self, *keys: str) -> None:
        for key in self.data:
            if key not in keys:
                self.fail(key, f"unknown option (known: {', '.join(keys)})")

    def text(self, key: str, default: str | None) -> str | None:
        value: Any = self.data.get(key, default)
        if value is not None and not isinstance(value, str):
            self.fail(key, f"expected text, got {value!r}")
        return value

    def integer(self, key: str, default: int | None, lo: int, hi: int) -> int | None:
        value: Any = self.data.get(key, default)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            self.fail(key, f"expected a whole number {lo}–{hi}, got {value!r}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value: Any = self.data.get(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {value!r}")
        return value


def _web(data: Any, file: str) -> WebSettings:
    s = _Section(data, "web", file)
    s.only(
        "host",
        "port",
        "pin",
        "enabled",
        "trusted_subnets",
        "hostnames",
        "threads",
        "max_connections",
        "streams_per_address",
        "language",
        "trusted_proxy",
        "tls_certificate",
    )
    language = s.text("language", DEFAULT_LANGUAGE) or DEFAULT_LANGUAGE
    if language not in LANGUAGES:
        s.fail("language", f"expected one of {', '.join(LANGUAGES)}, got {language!r}")
    pin = s.data.get("pin")
    if isinstance(pin, int) and not isinstance(pin, bool):
        s.fail("pin", "write the PIN in quotes (a number would lose leading zeros)")
    pin = s.text("pin", None)
    if pin is not None and not re.fullmatch(r"[0-9]+", pin, re.ASCII):
        s.fail("pin", "expected digits 0–9 only")
    if pin is not None and len(pin) < MIN_PIN_DIGITS:
        s.fail(
            "pin",
            f"expected at least {MIN_PIN_DIGITS} digits, got {len(pin)}: a shorter PIN is "
            "guessed within minutes by a guest on the same Wi-Fi",
        )
    names = s.data.get("hostnames", [])
    if not isinstance(names, list) or not all(
        isinstance(n, str) and HOSTNAME.fullmatch(n.lower().rstrip(".")) for n in names
    ):
        s.fail("hostnames", f'expected a list of host names, e.g. ["trackside.lan"], got {names!r}')
    subnets = s.data.get("trusted_subnets", [])
    if not isinstance(subnets, list) or not all(isinstance(n, str) for n in subnets):
        s.fail("trusted_subnets", 'expected a list of networks, e.g. ["192.168.1.0/24"]')
    for index, network in enumerate(subnets):
        try:
            ipaddress.ip_network(network, strict=True)
        except ValueError as exc:
            s.fail(f"trusted_subnets[{index}]", f"{network!r} is not a network: {exc}")
        size = ipaddress.ip_network(network).num_addresses
        if size > MAX_TRUSTED_ADDRESSES:
            s.fail(
                f"trusted_subnets[{index}]",
                f"{network!r} holds {size} addresses; trust only the table's own screens "
                f'(at most {MAX_TRUSTED_ADDRESSES} addresses, e.g. "192.168.1.50/32"): on a '
                "whole network every guest would use the table page without the PIN",
            )
    if subnets and pin is None:
        s.fail(
            "trusted_subnets", "trusted subnets need a pin (without one the page changes nothing)"
        )
    return WebSettings(
        host=s.text("host", "0.0.0.0") or "0.0.0.0",
        port=s.integer("port", DEFAULT_PORT, 0, 65535) or 0,
        pin=pin,
        enabled=s.boolean("enabled", True),
        trusted_subnets=tuple(str(ipaddress.ip_network(n)) for n in subnets),
        hostnames=tuple(n.lower().rstrip(".") for n in names),
        threads=s.integer("threads", 64, 16, 1000) or 64,
        max_connections=s.integer("max_connections", 400, 32, 900) or 400,
        streams_per_address=s.integer("streams_per_address", 12, 2, 1000) or 12,
        language=language,
        trusted_proxy=_proxy_address(s),
        tls_certificate=_certificate(s),
    )


def _proxy_address(s: _Section) -> str | None:
    address = s.text("trusted_proxy", None)
    if address is None:
        return None
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        s.fail(
            "trusted_proxy", f'expected the proxy\'s IP address (e.g. "127.0.0.1"), got {address!r}'
        )


def _certificate(s: _Section) -> str | None:
    path = s.text("tls_certificate", None)
    if path is None:
        return None
    try:
        head = Path(path).read_bytes()[:65536]
    except OSError as exc:
        s.fail("tls_certificate", f"cannot read {path!r}: {exc.strerror}")
    if b"-----BEGIN CERTIFICATE-----" not in head:
        s.fail("tls_certificate", f"{path!r} is not a PEM certificate")
    return path


def _mqtt(data: Any, file: str) -> MqttConfig:
    """``[mqtt]``: the MQTT bridge checks its own options (docs/mqtt.md)."""
    section = _Section(data, "mqtt", file)
    try:
        config = MqttConfig.from_mapping(section.data)
    except ValueError as exc:
        path, _, reason = str(exc).partition(": ")
        raise ConfigError(path if reason else "mqtt", reason or str(exc), file=file) from None
    if config.ca_file is not None and not Path(config.ca_file).is_file():
        section.fail("ca_file", f"no such file {config.ca_file!r}")
    return config


def _club(data: Any, file: str, has_mqtt: bool) -> ClubSettings:
    """``[club]`` (docs/hub.md): where the table's broker bridges to."""
    s = _Section(data, "club", file)
    s.only("host", "port", "username", "password", "tls", "ca_file", "hub_url")
    if not has_mqtt:
        s.fail("", "needs an [mqtt] section: the bridge carries what the table publishes there")
    host = s.text("host", None)
    if not host or any(ch.isspace() for ch in host):
        s.fail("host", f"expected the club broker's host name or address, got {host!r}")
    username = s.text("username", None)
    password = s.text("password", None)
    if password is not None and username is None:
        s.fail("password", "given without a username")
    tls = s.boolean("tls", False)
    ca_file = s.text("ca_file", None)
    if ca_file is not None and not tls:
        s.fail("ca_file", "given but tls is false")
    port = s.integer("port", 8883 if tls else 1883, 1, 65535)
    assert port is not None
    hub_url = s.text("hub_url", None)
    if hub_url is not None and (
        not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", hub_url) or len(hub_url) > 200
    ):
        s.fail(
            "hub_url", f"expected the hub's address, e.g. http://hub.local:8090, got {hub_url!r}"
        )
    return ClubSettings(host, port, username, password, tls, ca_file, hub_url)


def _camera(data: Any, file: str, base: Path) -> CameraConfig:
    """``[camera]``: the camera checks its own options (docs/vision.md)."""
    from vision.camera import CameraConfig

    section = _Section(data, "camera", file)
    known = set(CameraConfig.__dataclass_fields__)
    section.only(*sorted(known))
    options = dict(section.data)
    options.setdefault("name", "camera")
    if "source" not in options:
        section.fail("source", 'missing: "picamera2", "v4l2:/dev/video0" or "replay:<folder>"')
    source = options["source"]
    if isinstance(source, str) and source.startswith("replay:"):
        path = Path(source.removeprefix("replay:"))
        options["source"] = "replay:" + str(path if path.is_absolute() else base / path)
    if isinstance(options.get("reveal_area"), list):
        options["reveal_area"] = tuple(options["reveal_area"])
    try:
        return CameraConfig(**options)
    except ConfigError as exc:
        raise ConfigError(exc.path, exc.reason, file=file) from None
    except (TypeError, ValueError) as exc:
        raise ConfigError("camera", str(exc), file=file) from None


def _reader(data: Any, index: int, file: str, base: Path) -> ReaderSettings:
    s = _Section(data, f"readers[{index}]", file)
    s.only("name", "protocol", "port", "seat", "baud", "speed", "vid_pid")
    name = s.text("name", None)
    if not name:
        s.fail("name", "every reader needs a name")
    protocol = s.text("protocol", None) or ""
    if protocol not in READER_PROTOCOLS:
        s.fail("protocol", f"{protocol!r} is not one of {' | '.join(READER_PROTOCOLS)}")
    port = s.text("port", "") or ""
    if protocol in (*SERIAL_PROTOCOLS, "hid", "replay") and not port:
        s.fail("port", f"a {protocol} reader needs a port (device path or file)")
    if protocol == "replay":
        path = Path(port) if Path(port).is_absolute() else base / port
        if not path.is_file():
            s.fail("port", f"no recording at {str(path)!r}")
        port = str(path)
    speed = s.data.get("speed", 1.0)
    if not isinstance(speed, int | float) or isinstance(speed, bool) or not 0 < speed <= 10000:
        s.fail("speed", f"expected a number above 0 (up to 10000), got {speed!r}")
    vid_pid = s.data.get("vid_pid", [])
    if not isinstance(vid_pid, list) or not all(
        isinstance(v, str) and len(v.split(":")) == 2 for v in vid_pid
    ):
        s.fail("vid_pid", f'expected a list like ["2341:0043"], got {vid_pid!r}')
    return ReaderSettings(
        name=name,
        protocol=protocol,
        port=port,
        seat=s.integer("seat", None, 1, MAX_SEATS),
        baud=s.integer("baud", None, 300, 4_000_000),
        speed=float(speed),
        vid_pid=tuple(vid_pid),
    )


def parse_settings(
    data: Mapping[str, Any], *, file: str = "", data_dir: Path | None = None
) -> Settings:
    """Validate a parsed TOML document into :class:`Settings`."""
    top = _Section(data, "", file)
    top.only("data_dir", "web", "database", "mqtt", "club", "readers", "games", "camera")
    base = Path(file).parent if file else Path.cwd()
    raw_dir = top.text("data_dir", None)
    root = Path(raw_dir) if raw_dir else (data_dir or default_data_dir())
    db = _Section(data.get("database", {}), "database", file)
    db.only("path")
    db_path = Path(db.text("path", None) or root / "db" / "trackside.sqlite3")
    readers_raw = data.get("readers", [])
    if not isinstance(readers_raw, list):
        top.fail("readers", "expected [[readers]] tables")
    readers = tuple(_reader(r, i, file, base) for i, r in enumerate(readers_raw))
    names = [r.name for r in readers]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ConfigError(f"readers[{i}].name", f"{name!r} is used twice", file=file)
    games = _Section(data.get("games", {}), "games", file)
    for game_id, options in games.data.items():
        if game_id not in game_names(include_hidden=True):
            games.fail(game_id, f"unknown game; known: {', '.join(game_names())}")
        if not isinstance(options, Mapping):
            games.fail(game_id, f"expected a table of options, got {options!r}")
    web = _web(data.get("web", {}), file)
    mqtt = _mqtt(data["mqtt"], file) if "mqtt" in data else None
    if mqtt is not None:  # Home Assistant's entity names in the table's language
        mqtt = dataclasses.replace(mqtt, language=web.language)
    return Settings(
        camera=_camera(data["camera"], file, base) if "camera" in data else None,
        game_options=MappingProxyType({k: dict(v) for k, v in games.data.items()}),
        data_dir=root,
        web=web,
        database=DatabaseSettings(db_path),
        mqtt=mqtt,
        club=_club(data["club"], file, "mqtt" in data) if "club" in data else None,
        readers=readers,
        source=file,
    )


def load_settings(path: Path | None = None) -> Settings:
    """Settings from ``path``, or from the data dir's ``config/trackside.toml``, or the built-in
    defaults when that file does not exist. Raises :class:`ConfigError` naming the option."""
    explicit = path is not None
    if path is None:
        path = default_data_dir() / "config" / "trackside.toml"
    if not path.exists():
        if explicit:
            raise ConfigError("--config", f"no such file {str(path)!r}")
        return parse_settings({})
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("(syntax)", str(exc), file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("(file)", str(exc), file=str(path)) from None
    return parse_settings(data, file=str(path))
