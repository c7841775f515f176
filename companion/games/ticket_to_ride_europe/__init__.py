"""Ticket to Ride: Europe (Alan R. Moon, Days of Wonder). Rules: "Jízdenky, prosím! Evropa" (cs, then sk).

``board`` holds the map and tickets, ``final`` the end-of-game scoring (stations, European
Express), ``cards`` the train cards and tunnel odds, ``notation`` the snapshot format and
``rules`` the table: state, actions, scans.
"""

from companion.games.ticket_to_ride_europe.rules import (
    GAME,
    TicketToRideEurope,
    TtrState,
    tunnel_odds,
)

__all__ = ["GAME", "TicketToRideEurope", "TtrState", "tunnel_odds"]
