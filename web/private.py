"""Each player's private view of the running game, behind their own PIN (``/me``).

Some games keep things face down: in Trains & Stations nobody need tell how many goods or which
special cards they hold ("Veřejná informace"), and the speculation is made secretly
("Spekulace při vylepšování"). Any game with ``private_json(state, player)`` gets this page:

1. The table grants each seat: on the table page (signed in with the table PIN) the scorekeeper
   presses "Give a seat code" by a player's name; the page shows a one-time code and a QR code
   that opens that player's ``/me`` page with the code filled in (valid 15 minutes, used once).
   Nobody claims a seat without it: a guest on the Wi-Fi who picks a name gets nothing.
2. With the code, the player chooses a PIN (4–8 digits); the page hashes it (scrypt, random salt)
   and sends only the hash to the engine (``set_player_pin``), which records it with the input.
   Afterwards the page asks for that PIN (another device, after locking). A forgotten PIN: the
   table page resets it and grants a new code.
3. Their view: ``GAME.private_json(state, player)`` (their own hidden holdings), and forms for
   the game's private actions (``private_actions``), sent as that player from
   ``private:<name>``.

A private session is bound to (game id, player, that PIN's hash): a new game, another game
selected, a reset PIN or the lock button ends it. Wrong PINs and wrong codes count toward the
table's PIN limits (web/guard.py), before anything is hashed. Private data is only ever rendered
by these PIN-checked routes, never by ``/api/state`` or the event stream (which only tells the
page when to ask again).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from markupsafe import Markup
from werkzeug.wrappers import Response as BaseResponse

from companion.core.choices import Choice, ChoicePathError, children_at, node_at
from companion.core.errors import TracksideError
from companion.core.messages import msg
from companion.core.privacy import has_private_view, private_actions, private_move_words
from web import i18n
from web.forms import FormError, integer
from web.games import data as game_data
from web.games import find_game
from web.games import words as game_words
from web.guard import (
    MAX_JSON_DEPTH,
    PinRefusedError,
    guard,
    normalise_code,
    require_csrf,
    too_deep,
)
from web.i18n import _

PIN_PATTERN = re.compile(r"[0-9]{4,8}", re.ASCII)
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # ~16 MiB, a few tens of ms on a Pi 4
SESSION_KEY = "private"
SOURCE_PREFIX = "private:"
MAX_SECRET_PATH = 1000


@runtime_checkable
class PrivateService(Protocol):
    """What the private pages need from the service (besides the guard's)."""

    def latest(self) -> tuple[int, dict[str, Any]]: ...

    def player_pin_hash(self, game_id: int, player: int) -> str | None: ...

    def private_view(self, game_id: int, player: int) -> dict[str, Any] | None: ...

    def seat_code_matches(self, game_id: int, player: int, code: str) -> bool: ...

    def seat_codes(self, game_id: int) -> dict[int, tuple[str, float]]: ...


# -- PIN hashing ------------------------------------------------------------------------------
def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$hash`` (hex): one string for the engine to store; the PIN itself
    never leaves this function."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def pin_matches(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the one hashed into ``stored`` (scrypt, or pbkdf2_sha256 as
    ``pbkdf2_sha256$iterations$salt$hash``); a malformed hash matches nothing."""
    parts = stored.split("$")
    try:
        if parts[0] == "scrypt" and len(parts) == 6:
            n, r, p = (int(x) for x in parts[1:4])
            salt, expected = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
            if n > 2**17 or r > 16 or p > 4:  # a stored cost no Pi should be asked to pay
                return False
            got = hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, dklen=len(expected))
        elif parts[0] == "pbkdf2_sha256" and len(parts) == 4:
            rounds = int(parts[1])
            salt, expected = bytes.fromhex(parts[2]), bytes.fromhex(parts[3])
            if rounds > 2_000_000:
                return False
            got = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, rounds, len(expected))
        else:
            return False
    except (ValueError, OverflowError, MemoryError):
        return False
    return hmac.compare_digest(got, expected)


# -- who is asking ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Seat:
    """A signed-in player: the game and their index in it."""

    game_id: int
    player: int
    name: str
    colour: str


def _table_game(snapshot: Mapping[str, Any]) -> tuple[int, Any] | None:
    """(game id, game) of the game on the table when it has private views, running or not."""
    game_id = snapshot.get("game_id")
    if not isinstance(game_id, int):
        return None
    try:
        game = find_game(str(snapshot.get("game")))
    except TracksideError:
        return None
    return (game_id, game) if has_private_view(game) else None


def _running_game(snapshot: Mapping[str, Any]) -> tuple[int, Any] | None:
    """(game id, game) of the game on the table when it is running and has private views."""
    status = snapshot.get("status") or {}
    if snapshot.get("game_id") not in (status.get("unfinished_games") or []):
        return None
    return _table_game(snapshot)


def _seat_game(snapshot: Mapping[str, Any]) -> tuple[int, Any] | None:
    """(game id, game) of the game a signed-in player still sees: the running one, or the
    game on the table once it is over by the rules (filed or not: its final scoring is on
    the table, and every hand is shown then), until another game starts."""
    running = _running_game(snapshot)
    if running is not None or snapshot.get("over") is not True:
        return running
    return _table_game(snapshot)


def _players(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [p for p in snapshot.get("players") or [] if isinstance(p, dict)]


# -- form → action arguments ------------------------------------------------------------------
def _mine(view: Mapping[str, Any], player: int) -> Mapping[str, Any]:
    """The player's own entry in their view (``viewer``; once the game is over the view is the
    full snapshot, without ``viewer``, and the player's index is used)."""
    viewer = view.get("viewer", player)
    players = view.get("players") or []
    if isinstance(viewer, int) and 0 <= viewer < len(players):
        found = players[viewer]
        return found if isinstance(found, Mapping) else {}
    return {}


