"""Names players read: cities, card colours, routes, tickets and the rulebook's section titles,
as messages each surface renders in its reader's language.

City names are the board's (the map keeps the names of 1901, "Zeměpisná poznámka"); each
language's catalogue gives that language's own name where it has one (Czech: the rulebook's
Cařihrad for Constantinople). Colours are the train cards' ("LÍZNUTÍ KARET VAGÓNŮ": fialová,
oranžová, bílá, …). Section titles are the rulebook's own headings: the English id is an English
rendering, the Czech and Slovak catalogues give the printed heading with its page.

The scoreboard's map may use :func:`city_name` for its labels (a pure function of the city id).
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.core.messages import Message, join_texts, msg
from companion.games.ticket_to_ride_europe.board import (
    LOCOMOTIVE,
    ROUTE_BY_ID,
    RouteSpec,
    TicketSpec,
)

CITY_NAMES: dict[str, Message] = {
    "amsterdam": msg("Amsterdam", context="city"),
    "angora": msg("Angora", context="city"),
    "athina": msg("Athina", context="city"),
    "barcelona": msg("Barcelona", context="city"),
    "berlin": msg("Berlin", context="city"),
    "brest": msg("Brest", context="city"),
    "brindisi": msg("Brindisi", context="city"),
    "bruxelles": msg("Bruxelles", context="city"),
    "bucuresti": msg("Bucuresti", context="city"),
    "budapest": msg("Budapest", context="city"),
    "cadiz": msg("Cádiz", context="city"),
    "constantinople": msg("Constantinople", context="city"),
    "danzig": msg("Danzig", context="city"),
    "dieppe": msg("Dieppe", context="city"),
    "edinburgh": msg("Edinburgh", context="city"),
    "erzurum": msg("Erzurum", context="city"),
    "essen": msg("Essen", context="city"),
    "frankfurt": msg("Frankfurt", context="city"),
    "kharkov": msg("Kharkov", context="city"),
    "kobenhavn": msg("København", context="city"),
    "kyiv": msg("Kyiv", context="city"),
    "lisboa": msg("Lisboa", context="city"),
    "london": msg("London", context="city"),
    "madrid": msg("Madrid", context="city"),
    "marseille": msg("Marseille", context="city"),
    "moskva": msg("Moskva", context="city"),
    "munchen": msg("München", context="city"),
    "palermo": msg("Palermo", context="city"),
    "pamplona": msg("Pamplona", context="city"),
    "paris": msg("Paris", context="city"),
    "petrograd": msg("Petrograd", context="city"),
    "riga": msg("Riga", context="city"),
    "roma": msg("Roma", context="city"),
    "rostov": msg("Rostov", context="city"),
    "sarajevo": msg("Sarajevo", context="city"),
    "sevastopol": msg("Sevastopol", context="city"),
    "smolensk": msg("Smolensk", context="city"),
    "smyrna": msg("Smyrna", context="city"),
    "sochi": msg("Sochi", context="city"),
    "sofia": msg("Sofia", context="city"),
    "stockholm": msg("Stockholm", context="city"),
    "venezia": msg("Venezia", context="city"),
    "warszawa": msg("Warszawa", context="city"),
    "wien": msg("Wien", context="city"),
    "wilno": msg("Wilno", context="city"),
    "zagrab": msg("Zagrab", context="city"),
    "zurich": msg("Zürich", context="city"),
}

COLOUR_NAMES: dict[str, Message] = {
    "purple": msg("purple", context="card colour"),
    "white": msg("white", context="card colour"),
    "blue": msg("blue", context="card colour"),
    "yellow": msg("yellow", context="card colour"),
    "orange": msg("orange", context="card colour"),
    "black": msg("black", context="card colour"),
    "red": msg("red", context="card colour"),
    "green": msg("green", context="card colour"),
    LOCOMOTIVE: msg("locomotive", context="card colour"),
    "grey": msg("grey", context="card colour"),
}

ONE_CARD: dict[str, Message] = {
    "purple": msg("a purple card", context="one card"),
    "white": msg("a white card", context="one card"),
    "blue": msg("a blue card", context="one card"),
    "yellow": msg("a yellow card", context="one card"),
    "orange": msg("an orange card", context="one card"),
    "black": msg("a black card", context="one card"),
    "red": msg("a red card", context="one card"),
    "green": msg("a green card", context="one card"),
    LOCOMOTIVE: msg("a locomotive", context="one card"),
}
"""One train card, the colour agreeing with the card ("una carta roja", "červená karta")."""


def one_card(kind: str) -> Message:
    """One train card of ``kind`` in words (its colour agreeing with the noun)."""
    return ONE_CARD.get(kind) or msg("a {colour} card", colour=colour_name(kind))


# The rulebook's sections (Czech headings; pages from its table of contents, "OBSAH").
S_CONTENTS = msg("Contents of the box", context="rulebook section")  # OBSAH BALENÍ
S_SETUP = msg("Setting up the game", context="rulebook section")  # PŘÍPRAVA HRY
S_START = msg("Starting the game", context="rulebook section")  # ZAČÁTEK HRY
S_TURN = msg("The game turn", context="rulebook section")  # HERNÍ KOLO
S_DRAW = msg("Drawing train car cards", context="rulebook section")  # LÍZNUTÍ KARET VAGÓNŮ
S_LOCO = msg("Locomotives", context="rulebook section")  # LOKOMOTIVY
S_CLAIM = msg("Claiming routes", context="rulebook section")  # OBSAZOVÁNÍ TRATÍ
S_DOUBLE = msg("Double routes", context="rulebook section")  # DVOJITÉ TRATĚ
# DŮLEŽITÁ POZNÁMKA after TUNELY: with 2–3 players one route of a double route only
S_DOUBLE_FEW = msg("Important note (double routes)", context="rulebook section")
S_FERRY = msg("Ferries", context="rulebook section")  # TRAJEKTY
S_TUNNEL = msg("Tunnels", context="rulebook section")  # TUNELY
S_TICKETS = msg("Drawing destination tickets", context="rulebook section")
S_STATION = msg("Building train stations", context="rulebook section")  # STAVBA NÁDRAŽÍ
S_END = msg("End of the game", context="rulebook section")  # KONEC HRY
S_SCORING = msg("Scoring", context="rulebook section")  # POČÍTÁNÍ BODŮ


def city_name(city_id: str) -> Message:
    """A city's name for people (``"constantinople"`` → Constantinople / Cařihrad / …)."""
    return CITY_NAMES[city_id]


