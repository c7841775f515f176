"""The Ticket to Ride: Europe board as project data (the service never reads ../shared).

Provenance: copied from ``shared/reference/ttr_europe.json`` — the consensus of five independent
open datasets (rkdarst/board-game-networks ``data/ticket-to-ride/europe.yaml`` @211d05c, with
Wien–Zagrab grey and Athina–Sofia length 3 by majority; tickets from alphajuliet/ttr
``data/ttr-europe-tickets.csv`` @44524e4, identical in two other sources). City positions are
percent of the board image (x right, y down) from zlaval/ELTE_Prog ``ticket-to-ride-data.js``
@e7d6204: approximate, good for a schematic map only. Route scoring and card counts are printed
in the rulebook ("POČÍTÁNÍ BODŮ", "OBSAH BALENÍ").

Generated once from the reference file; checked against its totals by
``tests/games/ticket_to_ride_europe/test_map.py``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class City:
    id: str
    name: str
    x_pct: float
    y_pct: float


@dataclass(frozen=True, slots=True)
class RouteSpec:
    """One route on the board. ``id`` is the reference id (``bruxelles-paris-1`` for one of a
    double pair); ``partner`` the id of the other route of a double pair."""

    id: str
    a: str
    b: str
    length: int
    colour: str  # one of COLOURS, or "grey" (any one colour)
    tunnel: bool
    ferry_locomotives: int
    partner: str | None


@dataclass(frozen=True, slots=True)
class TicketSpec:
    a: str
    b: str
    points: int
    long: bool

    @property
    def id(self) -> str:
        return f"{self.a}-{self.b}"


# The eight train-card colours (rulebook "LÍZNUTÍ KARET VAGÓNŮ"); "purple" is called pink
# elsewhere. Locomotives are the wild cards.
COLOURS: tuple[str, ...] = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green")
LOCOMOTIVE = "locomotive"
CARDS_PER_COLOUR = 12
LOCOMOTIVE_CARDS = 14
TRAINS_PER_PLAYER = 45
STATIONS_PER_PLAYER = 3
STATION_COSTS: tuple[int, ...] = (1, 2, 3)  # "STAVBA NÁDRAŽÍ": 1st, 2nd, 3rd station
UNUSED_STATION_POINTS = 4
EUROPEAN_EXPRESS_BONUS = 10

# "POČÍTÁNÍ BODŮ": route length → points.
ROUTE_POINTS: dict[int, int] = {1: 1, 2: 2, 3: 4, 4: 7, 6: 15, 8: 21}

CITIES: tuple[City, ...] = (
    City("amsterdam", "Amsterdam", 31.875, 30.5816),
    City("angora", "Angora", 85.625, 89.8687),
    City("athina", "Athina", 66, 89.8687),
    City("barcelona", "Barcelona", 21.625, 84.4278),
    City("berlin", "Berlin", 49.125, 34.334),
    City("brest", "Brest", 13.25, 47.2795),
    City("brindisi", "Brindisi", 54.375, 78.6116),
    City("bruxelles", "Bruxelles", 29.625, 37.5235),
    City("bucuresti", "Bucuresti", 73.5, 64.3527),
    City("budapest", "Budapest", 59.125, 54.409),
    City("cadiz", "Cádiz", 10.875, 93.621),
    City("constantinople", "Constantinople", 78.375, 81.9887),
    City("danzig", "Danzig", 60, 23.0769),
    City("dieppe", "Dieppe", 21.75, 43.152),
    City("edinburgh", "Edinburgh", 16.5, 8.818),
    City("erzurum", "Erzurum", 93.25, 86.4916),
    City("essen", "Essen", 39.625, 32.0826),
    City("frankfurt", "Frankfurt", 38.125, 42.2139),
    City("kharkov", "Kharkov", 91.625, 48.2176),
    City("kobenhavn", "København", 46.625, 17.0732),
    City("kyiv", "Kyiv", 78.875, 40.5253),
    City("lisboa", "Lisboa", 4.625, 86.4916),
    City("london", "London", 22.75, 30.394),
    City("madrid", "Madrid", 10.875, 83.1144),
    City("marseille", "Marseille", 34.875, 70.7317),
    City("moskva", "Moskva", 93, 26.454),
    City("munchen", "München", 43.625, 48.4053),
    City("palermo", "Palermo", 49.625, 93.8086),
    City("pamplona", "Pamplona", 20.375, 71.4822),
    City("paris", "Paris", 26.375, 49.7186),
    City("petrograd", "Petrograd", 83.875, 9.5685),
    City("riga", "Riga", 67.75, 10.3189),
    City("roma", "Roma", 46, 74.8593),
    City("rostov", "Rostov", 95.625, 55.7223),
    City("sarajevo", "Sarajevo", 61.375, 72.2326),
    City("sevastopol", "Sevastopol", 86.625, 66.6041),
    City("smolensk", "Smolensk", 85.125, 30.0188),
    City("smyrna", "Smyrna", 74.125, 93.2458),
    City("sochi", "Sochi", 95.125, 68.6679),
    City("sofia", "Sofia", 67.625, 73.3583),
    City("stockholm", "Stockholm", 56.25, 6.0038),
    City("venezia", "Venezia", 45.375, 62.1013),
    City("warszawa", "Warszawa", 64.625, 32.833),
    City("wien", "Wien", 54.75, 50.8443),
    City("wilno", "Wilno", 75.125, 29.4559),
    City("zagrab", "Zagrab", 53.375, 63.7899),
    City("zurich", "Zürich", 37.25, 57.4109),
)

ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("amsterdam-bruxelles", "amsterdam", "bruxelles", 1, "black", False, 0, None),
    RouteSpec("amsterdam-essen", "amsterdam", "essen", 3, "yellow", False, 0, None),
    RouteSpec("amsterdam-frankfurt", "amsterdam", "frankfurt", 2, "white", False, 0, None),
    RouteSpec("amsterdam-london", "amsterdam", "london", 2, "grey", False, 2, None),
    RouteSpec("angora-constantinople", "angora", "constantinople", 2, "grey", True, 0, None),
    RouteSpec("angora-erzurum", "angora", "erzurum", 3, "black", False, 0, None),
    RouteSpec("angora-smyrna", "angora", "smyrna", 3, "orange", True, 0, None),
    RouteSpec("athina-brindisi", "athina", "brindisi", 4, "grey", False, 1, None),
    RouteSpec("athina-sarajevo", "athina", "sarajevo", 4, "green", False, 0, None),
    RouteSpec("athina-smyrna", "athina", "smyrna", 2, "grey", False, 1, None),
    RouteSpec("athina-sofia", "athina", "sofia", 3, "purple", False, 0, None),
    RouteSpec("barcelona-madrid", "barcelona", "madrid", 2, "yellow", False, 0, None),
    RouteSpec("barcelona-marseille", "barcelona", "marseille", 4, "grey", False, 0, None),
    RouteSpec("barcelona-pamplona", "barcelona", "pamplona", 2, "grey", True, 0, None),
    RouteSpec("berlin-danzig", "berlin", "danzig", 4, "grey", False, 0, None),
    RouteSpec("berlin-essen", "berlin", "essen", 2, "blue", False, 0, None),
    RouteSpec(
        "berlin-frankfurt-1", "berlin", "frankfurt", 3, "black", False, 0, "berlin-frankfurt-2"
    ),
    RouteSpec(
        "berlin-frankfurt-2", "berlin", "frankfurt", 3, "red", False, 0, "berlin-frankfurt-1"
    ),
    RouteSpec(
        "berlin-warszawa-1", "berlin", "warszawa", 4, "purple", False, 0, "berlin-warszawa-2"
    ),
    RouteSpec(
        "berlin-warszawa-2", "berlin", "warszawa", 4, "yellow", False, 0, "berlin-warszawa-1"
    ),
    RouteSpec("berlin-wien", "berlin", "wien", 3, "green", False, 0, None),
    RouteSpec("brest-dieppe", "brest", "dieppe", 2, "orange", False, 0, None),
    RouteSpec("brest-pamplona", "brest", "pamplona", 4, "purple", False, 0, None),
    RouteSpec("brest-paris", "brest", "paris", 3, "black", False, 0, None),
    RouteSpec("brindisi-palermo", "brindisi", "palermo", 3, "grey", False, 1, None),
    RouteSpec("brindisi-roma", "brindisi", "roma", 2, "white", False, 0, None),
    RouteSpec("bruxelles-dieppe", "bruxelles", "dieppe", 2, "green", False, 0, None),
    RouteSpec("bruxelles-frankfurt", "bruxelles", "frankfurt", 2, "blue", False, 0, None),
    RouteSpec(
        "bruxelles-paris-1", "bruxelles", "paris", 2, "yellow", False, 0, "bruxelles-paris-2"
    ),
    RouteSpec("bruxelles-paris-2", "bruxelles", "paris", 2, "red", False, 0, "bruxelles-paris-1"),
    RouteSpec("bucuresti-budapest", "bucuresti", "budapest", 4, "grey", True, 0, None),
    RouteSpec(
        "bucuresti-constantinople", "bucuresti", "constantinople", 3, "yellow", False, 0, None
    ),
    RouteSpec("bucuresti-kyiv", "bucuresti", "kyiv", 4, "grey", False, 0, None),
    RouteSpec("bucuresti-sevastopol", "bucuresti", "sevastopol", 4, "white", False, 0, None),
    RouteSpec("bucuresti-sofia", "bucuresti", "sofia", 2, "grey", True, 0, None),
    RouteSpec("budapest-kyiv", "budapest", "kyiv", 6, "grey", True, 0, None),
    RouteSpec("budapest-sarajevo", "budapest", "sarajevo", 3, "purple", False, 0, None),
    RouteSpec("budapest-wien-1", "budapest", "wien", 1, "red", False, 0, "budapest-wien-2"),
    RouteSpec("budapest-wien-2", "budapest", "wien", 1, "white", False, 0, "budapest-wien-1"),
    RouteSpec("budapest-zagrab", "budapest", "zagrab", 2, "orange", False, 0, None),
    RouteSpec("cadiz-lisboa", "cadiz", "lisboa", 2, "blue", False, 0, None),
    RouteSpec("cadiz-madrid", "cadiz", "madrid", 3, "orange", False, 0, None),
    RouteSpec(
        "constantinople-sevastopol", "constantinople", "sevastopol", 4, "grey", False, 2, None
    ),
    RouteSpec("constantinople-smyrna", "constantinople", "smyrna", 2, "grey", True, 0, None),
    RouteSpec("constantinople-sofia", "constantinople", "sofia", 3, "blue", False, 0, None),
    RouteSpec("danzig-riga", "danzig", "riga", 3, "black", False, 0, None),
    RouteSpec("danzig-warszawa", "danzig", "warszawa", 2, "grey", False, 0, None),
    RouteSpec("dieppe-london-1", "dieppe", "london", 2, "grey", False, 1, "dieppe-london-2"),
    RouteSpec("dieppe-london-2", "dieppe", "london", 2, "grey", False, 1, "dieppe-london-1"),
    RouteSpec("dieppe-paris", "dieppe", "paris", 1, "purple", False, 0, None),
    RouteSpec(
        "edinburgh-london-1", "edinburgh", "london", 4, "orange", False, 0, "edinburgh-london-2"
    ),
    RouteSpec(
        "edinburgh-london-2", "edinburgh", "london", 4, "black", False, 0, "edinburgh-london-1"
    ),
    RouteSpec("erzurum-sevastopol", "erzurum", "sevastopol", 4, "grey", False, 2, None),
    RouteSpec("erzurum-sochi", "erzurum", "sochi", 3, "red", True, 0, None),
    RouteSpec("essen-frankfurt", "essen", "frankfurt", 2, "green", False, 0, None),
    RouteSpec("essen-kobenhavn-1", "essen", "kobenhavn", 3, "grey", False, 1, "essen-kobenhavn-2"),
    RouteSpec("essen-kobenhavn-2", "essen", "kobenhavn", 3, "grey", False, 1, "essen-kobenhavn-1"),
    RouteSpec("frankfurt-munchen", "frankfurt", "munchen", 2, "purple", False, 0, None),
    RouteSpec("frankfurt-paris-1", "frankfurt", "paris", 3, "white", False, 0, "frankfurt-paris-2"),
    RouteSpec(
        "frankfurt-paris-2", "frankfurt", "paris", 3, "orange", False, 0, "frankfurt-paris-1"
    ),
    RouteSpec("kharkov-kyiv", "kharkov", "kyiv", 4, "grey", False, 0, None),
    RouteSpec("kharkov-moskva", "kharkov", "moskva", 4, "grey", False, 0, None),
    RouteSpec("kharkov-rostov", "kharkov", "rostov", 2, "green", False, 0, None),
    RouteSpec(
        "kobenhavn-stockholm-1",
        "kobenhavn",
        "stockholm",
        3,
        "yellow",
        False,
        0,
        "kobenhavn-stockholm-2",
    ),
    RouteSpec(
        "kobenhavn-stockholm-2",
        "kobenhavn",
        "stockholm",
        3,
        "white",
        False,
        0,
        "kobenhavn-stockholm-1",
    ),
    RouteSpec("kyiv-smolensk", "kyiv", "smolensk", 3, "red", False, 0, None),
    RouteSpec("kyiv-warszawa", "kyiv", "warszawa", 4, "grey", False, 0, None),
    RouteSpec("kyiv-wilno", "kyiv", "wilno", 2, "grey", False, 0, None),
    RouteSpec("lisboa-madrid", "lisboa", "madrid", 3, "purple", False, 0, None),
    RouteSpec("madrid-pamplona-1", "madrid", "pamplona", 3, "black", True, 0, "madrid-pamplona-2"),
    RouteSpec("madrid-pamplona-2", "madrid", "pamplona", 3, "white", True, 0, "madrid-pamplona-1"),
    RouteSpec("marseille-pamplona", "marseille", "pamplona", 4, "red", False, 0, None),
    RouteSpec("marseille-paris", "marseille", "paris", 4, "grey", False, 0, None),
    RouteSpec("marseille-roma", "marseille", "roma", 4, "grey", True, 0, None),
    RouteSpec("marseille-zurich", "marseille", "zurich", 2, "purple", True, 0, None),
    RouteSpec("moskva-petrograd", "moskva", "petrograd", 4, "white", False, 0, None),
    RouteSpec("moskva-smolensk", "moskva", "smolensk", 2, "orange", False, 0, None),
    RouteSpec("munchen-venezia", "munchen", "venezia", 2, "blue", True, 0, None),
    RouteSpec("munchen-wien", "munchen", "wien", 3, "orange", False, 0, None),
    RouteSpec("munchen-zurich", "munchen", "zurich", 2, "yellow", True, 0, None),
    RouteSpec("palermo-roma", "palermo", "roma", 4, "grey", False, 1, None),
    RouteSpec("palermo-smyrna", "palermo", "smyrna", 6, "grey", False, 2, None),
    RouteSpec("pamplona-paris-1", "pamplona", "paris", 4, "blue", False, 0, "pamplona-paris-2"),
    RouteSpec("pamplona-paris-2", "pamplona", "paris", 4, "green", False, 0, "pamplona-paris-1"),
    RouteSpec("paris-zurich", "paris", "zurich", 3, "grey", True, 0, None),
    RouteSpec("petrograd-riga", "petrograd", "riga", 4, "grey", False, 0, None),
    RouteSpec("petrograd-stockholm", "petrograd", "stockholm", 8, "grey", True, 0, None),
    RouteSpec("petrograd-wilno", "petrograd", "wilno", 4, "blue", False, 0, None),
    RouteSpec("riga-wilno", "riga", "wilno", 4, "green", False, 0, None),
    RouteSpec("roma-venezia", "roma", "venezia", 2, "black", False, 0, None),
    RouteSpec("rostov-sevastopol", "rostov", "sevastopol", 4, "grey", False, 0, None),
    RouteSpec("rostov-sochi", "rostov", "sochi", 2, "grey", False, 0, None),
    RouteSpec("sarajevo-sofia", "sarajevo", "sofia", 2, "grey", True, 0, None),
    RouteSpec("sarajevo-zagrab", "sarajevo", "zagrab", 3, "red", False, 0, None),
    RouteSpec("sevastopol-sochi", "sevastopol", "sochi", 2, "grey", False, 1, None),
    RouteSpec("smolensk-wilno", "smolensk", "wilno", 3, "yellow", False, 0, None),
    RouteSpec("venezia-zagrab", "venezia", "zagrab", 2, "grey", False, 0, None),
    RouteSpec("venezia-zurich", "venezia", "zurich", 2, "green", True, 0, None),
    RouteSpec("warszawa-wien", "warszawa", "wien", 4, "blue", False, 0, None),
    RouteSpec("warszawa-wilno", "warszawa", "wilno", 3, "red", False, 0, None),
    RouteSpec("wien-zagrab", "wien", "zagrab", 2, "grey", False, 0, None),
)

TICKETS: tuple[TicketSpec, ...] = (
    TicketSpec("athina", "angora", 5, False),
    TicketSpec("budapest", "sofia", 5, False),
    TicketSpec("frankfurt", "kobenhavn", 5, False),
    TicketSpec("rostov", "erzurum", 5, False),
    TicketSpec("sofia", "smyrna", 5, False),
    TicketSpec("kyiv", "petrograd", 6, False),
    TicketSpec("warszawa", "smolensk", 6, False),
    TicketSpec("zagrab", "brindisi", 6, False),
    TicketSpec("zurich", "brindisi", 6, False),
    TicketSpec("zurich", "budapest", 6, False),
    TicketSpec("amsterdam", "pamplona", 7, False),
    TicketSpec("brest", "marseille", 7, False),
    TicketSpec("edinburgh", "paris", 7, False),
    TicketSpec("london", "berlin", 7, False),
    TicketSpec("paris", "zagrab", 7, False),
    TicketSpec("barcelona", "munchen", 8, False),
    TicketSpec("barcelona", "bruxelles", 8, False),
    TicketSpec("berlin", "bucuresti", 8, False),
    TicketSpec("brest", "venezia", 8, False),
    TicketSpec("kyiv", "sochi", 8, False),
    TicketSpec("madrid", "dieppe", 8, False),
    TicketSpec("madrid", "zurich", 8, False),
    TicketSpec("marseille", "essen", 8, False),
    TicketSpec("palermo", "constantinople", 8, False),
    TicketSpec("paris", "wien", 8, False),
    TicketSpec("roma", "smyrna", 8, False),
    TicketSpec("sarajevo", "sevastopol", 8, False),
    TicketSpec("smolensk", "rostov", 8, False),
    TicketSpec("berlin", "roma", 9, False),
    TicketSpec("bruxelles", "danzig", 9, False),
    TicketSpec("angora", "kharkov", 10, False),
    TicketSpec("essen", "kyiv", 10, False),
    TicketSpec("london", "wien", 10, False),
    TicketSpec("riga", "bucuresti", 10, False),
    TicketSpec("venezia", "constantinople", 10, False),
    TicketSpec("athina", "wilno", 11, False),
    TicketSpec("stockholm", "wien", 11, False),
    TicketSpec("amsterdam", "wilno", 12, False),
    TicketSpec("berlin", "moskva", 12, False),
    TicketSpec("frankfurt", "smolensk", 13, False),
    TicketSpec("brest", "petrograd", 20, True),
    TicketSpec("lisboa", "danzig", 20, True),
    TicketSpec("palermo", "moskva", 20, True),
    TicketSpec("cadiz", "stockholm", 21, True),
    TicketSpec("edinburgh", "athina", 21, True),
    TicketSpec("kobenhavn", "erzurum", 21, True),
)

CITY_BY_ID: dict[str, City] = {c.id: c for c in CITIES}
ROUTE_BY_ID: dict[str, RouteSpec] = {r.id: r for r in ROUTES}
