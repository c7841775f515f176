"""Flask app factory: the scoreboard, its live updates (server-sent events) and the JSON API."""

from __future__ import annotations

import functools
import gettext
import json
import logging
import re
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol, cast

import segno
from flask import (
    Flask,
    Response,
    abort,
    flash,
    get_flashed_messages,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from markupsafe import Markup
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from companion.core.actions import Action
from companion.core.choices import (
    Choice,
    ChoicePathError,
    children_at,
    node_at,
    nodes_on,
    step_sig,
)
from companion.core.errors import SnapshotError, TracksideError
from companion.core.observation import Observation, ObservationKind
from companion.core.privacy import has_private_view, private_actions, public_text
from companion.core.swatches import SEAT_PALETTE, SWATCHES
from web import board_table, calibration, forms, i18n, setup
from web.games import KEY as GAMES_KEY
from web.games import Catalogue, find_game, game_names
from web.guard import (
    EXTENSION,
    MAX_JSON_DEPTH,
    PinRefusedError,
    TableGuard,
    csrf_token,
    protect,
    require_csrf,
    short,
    too_deep,
)
from web.i18n import _
from web.join import join_context
from web.limits import GONE_CHECK_S, PageCache, StreamSlots, cached_page, device_of
from web.private import pin_matches, private_pages
from web.scoreboard import history_snapshot, player_name
from web.scoreboard import view as scoreboard_view

log = logging.getLogger(__name__)
SSE_PROTOCOL = 1
"""The version of the event stream's message set (``snapshot``, ``state``, ``bye``)."""

SSE_MIN_INTERVAL_S = 0.25  # at most four updates a second per client
SSE_BURST = 3  # messages that may go back to back before the rate limit applies
SSE_MINOR_INTERVAL_S = 1.0  # device chips and logged reader noise: at most once a second
SSE_KEEPALIVE_S = 15.0
ONE_OPTION_SIBLINGS = 12
"""A step whose one option is a last step is entered with the tap on it, when the screen shows
at most this many steps to look into (each is expanded to know)."""
BOARD_CACHE = 16
"""Boards drawn for the newest versions (per language and address), kept for the other
screens' fetch of the same update."""
RECENT_LOG_ROWS = 8
"""The table page's last moves; the whole log is its own paged view (``/table/log``), so the
page costs the same at the last turn of a long game as at the first."""
LOG_PAGE_ROWS = 50
LIGHT_COLOURS = {"yellow", "white", "orange", "pink", "lime", "cyan", "natural", "beige"}


class TableService(Protocol):
    """What the pages need from the service."""

    @property
    def pin(self) -> str | None: ...

    @property
    def catalogue(self) -> Catalogue:
        """The games (the service's registry: web imports no game module)."""
        ...

    @property
    def closing(self) -> bool: ...

    def latest(self) -> tuple[int, dict[str, Any]]: ...

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, dict[str, Any]]: ...

    def submit_and_wait(self, observation: Observation, timeout_s: float) -> Mapping[str, Any]: ...

    def games(self) -> list[dict[str, Any]]: ...

    def export(
        self, game_id: int, fmt: str, translations: gettext.NullTranslations | None = None
    ) -> tuple[str, str]: ...

    def log_page(self, game_id: int, limit: int, before_seq: int | None = None) -> dict[str, Any]:
        """At most ``limit`` log entries of a game below ``before_seq``, newest first, as others
        at the table may see them: ``{"game", "players", "events", "more"}``."""
        ...

    def choices(self, viewer: int | None = None) -> tuple[int, str, int, tuple[Choice, ...]] | None:
        """The active game's log seq, game name, game id and choices tree; None with none."""
        ...

    def player_pin_hash(self, game_id: int, player: int) -> str | None: ...

    @property
    def trusted_subnets(self) -> tuple[str, ...]: ...


HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}", re.ASCII)
UNKNOWN_COLOUR = "#555"

SWATCH_CSS: dict[str, str] = {
    **{name: SEAT_PALETTE[name] for name in SWATCHES if name in SEAT_PALETTE},
    # a locomotive is a card of every colour
    "rainbow": "linear-gradient(135deg, #d32f2f 0 20%, #ef7d1a 0 40%, #f2c12e 0 60%, "
    "#2e8b3e 0 80%, #1e63c4 0)",
}
"""How a page draws each swatch a game may name (:data:`~companion.core.swatches.SWATCHES`)."""


def css_colour(colour: str | None) -> str:
    """A seat colour as CSS: a name from ``SEAT_PALETTE`` or a ``#rgb``/``#rrggbb`` hex colour;
    anything else (a player "colour" like ``red;background:url(…)``) is a neutral grey, so a
    name typed at the table never injects CSS into anyone's page."""
    text = (colour or "").strip()
    named = SEAT_PALETTE.get(text.lower())
    if named is not None:
        return named
    return text if HEX_COLOUR.fullmatch(text) else UNKNOWN_COLOUR


def _text_colour(colour: str) -> str:
    return "#111" if colour.lower() in LIGHT_COLOURS else "#fff"


