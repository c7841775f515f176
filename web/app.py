"""Flask app factory: the scoreboard, its live updates (server-sent events) and the JSON API."""

from __future__ import annotations

import hmac
import json
import time
from collections import defaultdict, deque
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from flask import Flask, Response, abort, jsonify, render_template, request

from companion.core.errors import SnapshotError, TracksideError
from companion.core.observation import Observation, ObservationKind

SSE_MIN_INTERVAL_S = 0.25  # at most four updates a second per client
SSE_KEEPALIVE_S = 15.0
PIN_FAILURES_ALLOWED = 5
PIN_FAILURE_WINDOW_S = 60.0
LIGHT_COLOURS = {"yellow", "white", "orange", "pink", "lime", "cyan", "natural", "beige"}
# Seat colours as players name them, in shades that read well on a dark TV page.
SEAT_PALETTE = {
    "red": "#d32f2f",
    "blue": "#1e63c4",
    "green": "#2e8b3e",
    "yellow": "#f2c12e",
    "black": "#3a3a3a",
    "white": "#eeeeee",
    "purple": "#7b3fa8",
    "orange": "#ef7d1a",
    "pink": "#e86aa6",
    "brown": "#8d5a35",
    "grey": "#7d8791",
    "gray": "#7d8791",
    "natural": "#d8c49a",
}


class TableService(Protocol):
    """What the pages need from the service."""

    @property
    def pin(self) -> str | None: ...

    @property
    def closing(self) -> bool: ...

    def latest(self) -> tuple[int, dict[str, Any]]: ...

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, dict[str, Any]]: ...

    def submit_and_wait(self, observation: Observation, timeout_s: float) -> Mapping[str, Any]: ...

    def games(self) -> list[dict[str, Any]]: ...

    def export(self, game_id: int, fmt: str) -> tuple[str, str]: ...


def _text_colour(colour: str) -> str:
    return "#111" if colour.lower() in LIGHT_COLOURS else "#fff"


def create_app(service: TableService, test_config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(SSE_MIN_INTERVAL_S=SSE_MIN_INTERVAL_S, SSE_KEEPALIVE_S=SSE_KEEPALIVE_S)
    if test_config:
        app.config.update(test_config)
    failures: dict[str, deque[float]] = defaultdict(deque)

    @app.template_filter("text_colour")
    def text_colour(colour: str) -> str:
        return _text_colour(colour or "")

    @app.template_filter("seat_colour")
    def seat_colour(colour: str) -> str:
        return SEAT_PALETTE.get((colour or "").lower(), colour or "#555")

    @app.template_filter("clock")
    def clock(wall_time_s: float | None) -> str:
        return time.strftime("%H:%M:%S", time.localtime(wall_time_s or 0))

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    @app.errorhandler(404)
    def not_found(_: Exception) -> tuple[Response, int]:
        return jsonify(error="not found"), 404

    @app.errorhandler(500)
    def server_error(_: Exception) -> tuple[Response, int]:
        return jsonify(error="internal error; see the service log"), 500

    # -- pages -----------------------------------------------------------------------------
    @app.get("/")
    def scoreboard() -> str:
        version, snapshot = service.latest()
        return render_template("scoreboard.html", s=snapshot, version=version)

    @app.get("/partials/scoreboard")
    def scoreboard_partial() -> str:
        version, snapshot = service.latest()
        return render_template("_board.html", s=snapshot, version=version)

    # -- API -------------------------------------------------------------------------------
    @app.get("/api/state")
    def state() -> Response:
        _, snapshot = service.latest()
        return jsonify(snapshot)

    @app.get("/api/events")
    def events() -> Response:
        min_interval = float(app.config["SSE_MIN_INTERVAL_S"])
        keepalive = float(app.config["SSE_KEEPALIVE_S"])

        def stream() -> Iterator[str]:
            version, snapshot = service.latest()
            yield f"retry: 2000\nid: {version}\nevent: snapshot\ndata: {json.dumps(snapshot)}\n\n"
            last_sent = time.monotonic()
            while not service.closing:
                newer, snapshot = service.wait_newer(version, keepalive)
                if newer == version:
                    yield ": keep-alive\n\n"
                    continue
                delay = min_interval - (time.monotonic() - last_sent)
                if delay > 0:  # coalesce bursts: the client gets the latest state, not all
                    time.sleep(delay)
                    newer, snapshot = service.latest()
                version = newer
                last_sent = time.monotonic()
                yield f"id: {version}\nevent: state\ndata: {json.dumps(snapshot)}\n\n"

        return Response(
            stream(),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.get("/api/games")
    def games() -> Response:
        return jsonify(games=service.games())

    @app.get("/api/games/<int:game_id>/export")
    def export(game_id: int) -> Response:
        fmt = request.args.get("format", "json")
        if fmt not in ("json", "csv"):
            return _error("format", f"{fmt!r} is not json or csv", 400)
        try:
            mimetype, body = service.export(game_id, fmt)
        except TracksideError as exc:
            return _error("game_id", str(exc), 404)
        response = Response(body, mimetype=mimetype)
        response.headers["Content-Disposition"] = (
            f'attachment; filename="trackside-game-{game_id}.{fmt}"'
        )
        return response

    @app.post("/api/input")
    def submit() -> Response:
        """Enter an action or a command (start_game, undo, redo, correct, end_game, enrol) as the
        table page does. Needs the PIN (header ``X-Trackside-Pin`` or field ``pin``)."""
        denied = _check_pin()
        if denied is not None:
            return denied
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return _error("body", "expected a JSON object", 400)
        kind = body.get("kind")
        if kind not in ("action", "command"):
            return _error("kind", f"{kind!r} is not 'action' or 'command'", 400)
        seat = body.get("seat")
        try:
            observation = Observation.from_json(
                {
                    "source": "table-page",
                    "kind": kind,
                    "payload": body.get("payload", {}),
                    "seat": seat,
                },
                "body",
            )
        except SnapshotError as exc:
            return _error(exc.path, exc.reason, 400)
        if observation.kind not in (ObservationKind.ACTION, ObservationKind.COMMAND):
            return _error("kind", "only actions and commands", 400)  # pragma: no cover
        try:
            outcome = dict(service.submit_and_wait(observation, 10.0))
        except TimeoutError:
            return _error("engine", "no answer within 10 s; the input is queued", 503)
        status = 200 if outcome.get("outcome") not in ("rejected",) else 409
        return Response(json.dumps(outcome), status=status, mimetype="application/json")

    def _check_pin() -> Response | None:
        pin = service.pin
        if pin is None:
            return _error("pin", "changes from the page are off: set [web] pin in the config", 403)
        who = request.remote_addr or "?"
        now = time.monotonic()
        recent = failures[who]
        while recent and now - recent[0] > PIN_FAILURE_WINDOW_S:
            recent.popleft()
        if len(recent) >= PIN_FAILURES_ALLOWED:
            return _error("pin", "too many wrong PINs; wait a minute", 429)
        given = request.headers.get("X-Trackside-Pin") or request.form.get("pin") or ""
        if not hmac.compare_digest(given.encode(), pin.encode()):
            recent.append(now)
            return _error("pin", "wrong or missing table PIN", 401)
        return None

    return app


def _error(field: str, message: str, status: int) -> Response:
    if not 400 <= status < 600:
        abort(500)
    return Response(
        json.dumps({"error": message, "field": field}), status=status, mimetype="application/json"
    )
