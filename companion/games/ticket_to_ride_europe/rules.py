"""Ticket to Ride: Europe at a real table: the state Trackside keeps, every action with its rule
checks, the tunnel draw with its exact odds, and the scoring.

Rulebook: "Jízdenky, prosím! Evropa" (Czech, then the same rules in Slovak); the sections cited
below are the Czech headings, and refusals cite them by title (``names.S_*``, translated per
reader). Every word a player reads is a message (``companion.core.messages``): names, not ids
or indices. Hidden things stay hidden: a card drawn blind is
only counted, never guessed; what everyone has seen (face-up cards, discards, cards laid for a
tunnel, cards taken face-up) is tracked exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice, accepts
from companion.core.errors import IllegalActionError, SnapshotError, UnknownComponentError
from companion.core.game import Component, PlayerSpec, TurnStatus
from companion.core.jsonvalue import JsonObject, JsonValue, thaw
from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.core.problems import Problem
from companion.core.public import PublicView
from companion.core.records import evolve
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet
from companion.core.snapshot import Field
from companion.games.ticket_to_ride_europe import cards as tc
from companion.games.ticket_to_ride_europe.board import (
    CITIES,
    CITY_BY_ID,
    LOCOMOTIVE,
    ROUTE_BY_ID,
    ROUTE_POINTS,
    ROUTES,
    STATION_COSTS,
    STATIONS_PER_PLAYER,
    TICKETS,
    TRAINS_PER_PLAYER,
    RouteSpec,
)
from companion.games.ticket_to_ride_europe.final import (
    CATEGORIES,
    LABELS,
    Holding,
    final_sheet,
    route_ref,
)
from companion.games.ticket_to_ride_europe.names import (
    S_CLAIM,
    S_CONTENTS,
    S_DOUBLE,
    S_DOUBLE_FEW,
    S_DRAW,
    S_END,
    S_FERRY,
    S_LOCO,
    S_SETUP,
    S_START,
    S_STATION,
    S_TICKETS,
    S_TUNNEL,
    S_TURN,
    cards_text,
    city_name,
    colour_name,
    route_name,
    swatch,
    ticket_name,
)
from companion.games.ticket_to_ride_europe.notation import (
    FORMAT,
    GAME_NAME,
    ROUTES_BY_PAIR,
    TICKET_BY_PAIR,
    city,
    parse_end_snapshot,
    parse_players,
    route_candidates,
    ticket,
)

# Rules in words, used by several refusals
_R_TUNNEL_DRAW = msg("a tunnel: lay the cards, turn over three from the deck, then pay or withdraw")
_R_ONCE = msg("every card exists once: 12 of each colour and 14 locomotives")
_R_ONE_ACTION = msg("one action per turn")
_R_PLAYERS = msg("only the players at the table play")

FACE_UP_SLOTS = 5
HAND_AT_START = 4  # "PŘÍPRAVA HRY": each player is dealt 4 train cards
REGULAR_TICKETS = sum(1 for t in TICKETS if not t.long)
TICKETS_AT_START = 3  # regular tickets dealt to each player, plus one long one
KEEP_AT_START = 2  # "ZAČÁTEK HRY": keep at least two
TICKETS_PER_DRAW = 3  # "LÍZNUTÍ KARET CÍLOVÝCH STANIC"
LAST_ROUND_TRAINS = 2  # "KONEC HRY": 2 or fewer trains left at the end of a turn
FACE_UP_LOCOMOTIVE_LIMIT = 3  # "LÍZNUTÍ KARET VAGÓNŮ": three face-up locomotives → new five
DOUBLE_ROUTES_ONE_ONLY_UP_TO = 3  # players; "DŮLEŽITÁ POZNÁMKA"

PHASES = ("setup", "play", "over")
_PHASES: dict[str, Message] = {
    "setup": msg("Choosing tickets", context="phase"),
    "play": msg("Playing", context="phase"),
    "tunnel": msg("Tunnel", context="phase"),
    "tickets": msg("Drawing destination tickets", context="phase"),
    "over": msg("Game over", context="phase"),
}
_COUNTED_AT_THE_END = msg(
    "Counted at the end of the game, when everyone shows their destination tickets."
)


def _last_round(state: TtrState, waiting: Message) -> Message:
    """ "KONEC HRY": once the last round started, the status says how many turns are left."""
    if state.final_turns is None:
        return waiting
    return plural(
        "{waiting} (last round: {n} turn left)",
        "{waiting} (last round: {n} turns left)",
        "n",
        waiting=waiting,
        n=state.final_turns,
    )


@dataclass(frozen=True, slots=True)
class PlayerTable:
    """One player's part of the table."""

    name: str
    routes: tuple[str, ...] = ()
    stations: tuple[str, ...] = ()
    tickets: tuple[str, ...] = ()
    hand: int = HAND_AT_START
    known: tc.Cards = tc.NONE
    """Cards the table has seen go into this hand (taken face-up, or back from a tunnel)."""
    ready: bool = False
    """Set-up ticket choice made."""

    @property
    def trains(self) -> int:
        return TRAINS_PER_PLAYER - sum(ROUTE_BY_ID[r].length for r in self.routes)


@dataclass(frozen=True, slots=True)
class Tunnel:
    """A tunnel claim in progress ("TUNELY"): cards laid, cards turned so far."""

    player: int
    route: str
    played: tc.Cards
    reveal: int
    """How many cards are turned: three, or what the deck and discards still have."""
    revealed: tuple[str, ...] = ()
    declared: tc.Cards | None = None
    """The rest of the player's hand, when the player declared it (sharpens the odds)."""

    @property
    def extra(self) -> int:
        return tc.extra_needed(self.played, self.revealed)


@dataclass(frozen=True, slots=True)
class TunnelVerdict:
    """The last tunnel's verdict, once its cards were all turned ("TUNELY"): how many more
    cards ``player`` owes for ``route`` (0: claimed at once). ``number`` counts the tunnels
    turned in the game (1, 2, …), so the announcement of each one has its own key. It stays
    until the next turn begins (a screen or an LED strip announces it once)."""

    player: int
    route: str
    extra: int
    number: int


@dataclass(frozen=True, slots=True)
class TicketDraw:
    """Destination tickets being chosen: ``offered`` drawn, ``kept`` so far."""

    player: int
    offered: int
    kept: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TtrState:
    players: tuple[PlayerTable, ...]
    deck: int
    """Train cards in the draw pile."""
    tickets_deck: int
    phase: str = "setup"
    turn: int = 0
    cards_drawn: int = 0
    """Train cards already taken this turn (0 or 1)."""
    face_up: tuple[str | None, ...] = (None,) * FACE_UP_SLOTS
    face_up_due: int = FACE_UP_SLOTS
    """Cards the table must turn face up now (after a take, at setup, after three locos)."""
    discard: tc.Cards = tc.NONE
    deck_pool: tc.Cards | None = None
    """After a reshuffle: what the deck was made of, minus the cards turned from it since
    (cards drawn blind stay in, unknown). None before the first reshuffle, when the deck's cards
    are any of the unseen ones."""
    final_turns: int | None = None
    """Turns left once the last round was triggered ("KONEC HRY")."""
    tunnel: Tunnel | None = None
    ticket_draw: TicketDraw | None = None
    passes: int = 0
    """Turns passed in a row by players who could do nothing (:func:`_pass_turn`)."""
    tunnels: int = 0
    """Tunnels whose cards were all turned so far (the last one's :class:`TunnelVerdict`
    numbers it)."""
    tunnel_verdict: TunnelVerdict | None = None


_UNSURE = "unsure"  # the camera's word for a card it could not read (vision.palette.UNSURE)


def _reading(colours: Sequence[str]) -> Message:
    """The camera's reading in its order (left to right), a card it is not sure of as "?":
    "red, ?, green" (the cards beside it show the players which card that is)."""
    return join_texts([colour_name(c) if c != _UNSURE else "?" for c in colours], ", ")


def _unsure_prompt(colours: Sequence[str]) -> Prompt:
    """The camera is not sure of some of the cards ``colours`` it read: the table enters them
    (the question shows the reading, so the players see which ones it missed)."""
    unsure = sum(c == _UNSURE for c in colours)
    if unsure == len(colours):
        return Prompt(
            plural(
                "The camera is not sure of the card: enter it on the table page.",
                "The camera is not sure of any of the {n} cards: enter them on the table page.",
                "n",
                n=unsure,
            )
        )
    return Prompt(
        plural(
            "The camera read {cards}, but is not sure of the card marked “?”: enter it on the "
            "table page.",
            "The camera read {cards}, but is not sure of the {n} cards marked “?”: enter them "
            "on the table page.",
            "n",
            cards=_reading(colours),
            n=unsure,
        )
    )


def _refuse(message: Text, rule: Text, section: Text) -> IllegalActionError:
    return IllegalActionError(message, rule=rule, section=section)


def _cards(cards: tc.Cards) -> Message:
    return cards_text(tc.to_json(cards))


# -- what the table has seen ------------------------------------------------------------------
def seen_cards(state: TtrState) -> tc.Cards:
    """Every card whose kind the table knows and that is not in the deck."""
    seen = tc.add(state.discard, tc.cards_of(c for c in state.face_up if c is not None))
    for p in state.players:
        seen = tc.add(seen, p.known)
    if state.tunnel is not None:
        seen = tc.add(seen, tc.add(state.tunnel.played, tc.cards_of(state.tunnel.revealed)))
    return seen


def unseen_pool(state: TtrState, declared: tc.Cards | None = None, player: int = 0) -> tc.Cards:
    """The cards the deck's next cards are drawn from, as far as the table knows."""
    if state.deck_pool is not None:
        return state.deck_pool
    pool = tc.sub(tc.FULL_DECK, seen_cards(state))
    if declared is not None:
        pool = tc.sub(pool, tc.sub(declared, state.players[player].known))
    return pool


