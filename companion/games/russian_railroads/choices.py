"""Russian Railroads: the choices tree — what the table can enter now (``companion.core.choices``).

Top: the player whose turn it is picks a free (or the reusable) action space they can pay for,
then how to pay; while a space (token, card, factory) still gives something, its parts: which
tracks and colours the steps go to, where a locomotive goes, which industry marker moves; the
decisions owed (bonus cards, factory functions, "?" tokens, the starting bonus draft); and pass.
Every leaf is an :class:`Action` checked with ``apply`` before it is offered, so the property
"every leaf the tree offers, ``apply`` accepts" holds by construction; big subtrees (ways to
split steps, locomotive chains) are built only when opened.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING, Any

from companion.core.actions import Action
from companion.core.choices import Choice
from companion.core.errors import IllegalActionError
from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.games.russian_railroads import board_rules as br
from companion.games.russian_railroads.action_board import (
    SPACES,
    engineer_place_index,
    parse_grant,
    public_engineers,
)
from companion.games.russian_railroads.board_data import (
    COLOURS,
    ENGINEERS,
    LOCOMOTIVE_SLOTS,
    TRACK_COLOURS,
    TRACK_LENGTH,
    TRACKS,
)
from companion.games.russian_railroads.names import (
    BONUS_CARD_NAMES,
    FACTORY_FUNCTION_NAMES,
    QUESTION_CARD_NAMES,
    STARTING_BONUS_NAMES,
    TOKEN_NAMES,
    cost_message,
    engineer_name,
    grant_message,
    named,
    rail_colour,
    source_message,
    space_title,
    steps,
    to_track,
    track_name,
)
from companion.games.russian_railroads.scoring import CATEGORY_LABELS
from companion.games.russian_railroads.state import PlayerBoard, RussianRailroadsState

if TYPE_CHECKING:
    from companion.games.russian_railroads.rules import RussianRailroads

Moves = tuple[tuple[str, str, int], ...]
STAGED_STEPS = 3  # as ``rules.STAGED_STEPS``: the 4-steps token is entered colour by colour
ENGINEER_NUMBERS = range(1, 16)


def _game() -> RussianRailroads:
    from companion.games.russian_railroads.rules import GAME

    return GAME


def _accepted(state: RussianRailroadsState, action: Action) -> bool:
    try:
        _game().apply(state, action)
    except IllegalActionError:
        return False
    return True


# -- what a grant can become --------------------------------------------------------------
def step_moves(
    board: PlayerBoard,
    player: int,
    colours: Sequence[str],
    count: int,
    *,
    up_to: bool,
    extra_black: bool,
    token_space: int | None,
) -> Iterator[Moves]:
    """Every way to spend ``count`` steps (``up_to``: 1…count) of the given colours over the
    tracks that the board rules allow (seed 000, "ZÁSADY STAVBY KOLEJÍ": split freely between
    tracks); moves in colour order, black first, so a colour never waits on the one before."""
    # a colour gained on the way (black reaching Trans-Siberian 2 / 6 / 10 / 15) is usable at
    # once (seed 000, "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV"; engineer tiles: "the order of the steps
    # is yours"): every colour the grant allows is tried, the board rules decide
    reachable = board.colours | _gainable(board, colours, count)
    pairs = [
        (t, c)
        for c in COLOURS
        if c in colours and c in reachable
        for t in TRACKS
        if c in TRACK_COLOURS[t]
    ]
    totals = list(range(1, count + 1)) if up_to else [count]
    if extra_black and "black" in colours:
        totals.append(count + 1)
    for total in totals:
        for combo in combinations_with_replacement(pairs, total):
            counts: dict[tuple[str, str], int] = {}
            for pair in combo:
                counts[pair] = counts.get(pair, 0) + 1
            if total > count and sum(n for (_, c), n in counts.items() if c == "black") < 2:
                continue
            moves = tuple(
                (t, c, n)
                for (t, c), n in sorted(
                    counts.items(), key=lambda kv: (COLOURS.index(kv[0][1]), TRACKS.index(kv[0][0]))
                )
            )
            if not _room_for(board, moves):
                continue
            try:
                br.build(board, player, list(moves), token_space)
            except IllegalActionError:
                continue
            yield moves


def _room_for(board: PlayerBoard, moves: Sequence[tuple[str, str, int]]) -> bool:
    """A quick test that no move runs a rail past the end or onto the colour before it (seed
    000, "ZÁSADY STAVBY KOLEJÍ"): a combination failing it is never tried with the board rules,
    which still decide every other one (colours owned, the special spaces)."""
    rails = [list(row) for row in board.rails]
    for track, colour, count in moves:
        t, c = TRACKS.index(track), COLOURS.index(colour)
        target = rails[t][c] + count
        if target > TRACK_LENGTH[track] or (c and target >= rails[t][c - 1]):
            return False
        rails[t][c] = target
    return True


def _gainable(board: PlayerBoard, colours: Sequence[str], count: int) -> frozenset[str]:
    """Colours black steps of this grant could still unlock (black on the Trans-Siberian
    reaching 2 / 6 / 10 / 15 within ``count`` steps)."""
    if "black" not in colours:
        return frozenset()
    from companion.games.russian_railroads.board_data import NEW_RAILS_AT

    black = board.rail("trans_siberian", "black")
    return frozenset(c for space, c in NEW_RAILS_AT.items() if black < space <= black + count)


def steps_doable(
    board: PlayerBoard,
    player: int,
    grants: Sequence[tuple[Sequence[str], int]],
    token_space: int | None,
) -> bool:
    """Whether all these step grants can be done in full, in some order (a colour one of
    them unlocks serves the next: seed 000, "DESTIČKY INŽENÝRŮ", the order of the steps)."""
    if not grants:
        return True
    for i, (colours, count) in enumerate(grants):
        rest = [*grants[:i], *grants[i + 1 :]]
        for moves in step_moves(
            board,
            player,
            colours,
            count,
            up_to=False,
            extra_black=False,
            token_space=token_space,
        ):
            after = br.build(board, player, list(moves), token_space).board
            if steps_doable(after, player, rest, token_space):
                return True
    return False


def locomotive_chains(board: PlayerBoard, level: int) -> Iterator[tuple[dict[str, object], ...]]:
    """Every placement of a new level-``level`` locomotive with the chain it displaces
    (seed 000, "ZVÝŠENÍ VÝKONU LOKOMOTIVY")."""

    def walk(
        b: PlayerBoard, carrying: int, first: bool, path: tuple[dict[str, object], ...]
    ) -> Iterator[tuple[dict[str, object], ...]]:
        free = [t for t in TRACKS if len(b.locos(t)) < LOCOMOTIVE_SLOTS[t]]
        for t in free:
            yield (*path, {"track": t})
        if not first and not free:
            yield (*path, {"factory": True})
        if free:
            return
        for t in TRACKS:
            for target in sorted(set(b.locos(t))):
                if target >= carrying:
                    continue
                rest = list(b.locos(t))
                rest.remove(target)
                locos = list(b.locomotives)
                locos[TRACKS.index(t)] = (*rest, carrying)
                from dataclasses import replace

                nb = replace(b, locomotives=tuple(locos))
                yield from walk(nb, target, False, (*path, {"track": t, "replace": target}))

    yield from walk(board, level, True, ())


def _lowest(state: RussianRailroadsState) -> int | None:
    return next((lv for lv, n in enumerate(state.locomotive_supply, start=1) if n > 0), None)


def grant_actions(state: RussianRailroadsState, p: int, grant: str) -> Iterator[Action]:
    """Candidate effects for one grant of the space being done (not yet checked by apply)."""
    g = parse_grant(grant)
    board = state.players[p]
    token_space = state.board.figure("industry_token_space").value
    first = state.pending[0] if state.pending else None
    extra = bool(first and first.kind == "space" and first.extra_black)
    if g.kind == "steps":
        for moves in step_moves(
            board, p, g.colours, g.count, up_to=g.up_to, extra_black=extra, token_space=token_space
        ):
            yield Action(
                "build", p, {"moves": [{"track": t, "colour": c, "steps": n} for t, c, n in moves]}
            )
    if g.kind in ("locomotive", "locomotive_or_factory"):
        level = _lowest(state)
        if level is not None:
            for chain in locomotive_chains(board, level):
                yield Action("take_locomotive", p, {"placements": list(chain)})
    if g.kind in ("factory", "locomotive_or_factory"):
        slots: list[int | None] = [None] if len(board.factories) < 5 else [1, 2, 3, 4, 5]
        for slot in slots:
            extra_args = {} if slot is None else {"replace_slot": slot}
            if _lowest(state) is not None:
                yield Action("build_factory", p, {"from": "supply", **extra_args})
            for level in sorted(set(state.returned_factories)):
                yield Action("build_factory", p, {"from": "returned", "level": level, **extra_args})
    if g.kind in {"industry", "four_repeat"}:
        counts = (
            [1]
            if g.kind == "four_repeat"
            else (list(range(1, g.count + 1)) if g.up_to else [g.count])
        )
        for marker in range(1, len(board.industry) + 1):
            for n in counts:
                yield Action("industry", p, {"steps": n, "marker": marker})
    if g.kind == "four_repeat":
        yield Action("doublers", p, {"count": 1})
        for t in TRACKS:
            yield Action("build", p, {"moves": [{"track": t, "colour": "black", "steps": 1}]})
    if g.kind == "hire":
        for ability in hire_candidates(state):
            for args in _engineer_args(state, ability):
                yield Action("hire_engineer", p, args)
    if g.kind == "repeat":
        for key in dict.fromkeys(board.used_spaces):
            yield Action("take_space", p, {"space": key})


def unseen_engineers(state: RussianRailroadsState) -> list[str]:
    """Engineer tiles not yet on the table (not named in the row, not held): what a tile turned
    face up, or the "?" card's engineer, can be (seed 000, "DESTIČKY INŽENÝRŮ": 15 tiles)."""
    held = {e.ability for b in state.players for e in b.engineers}
    return [a for a in ENGINEERS if a not in held and a not in state.engineer_row]


