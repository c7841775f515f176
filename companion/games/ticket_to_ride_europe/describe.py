"""Each move in a short sentence for people: "Anna claims Madrid – Pamplona (black) with 3× black".

Names, not notation: the player's name, the cities and colours as messages (each reader's
language), never a route id or a player index. Private moves ("LÍZNUTÍ KARET CÍLOVÝCH STANIC":
tickets are not shown to the others until the final scoring; cards in the hand lie face down)
say who did what kind of thing and nothing of what is hidden: "Anna keeps a destination ticket".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.actions import Action
from companion.core.errors import SnapshotError
from companion.core.jsonvalue import thaw
from companion.core.messages import Message, Text, msg
from companion.core.snapshot import Field
from companion.games.ticket_to_ride_europe import cards as tc
from companion.games.ticket_to_ride_europe.names import (
    cards_text,
    city_name,
    one_card,
    route_name,
    ticket_name,
)
from companion.games.ticket_to_ride_europe.notation import city, route_candidates, ticket


def _player(action: Action, names: Sequence[str]) -> Text:
    p = action.player
    if p is None or not 0 <= p < len(names):
        return msg("The table", context="who")
    return names[p]


def _cards(field: Field) -> Message:
    return cards_text(tc.to_json(tc.parse_cards(field)))


def _card_list(field: Field) -> Message:
    return cards_text(tc.to_json(tc.cards_of(tc.card_list(field, max_len=5))))


def _route(field: Field) -> tuple[Message, bool]:
    """A route reference as people name it, and whether it is a tunnel."""
    candidates = route_candidates(field)
    first = candidates[0]
    if len({r.colour for r in candidates}) == 1:
        return route_name(first), first.tunnel
    return msg("{a} – {b}", a=city_name(first.a), b=city_name(first.b)), first.tunnel


def describe(action: Action, names: Sequence[str]) -> Message:
    """``action`` as one short sentence (see the module docstring)."""
    who = _player(action, names)
    try:
        return _describe(action, who)
    except (SnapshotError, KeyError, ValueError, TypeError):
        # a malformed action (a refused input, an old log) still reads as words
        return Message(*_generic(action.kind, who))


def describe_private(action: Action, names: Sequence[str]) -> Message:
    """A private move told in full to its own player only (their ``/me`` and their answer):
    which ticket they kept, which cards they told; the others read :func:`describe`."""
    who = _player(action, names)
    try:
        args = Field(thaw(action.args), "args")
        if action.kind == "keep_ticket":
            return msg(
                "{player} keeps the destination ticket {ticket}",
                player=who,
                ticket=ticket_name(ticket(args.get("ticket"))),
            )
        if action.kind == "declare_hand":
            return msg(
                "{player} tells Trackside the cards in hand: {cards}",
                player=who,
                cards=_cards(args.get("cards")),
            )
    except (SnapshotError, KeyError, ValueError, TypeError):
        pass
    return describe(action, names)


def _generic(kind: str, who: Text) -> tuple[Any, ...]:
    """The kind's sentence without its arguments (what a private move may say)."""
    message = _GENERIC.get(kind, _UNKNOWN)
    return (message.msgid, (("player", who),), message.plural, message.count, message.context)


_UNKNOWN = msg("{player}: a move Trackside does not know")
_GENERIC: Mapping[str, Message] = {
    "reveal_face_up": msg("{player}: cards turned face up"),
    "draw_blind": msg("{player} draws a train card from the deck"),
    "take_face_up": msg("{player} takes a face-up train card"),
    "claim_route": msg("{player} claims a route"),
    "reveal_tunnel": msg("{player}: cards turned over for the tunnel"),
    "pay_tunnel": msg("{player} pays more cards for the tunnel"),
    "withdraw_tunnel": msg("{player} withdraws from the tunnel and takes the cards back"),
    "draw_tickets": msg("{player} draws destination tickets"),
    "keep_ticket": msg("{player} keeps a destination ticket"),
    "declare_hand": msg("{player} tells Trackside the cards in hand, for the tunnel odds"),
    "done_tickets": msg("{player} has chosen destination tickets"),
    "build_station": msg("{player} builds a station"),
    "pass_turn": msg("{player} can make no move and passes the turn"),
}


def _describe(action: Action, who: Text) -> Message:
    args = Field(thaw(action.args), "args")
    kind = action.kind
    if kind in ("keep_ticket", "declare_hand", "draw_blind", "withdraw_tunnel"):
        # the first two are private: which ticket, which cards stay hidden
        return Message(*_generic(kind, who))
    if kind == "draw_tickets":
        return msg("{player} draws destination tickets", player=who)
    if kind == "done_tickets":
        return msg("{player} has chosen destination tickets", player=who)
    if kind == "reveal_face_up":
        return msg("Turned face up: {cards}", cards=_card_list(args.get("cards")))
    if kind == "reveal_tunnel":
        return msg("Turned over for the tunnel: {cards}", cards=_card_list(args.get("cards")))
    if kind == "take_face_up":
        card = tc.parse_kind(args.get("card"))
        return msg("{player} takes {card} from the face-up cards", player=who, card=one_card(card))
    if kind == "claim_route":
        route, tunnel = _route(args.get("route"))
        cards = _cards(args.get("cards"))
        if tunnel:
            return msg(
                "{player} lays {cards} for the tunnel {route}", player=who, cards=cards, route=route
            )
        return msg("{player} claims {route} with {cards}", player=who, route=route, cards=cards)
    if kind == "pay_tunnel":
        return msg(
            "{player} pays {cards} more for the tunnel", player=who, cards=_cards(args.get("cards"))
        )
    if kind == "build_station":
        return msg(
            "{player} builds a station in {city} with {cards}",
            player=who,
            city=city_name(city(args.get("city"))),
            cards=_cards(args.get("cards")),
        )
    return Message(*_generic(kind, who))
