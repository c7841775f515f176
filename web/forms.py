"""The table page's forms → the engine's inputs (pure functions, so they are tested alone).

Each game's actions are listed from its notation document (``docs/formats/<game>.md``, the
"Actions" section); the page offers them in a generic form (kind, player, JSON arguments) and
gives the frequent hand-entered ones their own forms: Russian Railroads rail steps and Ticket to
Ride claims, draws and stations. A bad field raises :class:`FormError` naming it; nothing here
checks the rules — the engine does, and its refusal is shown as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.ticket_to_ride_europe.board import CITIES, COLOURS, LOCOMOTIVE, ROUTES
from companion.games.ticket_to_ride_europe.final import route_ref

MAX_PLAYERS_ON_FORM = 6
MAX_SEAT = 8
MAX_TEXT = 200


class FormError(ValueError):
    """A form field the page cannot turn into an input: ``field: reason``."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ActionKind:
    kind: str
    args: str
    """What the arguments are, in the words of the notation document."""


# From docs/formats/<game>.md, section "Actions" (keep in step when a game adds one).
ACTIONS: Mapping[str, tuple[ActionKind, ...]] = {
    "tiny-race": (ActionKind("advance", '{"steps": 1–3}'),),
    "russian-railroads": (
        ActionKind("build", '{"moves": [{"track", "colour", "steps"}]}'),
        ActionKind("take_locomotive", '{"placements": [{"track"[, "replace"]}, …]}'),
        ActionKind("build_factory", '{"from": "supply"} or {"from": "returned", "level"}'),
        ActionKind("industry", '{"steps", "marker": 1|2}'),
        ActionKind("doublers", '{"count"}'),
        ActionKind("gain_coins", '{"count"}'),
        ActionKind("place_workers", '{"workers", "temporary", "coins"}'),
        ActionKind("take_temporary_workers", "{}"),
        ActionKind("points", '{"points": 1–5, "reason"}'),
        ActionKind("hire_engineer", '{"number"[, "ability"]}'),
        ActionKind("turn_order", '{"space": 1|2}'),
        ActionKind("pass", "{}"),
        ActionKind("use_token", '{"token"}'),
        ActionKind("decline", '{"token"}'),
        ActionKind("question_card", '{"card"[, "number", "placements"]}'),
        ActionKind("bonus_card", '{"card"} or {"points_instead": true}'),
        ActionKind("factory_function", '{"function"}'),
        ActionKind("starting_bonus", '{"card"[, "track"]}'),
    ),
    "ticket-to-ride-europe": (
        ActionKind("reveal_face_up", '{"cards": [kind, …]}'),
        ActionKind("keep_ticket", '{"ticket": "a-b"}'),
        ActionKind("done_tickets", "{}"),
        ActionKind("draw_blind", "{}"),
        ActionKind("take_face_up", '{"card": kind}'),
        ActionKind("claim_route", '{"route": "a-b[:colour]", "cards": {kind: n}}'),
        ActionKind("reveal_tunnel", '{"cards": [kind, …]}'),
        ActionKind("pay_tunnel", '{"cards": {kind: n}}'),
        ActionKind("declare_hand", '{"cards": {kind: n}}'),
        ActionKind("withdraw_tunnel", "{}"),
        ActionKind("draw_tickets", "{}"),
        ActionKind("build_station", '{"city": id, "cards": {kind: n}}'),
    ),
    "mini-express": (
        ActionKind("draft_share", '{"company"}'),
        ActionKind("automa_setup_draw", '{"token": {"city", "company"}}'),
        ActionKind("take_share", '{"company"}'),
        ActionKind("build", '{"company", "trains", "landscape", …}'),
        ActionKind("automa_turn", '{"draws": [{"city", "company"} | "refresh"], …}'),
        ActionKind("share_values", '{"cells": {"7": {"2nd": 5}, …}} (the table, any phase)'),
    ),
    "trains-and-stations": (
        ActionKind("withdraw", "{}"),
        ActionKind("roll", '{"dice": [faces], "bonus": [faces]}'),
        ActionKind("reroll", '{"dice", "bonus"}'),
        ActionKind("resolve", '{"build": [{"building", "station", "capacity"}], "coins", "keep"}'),
        ActionKind("deliver", '{"cities": [{"name", "bonus"}], "dice", …}'),
        ActionKind("complete_task", '{"cities": [a, b], "points"}'),
        ActionKind("end_turn", '{"upgrade"?, "hotel_to"?, "printed_next"?}'),
        ActionKind("speculate", '{"goods": {type: n}, "special_goods": [[a, b]]}'),
        ActionKind("allocate_speculation", '{"cards": per player}'),
        ActionKind("report_special_goods", '{"cards": [[a, b]]}'),
    ),
}

