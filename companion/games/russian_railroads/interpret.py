"""Scans → actions: a component scanned at a seat becomes the effect it means now, or a
question for the table (a :class:`Prompt` whose options are the legal actions).

Component ids (for tags and printed codes):

* ``engineer:<ability>`` — the 15 engineer tiles, by ability (seed 000, "DESTIČKY INŽENÝRŮ");
* ``bonus:<card>`` — the 10 final bonus cards (contract ids);
* ``question:<card>`` — the 5 "?" cards;
* ``locomotive:<level>`` — a locomotive / factory tile of level 1–9 (tiles of a level are alike);
* ``token:<token>`` — a player's seven "?" tokens;
* ``start:<card>`` — the 4 starting bonus cards.
"""

from __future__ import annotations

from companion.core.actions import Action, Prompt
from companion.core.errors import IllegalActionError, UnknownComponentError
from companion.core.game import Component
from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.messages import Message, Text, join_texts, msg
from companion.games.russian_railroads import board_rules as br
from companion.games.russian_railroads.board_data import (
    BONUS_CARD_TITLES,
    BONUS_CARDS,
    ENGINEERS,
    LOCOMOTIVE_SLOTS,
    QUESTION_CARDS,
    STARTING_BONUS_CARDS,
    TOKENS,
    TRACKS,
)
from companion.games.russian_railroads.names import (
    TOKEN_NAMES,
    engineer_name,
    named,
    to_track,
)
from companion.games.russian_railroads.state import Pending, PlayerBoard, RussianRailroadsState

COMPONENTS: tuple[Component, ...] = (
    *(Component(f"engineer:{a}", f"Engineer: {text}", "engineer") for a, text in ENGINEERS.items()),
    *(
        Component(f"bonus:{c}", f"Final bonus card: {BONUS_CARD_TITLES[c]}", "bonus_card")
        for c in BONUS_CARDS
    ),
    *(Component(f"question:{c}", f"'?' card: {c}", "question_card") for c in QUESTION_CARDS),
    *(
        Component(f"locomotive:{lv}", f"Locomotive / factory level {lv}", "locomotive")
        for lv in range(1, 10)
    ),
    *(Component(f"token:{t}", f"'?' token: {t}", "token") for t in TOKENS),
    *(
        Component(f"start:{c}", f"Starting bonus card: {c}", "starting_bonus")
        for c in STARTING_BONUS_CARDS
    ),
)
_IDS = frozenset(c.id for c in COMPONENTS)


def placement_options(board: PlayerBoard, level: int) -> list[list[JsonObject]]:
    """Every legal way to place a level-``level`` locomotive with its whole displacement
    chain, as ``placements`` argument lists (seed 000, "ZVÝŠENÍ VÝKONU LOKOMOTIVY")."""
    results: list[list[JsonObject]] = []

    def steps(b: PlayerBoard, carrying: int, first: bool) -> list[JsonObject]:
        options: list[JsonObject] = []
        for track in TRACKS:
            locos = b.locos(track)
            if len(locos) < LOCOMOTIVE_SLOTS[track]:
                options.append({"track": track})
            else:
                for lv in sorted(set(locos)):
                    if lv < carrying:
                        options.append({"track": track, "replace": lv})
        if not first and not br._free_slots(b):
            options.append({"factory": True})
        return options

    def valid(path: list[JsonObject]) -> bool:
        try:
            br.place_locomotive(board, 0, level, [_placement(o) for o in path], None)
        except IllegalActionError:
            return False
        return True

    def walk(b: PlayerBoard, carrying: int, chain: list[JsonObject], first: bool) -> None:
        for option in steps(b, carrying, first):
            path = [*chain, option]
            nb, displaced = _apply_one(b, carrying, option)
            ends = displaced is None or (
                not br._free_slots(nb) and not br._can_replace_somewhere(nb, displaced)
            )
            if ends:
                if valid(path):
                    results.append(path)
            elif displaced is not None and len(path) < 8:
                walk(nb, displaced, path, False)

    walk(board, level, [], True)
    return results


def _placement(option: JsonObject) -> br.Placement:
    if option.get("factory"):
        return br.Placement(to_factory=True)
    rep = option.get("replace")
    return br.Placement(track=str(option["track"]), replace=rep if isinstance(rep, int) else None)


def _apply_one(
    board: PlayerBoard, carrying: int, option: JsonObject
) -> tuple[PlayerBoard, int | None]:
    p = _placement(option)
    if p.to_factory:
        return board, None
    locos = board.locos(p.track)
    if p.replace is None:
        return br._set_locos(board, p.track, (*locos, carrying)), None
    rest = list(locos)
    rest.remove(p.replace)
    return br._set_locos(board, p.track, (*rest, carrying)), p.replace


def _describe_chain(chain: list[JsonObject]) -> Message:
    parts: list[Text] = []
    for step in chain:
        if step.get("factory"):
            parts.append(msg("to the supply as a factory"))
        elif "replace" in step:
            parts.append(
                msg(
                    "{destination} replacing level {level}",
                    destination=to_track(str(step["track"])),
                    level=str(step["replace"]),
                )
            )
        else:
            parts.append(to_track(str(step["track"])))
    return join_texts(parts, " → ")


def _who(state: RussianRailroadsState, player: int | None) -> int:
    if player is not None:
        return player
    if state.pending:
        return state.pending[0].player
    return state.current if state.current is not None else state.turn_order[0]


def _one_or_ask(question: Text, player: int, options: list[Action]) -> Action | Prompt:
    if len(options) == 1:
        return options[0]
    return Prompt(question, player, tuple(options))