def create_app(service: TableService, test_config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    # every page and answer renders the snapshot's messages in its reader's language
    service = cast("TableService", i18n.Localised(service, getattr(service, "language", "en")))
    app.config.update(
        SSE_MIN_INTERVAL_S=SSE_MIN_INTERVAL_S,
        SSE_KEEPALIVE_S=SSE_KEEPALIVE_S,
        # sessions last as long as the process: after a restart the table enters the PIN again
        SECRET_KEY=secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SHOW_HIDDEN_GAMES=False,
    )
    if getattr(service, "tls_fingerprint", None):  # behind the HTTPS proxy: cookies on HTTPS only
        app.config.update(SESSION_COOKIE_SECURE=True)
    app.extensions[GAMES_KEY] = service.catalogue
    if test_config:
        app.config.update(test_config)

    @app.template_filter("text_colour")
    def text_colour(colour: str) -> str:
        return _text_colour(colour or "")

    @app.template_filter("seat_colour")
    def seat_colour(colour: str) -> str:
        return css_colour(colour)

    @app.template_filter("swatch")
    def swatch(name: str) -> str:
        return SWATCH_CSS.get(name, UNKNOWN_COLOUR)

    @app.template_filter("clock")
    def clock(wall_time_s: float | None) -> str:
        return i18n.when(wall_time_s or 0, "time")  # 21:04:05 in the reader's own format

    @app.template_filter("datetime")
    def datetime(wall_time_s: float | None) -> str:
        return i18n.when(wall_time_s)  # e.g. 23.11.26 21:04 in Czech, 11/23/26, 9:04 PM in English

    @app.template_filter("colour_name")
    def colour_name(colour: str) -> str:
        name = forms.COLOUR_NAMES.get(colour)
        return i18n.t(name) if name is not None else colour

    app.jinja_env.globals["colour_name"] = colour_name

    @app.template_filter("player")
    def player(name: str, game: Any) -> str:
        return player_name(game, str(name), i18n.t)

    app.jinja_env.globals["rr_board"] = lambda board: _rr_board(board, i18n.language())

    @app.template_filter("game_title")
    def game_title(game: str) -> str:
        try:
            return find_game(game).title
        except TracksideError:
            return game

    @app.template_filter("words")
    def words(text: str) -> str:
        return (text or "").replace("_", " ")

    @app.context_processor
    def page_helpers() -> dict[str, Any]:
        return {
            "csrf_token": csrf_token,
            "describe": _describe,
            "tls_fingerprint": getattr(service, "tls_fingerprint", None),
        }

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response | str, int]:
        code = exc.code or 500
        message = exc.description
        if message == type(exc).description:  # werkzeug's own English sentence: ours instead
            message = _("There is no such page.") if code == 404 else _("That request was refused.")
        if request.path.startswith("/api/"):
            return jsonify(error=message or exc.name), code
        return render_template("error.html", code=code, message=message), code

    @app.errorhandler(Exception)
    def server_error(exc: Exception) -> tuple[Response | str, int]:
        log.exception("web: %s %s failed", request.method, request.path)
        message = _("internal error; see the service log")
        if request.path.startswith("/api/"):
            return jsonify(error=message), 500
        return render_template("error.html", code=500, message=message), 500

    i18n.install(app, getattr(service, "language", None))  # each screen in its reader's language
    app.extensions["trackside.localised"] = service  # its cache counters, for the bench
    table_guard = TableGuard(service)
    app.extensions[EXTENSION] = table_guard
    protect(app, tuple(getattr(service, "hostnames", ())))  # body limits, the Host check
    app.register_blueprint(board_table.blueprint)
    app.register_blueprint(calibration.blueprint)  # /table/camera: the camera's calibration step
    app.register_blueprint(setup.blueprint)  # /setup: readers, tags, config, log, backups
    app.register_blueprint(private_pages(service))
    _trusted, _signed_in = table_guard.trusted, table_guard.signed_in
    _pin_matches, _who = table_guard.pin_matches, table_guard.who

    # -- pages -----------------------------------------------------------------------------
    @app.get("/")
    def scoreboard() -> str:
        version, snapshot = service.latest()
        return render_template(
            "scoreboard.html",
            s=snapshot,
            version=version,
            table_url=url_for("table", _external=True),
            **scoreboard_view(snapshot),
            **join_context(service, snapshot),
        )

    boards: dict[tuple[int, str, str], str] = {}  # (version, language, scheme and host)
    boards_lock = threading.Lock()

    @app.get("/partials/scoreboard")
    def scoreboard_partial() -> str:
        """The board for the newest version, drawn once per version, language and address
        (every TV and phone fetches it on each change; the first draws it, the rest read it)."""
        version, snapshot = service.latest()
        key = (version, i18n.language(), request.host_url)
        with boards_lock:
            cached = boards.get(key)
        if cached is not None:
            return cached
        html = draw_board(service, version, snapshot)
        with boards_lock:
            if len(boards) >= BOARD_CACHE:
                boards.pop(next(iter(boards)))
            boards[key] = html
        return html

    @app.get("/table")
    def table() -> str | BaseResponse:
        if service.pin is None:
            return render_template(
                "login.html",
                disabled=True,
                messages=[
                    ("error", _("Changes from the page are off: set [web] pin in the config."))
                ],
            )
        if not _signed_in():
            messages = cast(list[tuple[str, str]], get_flashed_messages(with_categories=True))
            paused = table_guard.refusal()
            if paused and ("error", paused) not in messages:
                messages.append(("error", paused))  # the whole table's pause, said on the page
            return render_template("login.html", disabled=False, messages=messages)
        return render_template("table.html", **_table_context())

    def _table_context(at: str | None = None) -> dict[str, Any]:
        """What the table page shows; its live part (``_table_live.html``) is also served alone
        (``/partials/table``) for the page's own updates. ``?at=`` is the step the person has
        walked to, ``?seq=`` and ``?sig=`` what that step was when their screen was drawn."""
        version, snapshot = service.latest()
        game_id = snapshot.get("game_id")
        log_rows: list[dict[str, Any]] = []
        older = False
        if isinstance(game_id, int):
            log_rows, older = _game_log(service, game_id, RECENT_LOG_ROWS)
        show_hidden = bool(app.config["SHOW_HIDDEN_GAMES"])
        game = snapshot.get("game")
        components: list[str] = []
        hidden_kinds = _private_kinds(snapshot)
        if isinstance(game, str):
            components = [c.id for c in find_game(game).components]
        prompt = (snapshot.get("status") or {}).get("prompt") or None
        unknown = _unknown_uid(prompt, snapshot)
        unfinished = game_id in ((snapshot.get("status") or {}).get("unfinished_games") or [])
        running = unfinished and not snapshot.get("over")
        query = request.args if request.method == "GET" else {}
        enter = (
            _enter_view(
                at if at is not None else query.get("at", ""),
                snapshot,
                query.get("seq"),
                query.get("sig"),
                log_rows[0]["what"] if log_rows else None,
            )
            if isinstance(game_id, int)
            else None
        )
        return {
            "s": snapshot,
            "version": version,
            "running": running,
            "unfinished": unfinished,
            "prompt": prompt,
            "unknown_uid": unknown,
            "components": components,
            "log": log_rows,
            "log_older": older,
            "games": [find_game(n) for n in game_names(include_hidden=show_hidden)],
            # a player's private actions are entered on their own page (/me), never on the
            # shared table screen, where everyone would read the arguments; once the game is
            # filed there is none left to enter (the line would only be noise)
            "private_kinds": sorted(hidden_kinds) if unfinished else [],
            "seat_colours": forms.SEAT_COLOURS,
            "enter": enter,
            # what decides the page's frame (the start form, the game switcher, the enrol
            # form): when it changes, the live page loads whole (docs/web.md, "Live pages")
            "shape": f"{game_id}:{int(bool(unfinished))}:{int(bool(unknown))}",
            "who": session.get("who") or "",
            "trusted": _trusted(),
            "flashes": get_flashed_messages(with_categories=True),
            "max_players": forms.MAX_PLAYERS_ON_FORM,
            # the club hub's players, offered in the name boxes (docs/hub.md, "Players")
            "known_players": getattr(service, "known_player_names", list)(),
        }

    @app.get("/partials/table")
    def table_partial() -> str | Response:
        """The live part of the table page, for the page's own updates (``web/static/table.js``)."""
        if service.pin is None or not _signed_in():
            return Response(_("Enter the table PIN first."), status=401, mimetype="text/plain")
        return render_template("_table_live.html", **_table_context())

    @app.get("/table/log")
    def table_log() -> str | BaseResponse:
        """The current game's whole log, a page at a time, newest first (``?before=SEQ``)."""
        if not _signed_in():
            return redirect(url_for("table"), 303)
        _version, snapshot = service.latest()
        game_id = snapshot.get("game_id")
        raw = request.args.get("before", "")
        before = int(raw) if raw.isdigit() and len(raw) < 10 else None
        rows: list[dict[str, Any]] = []
        older = False
        if isinstance(game_id, int):
            rows, older = _game_log(service, game_id, LOG_PAGE_ROWS, before)
        return render_template(
            "table_log.html",
            log=rows,
            older=rows[-1]["seq"] if older and rows else None,
            newest=before is None,
        )

    def _viewer_arg(raw: str | None, players: int) -> int | None:
        """A player's own choices on the passed phone, for games whose secrets the table page
        may show to the player holding it; a game with players' private views (``/me``, behind
        each player's PIN) takes its secret choices there, never on the shared screen."""
        if raw is None or not raw.isdigit() or int(raw) >= players:
            return None
        _version, snapshot = service.latest()
        game = snapshot.get("game")
        if isinstance(game, str) and has_private_view(find_game(game)):
            return None
        return int(raw)

    def _enter_view(
        at: str,
        snapshot: Mapping[str, Any],
        seen_seq: str | None = None,
        seen_sig: str | None = None,
        last_move: str | None = None,
    ) -> dict[str, Any] | None:
        """The "what happens now" panel: the crumbs walked so far and the choices under them,
        from the game's tree (one generic renderer for every game). ``?viewer=N`` is player N's
        own choices (their secret ones too: the phone is passed to them).

        A step walked to on a screen drawn for an older table (``seen_seq``) is shown only when
        it is still the same step: the same nodes, for the same players, saying the same
        (``seen_sig``, :func:`step_sig`). Otherwise the page starts again from the top and says
        that the table moved on, and how: a path drawn for one player never resolves to
        another's choice."""
        players = snapshot.get("players") or []
        asked = request.args if request.method == "GET" else request.form
        viewer = _viewer_arg(asked.get("viewer"), len(players))
        built = service.choices(viewer)
        if built is None:
            return None
        seq, _game, _game_id, tree = built
        at = at[:MAX_CHOICE_PATH]
        moved = None
        try:
            walked = nodes_on(tree, at)
            last = walked[-1] if walked else None
            nodes = tuple(tree) if last is None else () if last.is_leaf else last.expand()
            moved_on = at and seen_seq is not None and seen_seq != str(seq)
            if moved_on and seen_sig != step_sig(walked):
                raise ChoicePathError(at, "", ())
        except ChoicePathError:
            at, nodes, walked, last = "", tree, [], None
            moved = (
                _(
                    "The table moved on ({what}). Here is the step now: choose again.",
                    what=last_move,
                )
                if last_move
                else _("The table moved on. Here is the step now: choose again.")
            )
        keys = [k for k in at.split("/") if k]
        crumbs = [
            {
                "label": node.label.render(i18n.tr()),
                "path": "/".join(keys[: i + 1]),
                "sig": step_sig(walked[: i + 1]),
            }
            for i, node in enumerate(walked)
        ]
        if last is not None and last.by_name:  # a list people look a name up in
            order = i18n.collation_key()
            nodes = tuple(sorted(nodes, key=lambda c: order(c.label.render(i18n.tr()))))
        items = [_item(c, keys, walked, _only_option(c, nodes, keys)) for c in nodes]
        secrets: list[dict[str, Any]] = []
        game_name = snapshot.get("game")
        private_view = isinstance(game_name, str) and has_private_view(find_game(game_name))
        if viewer is None and not keys and not private_view:
            shown = {c.key for c in tree}
            active = (snapshot.get("status") or {}).get("active_players") or []
            for p in active:
                if not isinstance(p, int) or not 0 <= p < len(players):
                    continue
                theirs = service.choices(p)
                if theirs is not None and any(c.key not in shown for c in theirs[3]):
                    secrets.append({"player": p, "name": players[p].get("name", "")})
        return {
            "seq": seq,
            "at": at,
            "sig": step_sig(walked) if walked else "",
            "moved": moved,
            "crumbs": crumbs,
            "items": items,
            "back": "/".join(keys[:-1]),
            "back_sig": step_sig(walked[:-1]) if len(walked) > 1 else "",
            "viewer": viewer,
            "viewer_name": None if viewer is None else players[viewer].get("name", ""),
            "secrets": secrets,
        }

    def _only_option(
        choice: Choice, siblings: tuple[Choice, ...], keys: list[str]
    ) -> Choice | None:
        """The one option under ``choice`` when there is exactly one and it is a last step: the
        tap on ``choice`` then enters it (a step with one legal option asks nothing). Never for
        the table's own commands (ending a game keeps its confirmation), and only among a few
        siblings (each is looked into). Not under ``table-correct`` either (``keys``, the path
        of the step shown): a correction's step has only the options that keep every later entry legal, and finding
        them replays the log (issue 48: looking into a dozen such steps took up to 70 ms; a
        correction is rare, a tap more there costs less than a slow page every time)."""
        if choice.is_leaf or choice.key.startswith("table-") or choice.by_name:
            return None  # a list to look a name up in is never one option (and costly to build)
        if keys and keys[0] == "table-correct":
            return None
        if sum(1 for c in siblings if not c.is_leaf) > ONE_OPTION_SIBLINGS:
            return None
        below = choice.expand()
        return below[0] if len(below) == 1 and below[0].is_leaf else None

    def _item(
        c: Choice, keys: list[str], walked: list[Choice], only: Choice | None
    ) -> dict[str, Any]:
        path = "/".join([*keys, c.key])
        label = c.label.render(i18n.tr())
        if only is not None:  # the step and its one option in one tap, both named
            return {
                "label": f"{label} — {only.label.render(i18n.tr())}",
                "path": f"{path}/{only.key}",
                "leaf": True,
                "player": c.player,
                "table": False,
                "end": False,
                "swatches": tuple(dict.fromkeys((*c.swatches, *only.swatches))),
                "sig": "",
            }
        return {
            "label": label,
            "path": path,
            "leaf": c.is_leaf,
            "player": c.player,
            "table": c.key.startswith("table-"),
            "end": c.command is not None and c.command.get("command") == "end_game",
            "swatches": c.swatches,
            "sig": "" if c.is_leaf else step_sig([*walked, c]),
        }

    @app.post("/table/choose")
    def table_choose() -> str | BaseResponse:
        """A leaf of the tree was tapped: send its input, as the tree built it, unless the
        table moved on since the screen was drawn (then nothing changes). The live page
        (header ``X-Trackside-Live``) gets the new step in place; a page without script is sent
        back to the table page."""
        require_csrf()
        live = request.headers.get("X-Trackside-Live") == "1"

        def after(path: str | None = None, viewer: int | None = None) -> str | BaseResponse:
            if live:
                if not _signed_in():
                    return Response(
                        _("Enter the table PIN first."), status=401, mimetype="text/plain"
                    )
                return render_template("_table_live.html", **_table_context(path))
            if path:
                return redirect(url_for("table", at=path, viewer=viewer) + "#enter", 303)
            top = url_for("table", viewer=viewer) if viewer is not None else url_for("table")
            return redirect(top + "#enter", 303)

        if not _signed_in():
            flash(_("Enter the table PIN first."), "error")
            return after()
        path = (request.form.get("path") or "")[:MAX_CHOICE_PATH]
        _version, snapshot = service.latest()
        viewer = _viewer_arg(request.form.get("viewer"), len(snapshot.get("players") or []))
        built = service.choices(viewer)
        if built is None:
            flash(_("No game is on the table: nothing was changed."), "error")
            return after()
        seq, _game, _game_id, tree = built
        if request.form.get("seq") != str(seq):
            flash(
                _(
                    "The table moved on since that screen was shown: nothing was changed. Choose again."
                ),
                "error",
            )
            return after(None, viewer)
        try:
            node = node_at(tree, path)
        except ChoicePathError:
            flash(
                _("That choice is no longer offered: nothing was changed. Choose again."), "error"
            )
            return after(None, viewer)
        made = node.input_json()
        if made is None:
            return after(path, viewer)
        payload = made["payload"]
        assert isinstance(payload, dict)
        table_guard.send(str(made["kind"]), {**payload, "seq": seq})
        # back to the top: the tree is rebuilt for whoever acts now
        return after(None, viewer)

    @app.post("/table/login")
    def login() -> BaseResponse:
        require_csrf()
        if service.pin is None:
            abort(403, _("changes from the page are off: set [web] pin in the config"))
        try:
            matched = _pin_matches(request.form.get("pin", ""))
        except PinRefusedError as exc:
            flash(str(exc), "error")
            return redirect(url_for("table"), 303)
        if not matched:
            flash(_("Wrong PIN."), "error")
            return redirect(url_for("table"), 303)
        who = re.sub(r"[^\w .'-]", "", request.form.get("who", ""))[:24].strip()
        table_guard.sessions.end(session.get("sid"))
        session.clear()
        session.update(
            pin_ok=True,
            who=who,
            # a random id: the PIN's mark stays on the server (a changed PIN signs everyone out)
            sid=table_guard.sessions.start(service.pin),
        )
        csrf_token()  # a fresh token for the signed-in session
        return redirect(url_for("table"), 303)

    @app.post("/table/logout")
    def logout() -> BaseResponse:
        require_csrf()
        table_guard.sessions.end(session.get("sid"))
        session.clear()
        return redirect(url_for("table"), 303)

    table_ops: dict[
        str, Callable[[Mapping[str, str], dict[str, Any]], tuple[str, dict[str, Any]]]
    ] = {
        "start": lambda f, s: (
            "command",
            forms.start_game(f, game_names(include_hidden=bool(app.config["SHOW_HIDDEN_GAMES"]))),
        ),
        "action": lambda f, s: (
            "action",
            {"action": forms.generic_action(f, len(s.get("players") or []), _private_kinds(s))},
        ),
        "prompt": lambda f, s: (
            "action",
            {"action": forms.prompt_answer(f, (s.get("status") or {}).get("prompt"))},
        ),
        "undo": lambda f, s: ("command", {"command": "undo"}),
        "redo": lambda f, s: ("command", {"command": "redo"}),
        "correct": lambda f, s: (
            "command",
            {
                "command": "correct",
                "target_seq": forms.integer(f, "target_seq", 1, 10**9),
                "action": forms.generic_action(f, len(s.get("players") or []), _private_kinds(s)),
            },
        ),
        "enrol": lambda f, s: (
            "command",
            {
                "command": "enrol",
                "uid": forms.text(f, "uid"),
                "component": forms.text(f, "component"),
            },
        ),
        "end": lambda f, s: (
            "command",
            {"command": "end_game", "reason": forms.text(f, "reason")},
        ),
        "select": lambda f, s: (
            "command",
            {"command": "select_game", "game_id": forms.integer(f, "game_id", 1, 10**9)},
        ),
    }

    @app.post("/table/<op>")
    def table_op(op: str) -> BaseResponse:
        require_csrf()
        if not _signed_in():
            flash(_("Enter the table PIN first."), "error")
            return redirect(url_for("table"), 303)
        make = table_ops.get(op)
        if make is None:
            abort(404, _("no table operation {op}", op=repr(op)))
        _version, snapshot = service.latest()
        try:
            kind, payload = make(request.form, snapshot)
        except forms.FormError as exc:
            flash(
                _(
                    "Not sent — {field}: {reason}",
                    field=exc.field.replace("_", " "),
                    reason=i18n.t(exc.reason),
                ),
                "error",
            )
            return redirect(url_for("table"), 303)
        table_guard.send(kind, payload)
        return redirect(url_for("table"), 303)

    @app.get("/history")
    def history() -> str:
        return render_template("history.html", games=service.games())

    pages = PageCache()  # a game's page per change of its log (web/limits.py)

    @app.get("/history/<int:game_id>")
    def history_game(game_id: int) -> str | Response:
        found = cached_page(pages, service, ("history", game_id), lambda: _history(game_id))
        if found is None:
            abort(404, _("There is no game {n}.", n=game_id))
        return cast("str | Response", found)

    def _history(game_id: int) -> str:
        try:
            _version, body = service.export(game_id, "json")
        except TracksideError:
            log.warning("web: game %s has no history page", game_id, exc_info=True)
            abort(404, _("There is no game {n}.", n=game_id))
        record = json.loads(body)
        link = _bg_stats_link(record)
        qr = segno.make(link, error="l")
        svg = qr.svg_inline(scale=3, dark="#000", light="#fff", border=2)
        # the picture the live screen showed, drawn again from the stored final table
        final = history_snapshot(record)
        return render_template(
            "game.html",
            g=record,
            bg_stats=link,
            qr=Markup(svg),
            s=final,
            **scoreboard_view(final, i18n.t),
            # kept for every screen: the language links carry no one's own query
            language_link=lambda code: url_for("history_game", game_id=game_id, lang=code),
        )

    # -- API -------------------------------------------------------------------------------
    @app.get("/api/state")
    def state() -> Response:
        _version, snapshot = service.latest()
        return jsonify(snapshot)

    streams = StreamSlots(app)  # per address and in all, each for a lifetime (web/limits.py)
    app.extensions["trackside.streams"] = streams  # its counts, for the tests and the bench

    @app.get("/api/events")
    def events() -> Response:
        """Server-sent events: ``snapshot`` first (the /api/state JSON), then ``state`` after
        each change (coalesced, at most a few a second), ``bye`` when the service stops. The
        message set is versioned by ``SSE_PROTOCOL`` (sent as the first comment) and each
        snapshot by its own ``schema``."""
        min_interval = float(app.config["SSE_MIN_INTERVAL_S"])
        keepalive = float(app.config["SSE_KEEPALIVE_S"])
        slot = streams.acquire(device_of(request.remote_addr))
        if isinstance(slot, Response):
            return slot  # 429 or 503, in words
        ends_at = time.monotonic() + streams.lifetime_s()
        # waitress notices a closed page at once (web/server.py reads ahead): its slot goes back
        gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
        gone_check = float(app.config.get("SSE_GONE_CHECK_S", GONE_CHECK_S))

        def stream() -> Iterator[str]:
            try:
                yield from updates()
            finally:
                streams.release(slot)

        # ``?light=1``: each message says only which version is new (``{"version": N}``); the
        # pages fetch what they show from their own partials, so the server does not write
        # the whole snapshot into every page's stream on every change
        light = request.args.get("light") == "1"

        def data(version: int, snapshot: Mapping[str, Any]) -> str:
            return json.dumps({"version": version}) if light else json.dumps(snapshot)

        def updates() -> Iterator[str]:
            version, snapshot = service.latest()
            yield (
                f": trackside events v{SSE_PROTOCOL}\nretry: 2000\n"
                f"id: {version}\nevent: snapshot\ndata: {data(version, snapshot)}\n\n"
            )
            # What the table did (a move, a prompt, a refusal) goes out at once: a token bucket
            # lets SSE_BURST messages go back to back, then one per min_interval (a burst is
            # coalesced to the latest snapshot). Changes that are only device chips or logged
            # reader noise wait and go out at most once a second, so they never delay a move.
            sent, seen, sent_key = version, version, _change_key(snapshot)
            tokens, last = float(SSE_BURST), time.monotonic()
            last_minor = 0.0
            last_write = time.monotonic()
            while not service.closing:
                now = time.monotonic()
                if now >= ends_at or slot.stop.is_set():  # the page reconnects and catches up
                    yield "retry: 500\n\n"  # at once (the next stream says 2000 again)
                    return
                pending = seen != sent
                timeout = (
                    max(0.0, last_minor + SSE_MINOR_INTERVAL_S - now) if pending else keepalive
                )
                timeout = min(timeout, ends_at - now, gone_check)
                seen, snapshot = service.wait_newer(seen, timeout)
                if seen == sent:
                    if gone():
                        return
                    if time.monotonic() - last_write >= keepalive:
                        last_write = time.monotonic()
                        yield ": keep-alive\n\n"
                    continue
                now = time.monotonic()
                key = _change_key(snapshot)
                if key != sent_key:
                    tokens = min(float(SSE_BURST), tokens + (now - last) / min_interval)
                    last = now
                    if tokens < 1.0:
                        time.sleep((1.0 - tokens) * min_interval)
                        tokens, last = 1.0, time.monotonic()
                        seen, snapshot = service.latest()
                        key = _change_key(snapshot)
                    tokens -= 1.0
                elif now - last_minor < SSE_MINOR_INTERVAL_S:
                    continue  # sent with the next change, or when the second is up
                last_minor = time.monotonic()
                sent, sent_key = seen, key
                last_write = time.monotonic()
                yield f"id: {seen}\nevent: state\ndata: {data(seen, snapshot)}\n\n"
            yield 'event: bye\ndata: {"reason": "the service is stopping"}\n\n'

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
            return _error("format", _("{value} is not json or csv", value=repr(fmt)), 400)
        key = ("export", game_id, fmt)
        found = cached_page(pages, service, key, lambda: service.export(game_id, fmt, i18n.tr()))
        if isinstance(found, Response):
            return found  # busy
        if found is None:
            return _error("game_id", _("There is no game {n}.", n=game_id), 404)
        mimetype, body = found
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
        try:
            body = request.get_json(silent=True)
        except RecursionError:  # json gives up on very deep nesting with RecursionError
            return _error("body", _("JSON nested too deeply"), 400)
        if not isinstance(body, dict):
            return _error("body", _("expected a JSON object"), 400)
        if too_deep(body):
            return _error("body", _("JSON nested deeper than {n} levels", n=MAX_JSON_DEPTH), 400)
        kind = body.get("kind")
        if kind not in ("action", "command"):
            return _error("kind", _("{value} is not 'action' or 'command'", value=repr(kind)), 400)
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
            return _error(exc.path, short(exc.reason), 400)
        if observation.kind not in (ObservationKind.ACTION, ObservationKind.COMMAND):
            return _error("kind", _("only actions and commands"), 400)  # pragma: no cover
        try:
            outcome = dict(service.submit_and_wait(observation, 10.0))
        except TimeoutError:
            return _error("engine", _("no answer within {n} s; the input is queued", n=10), 503)
        status = 200 if outcome.get("outcome") not in ("rejected",) else 409
        return Response(json.dumps(outcome), status=status, mimetype="application/json")

    @app.get("/api/choices")
    def api_choices() -> Response:
        """What the table can enter now (``../shared/contracts/choices.md``): the top of the
        tree, or the children of ``?at=PATH``; ``?player=N`` with that player's own PIN
        (``X-Trackside-Player-Pin``) adds their private choices."""
        if not _signed_in():
            denied = _check_pin()
            if denied is not None:
                return denied
        at = request.args.get("at", "")
        if len(at) > MAX_CHOICE_PATH:
            return _error("at", _("a path of at most {n} characters", n=MAX_CHOICE_PATH), 400)
        viewer, problem = _viewer()
        if problem is not None:
            return problem
        lang = _lang()
        built = service.choices(viewer)
        if built is None:
            body: dict[str, Any] = {
                "seq": None, "game": None, "game_id": None, "lang": lang, "at": at, "choices": []
            }  # fmt: skip
            if at:
                return _error(
                    "at", _("no choice {path}: no game is on the table", path=repr(at)), 404
                )
            return Response(json.dumps(body), mimetype="application/json")
        seq, game, game_id, tree = built
        try:
            nodes = children_at(tree, at)
            if at and not nodes:
                return _error(
                    "at",
                    _("{path} is a complete input, it has no choices under it", path=repr(at)),
                    404,
                )
        except ChoicePathError as exc:
            return _error("at", _("no choice at {path}: {why}", path=repr(at), why=str(exc)), 404)
        body = {
            "seq": seq,
            "game": game,
            "game_id": game_id,
            "lang": lang,
            "at": at,
            "choices": [choice_json(c, seq) for c in nodes],
        }
        if at and node_at(tree, at).by_name:  # a list people look a name up in
            order = i18n.collation_key()
            body["choices"].sort(key=lambda c: order(c["label"]))
        return Response(json.dumps(body), mimetype="application/json")

    def _viewer() -> tuple[int | None, Response | None]:
        raw = request.args.get("player")
        if raw is None:
            return None, None
        if not raw.isdigit() or len(raw) > 2:
            return None, _error("player", _("{value} is not a player number", value=repr(raw)), 400)
        player = int(raw)
        _version, snapshot = service.latest()
        game_id = snapshot.get("game_id")
        given = request.headers.get("X-Trackside-Player-Pin") or ""
        stored = service.player_pin_hash(game_id, player) if isinstance(game_id, int) else None
        try:  # counted before it is hashed, in one of the few hashing slots (web/guard.py)
            matched = (
                stored is not None
                and bool(given)
                and table_guard.hashed_pin_matches(lambda: pin_matches(given, stored))
            )
        except PinRefusedError as exc:
            return None, _error("player", str(exc), exc.status)
        if not matched:
            return None, _error("player", _("wrong or missing PIN for that player's choices"), 401)
        return player, None

    def _lang() -> str:
        return i18n.language()

    def _check_pin() -> Response | None:
        if service.pin is None:
            return _error(
                "pin", _("changes from the page are off: set [web] pin in the config"), 403
            )
        given = request.headers.get("X-Trackside-Pin") or request.form.get("pin") or ""
        try:
            matched = _pin_matches(given)
        except PinRefusedError as exc:
            return _error("pin", str(exc), exc.status)
        if not matched:
            return _error("pin", _("wrong or missing table PIN"), 401)
        return None

    return app