def tunnel_odds(
    state: TtrState, *, with_hand: bool = True
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """Exact P(0, 1, 2, 3 extra cards) for the tunnel being claimed, given the cards turned so
    far (before any is turned: the odds the player sees before committing). ``with_hand``: the
    claimant's own odds, their declared hand left out of the deck; without it, the onlookers'
    (who cannot see that hand: it may be in the deck as far as they know)."""
    t = state.tunnel
    if t is None:
        raise _refuse(msg("No tunnel is being claimed."), _R_TUNNEL_DRAW, S_TUNNEL)
    pool = unseen_pool(state, t.declared if with_hand else None, t.player)
    return tc.extra_odds(
        t.played,
        pool,
        state.deck,
        state.discard,
        to_turn=t.reveal - len(t.revealed),
        already=t.extra,
    )


def percent(p: Fraction) -> str:
    """A probability for people: "46 %" (rounded half up), never "0 %" for a chance that
    exists nor "100 %" for one that may fail: "<1 %", ">99 %"."""
    if p in (0, 1):
        return f"{int(p * 100)} %"
    whole = int(p * 100 + Fraction(1, 2))
    if whole < 1:
        return "<1 %"
    if whole > 99:
        return ">99 %"
    return f"{whole} %"


def format_odds(odds: Sequence[Fraction]) -> Message:
    """ "no extra card: 46 %, 1 extra card: 41 %, …" for people."""
    parts: list[Text] = [msg("no extra card: {percent}", percent=percent(odds[0]))]
    parts += [
        plural(
            "{n} extra card: {percent}",
            "{n} extra cards: {percent}",
            "n",
            n=n,
            percent=percent(p),
        )
        for n, p in enumerate(odds)
        if n
    ]
    return join_texts(parts, ", ")


def odds_json(odds: Sequence[Fraction]) -> JsonObject:
    """Odds for the JSON: the exact fractions ("82160/176851") and the rounded percentages."""
    return {
        "exact": [f"{p.numerator}/{p.denominator}" for p in odds],
        "percent": [percent(p) for p in odds],
    }


# -- the deck ---------------------------------------------------------------------------------
def _reshuffle_if_empty(state: TtrState) -> TtrState:
    """ "LÍZNUTÍ KARET VAGÓNŮ": "Jakmile je balíček karet dolízan, odhozené karty se zamíchají a
    vytvoří se z nich nový balíček" — *as soon as* the deck runs out, the discards are shuffled
    into a new one. Called right after every card taken from the deck, so cards discarded later
    stay in the discards; and before a draw, for a deck that ran out while the discards were
    empty (they are shuffled once there are some)."""
    if state.deck == 0 and tc.total(state.discard):
        return evolve(state, deck=tc.total(state.discard), deck_pool=state.discard, discard=tc.NONE)
    return state


def _turn_card(state: TtrState, kind: str, why: Message) -> TtrState:
    """The top card of the deck is turned face up and read as ``kind``."""
    state = _reshuffle_if_empty(state)
    if state.deck == 0:
        raise _refuse(
            msg("No card is left to turn over for {what}.", what=why),
            msg("the deck and the discards are empty"),
            S_DRAW,
        )
    i = tc.INDEX[kind]
    if state.deck_pool is not None:
        if state.deck_pool[i] == 0:
            raise _refuse(
                msg(
                    "A {card} card cannot be in the deck: the reshuffled deck had none left.",
                    card=colour_name(kind),
                ),
                _R_ONCE,
                S_DRAW,
            )
        pool = list(state.deck_pool)
        pool[i] -= 1
        return _reshuffle_if_empty(evolve(state, deck=state.deck - 1, deck_pool=tuple(pool)))
    if seen_cards(state)[i] >= tc.FULL_DECK[i]:
        raise _refuse(
            msg(
                "A {card} card cannot be in the deck: all {n} of them are already on the table.",
                card=colour_name(kind),
                n=tc.FULL_DECK[i],
            ),
            _R_ONCE,
            S_DRAW,
        )

    return _reshuffle_if_empty(evolve(state, deck=state.deck - 1))


def _cards_left(state: TtrState) -> int:
    return state.deck + tc.total(state.discard)


def _refill_due(state: TtrState) -> TtrState:
    empty = sum(1 for c in state.face_up if c is None)
    return evolve(state, face_up_due=min(empty, _cards_left(state)))


def _check_three_locomotives(state: TtrState) -> TtrState:
    """ "LÍZNUTÍ KARET VAGÓNŮ": three face-up locomotives → all five are discarded and replaced."""
    if state.face_up_due or state.face_up.count(LOCOMOTIVE) < FACE_UP_LOCOMOTIVE_LIMIT:
        return state
    shown = tc.cards_of(c for c in state.face_up if c is not None)
    # The rulebook: the five are "nahrazeno pěti novými kartami", replaced by five new cards. It
    # is silent on a wipe that cannot help; our reading (documented in the format doc): when
    # the five cards that would be turned next are certain to show three locomotives again,
    # the wipe would only repeat, for ever, so the five stay, as a table would leave them.
    # The next five are the deck's top cards (the deck as far as the table knows it: empty
    # when no card is left in it, the new deck's cards after a reshuffle, else every unseen
    # card), then, once it runs out, the discards with these five shuffled in. With ten cards
    # left, six of them locomotives in two fives of three, the wipes swapped the two fives
    # for ever; the deck's five are known after the first wipe, and the second one stays.
    if state.deck == 0:
        deck_bound = tc.NONE
    elif state.deck_pool is not None:
        deck_bound = state.deck_pool
    else:
        deck_bound = tc.sub(tc.FULL_DECK, seen_cards(state))
    from_deck = min(FACE_UP_SLOTS, state.deck)
    reshuffled = tc.add(state.discard, shown)
    others = min(from_deck, tc.total(deck_bound) - deck_bound[tc.LOCO]) + min(
        FACE_UP_SLOTS - from_deck, tc.total(reshuffled) - reshuffled[tc.LOCO]
    )
    if others < FACE_UP_SLOTS - FACE_UP_LOCOMOTIVE_LIMIT + 1:
        return state
    state = evolve(state, face_up=(None,) * FACE_UP_SLOTS, discard=tc.add(state.discard, shown))
    return _refill_due(state)


def _update_player(state: TtrState, index: int, **changes: Any) -> TtrState:
    players = list(state.players)
    players[index] = evolve(players[index], **changes)
    return evolve(state, players=tuple(players))


def _route_owner(state: TtrState, route_id: str) -> int | None:
    for i, p in enumerate(state.players):
        if route_id in p.routes:
            return i
    return None


def _station_owner(state: TtrState, city_id: str) -> int | None:
    for i, p in enumerate(state.players):
        if city_id in p.stations:
            return i
    return None


# -- the game ---------------------------------------------------------------------------------
def _components() -> tuple[Component, ...]:
    # component names are the English names of the enrolment list (the table page's tag
    # labels); the words players read during a game come from the messages above
    from companion.games.ticket_to_ride_europe.final import city_name as english_city

    found: list[Component] = []
    for t in TICKETS:
        name = f"Ticket {english_city(t.a)}–{english_city(t.b)} ({t.points})"
        found.append(Component(f"ticket:{t.id}", name, "destination-ticket"))
    for kind in tc.KINDS:
        found.append(Component(f"card:{kind}", f"Train card: {kind}", "train-card"))
    refs: list[str] = []
    for r in ROUTES:
        ref = route_ref(r)
        if ref not in refs:
            refs.append(ref)
            found.append(
                Component(
                    f"route:{ref}",
                    f"Route {english_city(r.a)}–{english_city(r.b)} ({r.colour}, {r.length})",
                    "route",
                )
            )
    for c in CITY_BY_ID.values():
        found.append(Component(f"station:{c.id}", f"Station in {c.name}", "station"))
    return tuple(found)


class TicketToRideEurope:
    name = GAME_NAME
    title = "Ticket to Ride: Europe"
    min_players = 2
    max_players = 5
    hidden = False
    components = _components()
    own_view_choices = frozenset({"keep", "declare"})
    """The top-level nodes a player's own view adds (tickets kept, the hand told for a tunnel's
    odds); every other node is the same in every view (``companion.service.table_choices``)."""
    private_actions = frozenset({"keep_ticket", "declare_hand"})
    """ "LÍZNUTÍ KARET CÍLOVÝCH STANIC": "Karty cílových stanic hráči neukazují ostatním až do
    závěrečného sčítání bodů" — which tickets a player keeps is their secret until the final
    scoring, however it was entered (a scanned ticket, the player's own page, the API); public
    surfaces show "Jana: keep ticket (private)" and how many tickets each holds. The cards in
    hand are face down too: a tunnel claimant's ``declare_hand`` (for their own exact odds) is
    theirs alone."""

    # -- set-up ---------------------------------------------------------------------------
    def setup(self, players: Sequence[PlayerSpec], options: Mapping[str, Any]) -> TtrState:
        if not self.min_players <= len(players) <= self.max_players:
            raise _refuse(
                plural(
                    "{n} player: the game is for 2 to 5 players.",
                    "{n} players: the game is for 2 to 5 players.",
                    "n",
                    n=len(players),
                ),
                msg("2 to 5 players"),
                S_CONTENTS,
            )
        names = [p.name for p in players]
        if len(set(names)) != len(names) or not all(n.strip() for n in names):
            raise _refuse(
                msg("Every player needs a name of their own."),
                msg("each player has a name"),
                S_SETUP,
            )
        Field(dict(options), "options").only()
        n = len(players)
        # "PŘÍPRAVA HRY": 4 cards to each player, five face up; 3 regular tickets each (the long
        # ones not dealt go back to the box)
        return TtrState(
            players=tuple(PlayerTable(name) for name in names),
            deck=sum(tc.FULL_DECK) - HAND_AT_START * n,
            tickets_deck=REGULAR_TICKETS - TICKETS_AT_START * n,
        )

    # -- actions --------------------------------------------------------------------------
    def apply(self, state: TtrState, action: Action) -> TtrState:
        # a card taken on the very last turn is still replaced on the table
        if state.phase == "over" and not (action.kind == "reveal_face_up" and state.face_up_due):
            raise _refuse(
                msg("The game is over."), msg("the game ends after the last round"), S_END
            )
        handler = _HANDLERS.get(action.kind)
        if handler is None:
            raise _refuse(
                msg("Ticket to Ride: Europe has no such move."),
                msg("a turn is one of four actions: train cards, a route, tickets or a station"),
                S_TURN,
            )
        args = Field(thaw(action.args), "args")
        if action.kind in _TURN_STARTS and state.tunnel_verdict is not None:
            state = evolve(state, tunnel_verdict=None)  # announced: the next turn is on
        return handler(state, action.player, args)

    # -- scans ----------------------------------------------------------------------------
    def interpret(self, state: TtrState, player: int | None, component: str) -> Action | Prompt:
        kind, _, ident = component.partition(":")
        if component not in _COMPONENT_IDS:
            raise UnknownComponentError(f"Ticket to Ride: Europe has no component {component!r}")
        if kind == "ticket":
            who = player
            if who is None:
                who = state.ticket_draw.player if state.ticket_draw else state.turn
            return Action("keep_ticket", who, {"ticket": ident})
        if kind == "card":
            if state.face_up_due:
                return Action("reveal_face_up", player, {"cards": [ident]})
            if state.tunnel is not None and len(state.tunnel.revealed) < state.tunnel.reveal:
                return Action("reveal_tunnel", player, {"cards": [ident]})
            who = state.turn if player is None else player
            if ident in state.face_up:
                return Action("take_face_up", who, {"card": ident})
            return Prompt(
                msg(
                    "No {card} card is face up: did {player} draw from the deck?",
                    card=colour_name(ident),
                    player=state.players[who].name,
                ),
                who,
                (Action("draw_blind", who),),
            )
        who = state.turn if player is None else player
        if kind == "route":
            return _claim_prompt(state, who, ident)
        return _station_prompt(state, who, ident)

    # -- moves in words -------------------------------------------------------------------
    def describe(self, action: Action, names: Sequence[str]) -> Message:
        """``action`` as a short sentence with the players' ``names`` ("Anna claims Madrid –
        Pamplona (black) with 3× black"); a private move names nothing hidden."""
        from companion.games.ticket_to_ride_europe.describe import describe

        return describe(action, names)

    def describe_private(self, action: Action, names: Sequence[str]) -> Message:
        """A private move in full, for its own player only (LÍZNUTÍ KARET CÍLOVÝCH STANIC:
        the tickets kept stay hidden from the others until the final scoring)."""
        from companion.games.ticket_to_ride_europe.describe import describe_private

        return describe_private(action, names)

    # -- what the table can enter now ---------------------------------------------------------

    def choices(self, state: TtrState, viewer: int | None = None) -> tuple[Choice, ...]:
        """The choices tree (see ``choices.py`` beside this module)."""
        from companion.games.ticket_to_ride_europe.choices import choices

        return choices(state, viewer)

    def interpret_cards(self, state: TtrState, colours: Sequence[str]) -> Action | Prompt:
        """The camera read train cards lying in its reveal area: the cards turned for a tunnel
        (S_TUNNEL), or the ones turned face up (S_DRAW). Unsure or surplus cards become a
        question for the table, never a guess: the question names the cards read, so that the
        players see at once which card the camera could not read, and for one such card its
        answers are the reveal with each kind of card in its place that the rules accept now
        (one tap on the table page)."""
        for colour in colours:
            if colour != _UNSURE and colour not in tc.INDEX:
                raise _refuse(
                    msg("The camera saw a card that is not a train card."),
                    msg("train cards come in eight colours, and locomotives"),
                    S_DRAW,
                )
        read = [colour for colour in colours if colour != _UNSURE]
        if state.tunnel is not None and len(state.tunnel.revealed) < state.tunnel.reveal:
            missing = state.tunnel.reveal - len(state.tunnel.revealed)
            if len(colours) != missing:
                return Prompt(
                    plural(
                        "The camera sees {seen} cards, the tunnel turns over {n}: check the "
                        "cards under the camera.",
                        "The camera sees {seen} cards, the tunnel turns over {n}: check the "
                        "cards under the camera.",
                        "n",
                        seen=len(colours),
                        n=missing,
                    )
                )
            kind = "reveal_tunnel"
        elif state.face_up_due:
            if len(colours) > state.face_up_due:
                return Prompt(
                    plural(
                        "The camera sees {seen} cards, but {n} card is to be turned face up.",
                        "The camera sees {seen} cards, but {n} cards are to be turned face up.",
                        "n",
                        seen=len(colours),
                        n=state.face_up_due,
                    )
                )
            kind = "reveal_face_up"
        elif read:
            return Prompt(
                msg(
                    "The camera saw {cards}, but no tunnel or face-up card is waiting.",
                    cards=cards_text(tc.to_json(tc.cards_of(read))),
                )
            )
        else:
            return _unsure_prompt(colours)
        if len(read) == len(colours):
            return Action(kind, None, {"cards": list(colours)})
        if len(colours) - len(read) == 1:
            answers = [
                (k, action)
                for k, action in (
                    (k, Action(kind, None, {"cards": [k if c == _UNSURE else c for c in colours]}))
                    for k in tc.KINDS
                )
                if accepts(self.apply, state, action)
            ]
            if answers:
                question = (
                    msg("The camera read {cards}: which card is the “?”?", cards=_reading(colours))
                    if read
                    else msg("The camera is not sure of the card: which is it?")
                )
                return Prompt(
                    question,
                    None,
                    tuple(action for _, action in answers),
                    tuple(colour_name(k) for k, _ in answers),
                    tuple(swatch(k) for k, _ in answers),
                )
        return _unsure_prompt(colours)

    # -- views ----------------------------------------------------------------------------
    def problems(self, state: TtrState) -> tuple[Problem, ...]:
        found: list[Problem] = []
        seen = seen_cards(state)
        for kind, n, limit in zip(tc.KINDS, seen, tc.FULL_DECK, strict=True):
            if n > limit:
                found.append(Problem("too_many_cards", f"{n} {kind} cards seen of {limit}", kind))
        for i, p in enumerate(state.players):
            if p.trains < 0:
                found.append(
                    Problem(
                        "too_many_trains", f"{p.name} placed more than 45 trains", f"players[{i}]"
                    )
                )
            if tc.total(p.known) > p.hand:
                found.append(
                    Problem("hand", f"{p.name} holds fewer cards than seen", f"players[{i}]")
                )
        if state.deck_pool is not None and tc.total(state.deck_pool) < state.deck:
            found.append(Problem("deck", "the deck is larger than what made it", "deck"))
        if state.phase == "over":  # every ticket is shown now ("neukazují ostatním" till then)
            holders: dict[str, list[str]] = {}
            for p in state.players:
                for t in p.tickets:
                    holders.setdefault(t, []).append(p.name)
            for t, names in holders.items():
                if len(names) > 1:
                    found.append(
                        Problem(
                            "ticket_twice",
                            f"the ticket {t} is entered for {' and '.join(names)}; it exists once",
                            f"tickets.{t}",
                        )
                    )
        return tuple(found)

    def is_over(self, state: TtrState) -> bool:
        return state.phase == "over"

    def public_view(self, state: TtrState) -> PublicView:
        """What the table sees (``companion.core.public``): every screen renders this."""
        from companion.games.ticket_to_ride_europe.public import public_view

        return public_view(self, state)

    def status(self, state: TtrState) -> TurnStatus:
        """What Trackside waits for, as the rest of the page's "Waiting for …" sentence."""
        n = len(state.players)
        if state.phase == "over":
            return TurnStatus(phase=_PHASES["over"], waiting_for="")
        if state.face_up_due:
            return TurnStatus(
                active_players=tuple(range(n)),
                phase=_PHASES[state.phase],
                waiting_for=plural(
                    "{n} card from the deck to be turned face up",
                    "{n} cards from the deck to be turned face up",
                    "n",
                    n=state.face_up_due,
                ),
            )
        if state.phase == "setup":
            undecided = tuple(i for i, p in enumerate(state.players) if not p.ready)
            names: list[Text] = [state.players[i].name for i in undecided]
            return TurnStatus(
                active_players=undecided,
                phase=_PHASES["setup"],
                waiting_for=msg(
                    "{players} to choose their destination tickets (each keeps at least two)",
                    players=join_texts(names, ", "),
                ),
            )
        t = state.tunnel
        name = state.players[state.turn].name
        waiting: Message
        if t is not None:
            if len(t.revealed) < t.reveal:
                odds = tunnel_odds(state, with_hand=False)  # the status is public
                waiting = plural(
                    "{player}'s tunnel {route}: turn over {n} card from the deck ({odds})",
                    "{player}'s tunnel {route}: turn over {n} cards from the deck ({odds})",
                    "n",
                    player=state.players[t.player].name,
                    route=route_name(t.route),
                    n=t.reveal - len(t.revealed),
                    odds=format_odds(odds),
                )
                return TurnStatus((t.player,), _PHASES["tunnel"], _last_round(state, waiting))
            waiting = plural(
                "{player} to pay {n} more card for the tunnel {route}, or to withdraw",
                "{player} to pay {n} more cards for the tunnel {route}, or to withdraw",
                "n",
                player=state.players[t.player].name,
                n=t.extra,
                route=route_name(t.route),
            )
            return TurnStatus(
                (t.player,),
                _PHASES["tunnel"],
                _last_round(state, waiting),
                prompt=_tunnel_prompt(state),
            )
        if state.ticket_draw is not None:
            d = state.ticket_draw
            waiting = plural(
                "{player} to keep the destination ticket drawn",
                "{player} to keep at least one of the {n} destination tickets drawn",
                "n",
                player=name,
                n=d.offered,
            )
            return TurnStatus((d.player,), _PHASES["tickets"], _last_round(state, waiting))
        waiting = (
            msg("{player} to take a second train card", player=name)
            if state.cards_drawn
            else msg("{player} to play a turn", player=name)
        )
        return TurnStatus((state.turn,), _PHASES["play"], _last_round(state, waiting))

    def score(self, state: TtrState) -> ScoreSheet:
        if state.phase == "over":
            return final_sheet(_holdings(state))
        # during play the score track shows route points only; the rest is counted at the end
        # ("POČÍTÁNÍ BODŮ")
        players = []
        for p in state.players:
            claimed: list[Text] = [route_name(r) for r in p.routes]
            lines = [
                ScoreLine(
                    "routes",
                    sum(ROUTE_POINTS[ROUTE_BY_ID[r].length] for r in p.routes),
                    plural(
                        "{n} route, {trains} trains left",
                        "{n} routes, {trains} trains left",
                        "n",
                        n=len(p.routes),
                        trains=p.trains,
                    ),
                    label=LABELS["routes"],
                    detail=(
                        msg("Routes claimed: {routes}.", routes=join_texts(claimed, ", "))
                        if claimed
                        else msg("No route claimed yet.")
                    ),
                )
            ]
            lines += [
                ScoreLine(
                    c,
                    0,
                    msg("counted at the end"),
                    label=LABELS[c],
                    detail=_COUNTED_AT_THE_END,
                )
                for c in CATEGORIES[1:]
            ]
            players.append(PlayerScore(p.name, tuple(lines)))
        return ScoreSheet(GAME_NAME, tuple(players), ())

    def score_snapshot(self, data: Any) -> ScoreSheet:
        doc = Field(data)
        if doc.obj().get("table") is not None:
            state = self.from_json(data)
            return final_sheet(_holdings(state))
        return final_sheet(parse_end_snapshot(data))

    # -- snapshot -------------------------------------------------------------------------
    def to_json(self, state: TtrState) -> JsonObject:
        tunnel: JsonObject | None = None
        if state.tunnel is not None:
            t = state.tunnel
            tunnel = {
                "player": t.player,
                "route": route_ref(ROUTE_BY_ID[t.route]),
                "played": dict(tc.to_json(t.played)),
                "reveal": t.reveal,
                "revealed": list(t.revealed),
                "declared": None if t.declared is None else dict(tc.to_json(t.declared)),
            }
        draw: JsonObject | None = None
        if state.ticket_draw is not None:
            d = state.ticket_draw
            draw = {"player": d.player, "offered": d.offered, "kept": list(d.kept)}
        return {
            "game": GAME_NAME,
            "format": FORMAT,
            "players": [
                {
                    "name": p.name,
                    "routes": [route_ref(ROUTE_BY_ID[r]) for r in p.routes],
                    "stations": list(p.stations),
                    "tickets": list(p.tickets),
                }
                for p in state.players
            ],
            "table": {
                "phase": state.phase,
                "turn": state.turn,
                "cards_drawn": state.cards_drawn,
                "face_up": list(state.face_up),
                "face_up_due": state.face_up_due,
                "deck": state.deck,
                "deck_pool": None if state.deck_pool is None else dict(tc.to_json(state.deck_pool)),
                "discard": dict(tc.to_json(state.discard)),
                "tickets_deck": state.tickets_deck,
                "final_turns": state.final_turns,
                "passes": state.passes,
                "hands": [
                    {"cards": p.hand, "known": dict(tc.to_json(p.known)), "ready": p.ready}
                    for p in state.players
                ],
                "tunnel": tunnel,
                "ticket_draw": draw,
                **_verdict_json(state),
            },
        }

    def public_json(self, state: TtrState) -> JsonObject:
        """What everyone at the table may see (the scoreboard, MQTT). Destination tickets are
        secret until they are revealed at the end ("KONEC HRY"): only how many each player
        holds is shown, and a ticket draw shows how many were kept, not which."""
        data = self.to_json(state)
        if self.is_over(state):
            return data
        players = data["players"]
        assert isinstance(players, list)
        for shown, player in zip(players, state.players, strict=True):
            assert isinstance(shown, dict)
            shown["tickets"] = []
            shown["tickets_held"] = len(player.tickets)
        table = data["table"]
        assert isinstance(table, dict)
        tunnel = state.tunnel
        if tunnel is not None and isinstance(table["tunnel"], dict):
            # the claimant's declared hand is theirs (their private view); the odds shown to
            # everyone are the onlookers'
            table["tunnel"]["declared"] = None
            if len(tunnel.revealed) < tunnel.reveal:
                table["tunnel"]["odds"] = odds_json(tunnel_odds(state, with_hand=False))
        if state.ticket_draw is not None:
            table["ticket_draw"] = {
                "player": state.ticket_draw.player,
                "offered": state.ticket_draw.offered,
                "kept": [],
                "kept_count": len(state.ticket_draw.kept),
            }
        return data

    def private_json(self, state: TtrState, player: int) -> JsonObject:
        """``player``'s own view (their PIN-protected page): the public view plus their own
        tickets, and the tickets they kept so far of a draw of theirs."""
        data = self.public_json(state)
        if self.is_over(state):
            return data
        players = data["players"]
        assert isinstance(players, list)
        mine = players[player]
        assert isinstance(mine, dict)
        me = state.players[player]
        mine["tickets"] = list(me.tickets)
        table = data["table"]
        assert isinstance(table, dict)
        draw = state.ticket_draw
        if draw is not None and draw.player == player and isinstance(table["ticket_draw"], dict):
            table["ticket_draw"]["kept"] = list(draw.kept)
        t = state.tunnel
        if t is not None and t.player == player and isinstance(table["tunnel"], dict):
            # the claimant's own exact odds, their declared hand out of the deck
            table["tunnel"]["declared"] = (
                None if t.declared is None else dict(tc.to_json(t.declared))
            )
            if len(t.revealed) < t.reveal:
                odds = tunnel_odds(state)
                table["tunnel"]["odds"] = odds_json(odds)
                # the page shows the English text until it renders the message per reader
                # (``your_tunnel_odds_message``: the same odds in each reader's language)
                mine["your_tunnel_odds"] = format_odds(odds).render()
                mine["your_tunnel_odds_message"] = format_odds(odds).to_json()

        data["viewer"] = player
        return data

    def from_json(self, data: Any) -> TtrState:
        doc = Field(data)
        doc.obj()
        doc.only("game", "format", "players", "table")
        if doc.get("game").str() != GAME_NAME:
            doc.get("game").fail(f"expected {GAME_NAME!r}")
        doc.get("format").int(lo=FORMAT, hi=FORMAT)
        holdings = parse_players(doc.get("players"))
        n = len(holdings)
        if n < self.min_players:
            doc.get("players").fail(f"{n} player(s); the game takes 2–5")
        table = doc.get("table")
        table.only(
            "phase",
            "turn",
            "cards_drawn",
            "face_up",
            "face_up_due",
            "deck",
            "deck_pool",
            "discard",
            "tickets_deck",
            "final_turns",
            "passes",
            "hands",
            "tunnel",
            "ticket_draw",
            "tunnels",
            "tunnel_verdict",
        )
        hands = table.get("hands").list()
        if len(hands) != n:
            table.get("hands").fail(f"one entry per player ({n}) expected, got {len(hands)}")
        players = []
        for h, hand in zip(holdings, hands, strict=True):
            hand.only("cards", "known", "ready")
            players.append(
                PlayerTable(
                    name=h.name,
                    routes=h.routes,
                    stations=h.stations,
                    tickets=tuple(t.id for t in h.tickets),
                    hand=hand.get("cards").int(lo=0, hi=sum(tc.FULL_DECK)),
                    known=tc.parse_cards(hand.get("known")),
                    ready=hand.get("ready").bool(),
                )
            )
        face_fields = table.get("face_up").list(max_len=FACE_UP_SLOTS)
        if len(face_fields) != FACE_UP_SLOTS:
            table.get("face_up").fail(f"five slots expected, got {len(face_fields)}")
        face_up = tuple(None if f.value is None else tc.parse_kind(f) for f in face_fields)
        pool_field = table.get("deck_pool")
        tunnel = None
        tunnel_field = table.get("tunnel")
        if tunnel_field.value is not None:
            tunnel_field.only("player", "route", "played", "reveal", "revealed", "declared")
            candidates = route_candidates(tunnel_field.get("route"))
            declared = tunnel_field.get("declared")
            tunnel = Tunnel(
                player=tunnel_field.get("player").int(lo=0, hi=n - 1),
                route=candidates[0].id,
                played=tc.parse_cards(tunnel_field.get("played")),
                reveal=tunnel_field.get("reveal").int(lo=0, hi=tc.TUNNEL_REVEAL),
                revealed=tc.card_list(tunnel_field.get("revealed"), max_len=tc.TUNNEL_REVEAL),
                declared=None if declared.value is None else tc.parse_cards(declared),
            )
        draw = None
        draw_field = table.get("ticket_draw")
        if draw_field.value is not None:
            draw_field.only("player", "offered", "kept")
            draw = TicketDraw(
                player=draw_field.get("player").int(lo=0, hi=n - 1),
                offered=draw_field.get("offered").int(lo=1, hi=TICKETS_PER_DRAW),
                kept=tuple(ticket(f).id for f in draw_field.get("kept").list(max_len=3)),
            )
        final = table.get("final_turns")
        state = TtrState(
            players=tuple(players),
            deck=table.get("deck").int(lo=0, hi=sum(tc.FULL_DECK)),
            tickets_deck=table.get("tickets_deck").int(lo=0, hi=REGULAR_TICKETS),
            phase=table.get("phase").str(frozenset(PHASES)),
            turn=table.get("turn").int(lo=0, hi=n - 1),
            cards_drawn=table.get("cards_drawn").int(lo=0, hi=1),
            face_up=face_up,
            face_up_due=table.get("face_up_due").int(lo=0, hi=FACE_UP_SLOTS),
            discard=tc.parse_cards(table.get("discard")),
            deck_pool=None if pool_field.value is None else tc.parse_cards(pool_field),
            final_turns=None if final.value is None else final.int(lo=0, hi=n),
            tunnel=tunnel,
            ticket_draw=draw,
            passes=table.get("passes", 0).int(lo=0, hi=n - 1),
            **_verdict_from(table, n),
        )
        _check_card_count(state, table)
        return state


def _verdict_json(state: TtrState) -> JsonObject:
    """The optional ``tunnels`` and ``tunnel_verdict`` fields: left out before any tunnel."""
    if not state.tunnels:
        return {}
    v = state.tunnel_verdict
    verdict: JsonValue = None
    if v is not None:
        verdict = {
            "player": v.player,
            "route": route_ref(ROUTE_BY_ID[v.route]),
            "extra": v.extra,
            "number": v.number,
        }
    return {"tunnels": state.tunnels, "tunnel_verdict": verdict}


def _verdict_from(table: Field, n: int) -> dict[str, Any]:
    tunnels = table.get("tunnels", 0).int(lo=0, hi=10_000)  # a bound, not a rule
    field = table.get("tunnel_verdict", None)
    if field.value is None:
        return {"tunnels": tunnels, "tunnel_verdict": None}
    field.only("player", "route", "extra", "number")
    verdict = TunnelVerdict(
        player=field.get("player").int(lo=0, hi=n - 1),
        route=route_candidates(field.get("route"))[0].id,
        extra=field.get("extra").int(lo=0, hi=tc.TUNNEL_REVEAL),
        number=field.get("number").int(lo=1, hi=max(1, tunnels)),
    )
    return {"tunnels": tunnels, "tunnel_verdict": verdict}


def _check_card_count(state: TtrState, table: Field) -> None:
    """ "OBSAH BALENÍ": 110 train cards (12 of each of eight colours, 14 locomotives). Every
    one of them is somewhere: in the deck, the discards, face up, in a hand or on a tunnel
    being claimed; a table whose places do not add up to 110 is refused, the count named."""
    where = {
        "deck": state.deck,
        "discard": tc.total(state.discard),
        "face_up": sum(1 for c in state.face_up if c is not None),
        "hands": sum(p.hand for p in state.players),
    }
    if state.tunnel is not None:
        where["tunnel"] = tc.total(state.tunnel.played) + len(state.tunnel.revealed)
    total = sum(where.values())
    full = sum(tc.FULL_DECK)
    if total != full:
        parts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in where.items())
        table.fail(
            f"the train cards add up to {total} ({parts}), but the game has {full} "
            "(OBSAH BALENÍ: «110 karet vagonů: 12 od každého druhu a 14 lokomotiv»)"
        )


