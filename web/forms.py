"""The table page's forms → the engine's inputs (pure functions, so they are tested alone).

What a game can do now comes from the game itself (its choices tree, rendered by one generic
panel on the table page); nothing here knows any game. Left here: the start form (players are
typed), the advanced raw form (kind, player, JSON arguments; folded away), and the old
prompt/correction posts kept for scripts. A bad field raises :class:`FormError` naming it;
nothing here checks the rules — the engine does, and its refusal is shown as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.messages import Text, msg, render_text

MAX_PLAYERS_ON_FORM = 6
MAX_SEAT = 8
MAX_TEXT = 200


class FormError(ValueError):
    """A form field the page cannot turn into an input: ``field: reason``."""

    def __init__(self, field: str, reason: Text) -> None:
        super().__init__(f"{field}: {render_text(reason)}")
        self.field = field
        self.reason = reason


SEAT_COLOURS = ("red", "blue", "green", "yellow", "black", "white", "purple", "orange", "pink")
COLOUR_NAMES = {
    "red": msg("red", context="colour"),
    "blue": msg("blue", context="colour"),
    "green": msg("green", context="colour"),
    "yellow": msg("yellow", context="colour"),
    "black": msg("black", context="colour"),
    "white": msg("white", context="colour"),
    "purple": msg("purple", context="colour"),
    "orange": msg("orange", context="colour"),
    "pink": msg("pink", context="colour"),
    "locomotive": msg("locomotive", context="colour"),
}
"""Each seat colour's name for people (the form's values stay the English ids)."""


def text(form: Mapping[str, str], name: str, *, required: bool = True) -> str:
    value = (form.get(name) or "").strip()
    if required and not value:
        raise FormError(name, msg("is empty"))
    if len(value) > MAX_TEXT:
        raise FormError(name, msg("longer than {n} characters", n=MAX_TEXT))
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
        raise FormError(
            name, msg("expected a whole number, got {value}", value=repr(raw))
        ) from None
    if not lo <= value <= hi:
        raise FormError(name, msg("expected {lo}–{hi}, got {value}", lo=lo, hi=hi, value=value))
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
        raise FormError(
            "game", msg("{game} is not one of {games}", game=repr(game), games=", ".join(games))
        )
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
        raise FormError("name_0", msg("at least one player needs a name"))
    payload: dict[str, Any] = {"command": "start_game", "game": game, "players": players}
    options = _json(form, "options", {})
    if not isinstance(options, dict):
        raise FormError("options", msg("expected a JSON object, e.g. {example}", example="{}"))
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
            name,
            msg(
                "not JSON: {why} (line {line}, column {column})",
                why=exc.msg,
                line=exc.lineno,
                column=exc.colno,
            ),
        ) from None
    except RecursionError:
        raise FormError(name, msg("JSON nested too deeply")) from None


def generic_action(
    form: Mapping[str, str], players: int, private: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The advanced raw form: ``kind``, ``player`` and the arguments as JSON (the game names
    what is wrong). A kind in ``private`` (a player's secret, e.g. a Trains & Stations
    speculation) is refused: it is entered on that player's own page, not on the shared table
    screen."""
    kind = text(form, "kind")
    if kind in private:
        raise FormError(
            "kind",
            msg(
                "{action} is a player's private action: enter it on your own page (/me)",
                action=kind,
            ),
        )
    args = _json(form, "args", {})
    if not isinstance(args, dict):
        raise FormError("args", msg("expected a JSON object, e.g. {example}", example="{}"))
    return _action(kind, _player(form, players), args)


def prompt_answer(form: Mapping[str, str], prompt: Mapping[str, Any] | None) -> dict[str, Any]:
    """The option the table picked: options are ready-made actions (by index, so the page never
    sends back an action of its own making)."""
    if not prompt or not prompt.get("options"):
        raise FormError("option", msg("there is no question to answer now"))
    options = prompt["options"]
    index = integer(form, "option", 0, len(options) - 1)
    option: dict[str, Any] = options[index]
    return option