MAX_CHOICE_PATH = 1000


def choice_json(choice: Choice, seq: int) -> dict[str, Any]:
    """One node as ``GET /api/choices`` shows it: its label in words, and either ``input`` (a
    complete ``POST /api/input`` body, carrying the seq the tree was for, so a stale tap is
    refused) or ``more``."""
    data: dict[str, Any] = {
        "key": choice.key,
        "label": choice.label.render(i18n.tr()),
        "player": choice.player,
    }
    if choice.swatches:
        data["swatches"] = list(choice.swatches)
    made = choice.input_json()
    if made is None:
        data["more"] = True
    else:
        payload = made["payload"]
        assert isinstance(payload, dict)
        data["input"] = {"kind": made["kind"], "payload": {**payload, "seq": seq}}
    return data


def _error(field: str, message: str, status: int) -> Response:
    if not 400 <= status < 600:
        abort(500)
    return Response(
        json.dumps({"error": message, "field": field}), status=status, mimetype="application/json"
    )


def _change_key(snapshot: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes a snapshot news for the table (sent at once): the game, its log position,
    the question asked, the LED cues, the last input that was not merely logged."""
    status = snapshot.get("status") or {}
    recent = [r for r in status.get("recent") or [] if r.get("outcome") != "logged"]
    last = recent[-1] if recent else {}
    return (
        snapshot.get("game_id"),
        snapshot.get("seq"),
        snapshot.get("over"),
        json.dumps(status.get("prompt"), sort_keys=True),
        len(snapshot.get("cues") or []),
        status.get("store_error"),
        last.get("wall_time_s"),
        last.get("outcome"),
    )


def _private_kinds(snapshot: Mapping[str, Any]) -> frozenset[str]:
    game = snapshot.get("game")
    return private_actions(find_game(game)) if isinstance(game, str) else frozenset()


def _describe(action: Mapping[str, Any], players: list[Mapping[str, Any]]) -> str:
    """A prompt option or a logged action in words: ``Red: advance steps=2``."""
    try:
        act = Action.from_json(action)
    except SnapshotError:
        return json.dumps(action)
    words = act.kind.replace("_", " ")
    args = action.get("args") or {}
    if isinstance(args, Mapping) and args:
        words += " — " + "; ".join(f"{k.replace('_', ' ')}: {_words(v)}" for k, v in args.items())
    if act.player is not None and 0 <= act.player < len(players):
        return f"{players[act.player].get('name')}: {words}"
    return words


def _words(value: Any) -> str:
    """Arguments for people: card counts as ``1 blue + 1 locomotive``, lists comma-separated,
    other objects as ``key value``."""
    if isinstance(value, Mapping):
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
            return " + ".join(f"{v} {k}" for k, v in value.items())
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_words(v) for v in value)
    return str(value)


_UNKNOWN_TAG = re.compile(r"unknown tag '([^']+)'")


def _unknown_uid(prompt: Mapping[str, Any] | None, snapshot: Mapping[str, Any]) -> str:
    """The tag the table should enrol: the one the engine asks about (``status.unknown_tag``;
    the prompt players read names no tag id)."""
    if prompt:
        status = snapshot.get("status") or {}
        uid = status.get("unknown_tag") if isinstance(status, Mapping) else None
        if isinstance(uid, str) and uid:
            return uid
        match = _UNKNOWN_TAG.search(str(prompt.get("question", "")))
        if match:
            return match.group(1)
    return ""


def _game_log(
    service: TableService, game_id: int, limit: int, before_seq: int | None = None
) -> tuple[list[dict[str, Any]], bool]:
    """At most ``limit`` of the game's events below ``before_seq``, newest first, with who
    entered them and when; and whether older ones remain."""
    try:
        record = service.log_page(game_id, limit, before_seq)
    except TracksideError:
        return [], False
    players = record.get("players") or []
    try:
        words = getattr(find_game(str(record.get("game"))), "describe", None)
    except TracksideError:
        words = None
    names = [str(p.get("name")) for p in players if isinstance(p, Mapping)]
    rows = []
    for event in record.get("events") or []:  # newest first
        kind = event.get("type", "")
        if kind in ("action_applied", "action_corrected"):
            what = _describe(event.get("action") or {}, players)
            if words is not None and not event.get("private"):  # the game's own sentence
                try:
                    what = words(Action.from_json(event.get("action") or {}), names).render(
                        i18n.tr()
                    )
                except Exception:  # a describing bug costs the sentence, never the log
                    log.exception("web: describing a logged move failed")
            if event.get("private"):  # a private action before the end: no arguments
                action = event.get("action") or {}
                who = action.get("player")
                name = names[who] if isinstance(who, int) and 0 <= who < len(names) else ""
                what = i18n.t(public_text(name, str(action.get("kind", "")), "applied"))
            if kind == "action_corrected":
                what = _("correct #{seq} → {what}", seq=str(event.get("target_seq")), what=what)
        elif kind in ("action_undone", "action_redone"):
            seq = str(event.get("target_seq"))
            what = (
                _("undo #{seq}", seq=seq) if kind == "action_undone" else _("redo #{seq}", seq=seq)
            )
        elif kind == "game_started":
            what = _("game started: {names}", names=", ".join(str(p.get("name")) for p in players))
        elif event.get("reason") == "finished":
            what = _("game ended: final scoring")
        elif event.get("reason") == "abandoned":
            what = _("game abandoned: no winner")
        else:
            what = _("game ended ({reason})", reason=str(event.get("reason")))
        by = str(event.get("by") or "")
        rows.append(
            {
                "seq": event.get("seq"),
                "when": event.get("wall_time_s"),
                "by": _source_name(by),
                "what": what,
                "kind": kind,
            }
        )
    return rows, bool(record.get("more"))


@functools.lru_cache(maxsize=64)
def _rr_board(board: Any, lang: str) -> Markup:
    """One player's Russian Railroads board (a few hundred SVG shapes), drawn once per board
    as it stands and language: a move changes one board, the other screens' boards and the
    other players' are drawn from memory (the scoreboard's update stays a few ms on a Pi)."""
    return Markup(render_template("_scoreboard_rr_board.html", bd=board))


def draw_board(service: Any, version: int, snapshot: dict[str, Any]) -> str:
    """The scoreboard's board (``/partials/scoreboard``) for one version, in this request's
    language: drawn once per version, language and address, then served from memory."""
    return render_template(
        "_board.html",
        s=snapshot,
        version=version,
        table_url=url_for("table", _external=True),
        **scoreboard_view(snapshot),
        **join_context(service, snapshot),
    )


def _source_name(by: str) -> str:
    """Who entered a logged event, for the table's log: the signed-in name on the table page,
    the rules for a game they ended (the engine's own input), else the reader's name."""
    if by.startswith("table-page:"):
        return by.removeprefix("table-page:")
    if by == "table-page":
        return _("table page")
    if by == "rules":
        return _("the rules", context="who entered it")
    return by


def _bg_stats_link(record: Mapping[str, Any]) -> str:
    """A BG Stats "create play" link (bgstatsapp.com/support/push-plays-to-bg-stats-from-other-
    apps-or-websites): the app opens an import dialog with the game, players and scores."""
    score = record.get("score") or {}
    sheet_players = score.get("players") or []
    winners = set(score.get("winners") or [])
    totals = sorted({int(p.get("total", 0)) for p in sheet_players}, reverse=True)
    started = record.get("started_at") or 0
    ended = record.get("ended_at") or started
    data = {
        "sourceName": "Trackside",
        "game": {
            "name": record.get("title") or record.get("game"),
            "highestWins": True,
            "noPoints": False,
            "sourceGameId": str(record.get("game")),
        },
        "playDate": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "durationMin": max(0, round((ended - started) / 60)),
        "players": [
            {
                "name": p.get("name"),
                "score": p.get("total"),
                "winner": p.get("name") in winners,
                "rank": totals.index(int(p.get("total", 0))) + 1,
                "startPlayer": i == 0,
                "sourcePlayerId": str(p.get("name")),
            }
            for i, p in enumerate(sheet_players)
        ],
    }
    encoded = urllib.parse.quote(json.dumps(data, separators=(",", ":")), safe="")
    return f"https://app.bgstatsapp.com/createPlay.html?data={encoded}"
