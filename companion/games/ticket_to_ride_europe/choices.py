"""What the table can enter now in Ticket to Ride: Europe, as a tree of choices.

Built from the state and the rules (``companion.core.choices``): every leaf is an action the
game's ``apply`` accepts, checked with ``apply`` itself, so no rule is written twice. Sections
cited are the Czech headings of the rulebook ("Jízdenky, prosím! Evropa").

- "LÍZNUTÍ KARET VAGÓNŮ": the cards to take are the five face up (only those showing), or a
  blind draw; a card turned face up (after a take, at set-up, after three locomotives) is
  offered as each kind that can still be in the deck.
- "OBSAZOVÁNÍ TRATÍ" / "TRAJEKTY" / "TUNELY": the routes the player can still claim, each with
  the card sets that could pay for it (the hand's size and what the table has seen decide).
- "TUNELY": the three turned cards one at a time (kinds still possible), then the extra
  payments the player can make, or withdraw.
- "LÍZNUTÍ KARET CÍLOVÝCH STANIC" / "ZAČÁTEK HRY": which tickets a player keeps is secret, so
  keeping a ticket is offered only in that player's own view (``viewer``); the table sees only
  "done" once enough are kept.
- "STAVBA NÁDRAŽÍ": the free cities, with the card sets the station costs.
- With no train card and no ticket left to draw, a player whose hand pays for nothing passes
  the turn (``rules._pass_turn``, our reading where the rulebook is silent).
"""

from __future__ import annotations

from collections.abc import Callable

from companion.core.actions import Action
from companion.core.choices import Choice, accepts
from companion.core.messages import Message, msg, plural
from companion.games.ticket_to_ride_europe import cards as tc
from companion.games.ticket_to_ride_europe.board import (
    CITIES,
    LOCOMOTIVE,
    ROUTE_BY_ID,
    ROUTES,
    STATION_COSTS,
    STATIONS_PER_PLAYER,
    TICKETS,
    RouteSpec,
    TicketSpec,
)
from companion.games.ticket_to_ride_europe.final import city_name as english_city
from companion.games.ticket_to_ride_europe.final import route_ref
from companion.games.ticket_to_ride_europe.names import (
    cards_text,
    city_name,
    colour_name,
    route_name,
    swatch,
    swatches,
    ticket_name,
)
from companion.games.ticket_to_ride_europe.rules import (
    GAME,
    TtrState,
    can_hold,
    route_open,
    seen_cards,
    tunnel_payments,
)


def _ok(state: TtrState, action: Action) -> bool:
    return accepts(GAME.apply, state, action)


def could_hold(
    state: TtrState, player: int, cards: dict[str, int], unseen: tc.Cards | None = None
) -> bool:
    """Whether the player can hold ``cards``, as far as the table knows: the engine's own
    check (:func:`~companion.games.ticket_to_ride_europe.rules.can_hold`), asked first
    because it is cheap. ``unseen`` is :func:`_unseen` of ``state``, passed by callers that
    ask for many payments of one state."""
    counts = [0] * len(tc.KINDS)
    for kind, n in cards.items():
        counts[tc.INDEX[kind]] += n
    return can_hold(state, player, tuple(counts), unseen)


def _unseen(state: TtrState) -> tc.Cards:
    return tc.sub(tc.FULL_DECK, seen_cards(state))


def _held(
    state: TtrState, player: int, pays: list[dict[str, int]], unseen: tc.Cards
) -> list[dict[str, int]]:
    """The payments of ``pays`` the player could hold (the cheap test, before the engine's);
    ``unseen`` is :func:`_unseen` of ``state``."""
    return [pay for pay in pays if could_hold(state, player, pay, unseen)]


def _pays(state: TtrState, player: int, action: Action) -> bool:
    return could_hold(state, player, dict(action.arg("cards"))) and _ok(state, action)


def card_name(kind: str) -> Message:
    """A train card's colour as players say it (the rulebook's colours, "LÍZNUTÍ KARET
    VAGÓNŮ")."""
    return colour_name(kind)


def cards_label(cards: dict[str, int]) -> Message:
    """``{"red": 3, "locomotive": 1}`` → "3× red + 1× locomotive"."""
    parts = [msg("{n}× {card}", n=n, card=card_name(kind)) for kind, n in cards.items()]
    if len(parts) == 1:
        return parts[0]
    return msg("{first} + {second}", first=parts[0], second=parts[1])