def interpret(state: RussianRailroadsState, player: int | None, component: str) -> Action | Prompt:
    if component not in _IDS:
        raise UnknownComponentError(f"Russian Railroads has no component {component!r}")
    who = _who(state, player)
    name = state.players[who].name
    kind, _, ident = component.partition(":")
    owed = state.pending[0] if state.pending and state.pending[0].player == who else None
    if kind == "token":
        if owed is not None and owed.kind == "token":
            return Action("use_token", who, {"token": ident})
        return Prompt(
            msg(
                "{player} scanned the “?” token “{token}”, but no token space has fired; if the "
                "industry token space was reached, confirm it",
                player=name,
                token=named(TOKEN_NAMES, ident),
            ),
            who,
            (Action("use_token", who, {"token": ident, "space": "industry"}),),
        )
    if kind == "bonus":
        if owed is not None and owed.kind == "bonus_card":
            return Action("bonus_card", who, {"card": ident})
        return Prompt(
            msg("{player} scanned a bonus card, but no bonus card is owed now", player=name), who
        )
    if kind == "start":
        if owed is None or owed.kind != "starting_bonus":
            return Prompt(
                msg(
                    "{player} scanned a starting bonus card, but it is not their pick", player=name
                ),
                who,
            )
        if ident == "black_step":
            return Prompt(
                msg("which track gets the black step?"),
                who,
                tuple(Action("starting_bonus", who, {"card": ident, "track": t}) for t in TRACKS),
            )
        return Action("starting_bonus", who, {"card": ident})
    if kind == "question":
        if owed is None or owed.kind != "question_card":
            return Prompt(
                msg("{player} scanned a “?” card, but no “?” card is owed now", player=name), who
            )
        if ident == "engineer_and_coin":
            return Prompt(msg("which number is printed on the engineer from the “?” card?"), who)
        if ident == "locomotive_9":
            return _one_or_ask(
                msg("where does the level 9 locomotive go?"),
                who,
                [
                    Action("question_card", who, {"card": ident, "placements": _json(chain)})
                    for chain in placement_options(state.players[who], 9)
                ],
            )
        return Action("question_card", who, {"card": ident})
    if kind == "engineer":
        if not _space_gives(owed, ("hire",)):
            return _space_first(
                state,
                who,
                ("hire_engineer",),
                msg("the engineer “{engineer}”", engineer=engineer_name(ident)),
            )
        if state.engineer_row and state.engineer_row[-1] and ident != state.engineer_row[-1]:
            return Prompt(
                msg(
                    "the engineer “{engineer}” is not on the hiring space; if {player} used its "
                    "action space, enter the effects",
                    engineer=engineer_name(ident),
                    player=name,
                ),
                who,
            )
        number = state.board.engineer_number(ident)
        if number is None:
            return Prompt(
                msg(
                    "which number is printed on the engineer “{engineer}”? (the owner can set it "
                    "once on the board figures page)",
                    engineer=engineer_name(ident),
                ),
                who,
            )
        return Action("hire_engineer", who, {"number": number, "ability": ident})
    # a locomotive / factory tile
    level = int(ident)
    if not _space_gives(owed, ("locomotive", "factory", "locomotive_or_factory")):
        return _space_first(
            state,
            who,
            ("locomotive_1", "locomotive_2", "locomotive_and_factory"),
            msg("a level {level} tile", level=level),
        )
    options: list[Action] = []
    if level in state.returned_factories:
        options.append(Action("build_factory", who, {"from": "returned", "level": level}))
    lowest = next((lv for lv, n in enumerate(state.locomotive_supply, start=1) if n > 0), None)
    if lowest == level:
        options.extend(
            Action("take_locomotive", who, {"placements": _json(chain)})
            for chain in placement_options(state.players[who], level)
        )
        options.append(Action("build_factory", who, {"from": "supply"}))
    if not options:
        return Prompt(
            msg(
                "a level {level} tile can be neither taken nor built now (lowest in the "
                "supply: {lowest})",
                level=level,
                lowest=str(lowest) if lowest is not None else "—",
            ),
            who,
        )
    return Prompt(
        msg(
            "{player} scanned a level {level} tile: {choices}",
            player=name,
            level=level,
            choices=join_texts(
                [
                    _describe_chain(list(o.arg("placements")))
                    if o.kind == "take_locomotive"
                    else msg("build it as a factory")
                    for o in options
                ],
                " | ",
            ),
        ),
        who,
        tuple(options),
    )


def _space_gives(owed: Pending | None, kinds: tuple[str, ...]) -> bool:
    """Whether the action space being done (or a token, card, factory) still gives one of
    ``kinds`` — only then is a scanned tile its effect (a turn is one action space: seed 000,
    "POPIS JEDNOHO TAHU HRÁČE")."""
    if owed is None or owed.kind != "space":
        return False
    return any(g.split(":")[0] in kinds for g in owed.grants)


def _space_first(
    state: RussianRailroadsState, who: int, keys: tuple[str, ...], what: Text
) -> Prompt:
    """A tile scanned before its action space: ask which space (and payment) it was; the
    options are the ``take_space`` entries the rules accept now."""
    from companion.games.russian_railroads.choices import payment_actions

    options = tuple(a for key in keys for a in payment_actions(state, who, key))
    name = state.players[who].name
    return Prompt(
        msg(
            "{player} scanned {what}: first say which action space {player} took and how it was "
            "paid, then scan it again",
            player=name,
            what=what,
        ),
        who,
        options,
    )


def _json(chain: list[JsonObject]) -> list[JsonValue]:
    return list(chain)


__all__ = ["COMPONENTS", "interpret", "placement_options"]