def colour_name(kind: str) -> Message:
    """A train card's or a route's colour (``"purple"``, ``"locomotive"``, ``"grey"``)."""
    return COLOUR_NAMES[kind]


def swatch(kind: str) -> str:
    """The swatch a page draws for a card's or a route's colour: the colour itself, and a
    rainbow for a locomotive (the rulebook's "lokomotivy" are cards of every colour)."""
    return "rainbow" if kind == LOCOMOTIVE else kind


def swatches(cards: Mapping[str, int]) -> tuple[str, ...]:
    """One swatch for each kind of card a payment holds, in its order."""
    return tuple(swatch(kind) for kind, n in cards.items() if n)


def route_name(route: RouteSpec | str) -> Message:
    """ "Madrid – Pamplona (black)": a route by its two cities and its colour."""
    r = ROUTE_BY_ID[route] if isinstance(route, str) else route
    return msg(
        "{a} – {b} ({colour})",
        a=city_name(r.a),
        b=city_name(r.b),
        colour=colour_name(r.colour),
    )


def ticket_name(ticket: TicketSpec) -> Message:
    """ "Berlin – Roma": a destination ticket by its two cities."""
    return msg("{a} – {b}", a=city_name(ticket.a), b=city_name(ticket.b))


def cards_text(cards: Mapping[str, int]) -> Message:
    """``{"red": 3, "locomotive": 1}`` → "3× red, 1× locomotive" (no cards: "no cards")."""
    parts = [msg("{n}× {card}", n=n, card=colour_name(kind)) for kind, n in cards.items() if n]
    if not parts:
        return msg("no cards")
    return join_texts(parts, ", ")