def hire_candidates(state: RussianRailroadsState) -> list[str]:
    """The engineer on the hiring space, or, not yet named, every tile it can be."""
    if not state.engineer_row:
        return []
    return [state.engineer_row[-1]] if state.engineer_row[-1] else unseen_engineers(state)


def _engineer_args(state: RussianRailroadsState, ability: str) -> Iterator[dict[str, object]]:
    """A tile by its name, with the number printed on it (the owner's figure, else each number
    not yet on a hired tile)."""
    if state.board.engineer_number(ability) is not None:
        yield {"ability": ability}
        return
    taken = {e.number for b in state.players for e in b.engineers}
    for number in ENGINEER_NUMBERS:
        if number not in taken:
            yield {"ability": ability, "number": number}


def engineer_choices(
    state: RussianRailroadsState,
    p: int,
    abilities: Sequence[str],
    kind: str,
    extra: dict[str, object],
) -> tuple[Choice, ...]:
    """One node per engineer tile, by its name; under it the number printed on the tile where
    the owner has not set it (two short levels instead of 15 × 15 leaves)."""
    name = state.players[p].name
    out: list[Choice] = []
    for ability in abilities:
        actions = [Action(kind, p, {**extra, **args}) for args in _engineer_args(state, ability)]
        if not actions or not _accepted(state, actions[0]):
            continue
        label = msg(
            "{player}: the engineer “{engineer}”", player=name, engineer=engineer_name(ability)
        )
        if len(actions) == 1:
            out.append(Choice(f"engineer-{ability}", label, p, action=actions[0]))
            continue

        def numbers(actions: list[Action] = actions) -> tuple[Choice, ...]:
            return tuple(
                Choice(
                    f"number-{a.arg('number')}",
                    msg(
                        "{player}: the number {number} is printed on the tile",
                        player=name,
                        number=int(a.arg("number")),
                    ),
                    p,
                    action=a,
                )
                for a in actions
                if _accepted(state, a)
            )

        out.append(Choice(f"engineer-{ability}", label, p, children=numbers))
    return tuple(out)