def route_label(route: RouteSpec) -> Message:
    """ "Paris – Zürich (grey): 3 spaces, tunnel"."""
    if route.tunnel:
        return plural(
            "{route}: {n} space, tunnel",
            "{route}: {n} spaces, tunnel",
            "n",
            route=route_name(route),
            n=route.length,
        )
    if route.ferry_locomotives:
        return plural(
            "{route}: {n} space, ferry with {locos}× locomotive",
            "{route}: {n} spaces, ferry with {locos}× locomotive",
            "n",
            route=route_name(route),
            n=route.length,
            locos=route.ferry_locomotives,
        )
    return plural(
        "{route}: {n} space",
        "{route}: {n} spaces",
        "n",
        route=route_name(route),
        n=route.length,
    )


def ticket_label(t: TicketSpec) -> Message:
    return plural(
        "{ticket} ({n} point)",
        "{ticket} ({n} points)",
        "n",
        ticket=ticket_name(t),
        n=t.points,
    )


def payments(colour: str, length: int, locos_needed: int) -> list[dict[str, int]]:
    """Every set of ``length`` cards that pays for a space of this colour: one colour (any, for
    grey) plus locomotives, at least ``locos_needed`` of them (ferries)."""
    colours = [c for c in tc.KINDS if c != LOCOMOTIVE] if colour in ("grey", "any") else [colour]
    found: list[dict[str, int]] = []
    for c in colours:
        for locos in range(locos_needed, length):
            found.append({c: length - locos, **({LOCOMOTIVE: locos} if locos else {})})
    found.append({LOCOMOTIVE: length})
    return found


def _key(cards: dict[str, int]) -> str:
    return "+".join(f"{n}{kind}" for kind, n in cards.items())


def choices(state: TtrState, viewer: int | None = None) -> tuple[Choice, ...]:
    """The tree for ``state``; ``viewer`` adds that player's secret choices (tickets kept)."""
    if state.phase == "over":
        return tuple(_reveal_face_up(state)) if state.face_up_due else ()
    if state.face_up_due:
        # "LÍZNUTÍ KARET VAGÓNŮ": a card taken face up is replaced at once; nothing else first
        # (the set-up ticket choice goes on meanwhile)
        return (*_reveal_face_up(state), *(_setup(state, viewer) if state.phase == "setup" else ()))
    if state.phase == "setup":
        return _setup(state, viewer)
    t = state.tunnel
    if t is not None:
        if len(t.revealed) < t.reveal:
            declare = _declare(state, viewer)
            return (*declare, *_reveal_tunnel(state))
        return _pay_tunnel(state)
    if state.ticket_draw is not None:
        return _ticket_draw(state, viewer)
    return _turn(state)


# -- cards turned face up, tunnel cards -------------------------------------------------------
def _turnable(state: TtrState, kind_action: Callable[[str], Action]) -> list[tuple[str, Action]]:
    """The kinds a card turned from the deck can still be: every card exists once ("OBSAH
    BALENÍ": 12 of each colour, 14 locomotives), so a kind all seen elsewhere is not offered
    (after a reshuffle too, when the cards that made the new deck may since have been drawn
    blind and played)."""
    seen = seen_cards(state)
    if state.deck == 0:
        # the discards are shuffled into a new deck before the card is turned
        seen = tc.sub(seen, state.discard)
    return [
        (k, kind_action(k))
        for k in tc.KINDS
        if seen[tc.INDEX[k]] < tc.FULL_DECK[tc.INDEX[k]] and _ok(state, kind_action(k))
    ]


def _reveal_face_up(state: TtrState) -> tuple[Choice, ...]:
    options = _turnable(state, lambda k: Action("reveal_face_up", None, {"cards": [k]}))
    if not options:
        return ()
    leaves = tuple(
        Choice(k, card_name(k), None, action=a, swatches=(swatch(k),)) for k, a in options
    )
    label = plural(
        "Turn a card face up ({n} to turn)",
        "Turn a card face up ({n} to turn)",
        "n",
        n=state.face_up_due,
    )
    return (Choice("face-up", label, None, children=leaves),)