def _holdings(state: TtrState) -> list[Holding]:
    by_id = {t.id: t for t in TICKETS}
    return [
        Holding(p.name, p.routes, p.stations, tuple(by_id[t] for t in p.tickets))
        for p in state.players
    ]


_COMPONENT_IDS = frozenset(c.id for c in TicketToRideEurope.components)


# -- turn order -------------------------------------------------------------------------------
def _end_turn(state: TtrState) -> TtrState:
    """The turn ends: tunnel cards go to the discards, the last round is counted."""
    if state.tunnel is not None:
        t = state.tunnel
        state = evolve(
            state,
            discard=tc.add(state.discard, tc.cards_of(t.revealed)),
            tunnel=None,
        )
    mover = state.players[state.turn]
    final = state.final_turns
    # "KONEC HRY": 2 or fewer trains at the end of a turn → everyone, this player included,
    # plays one more turn
    if final is None:
        if mover.trains <= LAST_ROUND_TRAINS:
            final = len(state.players)
    else:
        final -= 1
    phase = "over" if final == 0 else state.phase
    state = evolve(
        state,
        turn=(state.turn + 1) % len(state.players),
        cards_drawn=0,
        final_turns=final,
        phase=phase,
        ticket_draw=None,
        passes=0,
    )
    # a face-up slot left empty when no card was left is filled once discards exist again
    # (they are shuffled into a new deck, "LÍZNUTÍ KARET VAGÓNŮ")
    if not state.face_up_due and None in state.face_up and phase != "over":
        state = _refill_due(state)
    return state