SEAT_COLOURS = ("red", "blue", "green", "yellow", "black", "white", "purple", "orange", "pink")

# Russian Railroads tracks and the rail colours each allows (docs/formats/russian-railroads.md,
# section 1: ``rails[track][colour]``), in the order they are placed.
RR_TRACKS: Mapping[str, tuple[str, ...]] = {
    "trans_siberian": ("black", "grey", "brown", "natural", "white"),
    "st_petersburg": ("black", "grey", "brown", "natural"),
    "kiev": ("black", "grey", "brown"),
}
RR_MOVES_ON_FORM = 3

TTR_CARD_KINDS: tuple[str, ...] = (*COLOURS, LOCOMOTIVE)
TTR_ROUTE_REFS: tuple[str, ...] = tuple(sorted({route_ref(r) for r in ROUTES}))
"""For the route box's suggestions."""
TTR_CITY_IDS: tuple[str, ...] = tuple(c.id for c in CITIES)


def text(form: Mapping[str, str], name: str, *, required: bool = True) -> str:
    value = (form.get(name) or "").strip()
    if required and not value:
        raise FormError(name, "is empty")
    if len(value) > MAX_TEXT:
        raise FormError(name, f"longer than {MAX_TEXT} characters")
    return value


def integer(
    form: Mapping[str, str], name: str, lo: int, hi: int, default: int | None = None
) -> int:
    raw = (form.get(name) or "").strip()
    if not raw and default is not None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise FormError(name, f"expected a whole number, got {raw!r}") from None
    if not lo <= value <= hi:
        raise FormError(name, f"expected {lo}–{hi}, got {value}")
    return value


def _player(form: Mapping[str, str], players: int) -> int | None:
    raw = (form.get("player") or "").strip()
    if raw in ("", "table"):
        return None
    return integer(form, "player", 0, max(players - 1, 0))


