"""What the scoreboard shows, as plain data for its templates (TV and phone): the standings
ranked, each score line in words, the last moves in words, the public table of the games that
have no drawn picture, and whether the sheet rests on board figures nobody has confirmed.

Everything is read from the published snapshot (already rendered in the reader's language by
``web.i18n.Localised``), the standings, counts and sheet from the game's public view
(``snapshot["view"]``, ``companion.core.public``); nothing here knows a game's rules or counts
anything a game decides.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import TracksideError
from web.games import find_game
from web.games import words as game_words
from web.i18n import _, t

log = logging.getLogger(__name__)

RECENT_SHOWN = 6
"""Moves the TV lists (newest first); the table page keeps the whole log."""

FIGURES_GAMES = frozenset({"mini-express"})
"""Games whose figures page is not found through ``board_figures`` (Mini Express: its share
values table)."""

# A move still written as notation (``space=natural_2``, ``cards=1×black``): the arguments are
# left to the table page's log and the TV says only who did what.
_NOTATION = re.compile(r"\s+\S+=\S.*$")
_RULE_TAIL = re.compile(r"\s+[—-]\s+(rule|rulebook):.*$", re.IGNORECASE)
_ID_WORD = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_UNKNOWN_TAG = re.compile(r"unknown tag '[^']*'(: enrol it on the table page)?")
_TAG_ID = re.compile(r"\b(?=[0-9A-F]*[0-9])(?=[0-9A-F]*[A-F])[0-9A-F]{8,}\b")


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    points: int
    note: str
    detail: str


@dataclass(frozen=True, slots=True)
class Standing:
    index: int
    rank: int
    name: str
    colour: str
    seat: int | None
    total: int
    winner: bool
    active: bool
    lines: tuple[Line, ...]
    stats: tuple[tuple[str, int], ...] = ()
    """Counts to show beside the name, as (kind, number): ``trains``, ``cards``, ``tickets``,
    ``stations`` (Ticket to Ride); the template words them."""


@dataclass(frozen=True, slots=True)
class Move:
    when: float | None
    text: str
    outcome: str


@dataclass(frozen=True, slots=True)
class Figures:
    """Board figures the sheet counted that no printed source confirms: how many, where the
    owner sets them, and the notes themselves (shown on tap)."""

    count: int
    game: str
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PublicTable:
    """A game's public table as rows of cells (Mini Express, Trains & Stations)."""

    kind: str
    rows: tuple[Mapping[str, Any], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


def words(category: str) -> str:
    """A category id for people when the line has no label: ``tickets_failed`` → ``Tickets
    failed``."""
    text = (category or "").replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def _text(value: Any) -> str:
    """A rendered text; a message the wrapper did not render (history's record) is rendered
    by the caller's ``t`` filter, so here only plain strings and None."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and "id" in value:
        return str(value.get("id", ""))
    return str(value)


def unslug(text: str) -> str:
    """A code id left in a text (``trans_siberian``, ``engineer_black_3points``) read as words:
    the scoreboard never shows an id with underscores."""
    return _ID_WORD.sub(lambda m: m.group(0).replace("_", " "), text)


def score_line(line: Mapping[str, Any], render: Any = _text) -> Line:
    label = render(line.get("label")) or words(str(line.get("category", "")))
    note = render(line.get("note_message")) or render(line.get("note"))
    return Line(
        label=unslug(label),
        points=int(line.get("points") or 0),
        note=unslug(note),
        detail=unslug(render(line.get("detail"))),
    )


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One row of the score sheet table: a category, each ranked player's points in it (``None``
    when the player has no line in it) and how many lines made them."""

    id: str
    label: str
    cells: tuple[int | None, ...]
    counts: tuple[int, ...]


def _view(snapshot: Mapping[str, Any]) -> Mapping[str, Any]:
    view = snapshot.get("view")
    return view if isinstance(view, Mapping) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _breakdown(view: Mapping[str, Any], index: int, render: Any) -> tuple[Line, ...] | None:
    """Player ``index``'s lines from the view's sheet, category by category (``None`` without a
    view)."""
    sheet = view.get("sheet")
    if not isinstance(sheet, list):
        return None
    out = []
    for category in sheet:
        if not isinstance(category, Mapping):
            continue
        cells = category.get("cells") or []
        cell = cells[index] if index < len(cells) and isinstance(cells[index], Mapping) else {}
        label = render(category.get("label")) or words(str(category.get("id", "")))
        for item in cell.get("lines") or []:
            if isinstance(item, Mapping):
                out.append(
                    Line(
                        label=unslug(label),
                        points=_int(item.get("points")),
                        note=unslug(render(item.get("note"))),
                        detail=unslug(render(item.get("detail"))),
                    )
                )
    return tuple(out)


def player_name(game: Any, name: str, render: Any = _text) -> str:
    """A player as people read them: their own name, or a player the game names itself (Mini
    Express's automa is the rulebook's Mašinfíra) in the reader's words."""
    named = game_words(str(game), "player", name) if name else None
    return render(named) if named is not None else name


def standings(snapshot: Mapping[str, Any], render: Any = _text) -> list[Standing]:
    """Players ranked by total (ties share a rank), each with their counts and lines in words,
    as the game's public view gives them."""
    players = [p for p in snapshot.get("players") or [] if isinstance(p, Mapping)]
    status = snapshot.get("status") or {}
    active = set(status.get("active_players") or [])
    view = _view(snapshot)
    shown = {_int(p.get("index")): p for p in view.get("players") or [] if isinstance(p, Mapping)}
    winners = set(view.get("winners") or snapshot.get("winners") or [])
    # a player the game scores who holds no seat (Mini Express's Mašinfíra) is ranked too, as
    # the view names them: a solo player sees whether they beat it
    seated = {int(p.get("index", position)) for position, p in enumerate(players)}
    players += [
        {"index": index, "name": mine.get("name", "")}
        for index, mine in sorted(shown.items())
        if index not in seated
    ]
    rows = []
    by_player = _counts(snapshot)
    for position, p in enumerate(players):
        index = int(p.get("index", position))
        mine = shown.get(index, {})
        total = _int(mine.get("total")) if "total" in mine else _int(p.get("total"))
        counts = tuple(by_player.get(index, {}).items())
        lines = _breakdown(view, index, render)
        if lines is None:
            lines = tuple(score_line(line, render) for line in p.get("lines") or [])
        rows.append((index, p, total, counts, lines))
    totals = sorted((total for _i, _p, total, _c, _l in rows), reverse=True)
    out = []
    for index, p, total, counts, lines in rows:
        seat = p.get("seat")
        out.append(
            Standing(
                index=index,
                rank=totals.index(total) + 1,
                name=player_name(snapshot.get("game"), str(p.get("name", "")), render),
                colour=str(p.get("colour") or ""),
                seat=seat if isinstance(seat, int) and not isinstance(seat, bool) else None,
                total=total,
                winner=str(p.get("name", "")) in winners,
                active=index in active and not snapshot.get("over"),
                lines=lines,
                stats=counts,
            )
        )
    out.sort(key=lambda s: (s.rank, s.index))
    return out


def sheet_rows(
    snapshot: Mapping[str, Any], ranked: Sequence[Standing], render: Any = _text
) -> list[SheetRow]:
    """The score sheet table: one row per category of the view's sheet, a column per ranked
    player (every line of a player in its category's row: a column sums to the total)."""
    out = []
    for category in _view(snapshot).get("sheet") or []:
        if not isinstance(category, Mapping):
            continue
        cells = [c if isinstance(c, Mapping) else {} for c in category.get("cells") or []]
        points: list[int | None] = []
        counts: list[int] = []
        for p in ranked:
            cell = cells[p.index] if p.index < len(cells) else {}
            lines = cell.get("lines") or []
            points.append(_int(cell.get("points")) if lines else None)
            counts.append(len(lines))
        label = render(category.get("label")) or words(str(category.get("id", "")))
        out.append(
            SheetRow(str(category.get("id", "")), unslug(label), tuple(points), tuple(counts))
        )
    return out


def plain_move(message: str) -> str:
    """One recent input as the TV says it: the rule's long explanation is left to the table
    page, and a move still written as notation keeps only who did what."""
    text = _RULE_TAIL.sub("", message.strip())
    text = _UNKNOWN_TAG.sub(lambda _m: _("unknown tag — enrol it on the table page"), text)
    if "=" in text:
        text = _NOTATION.sub("", text)
    text = _TAG_ID.sub("", text)
    return unslug(text).strip(" :;,")


def recent_moves(snapshot: Mapping[str, Any], count: int = RECENT_SHOWN) -> list[Move]:
    """The last inputs that did something (newest first), in words; reader noise that was only
    logged is left out."""
    status = snapshot.get("status") or {}
    rows = [r for r in status.get("recent") or [] if isinstance(r, Mapping)]
    out = []
    for row in reversed(rows):
        if row.get("outcome") == "logged":
            continue
        text = plain_move(_text(row.get("message")))
        if not text:
            continue
        out.append(Move(row.get("wall_time_s"), text, str(row.get("outcome") or "")))
        if len(out) >= count:
            break
    return out


def has_figures_page(game: str | None) -> bool:
    if not game:
        return False
    if game in FIGURES_GAMES:
        return True
    try:
        return hasattr(find_game(game), "board_figures")
    except TracksideError:
        return False


def figures(snapshot: Mapping[str, Any], notes: Sequence[Any] | None = None) -> Figures | None:
    """The sheet's notes on board figures, when the game has a page where the owner sets
    them; ``None`` when there is nothing to confirm."""
    game = snapshot.get("game")
    given = notes if notes is not None else snapshot.get("notes") or []
    texts = tuple(_text(n) for n in given if n)
    if not texts or not isinstance(game, str) or not has_figures_page(game):
        return None
    return Figures(len(texts), game, texts)


def other_notes(snapshot: Mapping[str, Any]) -> tuple[Any, ...]:
    """The sheet's notes when they are not about board figures (shown as they are)."""
    if figures(snapshot) is not None:
        return ()
    return tuple(n for n in snapshot.get("notes") or [] if n)


def public_table(snapshot: Mapping[str, Any]) -> PublicTable | None:
    """Mini Express (companies and each player's shares and influence) and Trains & Stations
    (stations, supplies, each player's public holdings)."""
    table = snapshot.get("table")
    if not isinstance(table, Mapping):
        return None
    game = snapshot.get("game")
    if game == "mini-express":
        return _mini_express(table)
    if game == "trains-and-stations":
        return _trains_and_stations(table, _counts(snapshot))
    return None


def _counts(snapshot: Mapping[str, Any]) -> dict[int, dict[str, int]]:
    """Each player's counts as the game's public view gives them, by player index."""
    out: dict[int, dict[str, int]] = {}
    for p in _view(snapshot).get("players") or []:
        if isinstance(p, Mapping):
            out[_int(p.get("index"))] = {
                str(c[0]): _int(c[1])
                for c in p.get("counts") or []
                if isinstance(c, list | tuple) and len(c) == 2
            }
    return out


def _mini_express(table: Mapping[str, Any]) -> PublicTable | None:
    companies = table.get("companies")
    if not isinstance(companies, Mapping):
        return None
    players = [p for p in table.get("players") or [] if isinstance(p, Mapping)]
    rows = []
    for company, c in companies.items():
        if not isinstance(c, Mapping):
            continue
        rows.append(
            {
                "company": str(company),
                "track": int(c.get("track_length") or 0),
                "field": int(c.get("trains_on_field") or 0),
                "supply": int(c.get("trains_in_supply") or 0),
                "shares": int(c.get("shares_on_board") or 0),
                "exhausted": bool(c.get("exhausted")),
                "holders": [
                    (
                        str(p.get("name", "")),
                        int((p.get("shares") or {}).get(company) or 0),
                        int((p.get("influence") or {}).get(company) or 0),
                    )
                    for p in players
                ],
            }
        )
    automa = table.get("automa")
    extra: dict[str, Any] = {"players": [str(p.get("name", "")) for p in players]}
    if isinstance(automa, Mapping) and isinstance(automa.get("city_number"), int):
        extra["city_pointer"] = automa["city_number"]
    return PublicTable("mini-express", tuple(rows), extra)


def _trains_and_stations(
    table: Mapping[str, Any], counts: Mapping[int, Mapping[str, int]]
) -> PublicTable | None:
    stations = table.get("stations")
    players = [p for p in table.get("players") or [] if isinstance(p, Mapping)]
    if not isinstance(stations, list):
        return None
    names = [str(p.get("name", "")) for p in players]
    rows = []
    for station in stations:
        if not isinstance(station, Mapping):
            continue
        built = []
        for b in station.get("buildings") or []:
            who = b.get("player")
            owner = names[who] if isinstance(who, int) and 0 <= who < len(names) else ""
            built.append((owner, str(b.get("building", ""))))
        rows.append(
            {
                "name": t(
                    game_words("trains-and-stations", "place", str(station.get("name", "")))
                    or str(station.get("name", ""))
                ),
                "capacity": int(station.get("capacity") or 0),
                "buildings": built,
            }
        )
    # each player's holdings are the view's counts (the table's own lists only for a record
    # stored without a view)
    holdings = []
    for index, p in enumerate(players):
        mine = counts.get(index)
        if mine is not None:
            coins, tasks = mine.get("coins", 0), mine.get("tasks", 0)
            left, dice = mine.get("buildings", 0), mine.get("dice", 0)
        else:
            coins, tasks = int(p.get("coins") or 0), len(p.get("tasks") or [])
            left = sum(int(v or 0) for v in (p.get("buildings_left") or {}).values())
            dice = int(p.get("dice_on_board") or 0)
        holdings.append(
            {
                "name": str(p.get("name", "")),
                "coins": coins,
                "tasks": tasks,
                "buildings_left": left,
                "dice": dice,
            }
        )
    extra = {
        "holdings": holdings,
        "vp_supply": table.get("vp_supply"),
        "goods": [str(g) for g in table.get("goods_in_play") or []],
        "final_round": bool(table.get("final_round")),
    }
    return PublicTable("trains-and-stations", tuple(rows), extra)


@dataclass(frozen=True, slots=True)
class RoundLine:
    label: str
    points: int
    note: str
    why: str
    """Why the line scored nothing (empty when it scored)."""


@dataclass(frozen=True, slots=True)
class RoundPlayer:
    name: str
    colour: str
    points: int
    lines: tuple[RoundLine, ...]


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round just scored, announced once on the TV before the standings come back."""

    key: str
    round: int
    players: tuple[RoundPlayer, ...]


def round_end(
    snapshot: Mapping[str, Any], ranked: Sequence[Standing], render: Any = _text
) -> RoundEnd | None:
    """The latest ``round_scored`` moment of the view, each player's lines in words."""
    moments = [
        m
        for m in _view(snapshot).get("moments") or []
        if isinstance(m, Mapping) and m.get("kind") == "round_scored"
    ]
    if not moments:
        return None
    moment = moments[-1]
    rows = moment.get("lines") or []
    sheet = {
        str(c.get("id")): c for c in _view(snapshot).get("sheet") or [] if isinstance(c, Mapping)
    }

    def words_of(item: Mapping[str, Any], index: int) -> tuple[str, str]:
        """The line's category name and note: the sheet's, unless the moment says otherwise."""
        category = sheet.get(str(item.get("category")), {})
        label = render(category.get("label")) or words(str(item.get("category", "")))
        if "note" in item:
            return label, render(item.get("note"))
        cells = category.get("cells") or []
        cell = cells[index] if index < len(cells) and isinstance(cells[index], Mapping) else {}
        lines = [x for x in cell.get("lines") or [] if isinstance(x, Mapping)]
        return label, render(lines[0].get("note")) if lines else ""

    players = []
    for p in ranked:
        items = rows[p.index] if p.index < len(rows) and isinstance(rows[p.index], list) else []
        lines = tuple(
            RoundLine(
                unslug(label),
                _int(i.get("points")),
                unslug(note),
                unslug(render(i.get("detail"))),
            )
            for i in items
            if isinstance(i, Mapping)
            for label, note in [words_of(i, p.index)]
        )
        players.append(RoundPlayer(p.name, p.colour, sum(x.points for x in lines), lines))
    return RoundEnd(str(moment.get("key", "")), _int(moment.get("round")), tuple(players))


@dataclass(frozen=True, slots=True)
class Announcement:
    """A moment of the public view the TV tells once in a banner: ``tone`` is ``good`` (a
    tunnel claimed at once), ``warn`` (cards owed) or ``info``."""

    key: str
    kind: str
    text: str
    tone: str


def announcements(snapshot: Mapping[str, Any], render: Any = _text) -> tuple[Announcement, ...]:
    """The view's tunnel verdict and the last round's start, in words: the tunnel as the game
    words it (``text``), the last round in the screen's own words. A round scored has its own
    page (:func:`round_end`); the game's end is the headline."""
    out = []
    for m in _view(snapshot).get("moments") or []:
        if not isinstance(m, Mapping):
            continue
        kind = m.get("kind")
        if kind == "tunnel":
            extra = m.get("extra_cards")
            tone = "good" if extra == 0 else "warn"
            out.append(
                Announcement(str(m.get("key")), "tunnel", unslug(render(m.get("text"))), tone)
            )
        elif kind == "last_round":
            text = _("The last round has begun")
            if m.get("round") is not None:
                text = _("The last round has begun: round {n}", n=_int(m.get("round")))
            out.append(Announcement(str(m.get("key")), "last_round", text, "info"))
    return tuple(out)


def view(snapshot: Mapping[str, Any], render: Any = _text) -> dict[str, Any]:
    """Everything the scoreboard templates draw from one snapshot; a picture that cannot be
    drawn is left out (logged), never drawn wrong."""
    from web.boards import rr_boards, rr_chart, ttr_map

    pictures: dict[str, Any] = {"chart": None, "board_map": None, "rr_boards": None}
    try:
        pictures = {
            "chart": rr_chart(snapshot),
            "board_map": ttr_map(snapshot),
            "rr_boards": rr_boards(snapshot),
        }
    except Exception:
        log.exception("web: drawing the board pictures failed")
    prompt = (snapshot.get("status") or {}).get("prompt")
    question = render(prompt.get("question")) if isinstance(prompt, Mapping) else ""
    ranked = standings(snapshot, render)
    return {
        "question": plain_move(question) if question else "",
        "ranked": ranked,
        "sheet": sheet_rows(snapshot, ranked, render),
        "round_end": round_end(snapshot, ranked, render),
        "announcements": announcements(snapshot, render),
        "moves": recent_moves(snapshot),
        "figures": figures(snapshot, [render(n) for n in snapshot.get("notes") or []]),
        "notes": tuple(unslug(render(n)) for n in other_notes(snapshot)),
        "public": public_table(snapshot),
        **pictures,
    }


def history_snapshot(record: Mapping[str, Any]) -> dict[str, Any]:
    """A finished (or stored) game's record as a snapshot the scoreboard's pictures read: the
    stored final table, the score sheet's players with their seat colours, the winners."""
    score = record.get("score") or {}
    seats = [p for p in record.get("players") or [] if isinstance(p, Mapping)]
    players = []
    for index, p in enumerate(score.get("players") or []):
        if not isinstance(p, Mapping):
            continue
        spec = seats[index] if index < len(seats) else {}
        players.append(
            {
                "index": index,
                "name": p.get("name", spec.get("name", "")),
                "colour": spec.get("colour"),
                "seat": spec.get("seat"),
                "total": p.get("total", 0),
                "lines": p.get("lines") or [],
            }
        )
    table = record.get("snapshot")
    return {
        "game": record.get("game"),
        "title": record.get("title"),
        "game_id": record.get("game_id"),
        "over": bool(record.get("ended_at")) or bool(score.get("winners")),
        "players": players,
        "winners": list(score.get("winners") or []),
        "notes": list(score.get("notes") or []),
        "table": table if isinstance(table, Mapping) else {},
        "view": record.get("view") if isinstance(record.get("view"), Mapping) else None,
        "status": {},
    }
