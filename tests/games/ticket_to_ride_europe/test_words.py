"""What players read of Ticket to Ride: Europe, in words (issues 16, 17): moves described with
names (never notation, a route id or a player index), private moves describing nothing hidden,
refusals citing the rulebook's own section title in the reader's language, cities by the names
each language gives them."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.core.choices import node_at, random_leaf
from companion.core.i18n import translations
from companion.core.messages import Message, render_text
from companion.games.ticket_to_ride_europe.board import CITIES, ROUTES, TICKETS
from companion.games.ticket_to_ride_europe.names import city_name, route_name
from companion.games.ticket_to_ride_europe.rules import GAME, TtrState

NAMES = ("Anna", "Boris", "Cyril")
LANGUAGES = ("en", "cs", "sk", "es")
TR = {lang: translations(lang) for lang in LANGUAGES}
CITY_IDS = "|".join(c.id for c in CITIES)
NOTATION = re.compile(rf"[_={{}}]|\b({CITY_IDS})-[a-z]+|\(s\)")
"""Notation: a developer's ``_`` or ``=``, a format field, a route or ticket id, "card(s)"."""
BARE_NUMBER = re.compile(r"(?<![\w×])\d+(?![\d×])")
"""A number that is not a card count ("2× red"): in a move's description that is an index."""


def _start(n: int) -> TtrState:
    return GAME.setup([PlayerSpec(name) for name in NAMES[:n]], {})


def _check_words(text: str, where: Any) -> None:
    assert not NOTATION.search(text), (where, text)


def _playout(seed: int, n: int, steps: int) -> list[str]:
    """A random game through the choices tree; every move, the labels on its path and the
    status rendered in every language. Returns the English descriptions."""
    rng = random.Random(seed)
    state = _start(n)
    said: list[str] = []
    for step in range(steps):
        if GAME.is_over(state):
            break
        status = GAME.status(state)
        viewer = rng.choice(status.active_players) if status.active_players else None
        tree = GAME.choices(state, viewer)
        picked = random_leaf(tree, rng)
        assert picked is not None, (seed, step)
        path, leaf = picked
        assert leaf.action is not None
        keys = path.split("/")
        for lang, tr in TR.items():
            text = GAME.describe(leaf.action, NAMES[:n]).render(tr)
            _check_words(text, (seed, step, lang, leaf.action))
            assert not BARE_NUMBER.search(text), (seed, step, lang, text)
            for i in range(1, len(keys) + 1):
                label = node_at(tree, "/".join(keys[:i])).label.render(tr)
                _check_words(label, (seed, step, lang, path))
            _check_words(render_text(status.waiting_for, tr), (seed, step, lang, "status"))
        said.append(GAME.describe(leaf.action, NAMES[:n]).render())
        state = GAME.apply(state, leaf.action)
    return said


@pytest.mark.parametrize(("seed", "n"), [(1, 2), (2, 3)])
def test_moves_labels_and_statuses_read_as_words_in_every_language(seed: int, n: int) -> None:
    said = _playout(seed, n, steps=400)
    assert len(said) > 50
    # the sentences name the players, never their index
    assert all(any(name in line for name in NAMES) or line.startswith("Turned") for line in said)
    assert any(" claims " in line or " lays " in line for line in said)


def test_a_private_move_names_nothing_hidden() -> None:
    """LÍZNUTÍ KARET CÍLOVÝCH STANIC: tickets are not shown to the others until the final
    scoring; cards in the hand lie face down."""
    keep = Action("keep_ticket", 0, {"ticket": "berlin-roma"})
    declare = Action("declare_hand", 1, {"cards": {"red": 2, "locomotive": 1}})
    for lang, tr in TR.items():
        kept = GAME.describe(keep, NAMES).render(tr)
        assert kept.startswith("Anna"), kept
        for c in CITIES:
            assert city_name(c.id).render(tr) not in kept, (lang, kept)
        told = GAME.describe(declare, NAMES).render(tr)
        assert told.startswith("Boris") and "2" not in told and "×" not in told, (lang, told)
    assert GAME.describe(keep, NAMES).render() == "Anna keeps a destination ticket"


def test_a_claim_reads_with_cities_colours_and_cards() -> None:
    claim = Action("claim_route", 2, {"route": "madrid-pamplona:black", "cards": {"black": 3}})
    assert GAME.describe(claim, NAMES).render() == (
        "Cyril lays 3× black for the tunnel Madrid – Pamplona (black)"
    )
    assert GAME.describe(claim, NAMES).render(TR["cs"]) == (
        "Cyril vykládá 3× černá na tunel Madrid – Pamplona (černá)"
    )
    station = Action("build_station", 0, {"city": "constantinople", "cards": {"red": 1}})
    assert GAME.describe(station, NAMES).render(TR["es"]) == (
        "Anna construye una estación en Constantinopla con 1× rojo"
    )
    # an action the table could not read still says who, in words
    broken = Action("claim_route", 1, {"route": "atlantis-paris"})
    assert GAME.describe(broken, NAMES).render() == "Boris claims a route"


