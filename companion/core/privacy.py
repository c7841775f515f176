"""Private inputs: which actions carry what a player keeps hidden, and their public face.

A game may declare ``private_actions`` (a frozenset of action kinds whose arguments are that
player's secret, e.g. Trains & Stations' ``speculate``) and ``private_json(state, player)`` (the
player's own view). Until the game is over, every surface others can see (the scoreboard's recent
inputs, the table page's log, the history and export, MQTT events) shows such an action only as
``Ann: speculate (private)``: who did what kind of thing, never its arguments. Once the game is
over (or has ended) everything may be shown.

The engine's one rule for messages (companion.service.engine): a message derived from private
state — the refusal or acceptance of a private action, a correction refused because a later
private action would no longer hold, any :class:`PrivateRefusalError` a game raises while reading
hidden holdings — goes in full only to the player it concerns (their private view, or back to
them when they sent it); every public surface gets :func:`public_message` or
:data:`PRIVATE_REFUSAL` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core.errors import IllegalActionError
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Message, Text, msg

PRIVATE_SOURCE_PREFIX = "private:"
"""The source of an input sent from a player's own private page: ``private:<name>``."""

PRIVATE_NOTE = "(private)"
"""Added to the public description of a private action."""


def private_actions(game: object) -> frozenset[str]:
    """The action kinds ``game`` keeps private (none for most games)."""
    kinds: Any = getattr(game, "private_actions", frozenset())
    return frozenset(k for k in kinds if isinstance(k, str))


def has_private_view(game: object) -> bool:
    """Whether ``game`` offers each player a private view (``private_json(state, player)``)."""
    return callable(getattr(game, "private_json", None))


def private_kind(payload: Any, kinds: frozenset[str]) -> str | None:
    """The private action kind an input's payload carries (``{"action": {"kind": …}}``, as an
    action input or inside a ``correct`` command), or ``None`` when it carries none."""
    if not kinds or not isinstance(payload, Mapping):
        return None
    action = payload.get("action")
    if not isinstance(action, Mapping):
        return None
    kind = action.get("kind")
    return kind if isinstance(kind, str) and kind in kinds else None


def redact_event(event: JsonObject, kinds: frozenset[str]) -> JsonObject:
    """An event's JSON as others may see it before the end: a private action keeps its kind and
    player, loses its arguments, and the event is marked ``"private": true``."""
    action = event.get("action")
    if not isinstance(action, dict) or action.get("kind") not in kinds:
        return event
    public_action: JsonObject = {"kind": action["kind"]}
    if "player" in action:
        public_action["player"] = action["player"]
    return {**event, "action": public_action, "private": True}


_PRIVATE_MOVES: dict[str, Message] = {
    # Ticket to Ride: Europe (LÍZNUTÍ KARET CÍLOVÝCH STANIC; the hand declared at the end)
    "keep_ticket": msg("keep ticket", context="private move"),
    "declare_hand": msg("declare hand", context="private move"),
    # Trains & Stations (Zásluhy: goods offered in a speculation; special cards' goods)
    "speculate": msg("speculate", context="private move"),
    "report_special_goods": msg("report special goods", context="private move"),
}
"""The private moves in words (each reader's language); another game's kind reads as a move."""


def private_move_words(kind: str) -> Text:
    """A private move's kind in words (each reader's language); another kind as it reads."""
    return _PRIVATE_MOVES.get(kind) or kind.replace("_", " ")


def public_text(who: str, kind: str, outcome: str) -> Message:
    """What the scoreboard says about a private input instead of the engine's own message
    (which may name the player's cards): ``Ann: speculate (private)``, in each reader's
    language; never its arguments."""
    words = _PRIVATE_MOVES.get(kind) or msg("{kind}", kind=kind.replace("_", " "))  # as it reads
    if outcome == "rejected":
        return msg(
            "{player}: {move} (private) — refused; the sender was told why",
            player=who,
            move=words,
        )
    return msg("{player}: {move} (private)", player=who, move=words)


def public_message(who: str, kind: str, outcome: str) -> str:
    """:func:`public_text` in English (what the input log stores)."""
    return public_text(who, kind, outcome).render()


PRIVATE_REFUSAL_TEXT = msg("a private entry was refused; the player it concerns was told why")
PRIVATE_REFUSAL = PRIVATE_REFUSAL_TEXT.msgid
"""What every public surface says instead of a refusal derived from a player's hidden state."""


class PrivateRefusalError(IllegalActionError):
    """A refusal whose reason reads what ``player`` keeps face down (their goods, their special
    cards, their tickets). The engine tells it only to that player; others see
    :data:`PRIVATE_REFUSAL`. Games raise it wherever a check reads hidden holdings."""

    def __init__(self, message: Text, player: int, *, rule: Text = "", section: Text = "") -> None:
        super().__init__(message, rule=rule, section=section)
        self.player = player


def action_is_private(action: Mapping[str, Any] | None, kinds: frozenset[str]) -> bool:
    """Whether an action's JSON (``{"kind": …}``) is one of the private kinds."""
    return isinstance(action, Mapping) and action.get("kind") in kinds