def _reveal_tunnel(state: TtrState) -> tuple[Choice, ...]:
    t = state.tunnel
    assert t is not None
    options = _turnable(state, lambda k: Action("reveal_tunnel", t.player, {"cards": [k]}))
    leaves = tuple(
        Choice(k, card_name(k), t.player, action=a, swatches=(swatch(k),)) for k, a in options
    )
    if not leaves:
        return ()
    label = msg(
        "Tunnel {route}: card {n} of {of} turned over",
        route=route_name(ROUTE_BY_ID[t.route]),
        n=len(t.revealed) + 1,
        of=t.reveal,
    )
    return (Choice("tunnel-card", label, t.player, children=leaves),)


def _declare(state: TtrState, viewer: int | None) -> tuple[Choice, ...]:
    """ "TUNELY": before the first card is turned the claimant may tell Trackside the rest of
    their hand, for their own odds (cards in hand lie face down: only in their own view). The
    hand is told as staged choices, a kind at a time ("how many red?"), each count one the hand
    can hold (at least the cards seen going in, at most those plus the ones not seen anywhere,
    the rest still fitting); a kind whose count is forced is filled in without a tap."""
    t = state.tunnel
    if t is None or viewer != t.player or t.revealed or t.declared is not None:
        return ()
    me = state.players[t.player]
    unseen = _unseen(state)
    low = me.known
    high = tuple(k + u for k, u in zip(me.known, unseen, strict=True))
    if not sum(low) <= me.hand <= sum(high):
        return ()  # the table's counts cannot make this hand: nothing to offer
    label = msg("{player}: tell your cards in hand (for your own odds)", player=me.name)
    return (
        Choice(
            "declare",
            label,
            t.player,
            children=lambda: _declare_stage(state, t.player, (), low, high),
        ),
    )


def _declare_stage(
    state: TtrState, p: int, fixed: tuple[int, ...], low: tc.Cards, high: tc.Cards
) -> tuple[Choice, ...]:
    """The counts the next kind can have, given the counts ``fixed`` so far (kinds in
    :data:`~companion.games.ticket_to_ride_europe.cards.KINDS` order)."""
    hand = state.players[p].hand
    fixed, options = _forced(fixed, low, high, hand)
    i = len(fixed)
    if i == len(tc.KINDS):
        action = Action("declare_hand", p, {"cards": tc.to_json(fixed)})
        if not _ok(state, action):
            return ()
        return (Choice("told", _told(fixed), p, action=action),)
    found: list[Choice] = []
    kind = tc.KINDS[i]
    for n in options:
        step = (*fixed, n)
        after, _ = _forced(step, low, high, hand)
        label = msg("{n}× {card}", n=n, card=card_name(kind))
        if len(after) == len(tc.KINDS):
            action = Action("declare_hand", p, {"cards": tc.to_json(after)})
            if _ok(state, action):
                found.append(
                    Choice(f"{kind}-{n}", _told(after), p, action=action, swatches=(swatch(kind),))
                )
            continue
        found.append(
            Choice(
                f"{kind}-{n}",
                label,
                p,
                children=_later_stage(state, p, step, low, high),
                swatches=(swatch(kind),),
            )
        )
    return tuple(found)


