"""Player board rules: rail steps, locomotives (with the displacement chain), factories,
industry steps, doublers, and the special spaces that fire by themselves once.

Pure functions over :class:`PlayerBoard`; a refusal raises ``IllegalActionError`` naming the
rule and the rulebook section (seed 000 = the Czech rulebook, complete).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NoReturn

from companion.core.errors import IllegalActionError
from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.games.russian_railroads.board_data import (
    BLACK,
    BROWN,
    COLOURS,
    FACTORY_SLOTS,
    INDUSTRY_GAPS,
    INDUSTRY_LAST,
    KIEV,
    KIEV_EXTRA_WORKER_SPACE,
    LOCOMOTIVE_SLOTS,
    MAX_DOUBLERS,
    NEW_RAILS_AT,
    TERMINUS_POINTS,
    TOKEN_SPACES,
    TRACK_COLOURS,
    TRACK_LENGTH,
    TRACKS,
    TRANS_SIBERIAN,
    TS_EXTRA_WORKER_SPACE,
    WHITE,
    WHITE_FREE_STEPS,
)
from companion.games.russian_railroads.names import rail_colour, track_name
from companion.games.russian_railroads.sections import (
    S_DOUBLERS,
    S_FACTORY,
    S_INDUSTRY,
    S_LOCO_REPLACE,
    S_LOCO_TAKE,
    S_NEW_RAILS,
    S_RAILS,
    S_SECOND_MARKER,
    S_TERMINUS,
)
from companion.games.russian_railroads.state import TOKEN_SPACE_INDUSTRY, Pending, PlayerBoard

MAX_STEPS_PER_MOVE = 15


def refuse(message: Text, rule: Text, section: Text) -> NoReturn:
    raise IllegalActionError(message, rule=rule, section=section)


def _set_rail(board: PlayerBoard, track: str, colour: str, space: int) -> PlayerBoard:
    t, c = TRACKS.index(track), COLOURS.index(colour)
    row = list(board.rails[t])
    row[c] = space
    rails = list(board.rails)
    rails[t] = tuple(row)
    return replace(board, rails=tuple(rails))


def check_rail_step(board: PlayerBoard, track: str, colour: str) -> int:
    """The space one step of ``colour`` on ``track`` reaches, or a refusal (seed 000, "ZÁSADY
    STAVBY KOLEJÍ"): allowed colours per track, colours in order, only free spaces, a later
    colour never reaches or passes the one before it, nothing beyond the track's end."""
    if colour not in TRACK_COLOURS[track]:
        refuse(
            msg("a {colour} rail on {track}", colour=rail_colour(colour), track=track_name(track)),
            msg(
                "{track} takes only these rails: {colours}",
                track=track_name(track),
                colours=join_texts([rail_colour(c) for c in TRACK_COLOURS[track]], ", "),
            ),
            S_RAILS,
        )
    if colour not in board.colours:
        refuse(
            msg(
                "{player} has no {colour} rails yet", player=board.name, colour=rail_colour(colour)
            ),
            msg(
                "a new colour comes when the black rail reaches space 2, 6, 10 or 15 of the "
                "Trans-Siberian Railway"
            ),
            S_NEW_RAILS,
        )
    here = board.rail(track, colour)
    target = here + 1
    index = COLOURS.index(colour)
    if index == 0:
        if target > TRACK_LENGTH[track]:
            refuse(
                msg("the black rail is already at the end of {track}", track=track_name(track)),
                msg("a rail never goes beyond the last space"),
                S_TERMINUS,
            )
        return target
    before = COLOURS[index - 1]
    ahead = board.rail(track, before)
    if target >= ahead:
        refuse(
            msg(
                "a {colour} step to space {space} of {track}: the {before} rail stands on "
                "space {ahead}",
                colour=rail_colour(colour),
                space=target,
                track=track_name(track),
                before=rail_colour(before),
                ahead=ahead,
            ),
            msg("a later colour never reaches or passes the colour before it"),
            S_RAILS,
        )
    return target


@dataclass(frozen=True, slots=True)
class Outcome:
    """A board after an effect, with what it set off: decisions owed and factories returned
    to the supply."""

    board: PlayerBoard
    pending: tuple[Pending, ...] = ()
    returned: tuple[int, ...] = ()

    def then(self, other: Outcome) -> Outcome:
        return Outcome(other.board, self.pending + other.pending, self.returned + other.returned)


def rail_step(
    board: PlayerBoard, player: int, track: str, colour: str, token_space: int | None
) -> Outcome:
    target = check_rail_step(board, track, colour)
    return settle(_set_rail(board, track, colour, target), player, token_space)


def build(
    board: PlayerBoard,
    player: int,
    moves: Sequence[tuple[str, str, int]],
    token_space: int | None,
) -> Outcome:
    """Rail steps split over tracks and colours, one step at a time, in the order given; a
    colour gained on the way can be used by the later moves (seed 000, "?" token "4 steps")."""
    outcome = Outcome(board)
    for track, colour, steps in moves:
        for _ in range(steps):
            outcome = outcome.then(rail_step(outcome.board, player, track, colour, token_space))
    return outcome


def settle(board: PlayerBoard, player: int, token_space: int | None) -> Outcome:
    """Fire every special space whose condition has just become true, once each (seed 000,
    "ZVLÁŠTNÍ POLÍČKA NA DESCE HRÁČE"). Conditions only ever become true (rails and
    locomotive reach never go back), so firing on the state is firing on the event."""
    fired = set(board.fired)
    pending: list[Pending] = []
    points = list(board.points)
    colours = set(board.colours)
    extra = board.extra_workers
    token_spaces = list(board.token_spaces)
    ts_black = board.rail(TRANS_SIBERIAN, BLACK)
    white_steps = 0
    # New rails at Trans-Siberian 2 / 6 / 10 / 15, reached or passed by black.
    for space, colour in sorted(NEW_RAILS_AT.items()):
        key = f"rails:{space}"
        if ts_black >= space and key not in fired:
            fired.add(key)
            colours.add(colour)
            if colour == WHITE:
                white_steps = WHITE_FREE_STEPS
    # Terminus: black on the last space, 10 points once (seed 000, "KONEČNÁ STANICE").
    for track in TRACKS:
        key = f"terminus:{track}"
        if board.rail(track, BLACK) >= TRACK_LENGTH[track] and key not in fired:
            fired.add(key)
            why = msg("the black rail reached the end of {track}", track=track_name(track))
            points.append(("terminus", TERMINUS_POINTS, why))
    # Extra workers: black at Kiev 7; brown + locomotive at Trans-Siberian 3.
    if board.rail(KIEV, BLACK) >= KIEV_EXTRA_WORKER_SPACE and "worker:kiev7" not in fired:
        fired.add("worker:kiev7")
        extra += 1
    if (
        board.rail(TRANS_SIBERIAN, BROWN) >= TS_EXTRA_WORKER_SPACE
        and board.reach(TRANS_SIBERIAN) >= TS_EXTRA_WORKER_SPACE
        and "worker:ts3" not in fired
    ):
        fired.add("worker:ts3")
        extra += 1
    # "?" token spaces: black + locomotive at Trans-Siberian 13, St. Petersburg 4 and 6.
    for track, space in TOKEN_SPACES:
        key = f"{track}:{space}"
        if (
            board.rail(track, BLACK) >= space
            and board.reach(track) >= space
            and key not in token_spaces
        ):
            token_spaces.append(key)
            pending.append(Pending("token", player, key))
    # The industry token space ("ZVLÁŠTNÍ POLÍČKO NA LIŠTĚ PRŮMYSLOVÉHO ROZVOJE"), where known.
    if (
        token_space is not None
        and max(board.industry) >= token_space
        and TOKEN_SPACE_INDUSTRY not in token_spaces
    ):
        token_spaces.append(TOKEN_SPACE_INDUSTRY)
        pending.append(Pending("token", player, TOKEN_SPACE_INDUSTRY))
    # (each only grows: a board where nothing fired is kept as it is — most steps, and the
    # choices tree tries many)
    if (
        len(fired) != len(board.fired)
        or len(colours) != len(board.colours)
        or len(points) != len(board.points)
        or extra != board.extra_workers
        or len(token_spaces) != len(board.token_spaces)
    ):
        board = replace(
            board,
            fired=frozenset(fired),
            colours=frozenset(colours),
            points=tuple(points),
            extra_workers=extra,
            token_spaces=tuple(token_spaces),
        )
    outcome = Outcome(board, tuple(pending))
    # Trans-Siberian 15: the white rail and two white steps, lost where no space is free.
    for _ in range(white_steps):
        try:
            target = check_rail_step(outcome.board, TRANS_SIBERIAN, WHITE)
        except IllegalActionError:
            break
        outcome = outcome.then(
            settle(_set_rail(outcome.board, TRANS_SIBERIAN, WHITE, target), player, token_space)
        )
    return outcome


# --- locomotives --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a locomotive goes: a track (replacing ``replace`` there when the track is full),
    or, for a displaced locomotive only, ``to_factory``: turned over and returned to the
    supply as a factory."""

    track: str = ""
    replace: int | None = None
    to_factory: bool = False


def _free_slots(board: PlayerBoard) -> list[str]:
    return [t for t in TRACKS if len(board.locos(t)) < LOCOMOTIVE_SLOTS[t]]


def _can_replace_somewhere(board: PlayerBoard, level: int) -> bool:
    return any(lv < level for t in TRACKS for lv in board.locos(t))


def _set_locos(board: PlayerBoard, track: str, levels: tuple[int, ...]) -> PlayerBoard:
    locos = list(board.locomotives)
    locos[TRACKS.index(track)] = tuple(sorted(levels, reverse=True))
    return replace(board, locomotives=tuple(locos))


def place_locomotive(
    board: PlayerBoard,
    player: int,
    level: int,
    placements: Sequence[Placement],
    token_space: int | None,
) -> Outcome:
    """Place a new locomotive and the chain of locomotives it displaces (seed 000, "ZVÝŠENÍ
    VÝKONU LOKOMOTIVY"): a locomotive goes to a track with a free space or replaces a weaker
    one there; the displaced one goes on the same way; one that fits nowhere is turned into a
    factory and returned to the supply. Stopping the chain early (turning a displaced
    locomotive into a factory although a weaker one could still be replaced) is allowed only
    when no locomotive space is free."""
    carrying: int | None = level
    returned: list[int] = []
    first = True
    for n, place in enumerate(placements):

        def where(what: Text, n: int = n) -> Message:
            return msg("placement {n}: {what}", n=n + 1, what=what)

        if carrying is None:
            refuse(
                where(msg("nothing is left to place, the chain has ended")),
                msg("the chain moves only displaced locomotives"),
                S_LOCO_REPLACE,
            )
        if place.to_factory:
            if first:
                refuse(
                    where(
                        msg(
                            "the new level {level} locomotive cannot go straight back to the "
                            "supply as a factory (build a factory instead)",
                            level=carrying,
                        )
                    ),
                    msg("a locomotive taken is placed at a track"),
                    S_LOCO_REPLACE,
                )
            free = _free_slots(board)
            if free:
                refuse(
                    where(
                        msg(
                            "the displaced level {level} locomotive must take the free space "
                            "on {tracks}",
                            level=carrying,
                            tracks=join_texts([track_name(t) for t in free], ", "),
                        )
                    ),
                    msg("while a locomotive space is free, no locomotive may be returned"),
                    S_LOCO_REPLACE,
                )
            returned.append(carrying)
            carrying = None
            continue
        track = place.track
        locos = board.locos(track)
        if len(locos) < LOCOMOTIVE_SLOTS[track]:
            if place.replace is not None:
                refuse(
                    where(
                        msg(
                            "{track} has a free locomotive space; nothing to replace",
                            track=track_name(track),
                        )
                    ),
                    msg("a locomotive replaces another only at a full track"),
                    S_LOCO_REPLACE,
                )
            board = _set_locos(board, track, (*locos, carrying))
            carrying = None
        else:
            target = place.replace
            if target is None:
                if len(set(locos)) > 1:
                    refuse(
                        where(
                            msg(
                                "{track} holds locomotives of levels {levels}; say which one "
                                "the level {level} locomotive replaces",
                                track=track_name(track),
                                levels=", ".join(map(str, locos)),
                                level=carrying,
                            )
                        ),
                        msg("a locomotive replaces one weaker locomotive"),
                        S_LOCO_REPLACE,
                    )
                target = locos[0]
            if target not in locos:
                refuse(
                    where(
                        msg(
                            "no level {level} locomotive on {track}",
                            level=target,
                            track=track_name(track),
                        )
                    ),
                    msg("a locomotive replaces one that is there"),
                    S_LOCO_REPLACE,
                )
            if target >= carrying:
                refuse(
                    where(
                        msg(
                            "a level {level} locomotive cannot replace level {target} on {track}",
                            level=carrying,
                            target=target,
                            track=track_name(track),
                        )
                    ),
                    msg("a locomotive only goes where no locomotive or a weaker one lies"),
                    S_LOCO_REPLACE,
                )
            rest = list(locos)
            rest.remove(target)
            board = _set_locos(board, track, (*rest, carrying))
            carrying = target
        first = False
    if carrying is not None:
        if first:
            refuse(
                msg("say where the level {level} locomotive goes", level=carrying),
                msg("a locomotive taken is placed at one of your tracks"),
                S_LOCO_TAKE,
            )
        if _free_slots(board) or _can_replace_somewhere(board, carrying):
            refuse(
                msg(
                    "the displaced level {level} locomotive still needs a place (a free space, a "
                    "weaker locomotive, or the supply as a factory when no space is free)",
                    level=carrying,
                ),
                msg("the displaced locomotive goes on along the chain"),
                S_LOCO_REPLACE,
            )
        # It fits nowhere: it becomes a factory in the supply.
        returned.append(carrying)
    outcome = settle(board, player, token_space)
    return Outcome(outcome.board, outcome.pending, tuple(returned))


# --- factories and industry ---------------------------------------------------------------


def add_factory(board: PlayerBoard, level: int, replace_slot: int | None) -> Outcome:
    """A factory goes into the first free slot, left to right; with all five full it replaces
    any factory of the player's choice, which returns to the supply (seed 000, "STAVBA
    TOVÁREN")."""
    factories = list(board.factories)
    if len(factories) < FACTORY_SLOTS:
        if replace_slot is not None:
            refuse(
                msg(
                    "replacing the factory in slot {slot}: slot {free} is still free",
                    slot=replace_slot,
                    free=len(factories) + 1,
                ),
                msg(
                    "factory slots are filled left to right; a factory is replaced only when "
                    "all five are full"
                ),
                S_FACTORY,
            )
        factories.append(level)
        return Outcome(replace(board, factories=tuple(factories)))
    if replace_slot is None:
        refuse(
            msg(
                "all five factory slots are full; say which factory (slot 1–5) the new one replaces"
            ),
            msg("with all slots full a new factory replaces one of the player's choice"),
            S_FACTORY,
        )
    if not 1 <= replace_slot <= FACTORY_SLOTS:
        refuse(
            msg("factory slot {slot}", slot=replace_slot), msg("factory slots are 1–5"), S_FACTORY
        )
    old = factories[replace_slot - 1]
    factories[replace_slot - 1] = level
    return Outcome(replace(board, factories=tuple(factories)), returned=(old,))


def industry_steps(
    board: PlayerBoard,
    player: int,
    marker: int,
    steps: int,
    token_space: int | None,
    *,
    builds_factory: Callable[[int], bool] | None = None,
) -> Outcome:
    """Move one industry marker step by step (seed 000, "PRŮMYSLOVÝ ROZVOJ"): an empty factory
    gap can be neither entered nor jumped; two markers never end on the same space.

    A factory reached on the way acts at once and the marker moves on after it (seed 000,
    "POSTUP PŘI DOSAŽENÍ POLE LEŽÍCÍHO NA ŽETONU TOVÁRNY": "Hráč hned provede příslušnou akci,
    poté posune ukazatel … o druhé pole vpřed"): the move stops there with the factory's decision owed and an
    ``industry_rest`` decision for the steps left, which the game resumes by itself. So the gap
    after a factory whose action may build the next factory (``builds_factory(level)``: its
    function is "a locomotive or a factory", or not yet known) may be passed: the steps after
    it are done once that factory is built, and are lost if it is not."""
    if not 0 <= marker < len(board.industry):
        refuse(
            plural(
                "industry marker {marker}: {player} has {n} marker",
                "industry marker {marker}: {player} has {n} markers",
                "n",
                marker=marker + 1,
                player=board.name,
                n=len(board.industry),
            ),
            msg("the second marker comes only with its “?” token"),
            S_SECOND_MARKER,
        )
    start = board.industry[marker]
    # the whole move first: it must be possible, with the factories built on the way
    built = len(board.factories)
    builders = 0  # factories passed on this move whose action may build the next one
    for position in range(start + 1, start + steps + 1):
        if position > INDUSTRY_LAST:
            refuse(
                msg("industry marker {marker} is at the end of the track", marker=marker + 1),
                msg("the industry track ends after the fifth factory"),
                S_INDUSTRY,
            )
        if position not in INDUSTRY_GAPS:
            continue
        gap = INDUSTRY_GAPS.index(position)
        if gap < len(board.factories):
            if builds_factory is not None and builds_factory(board.factories[gap]):
                builders += 1
            continue
        if gap == built and builders:  # the slot a factory passed on the way may fill
            builders -= 1
            built += 1
            continue
        refuse(
            msg(
                "an industry step to space {space}: factory slot {slot} is empty",
                space=position,
                slot=gap + 1,
            ),
            msg("an empty factory slot can be neither entered nor jumped; build a factory"),
            S_INDUSTRY,
        )
    others = [p for i, p in enumerate(board.industry) if i != marker]
    if start + steps in others:
        refuse(
            msg(
                "industry marker {marker} would end on space {space}, where the other marker is",
                marker=marker + 1,
                space=start + steps,
            ),
            msg("the two industry markers never share a space"),
            S_SECOND_MARKER,
        )
    pending: list[Pending] = []
    position = start
    for done in range(1, steps + 1):
        position += 1
        if position in INDUSTRY_GAPS:
            gap = INDUSTRY_GAPS.index(position)
            pending.append(Pending("factory", player, "industry", board.factories[gap], marker))
            if done < steps:  # the factory acts now; the marker moves on after it
                pending.append(Pending("industry_rest", player, "industry", steps - done, marker))
                break
    industry = list(board.industry)
    industry[marker] = position
    outcome = settle(replace(board, industry=tuple(industry)), player, token_space)
    return Outcome(outcome.board, tuple(pending) + outcome.pending)


def add_doublers(board: PlayerBoard, count: int, *, up_to: bool = False) -> PlayerBoard:
    """Doublers fill the eight spaces over Trans-Siberian 1–8 left to right (seed 000,
    "ŽETONY ZDVOJNÁSOBENÍ"). ``up_to``: place as many as fit (a "may place N")."""
    room = MAX_DOUBLERS - board.doublers
    if count > room and not up_to:
        refuse(
            plural(
                "{n} doubler with {placed} already placed",
                "{n} doublers with {placed} already placed",
                "n",
                n=count,
                placed=board.doublers,
            ),
            msg("at most 8 doublers, one on each of spaces 1–8 of the Trans-Siberian Railway"),
            S_DOUBLERS,
        )
    return replace(board, doublers=board.doublers + min(count, room))