"""Ticket to Ride: Europe's destination tickets by id (``brest-venezia``)."""


def ts_goods() -> tuple[str, ...]:
    """Trains & Stations's goods (the service's static game data)."""
    return tuple(str(g) for g in game_data("trains-and-stations").get("goods") or [])  # type: ignore[union-attr]


def ts_speculate(form: Mapping[str, str], mine: Mapping[str, Any]) -> dict[str, Any]:
    """Trains & Stations ``speculate``: ``give_<goods>`` counts and a ``pair_<i>`` box per
    two-goods special card held (Spekulace při vylepšování: 2 cards, or one two-goods special
    card, for 1 of the new goods). The engine checks the trade."""
    goods = {}
    for good in ts_goods():
        count = integer(form, f"give_{good}", 0, 10, default=0)
        if count:
            goods[good] = count
    pairs = mine.get("special_goods") or []
    chosen = [list(pair) for i, pair in enumerate(pairs) if form.get(f"pair_{i}")]
    return {"goods": goods, "special_goods": chosen}


def ts_report_special_goods(form: Mapping[str, str], mine: Mapping[str, Any]) -> dict[str, Any]:
    """Trains & Stations ``report_special_goods``: for each special card held, the two goods it
    shows (``card_<i>_a``, ``card_<i>_b``), or nothing for a task card (Speciální karty)."""
    held = mine.get("special_cards")
    count = held if isinstance(held, int) else 0
    cards = []
    for i in range(count):
        a = (form.get(f"card_{i}_a") or "").strip()
        b = (form.get(f"card_{i}_b") or "").strip()
        if not a and not b:
            continue
        for name, value in ((f"card_{i}_a", a), (f"card_{i}_b", b)):
            if value not in ts_goods():
                raise FormError(name, msg("pick one of {goods}", goods=", ".join(ts_goods())))
        cards.append([a, b])
    return {"cards": cards}


TTR_CARDS = ("red", "orange", "yellow", "green", "blue", "purple", "black", "white", "locomotive")


def ttr_keep_ticket(form: Mapping[str, str], mine: Mapping[str, Any]) -> dict[str, Any]:
    """Ticket to Ride ``keep_ticket``: the ticket's two cities as ``a-b`` (``ticket``)."""
    ticket = (form.get("ticket") or "").strip().lower().replace(" ", "")
    if not re.fullmatch(r"[a-z]+-[a-z]+", ticket):
        raise FormError(
            "ticket",
            msg("write the two cities as on the ticket, e.g. {example}", example="berlin-roma"),
        )
    return {"ticket": ticket}