def _later_stage(
    state: TtrState, p: int, fixed: tuple[int, ...], low: tc.Cards, high: tc.Cards
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _declare_stage(state, p, fixed, low, high)


def _forced(
    fixed: tuple[int, ...], low: tc.Cards, high: tc.Cards, hand: int
) -> tuple[tuple[int, ...], list[int]]:
    """``fixed`` extended by every kind whose count has one possible value, and the possible
    counts of the first kind that has more (empty when all are fixed)."""
    while len(fixed) < len(tc.KINDS):
        i = len(fixed)
        left = hand - sum(fixed)
        rest_low, rest_high = sum(low[i + 1 :]), sum(high[i + 1 :])
        options = [n for n in range(low[i], high[i] + 1) if rest_low <= left - n <= rest_high]
        if len(options) != 1:
            return fixed, options
        fixed = (*fixed, options[0])
    return fixed, []


def _told(cards: tuple[int, ...]) -> Message:
    """The whole hand told, as its last choice reads: "3× red, 1× locomotive"."""
    told = tc.to_json(cards)
    if not told:
        return msg("no card in hand")
    return cards_text(told)


def _pay_tunnel(state: TtrState) -> tuple[Choice, ...]:
    t = state.tunnel
    assert t is not None
    name = state.players[t.player].name
    pays = tunnel_payments(state)
    found: list[Choice] = []
    for pay in pays:
        action = Action("pay_tunnel", t.player, {"cards": pay})
        if _pays(state, t.player, action):
            label = msg("{player}: pay {cards}", player=name, cards=cards_label(pay))
            found.append(
                Choice("pay-" + _key(pay), label, t.player, action=action, swatches=swatches(pay))
            )
    withdraw = Action("withdraw_tunnel", t.player)
    if _ok(state, withdraw):
        found.append(
            Choice(
                "withdraw",
                msg("{player}: withdraw, take the cards back", player=name),
                t.player,
                action=withdraw,
            )
        )
    return tuple(found)


# -- tickets ----------------------------------------------------------------------------------
def _keep(state: TtrState, player: int) -> Choice | None:
    name = state.players[player].name
    found = []
    for t in sorted(TICKETS, key=lambda t: (english_city(t.a), english_city(t.b))):
        action = Action("keep_ticket", player, {"ticket": t.id})
        if _ok(state, action):
            found.append(Choice(t.id, ticket_label(t), player, action=action))
    if not found:
        return None
    return Choice(
        "keep", msg("{player}: keep a ticket", player=name), player, children=tuple(found)
    )


def _done(state: TtrState, player: int) -> Choice | None:
    action = Action("done_tickets", player)
    if not _ok(state, action):
        return None
    name = state.players[player].name
    return Choice(
        f"done-{player}",
        msg("{player}: done choosing tickets", player=name),
        player,
        action=action,
    )


def _setup(state: TtrState, viewer: int | None) -> tuple[Choice, ...]:
    # "ZAČÁTEK HRY": every player keeps at least two of the tickets dealt, at the same time
    found: list[Choice] = []
    for i, p in enumerate(state.players):
        if p.ready:
            continue
        if viewer == i:
            keep = _keep(state, i)
            if keep is not None:
                found.append(keep)
        done = _done(state, i)
        if done is not None:
            found.append(done)
    return tuple(found)


def _ticket_draw(state: TtrState, viewer: int | None) -> tuple[Choice, ...]:
    d = state.ticket_draw
    assert d is not None
    found: list[Choice] = []
    if viewer == d.player:
        keep = _keep(state, d.player)
        if keep is not None:
            found.append(keep)
    done = _done(state, d.player)
    if done is not None:
        found.append(done)
    return tuple(found)


# -- a turn -----------------------------------------------------------------------------------
def _turn(state: TtrState) -> tuple[Choice, ...]:
    p = state.turn
    name = state.players[p].name
    found: list[Choice] = []
    draw = _draw(state, p)
    if draw:
        label = (
            msg("{player}: second train card", player=name)
            if state.cards_drawn
            else msg("{player}: draw train cards", player=name)
        )
        found.append(Choice("draw", label, p, children=draw))
    if state.cards_drawn:
        return tuple(found)
    claimable = _claimable(state, p, first_only=True)
    if claimable:
        found.append(
            Choice(
                "claim",
                msg("{player}: claim a route", player=name),
                p,
                children=lambda: _claim_by_city(state, p),
                by_name=True,
                # the first city is the first route's first city, its first route that route
                first=claimable[0][1].first,
            )
        )
    tickets = Action("draw_tickets", p)
    if _ok(state, tickets):
        found.append(
            Choice(
                "tickets",
                msg("{player}: draw destination tickets", player=name),
                p,
                action=tickets,
            )
        )
    stations = _stations(state, p, first_only=True)
    if stations:
        found.append(
            Choice(
                "station",
                msg("{player}: build a station", player=name),
                p,
                children=lambda: tuple(_stations(state, p, first_only=False)),
                by_name=True,  # cities: listed in the reader's collation, looked up by name
                first=stations[0].first,
            )
        )
    if not draw and not state.tickets_deck:
        # LÍZNUTÍ KARET VAGÓNŮ: no train card and no ticket left to draw; when the hand pays
        # for no route and no station either, the turn passes (rules._pass_turn)
        passing = Action("pass_turn", p)
        if _ok(state, passing):
            label = msg(
                "{player}: no route or station the hand can pay for: pass the turn", player=name
            )
            found.append(Choice("pass", label, p, action=passing))
    return tuple(found)


def _draw(state: TtrState, p: int) -> tuple[Choice, ...]:
    found: list[Choice] = []
    for kind in dict.fromkeys(c for c in state.face_up if c is not None):
        action = Action("take_face_up", p, {"card": kind})
        if _ok(state, action):
            found.append(
                Choice(
                    kind,
                    msg("{card} (face up)", card=card_name(kind)),
                    p,
                    action=action,
                    swatches=(swatch(kind),),
                )
            )
    blind = Action("draw_blind", p)
    if _ok(state, blind):
        found.append(Choice("blind", msg("From the deck (blind)"), p, action=blind))
    return tuple(found)


_ROUTES_BY_NAME = sorted(ROUTES, key=lambda r: (english_city(r.a), english_city(r.b), r.colour))
"""The routes in the order the phone lists them (by their cities' names)."""


def _claim_by_city(state: TtrState, p: int) -> tuple[Choice, ...]:
    """Claiming among some ninety routes: first a city (every city one of the routes the hand
    can pay for starts or ends in), then the routes from it, then the payment. A route is
    under both its cities; its key is the same under each."""
    routes = _claimable(state, p, first_only=False)
    cities: dict[str, list[Choice]] = {}
    for route, choice in routes:
        for city in (route.a, route.b):
            cities.setdefault(city, []).append(choice)
    return tuple(
        Choice(
            city,
            city_name(city),
            p,
            children=tuple(found),
            by_name=True,
        )
        for city, found in cities.items()
    )


def _claimable(state: TtrState, p: int, *, first_only: bool) -> list[tuple[RouteSpec, Choice]]:
    found: list[tuple[RouteSpec, Choice]] = []
    seen_refs: set[str] = set()
    unseen = _unseen(state)
    for route in _ROUTES_BY_NAME:
        ref = route_ref(route)
        if ref in seen_refs:
            continue  # the twin grey ferries are one choice
        if not route_open(state, p, route):
            continue  # claimed, a double route's partner, too few trains: no card helps
        # the hand first (cheap), then the engine itself for each payment the hand allows
        pays = payments(route.colour, route.length, route.ferry_locomotives)
        held = _held(state, p, pays, unseen)
        claim = _claim_maker(p, ref)  # the actions made when needed: some ninety routes
        first = next((a for pay in held if _ok(state, a := claim(pay))), None)
        if first is None:
            continue
        seen_refs.add(ref)
        found.append(
            (
                route,
                Choice(
                    ref.replace(":", "-"),
                    route_label(route),
                    p,
                    children=_payment_children(state, p, held, claim),
                    swatches=(swatch(route.colour),),
                    first=first,
                ),
            )
        )
        if first_only:
            break
    return found


def _claim_maker(p: int, ref: str) -> Callable[[dict[str, int]], Action]:
    return lambda pay: Action("claim_route", p, {"route": ref, "cards": pay})


def _payment_children(
    state: TtrState, p: int, pays: list[dict[str, int]], make: Callable[[dict[str, int]], Action]
) -> Callable[[], tuple[Choice, ...]]:
    """The payments of ``pays`` (each one the hand could hold) that the engine accepts, each
    ``make``'s action."""

    def build() -> tuple[Choice, ...]:
        found = []
        for action in map(make, pays):
            if _ok(state, action):
                cards = dict(action.arg("cards"))
                found.append(
                    Choice(
                        _key(cards), cards_label(cards), p, action=action, swatches=swatches(cards)
                    )
                )
        return tuple(found)

    return build


def _station_maker(p: int, city: str) -> Callable[[dict[str, int]], Action]:
    return lambda pay: Action("build_station", p, {"city": city, "cards": pay})


def _stations(state: TtrState, p: int, *, first_only: bool) -> list[Choice]:
    built = len(state.players[p].stations)
    if built >= STATIONS_PER_PLAYER:
        return []
    pays = payments("any", STATION_COSTS[built], 0)
    held = _held(state, p, pays, _unseen(state))  # the same cards pay in every city
    if not held:
        return []
    found: list[Choice] = []
    for c in sorted(CITIES, key=lambda c: c.name):
        station = _station_maker(p, c.id)
        first = next((a for pay in held if _ok(state, a := station(pay))), None)
        if first is None:
            continue
        found.append(
            Choice(
                c.id,
                msg("Station in {city}", city=city_name(c.id)),
                p,
                children=_payment_children(state, p, held, _station_maker(p, c.id)),
                first=first,
            )
        )
        if first_only:
            break
    return found