def tile_nodes(state: RussianRailroadsState, p: int) -> list[Choice]:
    """Naming the face-up engineers on the two variable action spaces, while the table has not
    (seed 000 setup step 9): what lies there is what can be used."""
    from companion.games.russian_railroads.rules import ENGINEER_PLACE_NAMES

    name = state.players[p].name
    row = state.engineer_row
    out: list[Choice] = []
    for place in ("left", "right"):
        index = engineer_place_index(len(row), place)
        if index < 0 or row[index]:
            continue

        def named_as(place: str = place) -> tuple[Choice, ...]:
            kids = []
            for ability in unseen_engineers(state):
                action = Action("engineer_tile", p, {"place": place, "engineer": ability})
                if _accepted(state, action):
                    kids.append(
                        Choice(
                            f"engineer-{ability}",
                            msg(
                                "{player}: the engineer “{engineer}”",
                                player=name,
                                engineer=engineer_name(ability),
                            ),
                            p,
                            action=action,
                        )
                    )
            return tuple(kids)

        out.append(
            Choice(
                f"engineer-tile-{place}",
                msg(
                    "{player}: which engineer lies face up on {place}?",
                    player=name,
                    place=ENGINEER_PLACE_NAMES[place],
                ),
                p,
                children=named_as,
            )
        )
    return out


