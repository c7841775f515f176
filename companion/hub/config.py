"""``trackside hub --config FILE``: the ``[hub]`` and ``[mqtt]`` (club broker) sections."""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core.i18n import LANGUAGES

DEFAULT_DATABASE = "/var/lib/trackside/db/hub.sqlite3"


@dataclass(frozen=True, slots=True)
class ClubBroker:
    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    keepalive_s: int = 30
    client_id: str | None = None
    """None: ``trackside-hub-<this install's random id>`` (kept in the hub's database), the
    same across restarts so the broker keeps the tables' events for the hub while it is away,
    and another hub's or a stranger's never. A club broker that takes the login as the client
    id (the shipped one) protects it further."""


@dataclass(frozen=True, slots=True)
class Season:
    """A season of the league: from ``start`` (the hub's local midnight) to the next season's
    start; the last one runs on. Earlier seasons stay to look back at (the archive)."""

    name: str
    start: dt.date

    def start_s(self) -> float:
        return dt.datetime.combine(self.start, dt.time()).timestamp()


@dataclass(frozen=True, slots=True)
class HubSettings:
    broker: ClubBroker
    host: str = "0.0.0.0"
    port: int = 8090
    database: Path = Path(DEFAULT_DATABASE)
    tables: tuple[str, ...] = ()
    """Known tables; empty: any table on the club broker. Others are refused (logged)."""
    quiet_after_s: float = 120.0
    resync_every_s: float = 300.0
    night_hours: float = 12.0
    seasons: tuple[Season, ...] = ()
    """Oldest first; none: the season is every result there is."""
    language: str = "en"
    """The pages' language when a screen says none (cs, sk, es, en)."""


class HubConfigError(ValueError):
    """``<section>.<option>: <reason>``."""


def _typed(section: str, key: str, value: object, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise HubConfigError(f"{section}.{key}: {value!r} has the wrong type")
    return value


def parse_hub_settings(document: Mapping[str, Any]) -> HubSettings:
    hub = document.get("hub", {})
    mqtt = document.get("mqtt")
    if not isinstance(hub, Mapping):
        raise HubConfigError("hub: expected a table")
    if not isinstance(mqtt, Mapping) or "host" not in mqtt:
        raise HubConfigError("mqtt.host: missing (the club broker the tables bridge to)")
    broker_types: dict[str, type | tuple[type, ...]] = {
        "host": str,
        "port": int,
        "username": str,
        "password": str,
        "tls": bool,
        "ca_file": str,
        "keepalive_s": int,
        "client_id": str,
    }
    kwargs: dict[str, Any] = {}
    for key, value in mqtt.items():
        if key not in broker_types:
            raise HubConfigError(f"mqtt.{key}: unknown option for the hub")
        kwargs[key] = _typed("mqtt", key, value, broker_types[key])
    broker = ClubBroker(**kwargs)
    if not 1 <= broker.port <= 65535:
        raise HubConfigError(f"mqtt.port: {broker.port!r} is not a TCP port")
    if broker.password is not None and broker.username is None:
        raise HubConfigError("mqtt.password: given without a username")
    if broker.client_id is not None and not 1 <= len(broker.client_id) <= 64:
        raise HubConfigError("mqtt.client_id: must be 1–64 characters")
    if broker.ca_file is not None and not broker.tls:
        raise HubConfigError("mqtt.ca_file: given but tls is false")

    hub_types: dict[str, type | tuple[type, ...]] = {
        "host": str,
        "port": int,
        "database": str,
        "tables": list,
        "quiet_after_s": (int, float),
        "resync_every_s": (int, float),
        "night_hours": (int, float),
        "seasons": list,
        "language": str,
    }
    options: dict[str, Any] = {}
    for key, value in hub.items():
        if key not in hub_types:
            raise HubConfigError(f"hub.{key}: unknown option (known: {', '.join(hub_types)})")
        options[key] = _typed("hub", key, value, hub_types[key])
    if "database" in options:
        options["database"] = Path(options["database"])
    if "tables" in options:
        tables = options["tables"]
        for name in tables:
            if not isinstance(name, str) or not name or any(c in name for c in "/+#\x00"):
                raise HubConfigError(f"hub.tables: {name!r} cannot be a table id")
        options["tables"] = tuple(tables)
    if "language" in options and options["language"] not in LANGUAGES:
        raise HubConfigError(
            f"hub.language: {options['language']!r} is not one of {', '.join(LANGUAGES)}"
        )
    if "seasons" in options:
        options["seasons"] = parse_seasons(options["seasons"])
    port = options.get("port", 8090)
    if not 0 <= port <= 65535:
        raise HubConfigError(f"hub.port: {port!r} is not a TCP port")
    for key in ("quiet_after_s", "resync_every_s", "night_hours"):
        if key in options and options[key] <= 0:
            raise HubConfigError(f"hub.{key}: must be positive")
    return HubSettings(broker=broker, **options)


def parse_seasons(items: list[Any]) -> tuple[Season, ...]:
    """``seasons = [{name = "Autumn 2026", start = 2026-09-01}, …]``: names unique, at most
    64 characters; starts (TOML dates) in order."""
    seasons: list[Season] = []
    for index, item in enumerate(items):
        where = f"hub.seasons[{index}]"
        if not isinstance(item, Mapping) or set(item) != {"name", "start"}:
            raise HubConfigError(f'{where}: expected {{name = "…", start = YYYY-MM-DD}}')
        name, start = item["name"], item["start"]
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise HubConfigError(f"{where}.name: expected a name of 1–64 characters")
        if isinstance(start, dt.datetime) or not isinstance(start, dt.date):
            raise HubConfigError(f"{where}.start: {start!r} is not a date (YYYY-MM-DD)")
        if any(s.name == name for s in seasons):
            raise HubConfigError(f"{where}.name: {name!r} is already a season")
        if seasons and start <= seasons[-1].start:
            raise HubConfigError(f"{where}.start: {start} is not after {seasons[-1].start}")
        seasons.append(Season(name.strip(), start))
    return tuple(seasons)


def load_hub_settings(path: Path) -> HubSettings:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HubConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise HubConfigError(f"{path}: not TOML: {exc}") from None
    return parse_hub_settings(document)