def ttr_declare_hand(form: Mapping[str, str], mine: Mapping[str, Any]) -> dict[str, Any]:
    """Ticket to Ride ``declare_hand``: how many of each kind the rest of the hand holds
    (``count_<kind>``); the engine checks it against what the table has seen."""
    cards = {}
    for kind in TTR_CARDS:
        n = integer(form, f"count_{kind}", 0, 14, default=0)
        if n:
            cards[kind] = n
    return {"cards": cards}


def json_args(form: Mapping[str, str], mine: Mapping[str, Any]) -> dict[str, Any]:
    """Any other game's private action: its arguments as a JSON object (``args``)."""
    raw = (form.get("args") or "").strip() or "{}"
    try:
        args = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise FormError("args", msg("not a JSON object")) from None
    if not isinstance(args, dict):
        raise FormError("args", msg("expected a JSON object, e.g. {example}", example="{}"))
    if too_deep(args):
        raise FormError("args", msg("nested deeper than {n} levels", n=MAX_JSON_DEPTH))
    return args


ArgsParser = Callable[[Mapping[str, str], Mapping[str, Any]], dict[str, Any]]
FORMS: dict[tuple[str, str], ArgsParser] = {
    ("trains-and-stations", "speculate"): ts_speculate,
    ("trains-and-stations", "report_special_goods"): ts_report_special_goods,
    ("ticket-to-ride-europe", "keep_ticket"): ttr_keep_ticket,
    ("ticket-to-ride-europe", "declare_hand"): ttr_declare_hand,
}