def _expect_turn(state: TtrState, player: int | None, what: Message) -> int:
    """``what`` is the move in words ("claim a route"), as in "… cannot {what} yet"."""
    if state.phase != "play":
        raise _refuse(
            msg(
                "Nobody can {what} until every player has kept tickets and five cards lie face up.",
                what=what,
            ),
            msg("every player keeps at least two destination tickets before the first turn"),
            S_START,
        )
    if player != state.turn:
        turn = state.players[state.turn].name
        if player is None or not 0 <= player < len(state.players):
            refusal = msg(
                "It is {player}'s turn: only {player} can {what} now.", player=turn, what=what
            )
        else:
            refusal = msg(
                "{player} cannot {what} now: it is {turn}'s turn.",
                player=state.players[player].name,
                what=what,
                turn=turn,
            )
        raise _refuse(refusal, msg("players take turns clockwise"), S_TURN)
    if state.face_up_due:
        raise _refuse(
            plural(
                "Turn {n} card from the deck face up first.",
                "Turn {n} cards from the deck face up first.",
                "n",
                n=state.face_up_due,
            ),
            msg("a face-up card that is taken is replaced at once"),
            S_DRAW,
        )
    return player


_FINISH_FIRST = msg("First finish the tunnel or the choice of destination tickets.")


