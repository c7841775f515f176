"""``trackside``: the command line. Bad input: one line on stderr naming what and where, exit 2."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import logging.handlers
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from companion import __version__
from companion.core.errors import IllegalActionError, TracksideError
from companion.core.i18n import language_from_environment, translations
from companion.core.messages import Text, msg, render_text
from companion.games import all_games, find_game
from companion.service.collector import IdleCollector

if TYPE_CHECKING:
    from companion.service.config import Settings

EXIT_BAD_INPUT = 2


def _words(text: Text) -> str:
    """A human line in the language of ``LANG`` (``LANGUAGE``, ``LC_ALL``, …) as gettext picks
    it; machine output (JSON) stays as the contract says."""
    return render_text(text, translations(language_from_environment()))


def _fail(message: Text) -> NoReturn:
    print(_words(msg("trackside: error: {message}", message=message)), file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)


def _read_json(source: str) -> Any:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        _fail(f"{source}: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        _fail(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})")
    try:
        return json.loads(text)
    except RecursionError:
        _fail(f"{'stdin' if source == '-' else source}: not valid JSON: nested too deeply")
    except json.JSONDecodeError as exc:
        name = "stdin" if source == "-" else source
        _fail(f"{name}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}")


def cmd_score(args: argparse.Namespace) -> int:
    data = _read_json(args.file)
    if not isinstance(data, dict):
        _fail("the snapshot must be a JSON object")
    if "game" not in data:
        _fail('game: missing (e.g. "russian-railroads")')
    try:
        sheet = find_game(data["game"]).score_snapshot(data)
    except IllegalActionError as exc:
        _fail(exc.text)
    except TracksideError as exc:
        _fail(str(exc))
    print(json.dumps(sheet.to_json(), ensure_ascii=False))
    return 0


def cmd_games(_: argparse.Namespace) -> int:
    for game in all_games():
        players = msg("{low}–{high} players", low=game.min_players, high=game.max_players)
        print(f"{game.name}\t{game.title}\t{_words(players)}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from companion.service.config import load_settings
    from companion.service.export import export_game
    from companion.service.store import EventStore

    db = Path(args.db) if args.db else load_settings(_config_path(args)).database.path
    store = EventStore.open_readonly(db)
    try:
        _, body = export_game(
            store, args.game_id, args.format, translations(language_from_environment())
        )
    finally:
        store.close()
    sys.stdout.write(body)
    return 0


def _config_path(args: argparse.Namespace) -> Path | None:
    return Path(args.config) if getattr(args, "config", None) else None


def settle_heap() -> None:
    """What the process loaded to start (modules, templates, the games' data: ~50,000 objects)
    is kept for good: frozen out of the garbage collector's full collections, which otherwise
    walk it again every time one lands on a request (8 ms here, ~30 ms on a Pi 4; issue 48: no
    tap over 50 ms). Garbage is collected first; what the running service makes and lets go
    of is collected between requests (:class:`companion.service.collector.IdleCollector`)."""
    gc.collect()
    gc.freeze()


def _serve(service: Any, *, until: threading.Event | None = None) -> int:
    stop = until or threading.Event()

    def on_signal(signum: int, _: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    warm_up = getattr(service, "warm_up", None)
    if callable(warm_up):
        warm_up()
    settle_heap()
    collector = IdleCollector()  # garbage collected between requests, not in them
    app = getattr(service, "app", None)
    if app is not None:
        app.wsgi_app = collector.wrap(app.wsgi_app)
    collector.start()
    try:
        stop.wait()
    finally:
        collector.stop()
        service.stop()
    return 0


def settings_for_run(config: Path | None) -> Settings:
    """The settings ``trackside run`` starts with: a config restored from a backup on the setup
    page (checked when it was uploaded) is put in place first; the database and calibration
    follow when the service opens them (companion/service/backup.py)."""
    from companion.service.backup import apply_pending_config
    from companion.service.config import default_data_dir, load_settings

    apply_pending_config(config or default_data_dir() / "config" / "trackside.toml")
    return load_settings(config)


def cmd_run(args: argparse.Namespace) -> int:
    from companion.service.runtime import Trackside

    settings = settings_for_run(_config_path(args))
    service = Trackside(settings)
    service.start()
    log = logging.getLogger("trackside")
    log.info(
        "Trackside %s running: database %s, scoreboard http://%s:%s/",
        __version__,
        settings.database.path,
        settings.web.host,
        service.web_port,
    )
    return _serve(service)


def cmd_hub(args: argparse.Namespace) -> int:
    """The club hub (docs/hub.md): every table's state and results from the club broker."""
    from companion.hub.config import HubConfigError, load_hub_settings
    from companion.hub.run import HubService
    from companion.service.watchdog import Notifier

    try:
        settings = load_hub_settings(Path(args.config))
    except HubConfigError as exc:
        _fail(str(exc))
    service = HubService(settings)
    service.start()
    Notifier().send("READY=1")  # systemd's Type=notify (trackside-hub.service); else nothing
    logging.getLogger("trackside").info(
        "Trackside hub %s: club broker %s:%s, results in %s, wall screen http://%s:%s/",
        __version__,
        settings.broker.host,
        settings.broker.port,
        settings.database,
        settings.host,
        service.web_port,
    )
    return _serve(service)


def cmd_demo(args: argparse.Namespace) -> int:
    from companion.service.demo import start_demo

    service, url = start_demo(port=args.port, speed=args.speed, recording=args.recording)
    print(
        _words(msg("Trackside demo: the scoreboard is at {url} — Ctrl-C to stop.", url=url)),
        flush=True,
    )
    return _serve(service)


def cmd_listen(args: argparse.Namespace) -> int:
    from firmware_bridge.listen import listen

    result: int = listen(args.protocol, args.port, args.baud, args.seat, sys.stdout)
    return result


def cmd_readers(args: argparse.Namespace) -> int:
    from companion.service.config import SERIAL_PROTOCOLS, load_settings
    from companion.service.runtime import reader_config
    from firmware_bridge.listen import list_ports

    settings = load_settings(_config_path(args))
    configured = [
        reader_config(r) for r in settings.readers if r.protocol in (*SERIAL_PROTOCOLS, "hid")
    ]
    result: int = list_ports(sys.stdout, configured)
    return result


def cmd_ha_remove(args: argparse.Namespace) -> int:
    """Remove the table's device from Home Assistant: clear the discovery configs it announced
    (empty retained payloads) on the broker of ``[mqtt]``. uninstall.sh runs it."""
    from companion.service.config import load_settings
    from firmware_bridge.mqtt import remove_discovery

    settings = load_settings(_config_path(args))
    if settings.mqtt is None:
        _fail(msg("the config has no [mqtt] section: no broker to remove the device from"))
    try:
        topics = remove_discovery(settings.mqtt)
    except (ConnectionError, ValueError) as exc:
        _fail(str(exc))
    print(
        _words(
            msg(
                "Home Assistant: {n} discovery configs of table {table} cleared on {broker}.",
                n=len(topics),
                table=settings.mqtt.table_id,
                broker=f"{settings.mqtt.host}:{settings.mqtt.port}",
            )
        )
    )
    if settings.mqtt.ha_discovery:
        print(
            _words(
                msg(
                    "The config still has ha_discovery = true: the running service announces the "
                    "table again when it reconnects. Set it to false and restart Trackside."
                )
            ),
            file=sys.stderr,
        )
    return 0


def cmd_see(args: argparse.Namespace) -> int:
    from vision.see import see

    return see(args.images, sys.stdout, calibration_path=args.calibration, explain=args.explain)


def cmd_vision_calibrate(args: argparse.Namespace) -> int:
    from vision.calibrate import calibrate

    result = calibrate(args.images, args.output, camera=args.camera)
    print(f"calibration for camera {args.camera!r} written to {result.path}")
    if result.palette.view > 1.0:
        print(
            "the camera looks at the table at a slant: cards are found with the table's depth "
            f"stretched back ×{result.palette.view:.2f} (kept in the calibration)"
        )
    for warning in result.warnings:
        print(f"warning: {warning}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trackside",
        description="A table companion for physical railroad board games.",
    )
    parser.add_argument("--version", action="version", version=f"trackside {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("run", help="run the service from the config file")
    p.add_argument("--config", help="config file (default: <data dir>/config/trackside.toml)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("ha-remove", help="remove this table's device from Home Assistant")
    p.add_argument("--config", help="config file (default: <data dir>/config/trackside.toml)")
    p.set_defaults(func=cmd_ha_remove)

    p = sub.add_parser("hub", help="the club hub: many tables on one wall screen and league")
    p.add_argument("--config", required=True, help="the hub's config file (docs/hub.md)")
    p.set_defaults(func=cmd_hub)

    p = sub.add_parser("demo", help="replay a recorded game night with virtual readers")
    p.add_argument("--port", type=int, default=8080, help="web port on 127.0.0.1 (default 8080)")
    p.add_argument("--speed", type=float, default=20.0, help="replay speed-up (default 20)")
    p.add_argument("--recording", help="another recording file to replay")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("score", help="score a table snapshot (JSON file, or - for stdin)")
    p.add_argument("file")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("games", help="list the games Trackside knows")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("export", help="a game's record as JSON or CSV")
    p.add_argument("game_id", type=int)
    p.add_argument("--format", choices=("json", "csv"), default="json")
    p.add_argument("--config", help="config file (to find the database)")
    p.add_argument("--db", help="the database file (instead of the config's)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("listen", help="open one serial reader and print what it reads")
    p.add_argument("--protocol", required=True, choices=("rdm6300", "id12la", "pn532", "line"))
    p.add_argument("--port", required=True, help="device, e.g. /dev/serial/by-id/…")
    p.add_argument("--baud", type=int)
    p.add_argument("--seat", type=int)
    p.set_defaults(func=cmd_listen)

    p = sub.add_parser("readers", help="list serial ports and what each is configured as")
    p.add_argument("--config")
    p.set_defaults(func=cmd_readers)

    p = sub.add_parser("see", help="run the vision detectors on still images")
    p.add_argument("images", nargs="+")
    p.add_argument("--calibration", help="a camera's calibration file (default palette otherwise)")
    p.add_argument(
        "--explain",
        action="store_true",
        help="also list the card-sized outlines not taken as cards, and why",
    )
    p.set_defaults(func=cmd_see)

    p = sub.add_parser("vision", help="camera tools")
    vision = p.add_subparsers(dest="vision_command", required=True, metavar="TOOL")
    p = vision.add_parser(
        "calibrate", help="learn the card colours from one card of each colour, left to right"
    )
    p.add_argument(
        "images", nargs="+", help="image(s) showing the nine cards in the order of docs/vision.md"
    )
    p.add_argument("--output", required=True, help="where to store the calibration (JSON)")
    p.add_argument("--camera", default="camera", help="the camera's name in the config")
    p.set_defaults(func=cmd_vision_calibrate)

    from companion.service import enrolment, labels

    enrolment.register(sub)
    labels.register(sub)
    return parser


def _log_to_file(path: str | None) -> None:
    """``$TRACKSIDE_LOG_FILE``: also log there (the systemd unit sets it). The handler reopens
    the file when logrotate moves it away; a file that cannot be opened is said once on stderr
    and the service carries on logging to stderr (the journal)."""
    if not path:
        return
    try:
        handler = logging.handlers.WatchedFileHandler(path, encoding="utf-8")
    except OSError as exc:
        logging.getLogger("trackside").error("log file %s: %s; logging to stderr only", path, exc)
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    _log_to_file(os.environ.get("TRACKSIDE_LOG_FILE"))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    try:
        result: int = args.func(args)
    except TracksideError as exc:
        _fail(str(exc))
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith(("firmware_bridge", "vision")):
            _fail(f"{args.command}: this build has no {exc.name} yet")
        raise
    return result


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