def grant_doable(state: RussianRailroadsState, p: int, grant: str) -> bool:
    """Whether some effect can spend this grant in full on this board (board rules only)."""
    g = parse_grant(grant)
    board = state.players[p]
    token_space = state.board.figure("industry_token_space").value
    match g.kind:
        case "steps":
            moves = step_moves(
                board,
                p,
                g.colours,
                g.count,
                up_to=False,
                extra_black=False,
                token_space=token_space,
            )
            return next(moves, None) is not None
        case "locomotive" | "locomotive_or_factory" | "factory":
            loco = _lowest(state) is not None
            if g.kind == "factory":
                return loco or bool(state.returned_factories)
            if g.kind == "locomotive":
                return (
                    loco and next(locomotive_chains(board, _lowest(state) or 1), None) is not None
                )
            return loco or bool(state.returned_factories)
        case "industry":
            from companion.games.russian_railroads.rules import factory_builds

            for marker in range(len(board.industry)):
                try:
                    br.industry_steps(
                        board, p, marker, g.count, token_space, builds_factory=factory_builds(state)
                    )
                except IllegalActionError:
                    continue
                return True
            return False
        case "hire":
            return not state.engineer_hired and bool(state.engineer_row)
        case "repeat":
            return bool(board.used_spaces)
    return True


# -- labels --------------------------------------------------------------------------------
def _then(parts: Sequence[Text]) -> Text:
    """ "A, then B, then C" in the reader's language."""
    result: Text = parts[0] if parts else ""
    for part in parts[1:]:
        result = msg("{first}, then {next}", first=result, next=part)
    return result


def effect_label(state: RussianRailroadsState, action: Action) -> Message:
    from companion.core.jsonvalue import thaw

    name = state.players[action.player or 0].name
    args: dict[str, Any] = {k: thaw(v) for k, v in action.args.items()}
    match action.kind:
        case "build":
            parts: list[Text] = [
                msg(
                    "{track}: {steps}",
                    track=CATEGORY_LABELS[m["track"]],
                    steps=steps(m["steps"], m["colour"]),
                )
                for m in args["moves"]
            ]
            return msg("{player}: {steps}", player=name, steps=join_texts(parts, ", "))
        case "take_locomotive":
            chain: list[Text] = []
            for pl in args["placements"]:
                if pl.get("factory"):
                    chain.append(msg("the displaced one back to the supply as a factory"))
                elif pl.get("replace"):
                    chain.append(
                        msg(
                            "{destination} replacing level {level}",
                            destination=to_track(pl["track"]),
                            level=pl["replace"],
                        )
                    )
                else:
                    chain.append(to_track(pl["track"]))
            return msg(
                "{player}: the level {level} locomotive {where}",
                player=name,
                level=_lowest(state) or 0,
                where=_then(chain),
            )
        case "build_factory":
            level = args.get("level", _lowest(state) or 0)
            slot = args.get("replace_slot")
            if slot:
                return msg(
                    "{player}: a level {level} factory, replacing the factory in slot {slot}",
                    player=name,
                    level=level,
                    slot=slot,
                )
            return msg("{player}: a level {level} factory", player=name, level=level)
        case "industry":
            return msg(
                "{player}: industry marker {marker} +{steps}",
                player=name,
                marker=args["marker"],
                steps=args["steps"],
            )
        case "doublers":
            return msg("{player}: a doubler", player=name)
        case "hire_engineer":
            return msg(
                "{player}: hire the engineer “{engineer}”",
                player=name,
                engineer=engineer_name(str(args.get("ability") or "")),
            )
        case "take_space":
            return msg(
                "{player}: repeat {space}",
                player=name,
                space=source_message(str(args["space"])),
            )
    return msg("{player}: {what}", player=name, what=action.kind.replace("_", " "))