def _expect_fresh_turn(state: TtrState, player: int | None, what: Message) -> int:
    p = _expect_turn(state, player, what)
    if state.tunnel is not None or state.ticket_draw is not None:
        raise _refuse(_FINISH_FIRST, _R_ONE_ACTION, S_TURN)
    if state.cards_drawn:
        raise _refuse(
            msg(
                "{player} took one train card this turn and takes a second now; "
                "nobody can {what} in the same turn.",
                player=state.players[p].name,
                what=what,
            ),
            msg("one action per turn: drawing train cards is two cards"),
            S_TURN,
        )
    return p


# -- train cards ------------------------------------------------------------------------------
def _reveal_face_up(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("cards")
    kinds = tc.card_list(args.get("cards"), max_len=FACE_UP_SLOTS)
    if not kinds:
        args.get("cards").fail("at least one card")
    if len(kinds) > state.face_up_due:
        raise _refuse(
            plural(
                "{turned} cards were turned over, but only {n} face-up place is empty.",
                "{turned} cards were turned over, but only {n} face-up places are empty.",
                "n",
                turned=len(kinds),
                n=state.face_up_due,
            ),
            msg("five cards lie face up"),
            S_DRAW,
        )
    slots = list(state.face_up)
    for kind in kinds:
        state = _turn_card(state, kind, msg("the face-up cards"))
        slots[slots.index(None)] = kind
        state = evolve(state, face_up=tuple(slots), face_up_due=state.face_up_due - 1)
    state = _check_three_locomotives(state)
    if state.phase == "setup" and not state.face_up_due and all(p.ready for p in state.players):
        state = evolve(state, phase="play")
    if state.phase == "play" and state.cards_drawn and not _can_draw_second(state):
        # "LÍZNUTÍ KARET VAGÓNŮ": with the deck drawn and no discards "hráč nemá možnost
        # líznout si další karty vagonů" — the player cannot draw more train cards; the card
        # turned to replace the first one leaves nothing that may be the second (only
        # locomotives face up, "LOKOMOTIVY": not as the second card), so the turn ends with
        # the one card
        state = _end_turn(state)
    return state


def _draw_blind(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only()
    p = _expect_turn(state, player, msg("draw a train card"))
    if state.tunnel is not None or state.ticket_draw is not None:
        raise _refuse(_FINISH_FIRST, _R_ONE_ACTION, S_TURN)
    state = _reshuffle_if_empty(state)
    if state.deck == 0:
        raise _refuse(
            msg(
                "The deck and the discards are empty: claim a route, draw destination tickets "
                "or build a station."
            ),
            msg("with no deck and no discards, no train cards can be drawn"),
            S_DRAW,
        )
    # a blind locomotive counts as one card ("LOKOMOTIVY"); the card stays unknown to the table
    state = _reshuffle_if_empty(evolve(state, deck=state.deck - 1))
    state = _update_player(state, p, hand=state.players[p].hand + 1)
    return _after_card(state)


def _after_card(state: TtrState) -> TtrState:
    if state.cards_drawn or not _can_draw_second(state):
        return _end_turn(state)
    return evolve(state, cards_drawn=1)


def _can_draw_second(state: TtrState) -> bool:
    face_up_ok = any(c not in (None, LOCOMOTIVE) for c in state.face_up) or state.face_up_due
    return bool(_cards_left(state) or face_up_ok)


def _take_face_up(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("card")
    kind = tc.parse_kind(args.get("card"))
    p = _expect_turn(state, player, msg("take a face-up card"))
    if state.tunnel is not None or state.ticket_draw is not None:
        raise _refuse(_FINISH_FIRST, _R_ONE_ACTION, S_TURN)
    if kind not in state.face_up:
        shown = tc.cards_of(c for c in state.face_up if c)
        raise _refuse(
            msg(
                "No {card} card is face up (face up: {shown}).",
                card=colour_name(kind),
                shown=_cards(shown),
            ),
            msg("a card is taken from the five face up or from the deck"),
            S_DRAW,
        )
    if kind == LOCOMOTIVE and state.cards_drawn:
        raise _refuse(
            msg("A face-up locomotive cannot be taken as the second card."),
            msg("a face-up locomotive is the only card of the turn"),
            S_LOCO,
        )

    slots = list(state.face_up)
    slots[slots.index(kind)] = None
    state = evolve(state, face_up=tuple(slots))
    me = state.players[p]
    state = _update_player(state, p, hand=me.hand + 1, known=tc.add(me.known, tc.cards_of([kind])))
    state = _refill_due(state)
    if kind == LOCOMOTIVE:
        return _end_turn(state)  # "LOKOMOTIVY": the only card of the turn
    return _after_card(state)


# -- claiming routes --------------------------------------------------------------------------
def _check_set(played: tc.Cards, colour: str, length: int, what: Message, section: Text) -> str:
    """The colour a card set pays with; refuses a set that is not one colour (+ locomotives).
    ``what`` names the thing paid for ("the route Paris – Wien (grey)", "station number 2")."""
    if tc.total(played) != length:
        raise _refuse(
            plural(
                "{what} needs {n} card; {played} were played ({cards}).",
                "{what} needs {n} cards; {played} were played ({cards}).",
                "n",
                what=what,
                n=length,
                played=tc.total(played),
                cards=_cards(played),
            ),
            msg("the cards played match the number of spaces"),
            section,
        )
    colours = [k for k, n in zip(tc.KINDS, played, strict=True) if n and k != LOCOMOTIVE]
    if len(colours) > 1:
        raise _refuse(
            msg(
                "{what} is paid with cards of one colour (and locomotives), not {colours}.",
                what=what,
                colours=join_texts([colour_name(c) for c in colours], ", "),
            ),
            msg("a set of cards of one colour"),
            section,
        )
    paid = colours[0] if colours else LOCOMOTIVE
    if colour not in ("grey", "any") and paid not in (colour, LOCOMOTIVE):
        raise _refuse(
            msg(
                "{what} needs {colour} cards or locomotives: {paid} cards cannot pay for it.",
                what=what,
                colour=colour_name(colour),
                paid=colour_name(paid),
            ),
            msg("the cards match the route's colour; locomotives replace any colour"),
            S_CLAIM,
        )
    return paid


def _hand_check(state: TtrState, p: int, needed: int, section: Text) -> None:
    me = state.players[p]
    if me.hand < needed:
        raise _refuse(
            plural(
                "{player} holds {held} train cards, {n} is needed.",
                "{player} holds {held} train cards, {n} are needed.",
                "n",
                player=me.name,
                held=me.hand,
                n=needed,
            ),
            msg("the cards are paid from the hand"),
            section,
        )


def can_hold(state: TtrState, p: int, paid: tc.Cards, unseen: tc.Cards | None = None) -> bool:
    """Whether player ``p`` can hold the cards ``paid``, as far as the table knows (the
    tree's quick test: :func:`holding_problem` without the words)."""
    return _holding_fault(state, p, paid, unseen) is None


def _holding_fault(
    state: TtrState, p: int, paid: tc.Cards, unseen: tc.Cards | None
) -> tuple[str, int] | None:
    """Which of :func:`holding_problem`'s bounds ``paid`` breaks: ("kind", index of the
    kind), ("unknown", 0) or ("deck", 0); None when it breaks none."""
    me = state.players[p]
    if unseen is None:
        unseen = tc.sub(tc.FULL_DECK, seen_cards(state))
    from_unknown = 0
    for i, (n, known, free) in enumerate(zip(paid, me.known, unseen, strict=True)):
        beyond = n - known
        if beyond > 0:
            if beyond > free:
                return ("kind", i)
            from_unknown += beyond
    if from_unknown > me.hand - tc.total(me.known):
        return ("unknown", 0)
    if state.deck_pool is None or not state.deck:
        return None
    left = [u - max(0, n - k) for u, n, k in zip(unseen, paid, me.known, strict=True)]
    room = sum(min(pool, free) for pool, free in zip(state.deck_pool, left, strict=True))
    return ("deck", 0) if room < state.deck else None


def holding_problem(
    state: TtrState, p: int, paid: tc.Cards, unseen: tc.Cards | None = None
) -> Message | None:
    """Why player ``p`` cannot hold the cards ``paid``, as far as the table knows (None when
    they can). "OBSAZOVÁNÍ TRATÍ": a route is paid with cards from the hand; "OBSAH BALENÍ":
    every card exists once (12 of each colour, 14 locomotives). Only what the whole table has
    seen is read (the hand's size, the cards seen going into it, the cards seen elsewhere):
    nothing a player holds face down, so the reason may be shown to everyone.

    - of each kind, at most the cards seen going into the hand plus those not seen anywhere;
    - the cards beyond those seen going into the hand come from its unseen part, which holds
      the hand's size minus the cards seen going in (a hand seen whole, 2 red, cannot pay
      2 blue);
    - after a reshuffle the deck holds only cards of the discards that made it ("LÍZNUTÍ
      KARET VAGÓNŮ"): a card paid from the hand cannot be one the deck still needs.

    ``unseen`` is every card not seen anywhere (passed by callers asking for many payments)."""
    if unseen is None:
        unseen = tc.sub(tc.FULL_DECK, seen_cards(state))
    fault = _holding_fault(state, p, paid, unseen)
    if fault is None:
        return None
    me = state.players[p]
    what, i = fault
    if what == "kind":
        kind, known, free = tc.KINDS[i], me.known[i], unseen[i]
        return msg(
            "{player} cannot pay {n}× {card}: of the {all} {card} cards the table has "
            "seen {elsewhere} elsewhere (face up, discarded or in other hands), so "
            "{player} holds at most {most}.",
            player=me.name,
            n=paid[i],
            card=colour_name(kind),
            all=tc.FULL_DECK[i],
            elsewhere=tc.FULL_DECK[i] - known - free,
            most=known + free,
        )
    if what == "unknown":
        return plural(
            "{player} cannot pay {cards}: of the {hand} cards in {player}'s hand the table saw "
            "{seen} go in, so only {n} other card can be in it.",
            "{player} cannot pay {cards}: of the {hand} cards in {player}'s hand the table saw "
            "{seen} go in, so only {n} other cards can be in it.",
            "n",
            player=me.name,
            cards=_cards(paid),
            hand=me.hand,
            seen=_cards(me.known) if tc.total(me.known) else msg("none", context="cards"),
            n=max(0, me.hand - tc.total(me.known)),
        )
    return plural(
        "{player} cannot pay {cards}: the {n} card of the deck was shuffled from the "
        "discards, and with these cards in {player}'s hand it could not be there.",
        "{player} cannot pay {cards}: the {n} cards of the deck were shuffled from the "
        "discards, and with these cards in {player}'s hand they could not all be there.",
        "n",
        player=me.name,
        cards=_cards(paid),
        n=state.deck,
    )


def _holding_check(state: TtrState, p: int, paid: tc.Cards, section: Text) -> None:
    """The payment must be cards the player can hold (:func:`holding_problem`); a payment
    beyond that is refused, not only flagged afterwards."""
    problem = holding_problem(state, p, paid)
    if problem is not None:
        raise _refuse(
            problem, msg("the cards are paid from the hand; every card exists once"), section
        )


def _pick_route(state: TtrState, p: int, ref: Field, played: tc.Cards) -> RouteSpec:
    try:
        candidates = route_candidates(ref)
    except SnapshotError:
        raise _refuse(
            msg("There is no such route on the board."),
            msg("a route joins two neighbouring cities on the board"),
            S_CLAIM,
        ) from None
    free = [r for r in candidates if _route_owner(state, r.id) is None]
    if not free:
        owner = _route_owner(state, candidates[0].id)
        route = route_name(candidates[0])
        raise _refuse(
            msg("{route} is already claimed.", route=route)
            if owner is None
            else msg(
                "{route} is already claimed by {player}.",
                route=route,
                player=state.players[owner].name,
            ),
            msg("a route is claimed once"),
            S_CLAIM,
        )
    if len(free) > 1:
        colour = tc.played_colour(played)
        fitting = [r for r in free if r.colour in ("grey", colour)]
        if len(fitting) == 1:
            return fitting[0]
        if len({r.colour for r in free}) > 1:
            raise _refuse(
                msg(
                    "Say which of the two routes: {first} or {second}.",
                    first=route_name(free[0]),
                    second=route_name(free[1]),
                ),
                msg("some cities are joined by two routes"),
                S_DOUBLE,
            )
    return free[0]


def _route_fault(state: TtrState, p: int, route: RouteSpec) -> str | None:
    """What keeps player ``p`` from claiming ``route`` whatever the cards (None: nothing):
    "partner-own" ("DVOJITÉ TRATĚ": one player never claims both routes of a double route),
    "partner-few" ("DŮLEŽITÁ POZNÁMKA": with 2 or 3 players only one of them is used),
    "trains" ("OBSAZOVÁNÍ TRATÍ": one train on each space), "claimed"."""
    if _route_owner(state, route.id) is not None:
        return "claimed"
    if route.partner is not None:
        partner_owner = _route_owner(state, route.partner)
        if partner_owner == p:
            return "partner-own"
        if partner_owner is not None and len(state.players) <= DOUBLE_ROUTES_ONE_ONLY_UP_TO:
            return "partner-few"
    if state.players[p].trains < route.length:
        return "trains"
    return None


def route_open(state: TtrState, p: int, route: RouteSpec) -> bool:
    """Whether player ``p`` may claim ``route`` with the right cards (the tree asks this once
    per route before it tries any payment; :func:`_claim_route` refuses the same)."""
    return _route_fault(state, p, route) is None


def _claim_route(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("route", "cards", "hand")
    played = tc.parse_cards(args.get("cards"))
    p = _expect_fresh_turn(state, player, msg("claim a route"))
    route = _pick_route(state, p, args.get("route"), played)
    me = state.players[p]
    ref = route_name(route)
    fault = _route_fault(state, p, route)
    if fault == "partner-own":
        raise _refuse(
            msg(
                "{player} already owns the other route of the double route {route}.",
                player=me.name,
                route=ref,
            ),
            msg("one player never claims both routes of a double route"),
            S_DOUBLE,
        )
    if fault == "partner-few":
        assert route.partner is not None
        partner_owner = _route_owner(state, route.partner)
        assert partner_owner is not None
        raise _refuse(
            msg(
                "With {n} players only one route of a double route is used, and {player} "
                "has the other one beside {route}.",
                n=len(state.players),
                player=state.players[partner_owner].name,
                route=ref,
            ),
            msg("with 2 or 3 players only one route of a double route is used"),
            S_DOUBLE_FEW,
        )
    if fault == "trains":
        raise _refuse(
            plural(
                "{route} needs {length} trains; {player} has {n} train left.",
                "{route} needs {length} trains; {player} has {n} trains left.",
                "n",
                route=ref,
                length=route.length,
                player=me.name,
                n=me.trains,
            ),
            msg("one train on each space"),
            S_CLAIM,
        )
    section = S_TUNNEL if route.tunnel else S_FERRY if route.ferry_locomotives else S_CLAIM
    _check_set(played, route.colour, route.length, msg("The route {route}", route=ref), section)
    if played[tc.LOCO] < route.ferry_locomotives:
        raise _refuse(
            plural(
                "The ferry {route} needs {n} locomotive; {played} were played.",
                "The ferry {route} needs {n} locomotives; {played} were played.",
                "n",
                route=ref,
                n=route.ferry_locomotives,
                played=played[tc.LOCO],
            ),
            msg("one locomotive for each locomotive symbol on the ferry"),
            S_FERRY,
        )
    _hand_check(state, p, tc.total(played), section)
    _holding_check(state, p, played, section)
    hand_field = args.get("hand", None)
    if hand_field.value is not None:
        # cards in hand lie face down: a hand inside the claim would be in the public log
        raise _refuse(
            msg(
                "The cards still in the hand are told on the player's own page, never with "
                "the claim: everyone sees the claim."
            ),
            msg("cards in the hand are kept face down"),
            S_TUNNEL,
        )

    state = _update_player(
        state, p, hand=me.hand - tc.total(played), known=tc.sub(me.known, played)
    )
    if route.tunnel:
        reveal = min(tc.TUNNEL_REVEAL, _cards_left(state))
        tunnel = Tunnel(p, route.id, played, reveal, ())
        state = evolve(state, tunnel=tunnel)
        if reveal == 0:
            # "TUNELY": no card left to turn → the tunnel is claimed without risk
            return _complete_claim(state, p, route, played)
        return state
    return _complete_claim(state, p, route, played)


def _check_declared(
    state: TtrState, p: int, declared: tc.Cards, field: Field, seen: tc.Cards
) -> None:
    """A declared hand must be the cards the player holds (their number) and possible given
    what the table has seen: the cards seen go into this hand, plus those not seen anywhere."""
    me = state.players[p]
    rule = msg("the cards declared are the cards in the hand")
    if tc.total(declared) != me.hand:
        raise _refuse(
            plural(
                "The cards told add up to {told}, but {player} holds {n} card after laying these.",
                "The cards told add up to {told}, but {player} holds {n} cards after laying these.",
                "n",
                told=tc.total(declared),
                player=me.name,
                n=me.hand,
            ),
            rule,
            S_TUNNEL,
        )
    unseen = tc.sub(tc.FULL_DECK, seen)
    for kind, n, known, free in zip(tc.KINDS, declared, me.known, unseen, strict=True):
        if n < known:
            raise _refuse(
                msg(
                    "{n}× {card} told, but the table saw {known} of them go into the hand.",
                    n=n,
                    card=colour_name(kind),
                    known=known,
                ),
                rule,
                S_TUNNEL,
            )
        if n - known > free:
            raise _refuse(
                msg(
                    "{n}× {card} told, but only {most} of them can be in the hand.",
                    n=n,
                    card=colour_name(kind),
                    most=known + free,
                ),
                rule,
                S_TUNNEL,
            )


def _declare_hand(state: TtrState, player: int | None, args: Field) -> TtrState:
    """ "TUNELY": before the cards are turned the claimant may tell Trackside the rest of their
    hand (privately: cards in hand are face down) so that their own odds leave those cards out
    of the deck; onlookers keep seeing their own odds."""
    args.only("cards")
    t = state.tunnel
    if t is None or t.revealed or len(t.revealed) >= t.reveal:
        raise _refuse(
            msg(
                "The cards in the hand are told while a tunnel waits for its first card to be "
                "turned over."
            ),
            _R_TUNNEL_DRAW,
            S_TUNNEL,
        )
    if player != t.player:
        raise _refuse(_not_your_tunnel(state, t), _R_TUNNEL_DRAW, S_TUNNEL)
    declared = tc.parse_cards(args.get("cards"))
    _check_declared(state, t.player, declared, args.get("cards"), seen_cards(state))
    return evolve(state, tunnel=evolve(t, declared=declared))


def _complete_claim(state: TtrState, p: int, route: RouteSpec, cards: tc.Cards) -> TtrState:
    me = state.players[p]
    state = _update_player(state, p, routes=(*me.routes, route.id))
    state = _canonical_twins(state, route)
    state = evolve(state, discard=tc.add(state.discard, cards))
    if state.tunnel is not None:
        state = evolve(state, tunnel=evolve(state.tunnel, played=tc.NONE))
    return _end_turn(state)


def _canonical_twins(state: TtrState, route: RouteSpec) -> TtrState:
    """The two grey ferries Dieppe–London and Essen–København are identical twins, written the
    same way in the notation; the player listed first always holds the board's first one, so
    a snapshot reads back into exactly the same state."""
    if route.partner is None:
        return state
    twin = ROUTE_BY_ID[route.partner]
    if route_ref(twin) != route_ref(route):
        return state
    first, second = sorted((route.id, twin.id))
    holds_first, holds_second = _route_owner(state, first), _route_owner(state, second)
    if holds_first is None or holds_second is None or holds_first < holds_second:
        return state
    swap = {first: second, second: first}
    players = tuple(
        evolve(p, routes=tuple(swap.get(r, r) for r in p.routes)) for p in state.players
    )
    return evolve(state, players=players)


def _reveal_tunnel(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("cards")
    t = state.tunnel
    if t is None or len(t.revealed) >= t.reveal:
        raise _refuse(
            msg("No tunnel is waiting for cards to be turned over."), _R_TUNNEL_DRAW, S_TUNNEL
        )
    kinds = tc.card_list(args.get("cards"), max_len=tc.TUNNEL_REVEAL)
    if not kinds or len(t.revealed) + len(kinds) > t.reveal:
        raise _refuse(
            plural(
                "{n} card is still to be turned over for the tunnel, not {got}.",
                "{n} cards are still to be turned over for the tunnel, not {got}.",
                "n",
                n=t.reveal - len(t.revealed),
                got=len(kinds),
            ),
            msg("three cards are turned over, or as many as the deck and the discards still have"),
            S_TUNNEL,
        )
    for kind in kinds:
        state = _turn_card(state, kind, msg("the tunnel"))
        assert state.tunnel is not None
        state = evolve(state, tunnel=evolve(state.tunnel, revealed=(*state.tunnel.revealed, kind)))
    t = state.tunnel
    assert t is not None
    if len(t.revealed) < t.reveal:
        return state
    # "TUNELY": every card turned, the verdict is known: the public view announces it
    number = state.tunnels + 1
    state = evolve(
        state, tunnels=number, tunnel_verdict=TunnelVerdict(t.player, t.route, t.extra, number)
    )
    if t.extra == 0:
        return _complete_claim(state, t.player, ROUTE_BY_ID[t.route], t.played)
    return state


def _not_your_tunnel(state: TtrState, t: Tunnel) -> Message:
    return msg(
        "The tunnel {route} is {player}'s.",
        route=route_name(t.route),
        player=state.players[t.player].name,
    )


def _pending_tunnel(state: TtrState, player: int | None, what: Message) -> Tunnel:
    t = state.tunnel
    if t is None or len(t.revealed) < t.reveal:
        raise _refuse(
            msg("No tunnel waits for its player to {what}.", what=what), _R_TUNNEL_DRAW, S_TUNNEL
        )
    if player != t.player:
        raise _refuse(_not_your_tunnel(state, t), _R_TUNNEL_DRAW, S_TUNNEL)
    return t


def _pay_tunnel(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("cards")
    t = _pending_tunnel(state, player, msg("pay"))
    paid = tc.parse_cards(args.get("cards"))
    problem = tc.can_pay(t.extra, t.played, paid)
    if problem is not None:
        raise _refuse(problem, msg("each matching card turned over costs one more card"), S_TUNNEL)
    _hand_check(state, t.player, tc.total(paid), S_TUNNEL)
    _holding_check(state, t.player, paid, S_TUNNEL)
    me = state.players[t.player]
    state = _update_player(
        state, t.player, hand=me.hand - tc.total(paid), known=tc.sub(me.known, paid)
    )
    return _complete_claim(state, t.player, ROUTE_BY_ID[t.route], tc.add(t.played, paid))


def _withdraw_tunnel(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only()
    t = _pending_tunnel(state, player, msg("withdraw"))

    # "TUNELY": the player takes the cards back into the hand; the turn ends
    me = state.players[t.player]
    state = _update_player(
        state, t.player, hand=me.hand + tc.total(t.played), known=tc.add(me.known, t.played)
    )
    return _end_turn(state)


# -- destination tickets ----------------------------------------------------------------------
def _draw_tickets(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only()
    p = _expect_fresh_turn(state, player, msg("draw destination tickets"))
    if state.tickets_deck == 0:
        raise _refuse(
            msg("No destination tickets are left."),
            msg("three destination tickets are drawn, or as many as are left"),
            S_TICKETS,
        )
    offered = min(TICKETS_PER_DRAW, state.tickets_deck)
    return evolve(
        state, tickets_deck=state.tickets_deck - offered, ticket_draw=TicketDraw(p, offered)
    )


def _keep_ticket(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("ticket")
    try:
        kept = ticket(args.get("ticket"))
    except SnapshotError:
        raise _refuse(
            msg("There is no such destination ticket."),
            msg("the game has 46 destination tickets, 6 of them long"),
            S_CONTENTS,
        ) from None
    if player is None or not 0 <= player < len(state.players):
        raise _refuse(msg("Only a player at the table keeps tickets."), _R_PLAYERS, S_TURN)
    me = state.players[player]
    if kept.id in me.tickets:
        raise _refuse(
            msg(
                "The ticket {ticket} is already among {player}'s tickets.",
                ticket=ticket_name(kept),
                player=me.name,
            ),
            msg("every destination ticket exists once"),
            S_TICKETS,
        )
    # "LÍZNUTÍ KARET CÍLOVÝCH STANIC": tickets are not shown to the others until the final
    # scoring ("neukazují ostatním"). Whether another player holds this ticket is theirs to
    # know: refusing it here (or leaving it out of the player's list) would tell. A ticket
    # entered for two players is reported once the game is over and every ticket is shown
    # (problems: ``ticket_twice``).
    me = state.players[player]
    if state.phase == "setup":
        # "PŘÍPRAVA HRY" / "ZAČÁTEK HRY": one long and three regular tickets are dealt
        if me.ready:
            raise _refuse(
                msg("{player} has already chosen.", player=me.name),
                msg("the choice is made once"),
                S_START,
            )
        mine = [TICKET_BY_PAIR[frozenset(t.split("-"))] for t in me.tickets]
        if kept.long and any(t.long for t in mine):
            raise _refuse(
                msg("{player} was dealt one long ticket only.", player=me.name),
                msg("one long ticket each"),
                S_SETUP,
            )
        if not kept.long and sum(not t.long for t in mine) >= TICKETS_AT_START:
            raise _refuse(
                msg("{player} was dealt three regular tickets only.", player=me.name),
                msg("three regular tickets each"),
                S_SETUP,
            )
        return _update_player(state, player, tickets=(*me.tickets, kept.id))
    draw = state.ticket_draw
    if draw is None or draw.player != player:
        raise _refuse(
            msg(
                "{player} is not choosing tickets: draw destination tickets first.", player=me.name
            ),
            msg("tickets are kept from the three drawn"),
            S_TICKETS,
        )
    if kept.long:
        raise _refuse(
            msg("The long tickets went back to the box at the start."),
            msg("only regular tickets are drawn during the game"),
            S_SETUP,
        )
    if len(draw.kept) >= draw.offered:
        raise _refuse(
            plural(
                "Only {n} ticket was drawn.",
                "Only {n} tickets were drawn.",
                "n",
                n=draw.offered,
            ),
            msg("keep one, two or all three"),
            S_TICKETS,
        )
    state = _update_player(state, player, tickets=(*me.tickets, kept.id))
    return evolve(state, ticket_draw=evolve(draw, kept=(*draw.kept, kept.id)))


def _done_tickets(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only()
    if player is None or not 0 <= player < len(state.players):
        raise _refuse(msg("Only a player at the table keeps tickets."), _R_PLAYERS, S_TURN)
    me = state.players[player]
    if state.phase == "setup":
        if me.ready:
            raise _refuse(
                msg("{player} has already chosen.", player=me.name),
                msg("the choice is made once"),
                S_START,
            )
        if len(me.tickets) < KEEP_AT_START:
            raise _refuse(
                plural(
                    "{player} kept {n} ticket.",
                    "{player} kept {n} tickets.",
                    "n",
                    player=me.name,
                    n=len(me.tickets),
                ),
                msg("keep at least two of the tickets dealt"),
                S_START,
            )
        state = _update_player(state, player, ready=True)
        if all(p.ready for p in state.players) and not state.face_up_due:
            state = evolve(state, phase="play")
        return state
    draw = state.ticket_draw
    if draw is None or draw.player != player:
        raise _refuse(
            msg("{player} is not choosing tickets.", player=me.name),
            msg("tickets are kept from the three drawn"),
            S_TICKETS,
        )
    if not draw.kept:
        raise _refuse(
            msg("Keep at least one ticket."), msg("keep at least one of the three"), S_TICKETS
        )
    # the tickets not kept go under the ticket deck
    state = evolve(state, tickets_deck=state.tickets_deck + draw.offered - len(draw.kept))
    return _end_turn(state)


# -- stations ---------------------------------------------------------------------------------
def _build_station(state: TtrState, player: int | None, args: Field) -> TtrState:
    args.only("city", "cards")
    try:
        where = city(args.get("city"))
    except SnapshotError:
        raise _refuse(
            msg("There is no such city on the board."),
            msg("a station is built in a city"),
            S_STATION,
        ) from None
    played = tc.parse_cards(args.get("cards"))
    p = _expect_fresh_turn(state, player, msg("build a station"))
    me = state.players[p]
    if len(me.stations) >= STATIONS_PER_PLAYER:
        raise _refuse(
            msg("{player} has built all 3 stations.", player=me.name),
            msg("three stations each"),
            S_STATION,
        )
    owner = _station_owner(state, where)
    if owner is not None:
        raise _refuse(
            msg(
                "{city} already has {player}'s station.",
                city=city_name(where),
                player=state.players[owner].name,
            ),
            msg("one station per city"),
            S_STATION,
        )
    cost = STATION_COSTS[len(me.stations)]
    _check_set(
        played,
        "any",
        cost,
        msg("Station number {n}", n=len(me.stations) + 1),
        S_STATION,
    )
    _hand_check(state, p, cost, S_STATION)
    _holding_check(state, p, played, S_STATION)
    state = _update_player(
        state,
        p,
        stations=(*me.stations, where),
        hand=me.hand - cost,
        known=tc.sub(me.known, played),
    )
    state = evolve(state, discard=tc.add(state.discard, played))
    return _end_turn(state)


# -- prompts for scans ------------------------------------------------------------------------
def _payments(colour: str, length: int, locos_needed: int) -> list[dict[str, int]]:
    colours = [c for c in tc.KINDS if c != LOCOMOTIVE] if colour in ("grey", "any") else [colour]
    options: list[dict[str, int]] = []
    for c in colours:
        for locos in range(locos_needed, length):
            options.append({c: length - locos, **({LOCOMOTIVE: locos} if locos else {})})
    options.append({LOCOMOTIVE: length})
    return options


def _claim_prompt(state: TtrState, who: int, ref: str) -> Prompt:
    routes = ROUTES_BY_PAIR[frozenset(ref.split(":", maxsplit=1)[0].split("-"))]
    route = next((r for r in routes if route_ref(r) == ref), routes[0])
    options = tuple(
        Action("claim_route", who, {"route": ref, "cards": pay})
        for pay in _payments(route.colour, route.length, route.ferry_locomotives)
    )
    return Prompt(
        plural(
            "Which cards pay for {route} ({n} space)?",
            "Which cards pay for {route} ({n} spaces)?",
            "n",
            route=route_name(route),
            n=route.length,
        ),
        who,
        options,
    )


def tunnel_payments(state: TtrState) -> list[dict[str, int]]:
    """The ways the open tunnel's extra cards can be paid: the colour played, with any number
    of them replaced by locomotives, or locomotives only ("Tunely")."""
    t = state.tunnel
    assert t is not None
    colour = tc.played_colour(t.played)
    pays: list[dict[str, int]] = []
    if colour is not None:
        pays += [
            {colour: t.extra - locos, **({LOCOMOTIVE: locos} if locos else {})}
            for locos in range(t.extra)
        ]
    pays.append({LOCOMOTIVE: t.extra})
    return pays


def _tunnel_prompt(state: TtrState) -> Prompt:
    t = state.tunnel
    assert t is not None
    pays = tunnel_payments(state)
    options = tuple(Action("pay_tunnel", t.player, {"cards": pay}) for pay in pays)
    return Prompt(
        plural(
            "{player}: pay {n} more card for the tunnel {route}, or withdraw?",
            "{player}: pay {n} more cards for the tunnel {route}, or withdraw?",
            "n",
            player=state.players[t.player].name,
            n=t.extra,
            route=route_name(t.route),
        ),
        t.player,
        (*options, Action("withdraw_tunnel", t.player)),
    )


def _station_prompt(state: TtrState, who: int, city_id: str) -> Prompt:
    built = len(state.players[who].stations)
    if built >= STATIONS_PER_PLAYER:
        return Prompt(
            msg("{player} has built all 3 stations.", player=state.players[who].name), who, ()
        )
    cost = STATION_COSTS[built]
    options = tuple(
        Action("build_station", who, {"city": city_id, "cards": pay})
        for pay in _payments("any", cost, 0)
    )
    return Prompt(
        plural(
            "Which card pays for the station in {city}?",
            "Which {n} cards pay for the station in {city}?",
            "n",
            n=cost,
            city=city_name(city_id),
        ),
        who,
        options,
    )


# -- a turn with no move left --------------------------------------------------------------------
def _pass_turn(state: TtrState, player: int | None, args: Field) -> TtrState:
    """LÍZNUTÍ KARET VAGÓNŮ: "Pokud nastane nepravděpodobná situace, že je balíček dolízaný a
    žádné odhozené karty nejsou k dispozici (protože hráči drží karty v ruce), hráč nemá
    možnost líznout si další karty vagonů. Musí tedy obsadit trať, líznout si kartu cílové
    stanice nebo postavit nádraží." The rulebook is silent when none of the three is possible
    either (no destination ticket is left, and the hand pays for no route and no station).
    Our reading: the turn passes. The hand lies face down, so the player says so; the table
    refuses only while a card or a ticket can be drawn, or when the cards it saw the player
    take pay for a route or a station. A pass changes nothing, so passes all round would go
    on for ever: when every player has passed in a row, the game ends (KONEC HRY, our
    reading: nobody can move any more)."""
    args.only()
    p = _expect_fresh_turn(state, player, msg("pass the turn"))
    rule = msg(
        "with no train card to draw, a player claims a route, draws tickets or builds a station"
    )
    if any(c is not None for c in state.face_up) or state.deck or tc.total(state.discard):
        raise _refuse(msg("A train card can still be drawn."), rule, S_DRAW)
    if state.tickets_deck:
        raise _refuse(msg("Destination tickets can still be drawn."), rule, S_DRAW)
    what = _move_with_known_cards(state, p)
    if what is not None:
        raise _refuse(
            msg(
                "The table saw {player} take cards that pay for {what}.",
                player=state.players[p].name,
                what=what,
            ),
            rule,
            S_DRAW,
        )
    passes = state.passes + 1
    state = evolve(_end_turn(state), passes=passes)
    if passes >= len(state.players) and state.phase != "over":
        state = evolve(state, phase="over")
    return state


def _move_with_known_cards(state: TtrState, p: int) -> Text | None:
    """A route or a station that the cards the table saw player ``p`` take pay for (the
    engine's own checks decide), or None."""
    from companion.games.ticket_to_ride_europe.choices import payments

    known = state.players[p].known

    def held(pay: dict[str, int]) -> bool:
        return all(known[tc.INDEX[kind]] >= n for kind, n in pay.items())

    for route in ROUTES:
        if not route_open(state, p, route):
            continue
        for pay in payments(route.colour, route.length, route.ferry_locomotives):
            action = Action("claim_route", p, {"route": route_ref(route), "cards": pay})
            if held(pay) and accepts(GAME.apply, state, action):
                return route_name(route)
    built = len(state.players[p].stations)
    if built < STATIONS_PER_PLAYER:
        for pay in payments("any", STATION_COSTS[built], 0):
            if not held(pay):
                continue
            for c in CITIES:
                action = Action("build_station", p, {"city": c.id, "cards": pay})
                if accepts(GAME.apply, state, action):
                    return msg("a station in {city}", city=city_name(c.id))
    return None


_TURN_STARTS = frozenset(
    {"draw_blind", "take_face_up", "claim_route", "draw_tickets", "build_station", "pass_turn"}
)
"""The moves a turn begins with (any of them ends a tunnel's announcement)."""

_HANDLERS = {
    "reveal_face_up": _reveal_face_up,
    "draw_blind": _draw_blind,
    "take_face_up": _take_face_up,
    "claim_route": _claim_route,
    "reveal_tunnel": _reveal_tunnel,
    "pay_tunnel": _pay_tunnel,
    "withdraw_tunnel": _withdraw_tunnel,
    "draw_tickets": _draw_tickets,
    "keep_ticket": _keep_ticket,
    "declare_hand": _declare_hand,
    "done_tickets": _done_tickets,
    "build_station": _build_station,
    "pass_turn": _pass_turn,
}

GAME = TicketToRideEurope()

__all__ = ["GAME", "TicketToRideEurope", "TtrState", "tunnel_odds"]
