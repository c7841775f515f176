"""Each game's name as its rulebook titles it, in each reader's language (issue 49).

The Czech rulebooks: *JÍZDENKY, PROSÍM! EVROPA* (Ticket to Ride: Europe), *RUSKÉ ŽELEZNICE*
(Russian Railroads), *Mini Express*, *Vlaky a stanice* (Trains & Stations); the Spanish one:
*Reglas del juego de ferrocarriles rusos* (Russian Railroads). Where no rulebook in a language
gives a title, the catalogue keeps the publisher's original one (a proper name).
"""

from __future__ import annotations

from companion.core.messages import Message, msg

TITLES: dict[str, Message] = {
    "ticket-to-ride-europe": msg("Ticket to Ride: Europe", context="game title"),
    "russian-railroads": msg("Russian Railroads", context="game title"),
    "trains-and-stations": msg("Trains & Stations", context="game title"),
    "mini-express": msg("Mini Express", context="game title"),
    "tiny-race": msg("Tiny Race (test game)", context="game title"),
}


def game_title(name: str, fallback: str = "") -> Message:
    """The game ``name``'s title as a message (each reader's language); an unknown game's
    ``fallback`` (or its id) as it is."""
    found = TITLES.get(name)
    if found is not None:
        return found
    return msg("{title}", title=fallback or name)