def _space_rails(grants: Sequence[str]) -> tuple[str, ...]:
    """The rail colours a space's steps are for, each once; steps with any rail show none."""
    found: dict[str, None] = {}
    for grant in grants:
        g = parse_grant(grant)
        if g.kind == "steps" and g.colours != COLOURS:
            found.update(dict.fromkeys(g.colours))
    return tuple(found)


def _rails(action: Action) -> tuple[str, ...]:
    """The rail colours a build moves, in its order, each once, drawn beside its words; the
    starting card "1 black step" is a black step too."""
    if action.kind == "build":
        return tuple(dict.fromkeys(str(m["colour"]) for m in action.arg("moves")))
    if action.kind == "starting_bonus" and action.arg("card") == "black_step":
        return ("black",)
    return ()


# -- the tree --------------------------------------------------------------------------------
def _grant_node(state: RussianRailroadsState, p: int, index: int, grant: str) -> Choice | None:
    label = msg("{player}: {what}", player=state.players[p].name, what=grant_message(grant))
    if parse_grant(grant).kind == "hire":
        # the tile by its name, then (unless the owner set it) the number printed on it
        nodes = engineer_choices(state, p, hire_candidates(state), "hire_engineer", {})
        return Choice(f"grant-{index}", label, p, children=nodes) if nodes else None

    g = parse_grant(grant)
    first = state.pending[0] if state.pending else None
    extra = bool(first and first.kind == "space" and first.extra_black)
    staged = g.count >= STAGED_STEPS or grant.endswith(":staged")
    if g.kind == "steps" and g.up_to and staged and not extra:
        nodes = _staged_steps(state, p, g)
        return Choice(f"grant-{index}", label, p, children=nodes) if nodes else None

    def children() -> tuple[Choice, ...]:
        out: list[Choice] = []
        seen: set[str] = set()
        for action in grant_actions(state, p, grant):
            key = _action_key(action)
            if key in seen or not _accepted(state, action):
                continue
            seen.add(key)
            out.append(
                Choice(key, effect_label(state, action), p, action=action, swatches=_rails(action))
            )
        return tuple(out)

    # offered only when something is legal under it (the first accepted way is enough to
    # know); the whole list — every split of the steps, every chain — is built when opened
    if not any(_accepted(state, a) for a in grant_actions(state, p, grant)):
        return None
    return Choice(f"grant-{index}", label, p, children=children)


def _staged_steps(state: RussianRailroadsState, p: int, g: Any) -> tuple[Choice, ...]:
    """A big "up to" rail grant (the 4-steps token) as steps: the colour, then the track and
    how many (one build each; what is left stays owed, and may be left)."""
    board = state.players[p]
    name = board.name
    reachable = board.colours | _gainable(board, g.colours, g.count)
    out: list[Choice] = []
    for colour in COLOURS:
        if colour not in g.colours or colour not in reachable:
            continue
        actions = [
            Action("build", p, {"moves": [{"track": t, "colour": colour, "steps": n}]})
            for t in TRACKS
            if colour in TRACK_COLOURS[t]
            for n in range(1, g.count + 1)
        ]
        if not any(_accepted(state, a) for a in actions):
            continue

        def leaves_of(actions: list[Action] = actions) -> tuple[Choice, ...]:
            return tuple(
                Choice(_action_key(a), effect_label(state, a), p, action=a, swatches=_rails(a))
                for a in actions
                if _accepted(state, a)
            )

        out.append(
            Choice(
                f"colour-{colour}",
                msg("{player}: the {colour} rail", player=name, colour=rail_colour(colour)),
                p,
                children=leaves_of,
                swatches=(colour,),
            )
        )
    return tuple(out)


def _action_key(action: Action) -> str:
    """A key a URL and an HTML attribute carry as they are (``take_space-space-black_3-
    workers-2``): the action's words as a slug, and a short digest of its exact arguments so two
    actions never share one."""
    import hashlib
    import json
    import re

    from companion.core.jsonvalue import thaw

    text = json.dumps(thaw(action.args), sort_keys=True, separators=(",", ":"))
    slug = re.sub(r"[^a-z0-9_]+", "-", f"{action.kind} {text}".lower()).strip("-")
    digest = hashlib.sha1(text.encode()).hexdigest()[:6]
    return f"{slug}-{digest}"


