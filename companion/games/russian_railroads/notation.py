"""The full table snapshot (format 1, ``docs/formats/russian-railroads.md``): state ↔ JSON, and
the problems of an impossible table."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.messages import Message, Text, render_text
from companion.core.problems import Problem
from companion.core.snapshot import Field
from companion.games.russian_railroads.board_data import (
    BONUS_CARDS,
    COLOURS,
    DOUBLER_SUPPLY,
    ENGINEERS,
    FACTORY_FUNCTIONS,
    FACTORY_SLOTS,
    INDUSTRY_GAPS,
    LOCOMOTIVE_SLOTS,
    LOCOMOTIVES_PER_LEVEL,
    LOCOMOTIVES_REMOVED,
    MAX_DOUBLERS,
    QUESTION_CARDS,
    STARTING_BONUS_CARDS,
    TOKENS,
    TRACK_COLOURS,
    TRACKS,
    BoardData,
)
from companion.games.russian_railroads.contract import (
    FORMAT,
    NAME,
    parse_industry,
    parse_locomotives,
    parse_rails,
)
from companion.games.russian_railroads.state import (
    Engineer,
    Pending,
    PlayerBoard,
    RussianRailroadsState,
)

PHASES = frozenset({"draft", "play", "after_round", "over"})
PENDING_KINDS = frozenset(
    {
        "token",
        "factory",
        "bonus_card",
        "question_card",
        "starting_bonus",
        "turn_order_move",
        "space",
        "industry_rest",
    }
)
POINT_CATEGORIES = frozenset(
    {
        *TRACKS,
        "industry",
        "pass",
        "terminus",
        "actions",
        "bonus_cards",
        "engineers",
    }
)
TRIGGERS = frozenset(
    {"rails:2", "rails:6", "rails:10", "rails:15", "worker:kiev7", "worker:ts3"}
    | {f"terminus:{t}" for t in TRACKS}
)
TOKEN_SPACE_IDS = frozenset({"trans_siberian:13", "st_petersburg:4", "st_petersburg:6", "industry"})


def _sorted(values: frozenset[str] | frozenset[int]) -> list[JsonValue]:
    return list(sorted(values))


def _player_to_json(b: PlayerBoard) -> JsonObject:
    return {
        "name": b.name,
        "rails": {
            t: {c: b.rails[i][j] for j, c in enumerate(COLOURS) if b.rails[i][j]}
            for i, t in enumerate(TRACKS)
        },
        "colours": [c for c in COLOURS if c in b.colours],
        "locomotives": {t: list(b.locomotives[i]) for i, t in enumerate(TRACKS)},
        "factories": list(b.factories),
        "industry": list(b.industry),
        "doublers": b.doublers,
        "revaluation": b.revaluation,
        "kiev_medal": b.kiev_medal,
        "tokens_used": list(b.tokens_used),
        "token_spaces": list(b.token_spaces),
        "fired": _sorted(b.fired),
        "engineers": [{"number": e.number, "ability": e.ability} for e in b.engineers],
        "bonus_cards": list(b.bonus_cards),
        "extra_workers": b.extra_workers,
        "black_worker": b.black_worker,
        "workers_used": b.workers_used,
        "temporary": b.temporary,
        "temporary_used": b.temporary_used,
        "coins": b.coins,
        "used_spaces": list(b.used_spaces),
        "black_worker_used": b.black_worker_used,
        "black_worker_space": b.black_worker_space,
        "points": [_point_json(c, p, w) for c, p, w in b.points],
        "score": b.score,
    }


def state_to_json(s: RussianRailroadsState) -> JsonObject:
    pending: list[JsonValue] = [
        {
            "kind": p.kind,
            "player": p.player,
            "source": p.source,
            "level": p.level,
            "marker": p.marker,
            "grants": list(p.grants),
            "extra_black": p.extra_black,
        }
        for p in s.pending
    ]
    board: dict[str, JsonValue] = dict(s.board.overrides())
    return {
        "game": NAME,
        "format": FORMAT,
        "round": s.round,
        "rounds": s.rounds,
        "phase": s.phase,
        "turn_order": list(s.turn_order),
        "current": s.current,
        "acted": s.acted,
        "passed": _sorted(s.passed),
        "turn_order_claims": list(s.turn_order_claims),
        "locomotive_supply": list(s.locomotive_supply),
        "returned_factories": list(s.returned_factories),
        "question_cards": list(s.question_cards),
        "bonus_deck": s.bonus_deck,
        "starting_bonus_cards": list(s.starting_bonus_cards),
        "engineer_hired": s.engineer_hired,
        "engineer_row": list(s.engineer_row),
        "temporary_taken": s.temporary_taken,
        "occupied": list(s.occupied),
        "doubler_supply": s.doubler_supply,
        "pending": pending,
        "factory_functions": [{"level": lv, "function": f} for lv, f in s.factory_functions],
        "figures_used": _sorted(s.figures_used),
        "board": board,
        "players": [_player_to_json(b) for b in s.players],
    }


def _engineer_row(doc: Field, players: int) -> tuple[str, ...]:
    """The engineer row ("" = a tile not named). A snapshot from before the row was always
    kept has it empty: the tiles still on the board are then all unnamed."""
    row_doc = doc.get("engineer_row")
    row = tuple(item.str(frozenset({"", *ENGINEERS})) for item in row_doc.list(max_len=7))
    named = [e for e in row if e]
    if len(set(named)) != len(named):
        row_doc.fail("an entry appears twice")
    if not row and doc.get("phase").value != "over":
        dealt = 7 if players == 4 else 6
        rounds_done = doc.get("round").int(lo=1, hi=7) - 1
        row = ("",) * max(dealt - rounds_done, 0)
    return row


def _strs(
    doc: Field, choices: frozenset[str] | tuple[str, ...], *, unique: bool = True
) -> tuple[str, ...]:
    values = tuple(item.str(choices) for item in doc.list(max_len=50))
    if unique and len(set(values)) != len(values):
        doc.fail("an entry appears twice")
    return values


def _player_from_json(doc: Field) -> PlayerBoard:
    doc.only(*_player_to_json(PlayerBoard("x", ((1, 0, 0, 0, 0),) * 3)))
    rails = parse_rails(doc.get("rails"))
    locos = parse_locomotives(doc.get("locomotives"))
    factories_doc = doc.get("factories")
    factories = tuple(f.int(lo=1, hi=9) for f in factories_doc.list(max_len=FACTORY_SLOTS))
    engineers = tuple(
        Engineer(
            e.get("number").int(lo=1, hi=99),
            e.get("ability", "").str(frozenset({"", *ENGINEERS})),
        )
        for e in doc.get("engineers").list(max_len=15)
    )
    points = []
    for item in doc.get("points").list(max_len=500):
        item.only("category", "points", "why", "why_message")
        why: Text = item.get("why", "").str()
        if "why_message" in item.value:
            why = Message.from_json(item.get("why_message").value, item.get("why_message").path)
        points.append(
            (item.get("category").str(POINT_CATEGORIES), item.get("points").int(lo=0), why)
        )
    board = PlayerBoard(
        name=doc.get("name").str(),
        rails=tuple(tuple(rails[t].get(c, 0) for c in COLOURS) for t in TRACKS),
        colours=frozenset(_strs(doc.get("colours"), COLOURS)),
        locomotives=tuple(locos[t] for t in TRACKS),
        factories=factories,
        industry=parse_industry(doc.get("industry"), len(factories)),
        doublers=doc.get("doublers").int(lo=0, hi=MAX_DOUBLERS),
        revaluation=doc.get("revaluation").bool(),
        kiev_medal=doc.get("kiev_medal").bool(),
        tokens_used=_strs(doc.get("tokens_used"), TOKENS),
        token_spaces=_strs(doc.get("token_spaces"), TOKEN_SPACE_IDS),
        fired=frozenset(_strs(doc.get("fired"), TRIGGERS)),
        engineers=engineers,
        bonus_cards=_strs(doc.get("bonus_cards"), BONUS_CARDS),
        extra_workers=doc.get("extra_workers").int(lo=0, hi=3),
        black_worker=doc.get("black_worker").bool(),
        workers_used=doc.get("workers_used").int(lo=0, hi=20),
        temporary=doc.get("temporary").int(lo=0, hi=2),
        temporary_used=doc.get("temporary_used").int(lo=0, hi=2),
        coins=doc.get("coins").int(lo=0),
        used_spaces=tuple(u.str() for u in doc.get("used_spaces", []).list(max_len=40)),
        black_worker_used=doc.get("black_worker_used", False).bool(),
        black_worker_space=doc.get("black_worker_space", "").str(),
        points=tuple(points),
    )
    if doc.has("score") and doc.get("score").int() != board.score:
        doc.get("score").fail(f"the points listed add up to {board.score}")
    return board


def state_from_json(data: Any) -> RussianRailroadsState:
    doc = Field(data)
    doc.only(*state_to_json(_EMPTY))
    if doc.get("game").str() != NAME:
        doc.get("game").fail(f"expected {NAME!r}")
    doc.get("format").int(lo=FORMAT, hi=FORMAT)
    players_doc = doc.get("players")
    items = players_doc.list(max_len=4)
    if not 2 <= len(items) <= 4:
        players_doc.fail("Russian Railroads takes 2–4 players")
    players = tuple(_player_from_json(p) for p in items)
    n = len(players)
    order_doc = doc.get("turn_order")
    order = tuple(i.int(lo=0, hi=n - 1) for i in order_doc.list(max_len=n))
    if sorted(order) != list(range(n)):
        order_doc.fail(f"a turn order lists every player 0–{n - 1} once")

    def player_or_none(f: Field) -> int | None:
        return None if f.value is None else f.int(lo=0, hi=n - 1)

    claims_doc = doc.get("turn_order_claims")
    claims = tuple(player_or_none(c) for c in claims_doc.list(max_len=2))
    if len(claims) != 2:
        claims_doc.fail("two turn order spaces (null when free)")
    pending = []
    for item in doc.get("pending").list(max_len=50):
        item.only("kind", "player", "source", "level", "marker", "grants", "extra_black")
        pending.append(
            Pending(
                item.get("kind").str(PENDING_KINDS),
                item.get("player").int(lo=0, hi=n - 1),
                item.get("source", "").str(),
                item.get("level", 0).int(lo=0, hi=14),
                item.get("marker", 0).int(lo=0, hi=1),
                tuple(g.str() for g in item.get("grants", []).list(max_len=8)),
                item.get("extra_black", False).bool(),
            )
        )
    functions = []
    for item in doc.get("factory_functions").list(max_len=9):
        item.only("level", "function")
        functions.append(
            (item.get("level").int(lo=1, hi=9), item.get("function").str(FACTORY_FUNCTIONS))
        )
    supply_doc = doc.get("locomotive_supply")
    supply = tuple(s.int(lo=0, hi=5) for s in supply_doc.list(max_len=9))
    if len(supply) != 9:
        supply_doc.fail("one count per locomotive level 1–9")
    rounds = doc.get("rounds").int(lo=6, hi=7)
    return RussianRailroadsState(
        players=players,
        round=doc.get("round").int(lo=1, hi=rounds),
        rounds=rounds,
        phase=doc.get("phase").str(PHASES),
        turn_order=order,
        current=player_or_none(doc.get("current")),
        acted=doc.get("acted").bool(),
        passed=frozenset(i.int(lo=0, hi=n - 1) for i in doc.get("passed").list(max_len=n)),
        turn_order_claims=claims,
        locomotive_supply=supply,
        returned_factories=tuple(
            sorted(f.int(lo=1, hi=9) for f in doc.get("returned_factories").list(max_len=40))
        ),
        question_cards=_strs(doc.get("question_cards"), QUESTION_CARDS),
        bonus_deck=doc.get("bonus_deck").int(lo=0, hi=8),
        starting_bonus_cards=_strs(doc.get("starting_bonus_cards"), STARTING_BONUS_CARDS),
        engineer_hired=doc.get("engineer_hired").bool(),
        engineer_row=_engineer_row(doc, n),
        temporary_taken=doc.get("temporary_taken").bool(),
        occupied=tuple(o.str() for o in doc.get("occupied", []).list(max_len=60)),
        doubler_supply=doc.get("doubler_supply").int(lo=0, hi=DOUBLER_SUPPLY),
        pending=tuple(pending),
        factory_functions=tuple(functions),
        figures_used=frozenset(item.str() for item in doc.get("figures_used").list(max_len=40)),
        board=BoardData.from_options(doc.get("board").value, "board"),
    )


_EMPTY = RussianRailroadsState(players=())


def find_problems(s: RussianRailroadsState) -> tuple[Problem, ...]:
    """Everything impossible about the table (python-chess ``status()`` style)."""
    found: list[Problem] = []
    for i, b in enumerate(s.players):
        where = f"players[{i}]"
        for t_index, track in enumerate(TRACKS):
            for c_index, colour in enumerate(COLOURS):
                pos = b.rails[t_index][c_index]
                if pos and colour not in TRACK_COLOURS[track]:
                    found.append(Problem("colour_on_track", f"{colour} on {track}", where))
                if pos and colour not in b.colours:
                    found.append(
                        Problem("colour_not_obtained", f"{colour} rail not obtained", where)
                    )
                if pos and c_index > 0 and pos >= b.rails[t_index][c_index - 1]:
                    found.append(Problem("colour_order", f"{colour} not behind on {track}", where))
        if b.doublers > MAX_DOUBLERS:
            found.append(Problem("doublers", "more than 8 doublers", where))
        for track in TRACKS:
            if len(b.locos(track)) > LOCOMOTIVE_SLOTS[track]:
                found.append(Problem("locomotive_slots", f"too many at {track}", where))
        for pos in b.industry:
            gaps = [g for g in INDUSTRY_GAPS if g <= pos]
            if len(gaps) > len(b.factories):
                found.append(Problem("industry_gap", f"marker at {pos} past an empty gap", where))
        # a marker stopped on a factory mid-move (the factory acting, the rest of the move
        # owed) passes the other marker's space; they never end on one
        moving = any(p.kind == "industry_rest" and p.player == i for p in s.pending)
        if len(set(b.industry)) != len(b.industry) and not moving:
            found.append(Problem("industry_shared", "two markers on one space", where))
    on_boards = sum(b.doublers for b in s.players)
    if on_boards + s.doubler_supply != DOUBLER_SUPPLY:
        found.append(
            Problem("doubler_count", f"{on_boards} placed + {s.doubler_supply} in supply ≠ 20")
        )
    n = len(s.players)
    if n:
        counts: Counter[int] = Counter()
        for b in s.players:
            counts.update(lv for t in TRACKS for lv in b.locos(t))
            counts.update(b.factories)
        counts.update(s.returned_factories)
        for level in range(1, 10):
            total = LOCOMOTIVES_PER_LEVEL[level] - LOCOMOTIVES_REMOVED[n]
            if level == 9 and "locomotive_9" not in s.question_cards:
                total += 1
            have = counts[level] + s.locomotive_supply[level - 1]
            if have != total:
                found.append(
                    Problem(
                        "locomotive_count",
                        f"{have} level-{level} tiles on the table, the game has {total}",
                        "locomotive_supply",
                    )
                )
    return tuple(found)


def _point_json(category: str, points: int, why: Text) -> JsonObject:
    """A scored point's record: ``why`` in English (what tools read), and the message itself
    (``why_message``) for every reader's language."""
    text, message = _why(why)
    data: JsonObject = {"category": category, "points": points, "why": text}
    if message is not None:
        data["why_message"] = message
    return data


@functools.lru_cache(maxsize=16384)
def _why(why: Text) -> tuple[str, JsonValue | None]:
    """A point's reason in English and as JSON, remembered: a board's points are kept from
    round to round and written again with every snapshot (half of one snapshot's cost at the
    end of a game). Reasons are immutable messages; nobody alters a snapshot once written."""
    return render_text(why), why.to_json() if isinstance(why, Message) else None
