"""Ticket to Ride Europe's public view (``companion.core.public``): what the table sees.

Counts per player: trains and stations left, train cards in hand, destination tickets held
(how many, never which, until they are shown at the end: "KONEC HRY"). Trains left are the
claimed routes' lengths taken from 45 ("HERNÍ MATERIÁL": 45 vagónků per player), counted from
the table's own route ids, so a double route counts the one length it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.messages import Message, msg, plural
from companion.core.public import Moment, PublicView, build
from companion.games.ticket_to_ride_europe.board import ROUTE_BY_ID, STATIONS_PER_PLAYER
from companion.games.ticket_to_ride_europe.final import longest_trail
from companion.games.ticket_to_ride_europe.names import route_name

if TYPE_CHECKING:
    from companion.games.ticket_to_ride_europe.rules import (
        TicketToRideEurope,
        TtrState,
        TunnelVerdict,
    )


def tunnel_verdict_text(name: str, verdict: TunnelVerdict) -> Message:
    """The tunnel's verdict in words, as the TV announces it."""
    if verdict.extra == 0:
        return msg(
            "Tunnel {route}: no matching card turned, {player} claims it at once",
            route=route_name(verdict.route),
            player=name,
        )
    return plural(
        "Tunnel {route}: {player} pays {n} more card or takes the cards back",
        "Tunnel {route}: {player} pays {n} more cards or takes the cards back",
        "n",
        n=verdict.extra,
        route=route_name(verdict.route),
        player=name,
    )


def public_view(game: TicketToRideEurope, state: TtrState) -> PublicView:
    counts = [
        (
            ("trains", p.trains),
            ("stations", STATIONS_PER_PLAYER - len(p.stations)),
            ("cards", p.hand),
            ("tickets", len(p.tickets)),
        )
        for p in state.players
    ]
    over = game.is_over(state)
    moments: list[Moment] = []
    verdict = state.tunnel_verdict
    if verdict is not None:
        # "TUNELY": the cards turned say how many more cards the claim costs, once per tunnel
        moments.append(
            Moment(
                "tunnel",
                f"tunnel-{verdict.number}",
                text=tunnel_verdict_text(state.players[verdict.player].name, verdict),
                player=verdict.player,
                extra_cards=verdict.extra,
            )
        )
    # "KONEC HRY": a player with two or fewer trains left starts the last round
    if state.final_turns is not None and not over:
        moments.append(Moment("last_round", "last-round"))
    if over:
        moments.append(Moment("game_over", "game-over"))
    # the map: each player's routes by board id (one of a double pair is itself, whatever the
    # notation writes), and once the game is over ("POČÍTÁNÍ BODŮ") the longest continuous path
    picture: JsonObject = {"routes": [list(p.routes) for p in state.players]}
    if over:
        trails: list[JsonValue] = []
        for p in state.players:
            length, cities = longest_trail([ROUTE_BY_ID[r] for r in p.routes])
            trails.append({"length": length, "cities": list(cities)})
        picture["trails"] = trails
    sheet = game.score(state)
    status = game.status(state).waiting_for
    return build(sheet, status, counts, moments, over=over, picture=picture)