def _payments(state: RussianRailroadsState, p: int, key: str) -> tuple[Choice, ...]:
    from companion.games.russian_railroads.rules import GAME

    board = state.players[p]
    name = board.name
    out: list[Choice] = []
    moving = bool(state.pending and state.pending[0].kind == "turn_order_move")
    try:
        space = GAME.space_for(state, p, key)
    except IllegalActionError:
        return ()
    options: list[dict[str, int | bool]] = []
    if moving:
        # the worker moved is the one on the turn order space: when that is the black worker,
        # it brings its extra black step along (seed 000, "KARTY ?": the black worker, wherever
        # it is used; "DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY POŘADÍ NA TAHU")
        black_moves = board.black_worker_space.startswith("turn_order_")
        options.append({"black_worker": True} if black_moves else {})
    else:
        need = space.workers + space.coins
        for coins in range(space.coins, min(board.coins, need) + 1):
            for temporary in range(0, min(2, need - coins) + 1):
                workers = need - coins - temporary
                options.append({"workers": workers, "temporary": temporary, "coins": coins})
                if workers and board.black_worker and not board.black_worker_used:
                    options.append(
                        {
                            "workers": workers,
                            "temporary": temporary,
                            "coins": coins,
                            "black_worker": True,
                        }
                    )
    for pay in options:
        action = Action("take_space", p, {"space": key, **pay})
        if not _accepted(state, action):
            continue
        parts: list[Text] = []
        if pay.get("workers"):
            parts.append(plural("{n} worker", "{n} workers", "n", n=int(pay["workers"])))
        if pay.get("temporary"):
            parts.append(
                plural(
                    "{n} temporary worker", "{n} temporary workers", "n", n=int(pay["temporary"])
                )
            )
        if pay.get("coins"):
            parts.append(plural("{n} coin", "{n} coins", "n", n=int(pay["coins"])))
        if moving:
            paid: Text = (
                msg("the black worker from the turn order space")
                if pay.get("black_worker")
                else msg("the worker from the turn order space")
            )
        else:
            if pay.get("black_worker"):
                parts.append(msg("the black worker among them"))
            paid = join_texts(parts, ", ")
        out.append(
            Choice(
                "pay-" + "-".join(f"{k}{int(v)}" for k, v in sorted(pay.items())) or "pay",
                msg("{player}: pay with {paid}", player=name, paid=paid),
                p,
                action=action,
            )
        )
    return tuple(out)


def payment_actions(state: RussianRailroadsState, p: int, key: str) -> tuple[Action, ...]:
    """The ``take_space`` entries for space ``key`` the rules accept now (one per payment)."""
    return tuple(c.action for c in _payments(state, p, key) if c.action is not None)


def space_keys(state: RussianRailroadsState, p: int) -> list[str]:
    keys = [s.key for s in SPACES]
    keys += [f"engineer_{a}" for a in public_engineers(state.engineer_row) if a]
    keys += [f"own_engineer_{e.number}" for e in state.players[p].engineers if e.ability]
    return keys


def _space_nodes(state: RussianRailroadsState, p: int) -> list[Choice]:
    from companion.games.russian_railroads.rules import GAME, doable_memo

    name = state.players[p].name
    nodes = []
    for key in space_keys(state, p):
        with doable_memo(state):  # one doability check a space, not one a way to pay
            payments = _payments(state, p, key)
        if not payments:
            continue
        space = GAME.space_for(state, p, key)
        # the space's title already says what it gives ("3 black steps"); the cost follows
        label = msg(
            "{player}: {space} — {cost}",
            player=name,
            space=space_title(space),
            cost=cost_message(space),
        )
        rails = _space_rails(space.grants)
        if len(payments) == 1:  # one way to pay: the space is the tap (a turn in fewer taps)
            action = payments[0].action
            nodes.append(Choice(f"space-{key}", label, p, action=action, swatches=rails))
        else:
            nodes.append(Choice(f"space-{key}", label, p, children=payments, swatches=rails))
    return nodes