# -- the pages --------------------------------------------------------------------------------
def private_pages(service: object) -> Blueprint:
    """The ``/me`` pages, and the table page's PIN list (``_private_pins.html``)."""
    if not isinstance(service, PrivateService):
        raise TypeError("the service offers no private views (player_pin_hash, private_view)")
    svc: PrivateService = service
    bp = Blueprint("private", __name__, url_prefix="/me")

    def current() -> tuple[Seat | None, str]:
        """The signed-in player, or None and why the session ended ("" if there was none)."""
        bound = session.get(SESSION_KEY)
        if not isinstance(bound, dict):
            return None, ""
        _version, snapshot = svc.latest()
        running = _seat_game(snapshot)
        sid = bound.get("sid")
        if not guard().sessions.valid(sid):
            session.pop(SESSION_KEY, None)
            return None, _("You were signed out (locked, or after 12 hours): enter your PIN again.")
        game_id, player = bound.get("game_id"), bound.get("player")
        if running is None or running[0] != game_id or not isinstance(player, int):
            session.pop(SESSION_KEY, None)
            return None, _("That game is over or another one is on the table: choose your name.")
        players = _players(snapshot)
        stored = svc.player_pin_hash(running[0], player)
        # the sign-in is tied (on the server, not in the cookie) to the PIN hash it was made
        # with: a reset or a new PIN ends it
        if player >= len(players) or stored is None or not guard().sessions.valid(sid, stored):
            session.pop(SESSION_KEY, None)
            return None, _("Your PIN was reset: choose your name and set a new one.")
        spec = players[player]
        return Seat(running[0], player, str(spec.get("name")), str(spec.get("colour") or "")), ""

    def page(template: str, **context: Any) -> str:
        return render_template(
            template, messages=get_flashed_messages(with_categories=True), **context
        )

    def secret_tree(seat: Seat) -> tuple[int, tuple[Choice, ...]] | None:
        """(seq, the player's own choices that the table's screen does not offer): their secret
        ones (tickets to keep, a speculation), from the same tree the table page taps through."""
        build = getattr(svc, "choices", None)
        if not callable(build):
            return None
        mine, table = build(seat.player), build(None)
        if mine is None:
            return None
        seq, tree = mine[0], mine[3]
        shown = {c.key for c in (table[3] if table is not None else ())}
        secret = tuple(c for c in tree if c.key not in shown and c.player == seat.player)
        if not secret:
            return seq, ()
        # a step the player takes in secret ends on their phone too ("done choosing tickets"
        # right under the tickets they kept): the rest of that player's step, which the table
        # may also offer, follows the secret choices
        return seq, secret + tuple(c for c in tree if c.key in shown and c.player == seat.player)

    def secret_steps(seat: Seat, at: str) -> dict[str, Any] | None:
        """One step of the secret choices, shown as big buttons like the table page's."""
        found = secret_tree(seat)
        if found is None or not found[1]:
            return None
        seq, top = found
        try:
            nodes = children_at(top, at) if at else top
        except ChoicePathError:
            nodes, at = top, ""
        steps = [
            {
                "path": f"{at}/{c.key}" if at else c.key,
                "label": c.label.render(i18n.tr()),
                "leaf": c.is_leaf,
            }
            for c in nodes
        ]
        return {"seq": seq, "at": at, "nodes": steps}

    def view_context(seat: Seat) -> dict[str, Any] | None:
        version, snapshot = svc.latest()
        view = svc.private_view(seat.game_id, seat.player)
        if view is None:
            return None
        game = str(snapshot.get("game"))
        # a filed game (over, its final scoring done) takes no more secret moves: the page
        # shows what the player held and how it scored, and no form
        filed = _running_game(snapshot) is None
        kinds = [] if filed else sorted(private_actions(find_game(game)))
        status = snapshot.get("status") or {}
        secret = (
            None if filed else secret_steps(seat, (request.args.get("at") or "")[:MAX_SECRET_PATH])
        )
        key_doc = [
            view,
            status.get("waiting_for"),
            status.get("active_players"),
            kinds,
            None if secret is None else [n["path"] for n in secret["nodes"]],
        ]
        key = hashlib.sha256(json.dumps(key_doc, sort_keys=True).encode()).hexdigest()[:16]
        return {
            "seat": seat,
            "secret": secret,
            "view": view,
            "mine": _mine(view, seat.player),
            "s": snapshot,
            "game": game,
            "private_kinds": kinds,
            "custom_forms": set() if filed else {k for g, k in FORMS if g == game},
            "goods_types": ts_goods(),
            "view_key": key,
            "version": version,
        }

    @bp.after_request
    def no_store(response: Response) -> Response:
        # a shared tablet's back button or cache must not show someone's cards later
        response.headers["Cache-Control"] = "no-store"
        return response

    @bp.get("")
    def me() -> str:
        seat, why = current()
        if why:
            flash(why, "info")
        if seat is not None:
            context = view_context(seat)
            if context is not None:
                return page("private.html", **context)
        _version, snapshot = svc.latest()
        running = _running_game(snapshot)
        players = []
        if running is not None:
            for i, p in enumerate(_players(snapshot)):
                pin_set = svc.player_pin_hash(running[0], i) is not None
                players.append({"index": i, **p, "pin_set": pin_set})
        return page("private_pick.html", s=snapshot, running=running is not None, players=players)

    @bp.get("/<int:player>")
    def pin_form(player: int) -> str | BaseResponse:
        seat, _why = current()
        if seat is not None and seat.player == player:
            return redirect(url_for("private.me"), 303)
        _version, snapshot = svc.latest()
        running = _running_game(snapshot)
        players = _players(snapshot)
        if running is None or not 0 <= player < len(players):
            flash(_("Choose your name from the list."), "error")
            return redirect(url_for("private.me"), 303)
        pin_set = svc.player_pin_hash(running[0], player) is not None
        return page(
            "private_pin.html",
            s=snapshot,
            game_id=running[0],
            player=player,
            spec=players[player],
            pin_set=pin_set,
            code=normalise_code(request.args.get("code", ""))[:16],
        )

    @bp.post("/<int:player>")
    def sign_in(player: int) -> BaseResponse:
        require_csrf()
        table = guard()
        back = redirect(url_for("private.pin_form", player=player), 303)
        _version, snapshot = svc.latest()
        running = _running_game(snapshot)
        players = _players(snapshot)
        if running is None or not 0 <= player < len(players):
            flash(_("No game with private views is running."), "error")
            return redirect(url_for("private.me"), 303)
        game_id = running[0]
        if request.form.get("game_id") != str(game_id):
            flash(_("Another game is on the table now: choose your name again."), "error")
            return redirect(url_for("private.me"), 303)
        name = str(players[player].get("name"))
        pin = request.form.get("pin", "")
        stored = svc.player_pin_hash(game_id, player)
        try:
            if stored is None:
                # a seat is claimed only with the code the table issued (the engine's, checked
                # here first, counted as a guess, so nothing is hashed for a wrong one; no code
                # at all is no guess); the engine checks it again and uses it up
                code = request.form.get("code", "")
                if not normalise_code(code) or not table.limiter.check(
                    table.address(),
                    functools.partial(svc.seat_code_matches, game_id, player, code),
                ):
                    flash(
                        _(
                            "That seat code is not valid: ask the table for a new one "
                            "(codes work once, for 15 minutes)."
                        ),
                        "error",
                    )
                    return back
                if not PIN_PATTERN.fullmatch(pin):
                    flash(_("The PIN must be 4 to 8 digits (0–9)."), "error")
                    return back_with_code(player, code)
                if request.form.get("pin_again", "") != pin:
                    flash(_("The two PINs differ: type the same PIN twice."), "error")
                    return back_with_code(player, code)
                pin_hash = table.bounded_hash(functools.partial(hash_pin, pin))
                payload = {
                    "command": "claim_seat",
                    "game_id": game_id,
                    "player": player,
                    "code": normalise_code(code),
                    "pin_hash": pin_hash,
                }
                if table.send("command", payload, source=f"{SOURCE_PREFIX}{name}") != "pin_set":
                    return back
                stored = pin_hash
            elif not table.hashed_pin_matches(functools.partial(pin_matches, pin, stored)):
                flash(_("Wrong PIN."), "error")
                return back
        except PinRefusedError as exc:
            flash(str(exc), "error")
            return back
        # server-side: locking ends it, a copied cookie too; the cookie carries no mark of the PIN
        sid = table.sessions.start(stored)
        session[SESSION_KEY] = {"game_id": game_id, "player": player, "sid": sid}
        return redirect(url_for("private.me"), 303)

    def back_with_code(player: int, code: str) -> BaseResponse:
        """The PIN form again, the (still unused) code kept in it."""
        return redirect(url_for("private.pin_form", player=player, code=normalise_code(code)), 303)

    @bp.post("/lock")
    def lock() -> BaseResponse:
        require_csrf()
        bound = session.pop(SESSION_KEY, None)
        if isinstance(bound, dict):
            guard().sessions.end(bound.get("sid"))
        flash(_("Locked: your cards are hidden again."), "ok")
        return redirect(url_for("private.me"), 303)

    @bp.get("/partial")
    def partial() -> Response:
        seat, why = current()
        if why:  # the page reloads on 401 and says why
            flash(why, "info")
        context = None if seat is None else view_context(seat)
        if context is None:
            return Response("signed out", status=401, mimetype="text/plain")
        response = Response(render_template("_private_view.html", **context))
        response.headers["X-View-Key"] = context["view_key"]
        return response

    @bp.post("/choose")
    def choose() -> BaseResponse:
        """A secret choice tapped on the player's own page: sent as theirs, unless the table
        moved on since the page was drawn (then nothing changes)."""
        require_csrf()
        seat, why = current()
        if seat is None:
            flash(why or _("Enter your PIN first."), "error")
            return redirect(url_for("private.me"), 303)
        found = secret_tree(seat)
        path = (request.form.get("path") or "")[:MAX_SECRET_PATH]
        if found is None or request.form.get("seq") != str(found[0]):
            flash(
                _("The table moved on since that screen was shown: nothing was changed."), "error"
            )
            return redirect(url_for("private.me"), 303)
        seq, top = found
        try:
            node = node_at(top, path)
        except ChoicePathError:
            flash(_("That choice is no longer offered: nothing was changed."), "error")
            return redirect(url_for("private.me"), 303)
        if node.action is None:
            return redirect(url_for("private.me", at=path) + "#secret", 303)
        if node.action.player != seat.player:
            abort(403, _("that choice is another player's"))
        payload = {"action": node.action.to_json(), "seq": seq}
        guard().send("action", payload, source=f"{SOURCE_PREFIX}{seat.name}")
        return redirect(url_for("private.me"), 303)

    @bp.post("/act/<kind>")
    def act(kind: str) -> BaseResponse:
        require_csrf()
        seat, why = current()
        if seat is None:
            flash(why or _("Enter your PIN first."), "error")
            return redirect(url_for("private.me"), 303)
        _version, snapshot = svc.latest()
        game = str(snapshot.get("game"))
        if kind not in private_actions(find_game(game)):
            abort(
                404, _("{action} is not a private action of {game}", action=repr(kind), game=game)
            )
        view = svc.private_view(seat.game_id, seat.player) or {}
        parse = FORMS.get((game, kind), json_args)
        try:
            args = parse(request.form, _mine(view, seat.player))
        except FormError as exc:
            flash(
                _(
                    "Not sent — {field}: {reason}",
                    field=exc.field.replace("_", " "),
                    reason=exc.reason,
                ),
                "error",
            )
            return redirect(url_for("private.me"), 303)
        action = {"kind": kind, "player": seat.player, "args": args}
        guard().send("action", {"action": action}, source=f"{SOURCE_PREFIX}{seat.name}")
        return redirect(url_for("private.me"), 303)

    def table_only(player: int) -> tuple[int, str] | BaseResponse:
        """(game id, player name) when the table page, signed in with the table PIN (a trusted
        screen is not enough), acts on a player of the running game; else where to go."""
        require_csrf()
        table = guard()
        if not table.pin_session():
            flash(_("Enter the table PIN first (a trusted screen cannot grant seats)."), "error")
            return redirect(url_for("table"), 303)
        _version, snapshot = svc.latest()
        running = _running_game(snapshot)
        players = _players(snapshot)
        if running is None or not 0 <= player < len(players):
            flash(_("No game with private views is running."), "error")
            return redirect(url_for("table"), 303)
        return running[0], str(players[player].get("name"))

    @bp.post("/reset/<int:player>")
    def reset(player: int) -> BaseResponse:
        """The table page (table PIN) clears a player's forgotten PIN; a new code claims it."""
        found = table_only(player)
        if not isinstance(found, tuple):
            return found
        game_id, _player = found
        # the engine forgets the seat's code too: a new one claims it
        payload = {"command": "set_player_pin", "game_id": game_id, "player": player}
        guard().send("command", {**payload, "pin_hash": None})
        return redirect(url_for("table") + "#private-pins", 303)

    @bp.post("/code/<int:player>")
    def grant(player: int) -> BaseResponse:
        """The table page (table PIN) has the engine issue a one-time code that claims a seat
        (the grant shows in the table's log; the page shows the code)."""
        found = table_only(player)
        if not isinstance(found, tuple):
            return found
        game_id, name = found
        if svc.player_pin_hash(game_id, player) is not None:
            flash(_("{name} already has a PIN: reset it first.", name=name), "error")
        else:
            payload = {"command": "issue_seat_code", "game_id": game_id, "player": player}
            guard().send("command", payload)
        return redirect(url_for("table") + "#private-pins", 303)

    @bp.app_context_processor
    def table_helpers() -> dict[str, Any]:
        def private_pins() -> list[dict[str, Any]]:
            """Each player of the running game and whether their private PIN is set."""
            _version, snapshot = svc.latest()
            running = _running_game(snapshot)
            if running is None:
                return []
            table = guard()
            codes = svc.seat_codes(running[0]) if table.pin_session() else {}
            rows = []
            for i, p in enumerate(_players(snapshot)):
                row: dict[str, Any] = {"index": i, **p}
                row["pin_set"] = svc.player_pin_hash(running[0], i) is not None
                row["granting"] = table.pin_session()
                code = codes.get(i)
                if code is not None and not row["pin_set"]:
                    text = code[0]
                    link = url_for("private.pin_form", player=i, code=text, _external=True)
                    qr = segno.make(link, error="m")
                    row["code"] = f"{text[:4]}-{text[4:]}"
                    row["code_link"] = link
                    row["code_qr"] = Markup(qr.svg_inline(scale=4, border=2, omitsize=True))
                rows.append(row)
            return rows

        def private_offered(snapshot: Mapping[str, Any]) -> bool:
            return _running_game(snapshot) is not None

        def good_name(good: Any) -> str:
            """A Trains & Stations good by the rulebook's name, in the reader's language."""
            found = game_words("trains-and-stations", "good", str(good))
            return i18n.t(found) if found is not None else str(good)

        def ticket_label(ticket: Any) -> str:
            """A destination ticket by its cities' names in the reader's language (as the
            table page's buttons name them)."""
            found = game_words("ticket-to-ride-europe", "ticket", str(ticket))
            return i18n.t(found) if found is not None else str(ticket)

        def private_move(kind: Any) -> str:
            """A private move's kind in words, in the reader's language ("keep_ticket" →
            "ponechání karty cílových stanic"), for the table page's note on /me."""
            return i18n.t(private_move_words(str(kind)))

        return {
            "private_move": private_move,
            "private_pins": private_pins,
            "private_offered": private_offered,
            "good_name": good_name,
            "ticket_label": ticket_label,
        }

    return bp