def _action(kind: str, player: int | None, args: Mapping[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": kind}
    if player is not None:
        data["player"] = player
    if args:
        data["args"] = dict(args)
    return data


def start_game(form: Mapping[str, str], games: Sequence[str]) -> dict[str, Any]:
    """The ``start_game`` command from the start form: rows ``name_i``, ``colour_i``,
    ``seat_i`` (empty rows are skipped), ``options`` as JSON (optional)."""
    game = text(form, "game")
    if game not in games:
        raise FormError("game", f"{game!r} is not one of {', '.join(games)}")
    players = []
    for i in range(MAX_PLAYERS_ON_FORM):
        name = text(form, f"name_{i}", required=False)
        if not name:
            continue
        colour = text(form, f"colour_{i}", required=False)
        seat_raw = (form.get(f"seat_{i}") or "").strip()
        seat = None if not seat_raw else integer(form, f"seat_{i}", 1, MAX_SEAT)
        players.append({"name": name, "colour": colour, "seat": seat})
    if not players:
        raise FormError("name_0", "at least one player needs a name")
    payload: dict[str, Any] = {"command": "start_game", "game": game, "players": players}
    options = _json(form, "options", {})
    if not isinstance(options, dict):
        raise FormError("options", "expected a JSON object, e.g. {}")
    if options:
        payload["options"] = options
    return payload


def _json(form: Mapping[str, str], name: str, default: Any) -> Any:
    raw = (form.get(name) or "").strip()
    if not raw:
        return default
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise FormError(
            name, f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise FormError(name, "JSON nested too deeply") from None


def generic_action(
    form: Mapping[str, str], game: str, players: int, private: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Any of the game's actions: ``kind``, ``player`` and the arguments as JSON. A kind in
    ``private`` (a player's secret, e.g. a Trains & Stations speculation) is refused: it is
    entered on that player's own page, not on the shared table screen."""
    kind = text(form, "kind")
    known = {a.kind for a in ACTIONS.get(game, ())}
    if known and kind not in known:
        raise FormError("kind", f"{game} has no action {kind!r}")
    if kind in private:
        raise FormError(
            "kind", f"{kind} is a player's private action: enter it on your own page (/me)"
        )
    args = _json(form, "args", {})
    if not isinstance(args, dict):
        raise FormError("args", "expected a JSON object, e.g. {}")
    return _action(kind, _player(form, players), args)


def rr_build(form: Mapping[str, str], players: int) -> dict[str, Any]:
    """Russian Railroads rail steps: up to three moves ``track_i``, ``colour_i``, ``steps_i``
    (in the order they are made)."""
    moves = []
    for i in range(RR_MOVES_ON_FORM):
        track = (form.get(f"track_{i}") or "").strip()
        if not track:
            continue
        if track not in RR_TRACKS:
            raise FormError(f"track_{i}", f"{track!r} is not one of {', '.join(RR_TRACKS)}")
        colour = text(form, f"colour_{i}")
        if colour not in RR_TRACKS[track]:
            allowed = ", ".join(RR_TRACKS[track])
            raise FormError(f"colour_{i}", f"{track} takes {allowed}, not {colour!r}")
        moves.append(
            {"track": track, "colour": colour, "steps": integer(form, f"steps_{i}", 1, 15)}
        )
    if not moves:
        raise FormError("track_0", "choose a track for at least one move")
    player = _player(form, players)
    if player is None:
        raise FormError("player", "who builds?")
    return _action("build", player, {"moves": moves})


def _cards(form: Mapping[str, str], prefix: str) -> dict[str, int]:
    cards = {}
    for kind in TTR_CARD_KINDS:
        n = integer(form, f"{prefix}{kind}", 0, 14, default=0)
        if n:
            cards[kind] = n
    return cards


def ttr_claim(form: Mapping[str, str], players: int) -> dict[str, Any]:
    """Ticket to Ride: claim a route with the cards laid (``card_<kind>`` counts)."""
    route = text(form, "route").lower()
    a, _, b = route.split(":", 1)[0].partition("-")
    for city in (a, b):
        if city not in TTR_CITY_IDS:
            raise FormError("route", f"no city {city!r} in {route!r} (write it as paris-wien)")
    cards = _cards(form, "card_")
    if not cards:
        raise FormError("card_red", "how many cards of which colour were laid?")
    return _action("claim_route", _player(form, players), {"route": route, "cards": cards})


def ttr_draw(form: Mapping[str, str], players: int) -> dict[str, Any]:
    """Ticket to Ride draws: ``draw`` is ``blind``, ``tickets`` or a face-up card kind."""
    what = text(form, "draw")
    player = _player(form, players)
    if what == "blind":
        return _action("draw_blind", player, {})
    if what == "tickets":
        return _action("draw_tickets", player, {})
    if what in TTR_CARD_KINDS:
        return _action("take_face_up", player, {"card": what})
    raise FormError("draw", f"{what!r} is not blind, tickets or a card colour")


def ttr_station(form: Mapping[str, str], players: int) -> dict[str, Any]:
    city = text(form, "city").lower()
    if city not in TTR_CITY_IDS:
        raise FormError("city", f"no city {city!r} on the board")
    cards = _cards(form, "card_")
    if not cards:
        raise FormError("card_red", "how many cards of which colour were paid?")
    return _action("build_station", _player(form, players), {"city": city, "cards": cards})


def prompt_answer(form: Mapping[str, str], prompt: Mapping[str, Any] | None) -> dict[str, Any]:
    """The option the table picked: options are ready-made actions (by index, so the page never
    sends back an action of its own making)."""
    if not prompt or not prompt.get("options"):
        raise FormError("option", "there is no question to answer now")
    options = prompt["options"]
    index = integer(form, "option", 0, len(options) - 1)
    option: dict[str, Any] = options[index]
    return option