def _decision_nodes(state: RussianRailroadsState) -> list[Choice]:
    from companion.games.russian_railroads.rules import pending_options

    first = state.pending[0]
    p = first.player
    out: list[Choice] = []
    candidates = list(pending_options(state))
    if first.kind == "question_card":
        if "engineer_and_coin" in state.question_cards:
            # the engineer without a letter: the table names it, then its number
            engineers = engineer_choices(
                state,
                p,
                unseen_engineers(state),
                "question_card",
                {"card": "engineer_and_coin"},
            )
            if engineers:
                out.append(
                    Choice(
                        "question-card-engineer",
                        msg(
                            "{player}: the “?” card: {card}",
                            player=state.players[p].name,
                            card=named(QUESTION_CARD_NAMES, "engineer_and_coin"),
                        ),
                        p,
                        children=engineers,
                    )
                )
        if "locomotive_9" in state.question_cards:
            for chain in locomotive_chains(state.players[p], 9):
                candidates.append(
                    Action(
                        "question_card",
                        p,
                        {"card": "locomotive_9", "placements": list(chain)},
                    )
                )
    seen: set[str] = set()
    for action in candidates:
        key = _action_key(action)
        if key in seen or not _accepted(state, action):
            continue
        seen.add(key)
        label = _decision_label(state, action)
        out.append(Choice(key, label, p, action=action, swatches=_rails(action)))
    return out


def _decision_label(state: RussianRailroadsState, action: Action) -> Message:
    from companion.core.jsonvalue import thaw

    name = state.players[action.player or 0].name
    args: dict[str, Any] = {k: thaw(v) for k, v in action.args.items()}
    match action.kind:
        case "use_token":
            return msg(
                "{player}: use the “?” token: {token}",
                player=name,
                token=named(TOKEN_NAMES, str(args["token"])),
            )
        case "decline":
            return msg("{player}: no thanks", player=name)
        case "bonus_card":
            if args.get("points_instead"):
                return msg("{player}: 10 points instead of a bonus card", player=name)
            return msg(
                "{player}: the bonus card “{card}”",
                player=name,
                card=named(BONUS_CARD_NAMES, str(args["card"])),
            )
        case "factory_function":
            return msg(
                "{player}: the factory shows: {function}",
                player=name,
                function=named(FACTORY_FUNCTION_NAMES, str(args["function"])),
            )
        case "question_card":
            return msg(
                "{player}: the “?” card: {card}",
                player=name,
                card=named(QUESTION_CARD_NAMES, str(args["card"])),
            )
        case "starting_bonus":
            card = named(STARTING_BONUS_NAMES, str(args["card"]))
            if "track" in args:
                return msg(
                    "{player}: the starting card “{card}” on {track}",
                    player=name,
                    card=card,
                    track=track_name(str(args["track"])),
                )
            return msg("{player}: the starting card “{card}”", player=name, card=card)
    return msg("{player}: {what}", player=name, what=action.kind.replace("_", " "))


def choices(state: RussianRailroadsState, viewer: int | None = None) -> tuple[Choice, ...]:
    """The tree of what the table can enter now (nothing in Russian Railroads is hidden, so
    ``viewer`` changes nothing)."""
    del viewer
    game = _game()
    if state.phase == "over":
        return ()
    if state.pending:
        first = state.pending[0]
        p = first.player
        name = state.players[p].name
        if first.kind == "space":
            nodes: list[Choice] = []
            for i, g in enumerate(dict.fromkeys(first.grants)):
                node = _grant_node(state, p, i, g)
                if node is not None:
                    nodes.append(node)
            stop = Action("decline", p)
            if _accepted(state, stop):
                nodes.append(
                    Choice("stop", msg("{player}: leave the rest", player=name), p, action=stop)
                )
            return tuple(nodes)
        if first.kind == "turn_order_move":
            nodes = _space_nodes(state, p) + tile_nodes(state, p)
            nodes.append(
                Choice(
                    "pass",
                    msg("{player}: leave the worker", player=name),
                    p,
                    action=Action("pass", p),
                )
            )
            return tuple(nodes)
        return tuple(_decision_nodes(state))
    turn = game.expected(state)
    if turn is None:
        return ()
    name = state.players[turn].name
    nodes = _space_nodes(state, turn) + tile_nodes(state, turn)
    if _accepted(state, Action("pass", turn)):
        nodes.append(
            Choice("pass", msg("{player}: pass", player=name), turn, action=Action("pass", turn))
        )
    return tuple(nodes)


__all__ = [
    "choices",
    "grant_actions",
    "grant_doable",
    "payment_actions",
    "step_moves",
    "steps_doable",
]