def test_a_refusal_in_czech_cites_the_czech_rulebooks_section() -> None:
    state = _start(2)
    state = GAME.apply(state, Action("reveal_face_up", None, {"cards": ["red"] * 5}))
    for p, tickets in ((0, ("berlin-roma", "paris-wien")), (1, ("london-berlin", "madrid-dieppe"))):
        for t in tickets:
            state = GAME.apply(state, Action("keep_ticket", p, {"ticket": t}))
        state = GAME.apply(state, Action("done_tickets", p))
    wrong = Action("claim_route", 0, {"route": "amsterdam-frankfurt", "cards": {"yellow": 2}})
    with pytest.raises(IllegalActionError) as refused:
        GAME.apply(state, wrong)
    english = str(refused.value)
    assert "rulebook: Claiming routes" in english and "seed" not in english
    czech = refused.value.render(TR["cs"])
    assert "OBSAZOVÁNÍ TRATÍ" in czech, czech
    assert "Amsterdam – Frankfurt (bílá)" in czech and "žlutá" in czech, czech
    assert "OBSADZOVANIE TRATÍ" in refused.value.render(TR["sk"])
    # the turn order names the player whose turn it is, never an index
    with pytest.raises(IllegalActionError) as not_yours:
        GAME.apply(state, Action("draw_blind", 1))
    assert "Boris cannot draw a train card now: it is Anna's turn" in str(not_yours.value)
    assert "HERNÍ KOLO" in not_yours.value.render(TR["cs"])


@pytest.mark.parametrize(
    ("city", "cs", "sk", "es"),
    [
        ("constantinople", "Cařihrad", "Carihrad", "Constantinopla"),
        ("wien", "Vídeň", "Viedeň", "Viena"),
        ("london", "Londýn", "Londýn", "Londres"),
        ("madrid", "Madrid", "Madrid", "Madrid"),
    ],
)
def test_a_city_reads_in_each_language(city: str, cs: str, sk: str, es: str) -> None:
    name = city_name(city)
    assert [name.render(TR[lang]) for lang in ("cs", "sk", "es")] == [cs, sk, es]


def test_every_city_colour_and_ticket_has_its_name_in_every_language() -> None:
    for lang in ("cs", "sk", "es"):
        tr = TR[lang]
        for t in TICKETS:
            for c in (t.a, t.b):
                assert city_name(c).render(tr), (lang, c)
        routes = {route_name(r).render(tr) for r in ROUTES}
        # every colour is translated: no English colour word left in a route's name
        english = {"purple", "white", "blue", "yellow", "orange", "black", "red", "green", "grey"}
        assert not any(f"({colour})" in r for r in routes for colour in english), lang


def test_the_score_sheet_reads_in_czech() -> None:
    state = _start(2)
    sheet = GAME.score(state)
    line = sheet.players[0].lines[0]
    assert isinstance(line.label, Message)
    assert line.label.render(TR["cs"]) == "Tratě"
    assert render_text(line.note, TR["cs"]) == "0 tratí, zbývá vagonů: 45"
    assert render_text(line.note) == "0 routes, 45 trains left"


def test_a_mistyped_ticket_city_or_route_is_refused_in_words() -> None:
    """What a player types on their own page (a ticket, a city, a route) is refused as a
    sentence in their language, never as a snapshot field path."""
    state = _start(2)
    with pytest.raises(IllegalActionError) as ticket:
        GAME.apply(state, Action("keep_ticket", 0, {"ticket": "berlin-atlantis"}))
    assert "args." not in str(ticket.value)
    assert ticket.value.render(TR["cs"]).startswith("Taková karta cílové stanice není.")
    assert "OBSAH BALENÍ" in ticket.value.render(TR["cs"])
    state = GAME.apply(state, Action("reveal_face_up", None, {"cards": ["red"] * 5}))
    for p, tickets in ((0, ("berlin-roma", "paris-wien")), (1, ("london-berlin", "madrid-dieppe"))):
        for t in tickets:
            state = GAME.apply(state, Action("keep_ticket", p, {"ticket": t}))
        state = GAME.apply(state, Action("done_tickets", p))
    with pytest.raises(IllegalActionError) as route:
        GAME.apply(state, Action("claim_route", 0, {"route": "paris-roma", "cards": {"red": 4}}))
    assert route.value.render(TR["es"]).startswith("No hay ninguna ruta así en el tablero.")
    with pytest.raises(IllegalActionError) as station:
        GAME.apply(state, Action("build_station", 0, {"city": "praha", "cards": {"red": 1}}))
    assert "STAVBA STANICE" in station.value.render(TR["sk"])
