"""Pictures for the scoreboard, as plain data the templates draw in inline SVG (no JavaScript
library): the Russian Railroads score-per-round chart and the Ticket to Ride map.

Both read only the published snapshot (``/api/state``), never the game's internals, and
return ``None`` when the snapshot does not carry what they need (the board is then left out,
never drawn wrong).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from web import games, i18n
from web.games import words as game_words

# Russian Railroads: the categories scored at every round end (docs/formats/russian-railroads.md,
# "The sheet"); a round's scoring writes its lines as "round N: …".
RR_ROUND_CATEGORIES = frozenset({"trans_siberian", "st_petersburg", "kiev", "industry"})
_ROUND_NOTE = re.compile(r"^round (\d+):")

CHART_W, CHART_H = 960, 480
CHART_PAD_L, CHART_PAD_R, CHART_PAD_T, CHART_PAD_B = 64, 200, 20, 48
LABEL_GAP = 30
"""Least vertical distance between two end labels (they never overlap)."""
MAP_W, MAP_H = 1000.0, 667.0
"""The map's drawing size; city positions are percent of the board picture (3:2)."""


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    colour: str
    points: tuple[tuple[float, float], ...]
    """(x, y) in drawing units."""
    values: tuple[int, ...]
    label_y: float = 0.0
    """Where the name and last value are written, right of the plot."""

    @property
    def polyline(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in self.points)


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    x_labels: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, int], ...]
    series: tuple[Series, ...]
    plot: tuple[float, float, float, float]
    """left, top, right, bottom."""


def rr_round_totals(points: Sequence[Any]) -> dict[int, int]:
    """A player's running score right after each round's scoring: the running sum of their
    point entries (in the order they were earned) at the last line of round N's scoring."""
    running = 0
    after: dict[int, int] = {}
    for entry in points:
        if not isinstance(entry, Mapping):
            continue
        value = entry.get("points")
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        running += value
        match = _ROUND_NOTE.match(str(entry.get("why", "")))
        if match and entry.get("category") in RR_ROUND_CATEGORIES:
            after[int(match.group(1))] = running
    return after


def _rr_scored(snapshot: Mapping[str, Any], boards: Sequence[Any]) -> list[dict[int, int]]:
    """Each player's running total after each round: the game's public view's
    ``round_totals``, or for a stored game from before it, the table's point entries."""
    view = snapshot.get("view")
    picture = view.get("picture") if isinstance(view, Mapping) else None
    given = picture.get("round_totals") if isinstance(picture, Mapping) else None
    if isinstance(given, list):
        return [
            {
                _int(pair[0]): _int(pair[1])
                for pair in rows
                if isinstance(pair, list) and len(pair) == 2
            }
            if isinstance(rows, list)
            else {}
            for rows in given
        ]
    return [rr_round_totals(b.get("points") or []) for b in boards if isinstance(b, Mapping)]


def rr_chart(snapshot: Mapping[str, Any]) -> Chart | None:
    """Score per round per player: 0 at the start, the running total after each round's
    scoring, and the final total once the game is over."""
    table = snapshot.get("table")
    if snapshot.get("game") != "russian-railroads" or not isinstance(table, Mapping):
        return None
    boards = table.get("players")
    rounds = table.get("rounds")
    players = snapshot.get("players") or []
    if not isinstance(boards, list) or not isinstance(rounds, int) or rounds < 1:
        return None
    over = bool(snapshot.get("over"))
    scored = _rr_scored(snapshot, boards)
    done = max((max(a, default=0) for a in scored), default=0)
    totals = [int(p.get("total", 0)) for p in players if isinstance(p, Mapping)]
    # mid-game the running total moves between scorings: a "now" point keeps the end labels
    # equal to the totals in the standings
    now = not over and any(
        i < len(totals) and totals[i] != ([0] + [a[r] for r in sorted(a)])[-1]
        for i, a in enumerate(scored)
    )
    columns = max(done, 1) + (1 if over or now else 0)
    left, top = CHART_PAD_L, CHART_PAD_T
    right, bottom = CHART_W - CHART_PAD_R, CHART_H - CHART_PAD_B
    histories = []
    for index, board in enumerate(boards):
        if not isinstance(board, Mapping):
            return None
        after = scored[index] if index < len(scored) else {}
        values = [0] + [after[r] for r in range(1, done + 1) if r in after]
        if (over or now) and index < len(players):
            values.append(int(players[index].get("total", values[-1])))
        histories.append(values)
    top_value = max((max(v) for v in histories), default=0)
    scale_max = _nice_ceiling(max(top_value, 10))

    def x(col: int) -> float:
        return left + (right - left) * col / columns

    def y(value: int) -> float:
        return bottom - (bottom - top) * value / scale_max

    series = []
    for index, values in enumerate(histories):
        spec = players[index] if index < len(players) else {}
        series.append(
            Series(
                name=str(spec.get("name", f"player {index + 1}")),
                colour=str(spec.get("colour", "")),
                points=tuple((x(col), y(v)) for col, v in enumerate(values)),
                values=tuple(values),
            )
        )
    series = _spread_labels(series, top + 10, CHART_H - 10)
    labels = [(x(0), "start")] + [(x(r), f"R{r}") for r in range(1, done + 1)]
    if over:
        labels.append((x(columns), "final"))
    elif now:
        labels.append((x(columns), "now"))
    step = scale_max // 5
    ticks = tuple((y(v), v) for v in range(0, scale_max + 1, step))
    return Chart(CHART_W, CHART_H, tuple(labels), ticks, tuple(series), (left, top, right, bottom))


def _spread_labels(series: list[Series], lo: float, hi: float) -> list[Series]:
    """Each series' end label beside its last point, moved apart so none overlaps."""
    order = sorted(range(len(series)), key=lambda i: series[i].points[-1][1])
    ys: list[float] = []
    for i in order:
        y = max(series[i].points[-1][1] + 8, lo)
        if ys and y < ys[-1] + LABEL_GAP:
            y = ys[-1] + LABEL_GAP
        ys.append(y)
    overflow = ys[-1] - hi if ys else 0
    if overflow > 0:
        ys = [y - overflow for y in ys]
    placed = list(series)
    for i, y in zip(order, ys, strict=True):
        s = series[i]
        placed[i] = Series(s.name, s.colour, s.points, s.values, y)
    return placed


def _nice_ceiling(value: int) -> int:
    for step in (10, 20, 25, 50, 100, 200, 250, 500):
        if value <= step * 5:
            return -(-value // step) * step if value % step else value
    return -(-value // 1000) * 1000


@dataclass(frozen=True, slots=True)
class MapCity:
    id: str
    name: str
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class MapRoute:
    x1: float
    y1: float
    x2: float
    y2: float
    colour: str
    """Route colour for free routes; the owner's seat colour for claimed ones."""
    owner: str | None
    tunnel: bool
    ferry: bool
    label: str


@dataclass(frozen=True, slots=True)
class MapStation:
    x: float
    y: float
    colour: str
    owner: str
    city: str


@dataclass(frozen=True, slots=True)
class MapPath:
    owner: str
    colour: str
    length: int
    points: str


@dataclass(frozen=True, slots=True)
class TtrMap:
    width: float
    height: float
    cities: tuple[MapCity, ...]
    routes: tuple[MapRoute, ...]
    stations: tuple[MapStation, ...]
    paths: tuple[MapPath, ...]


def ttr_map(snapshot: Mapping[str, Any], board: Mapping[str, Any] | None = None) -> TtrMap | None:
    """Every route (double routes side by side), claimed ones in the owner's colour, stations,
    and once the game is over each player's longest path (from the game's public view).
    ``board``: the static map (``GameCatalogue.data``), fetched from the service's catalogue
    when not given."""
    table = snapshot.get("table")
    if snapshot.get("game") != "ticket-to-ride-europe" or not isinstance(table, Mapping):
        return None
    if board is None:
        board = cast("Mapping[str, Any]", games.data("ticket-to-ride-europe"))
    cities_data = [c for c in board.get("cities") or [] if isinstance(c, Mapping)]
    routes_data = [r for r in board.get("routes") or [] if isinstance(r, Mapping)]
    held = table.get("players")
    if not cities_data or not routes_data or not isinstance(held, list):
        return None
    city_by_id: dict[str, Mapping[str, Any]] = {str(c["id"]): c for c in cities_data}

    def xy(city: str) -> tuple[float, float]:
        c = city_by_id[city]
        return float(c["x_pct"]) * MAP_W / 100.0, float(c["y_pct"]) * MAP_H / 100.0

    players = snapshot.get("players") or []
    colours = [str(p.get("colour", "")) for p in players if isinstance(p, Mapping)]
    names: list[str] = []
    owner_of: dict[str, int] = {}
    station_rows: list[tuple[int, str]] = []
    for index, holding in enumerate(held):
        if not isinstance(holding, Mapping):
            return None
        names.append(str(holding.get("name", "")))
        station_rows += [(index, str(c)) for c in holding.get("stations") or [] if c in city_by_id]

    # who holds which route: the game's own route ids (its public view's picture)
    view = snapshot.get("view")
    picture = view.get("picture") if isinstance(view, Mapping) else None
    picture = picture if isinstance(picture, Mapping) else {}
    for index, owned in enumerate(picture.get("routes") or []):
        if index < len(names) and isinstance(owned, list):
            for route_id in owned:
                owner_of[str(route_id)] = index
    trails = picture.get("trails")

    def colour_of(index: int) -> str:
        return colours[index] if index < len(colours) else "grey"

    routes = []
    for spec in routes_data:
        a, b = str(spec.get("a")), str(spec.get("b"))
        if a not in city_by_id or b not in city_by_id:
            continue
        (x1, y1), (x2, y2) = xy(a), xy(b)
        partner = spec.get("partner")
        if partner is not None:  # a double route: two parallel lines
            dx, dy = x2 - x1, y2 - y1
            norm = max((dx * dx + dy * dy) ** 0.5, 1e-6)
            side = 1 if str(spec["id"]) < str(partner) else -1
            ox, oy = -dy / norm * 3.5 * side, dx / norm * 3.5 * side
            x1, y1, x2, y2 = x1 + ox, y1 + oy, x2 + ox, y2 + oy
        owner = owner_of.get(str(spec.get("id")))
        colour = str(spec.get("colour", ""))
        name = None
        if owner is not None:
            name, colour = names[owner], colour_of(owner)
        label = (
            f"{city_by_id[a]['name']}–{city_by_id[b]['name']} "
            f"({spec.get('length')}, {spec.get('colour')})"
        )
        routes.append(
            MapRoute(
                x1,
                y1,
                x2,
                y2,
                colour,
                name,
                bool(spec.get("tunnel")),
                _int(spec.get("ferry")) > 0,
                label,
            )
        )
    routes.sort(key=lambda r: r.owner is not None)  # claimed routes drawn on top
    stations = []
    seen: dict[int, int] = {}
    for index, city in station_rows:
        number = seen.get(index, 0)
        seen[index] = number + 1
        cx, cy = xy(city)
        stations.append(
            MapStation(
                cx + 7 + 6 * number,
                cy - 14,
                colour_of(index),
                names[index],
                _city_name(city_by_id[city]),
            )
        )
    paths = []
    for index, trail in enumerate(trails if isinstance(trails, list) else []):
        if not isinstance(trail, Mapping) or index >= len(names):
            continue
        cities = [str(c) for c in trail.get("cities") or [] if c in city_by_id]
        length = _int(trail.get("length"))
        if length and len(cities) > 1:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(c) for c in cities))
            paths.append(MapPath(names[index], colour_of(index), length, points))
    cities_drawn = tuple(
        MapCity(str(c["id"]), _city_name(c), *xy(str(c["id"]))) for c in cities_data
    )
    return TtrMap(MAP_W, MAP_H, cities_drawn, tuple(routes), tuple(stations), tuple(paths))


def _city_name(city: Mapping[str, Any]) -> str:
    """A city by the name the reader's language gives it (the same name as the table page's
    buttons and ``/me``), else as the board data has it."""
    found = game_words("ticket-to-ride-europe", "city", str(city.get("id")))
    return i18n.t(found) if found is not None else str(city.get("name", ""))


# -- Russian Railroads: each player's board ------------------------------------------------
RR_CELL = 38.0
RR_LABEL_W = 0.0
RR_ROW_H = 44.0
RR_BOARD_SPACES = 15
"""The drawing's width in spaces (the longest track; the industry track is drawn as wide)."""
RR_BOARD_W = RR_LABEL_W + RR_BOARD_SPACES * RR_CELL + 8
RR_BOARD_H = 4 * RR_ROW_H + 8


@dataclass(frozen=True, slots=True)
class RrCell:
    space: int
    x: float
    rail: str
    """The best rail colour standing on the space ("" = none built)."""
    in_reach: bool
    doubled: bool


@dataclass(frozen=True, slots=True)
class RrTrack:
    key: str
    y: float
    length: int
    cells: tuple[RrCell, ...]
    reach: int
    locomotives: tuple[int, ...]
    reach_x: float


@dataclass(frozen=True, slots=True)
class RrIndustryStep:
    step: int
    x: float
    gap: bool
    built: bool
    marker: bool


@dataclass(frozen=True, slots=True)
class RrBoard:
    name: str
    colour: str
    width: float
    height: float
    tracks: tuple[RrTrack, ...]
    industry: tuple[RrIndustryStep, ...]
    industry_y: float
    doublers: int
    factories: int
    engineers: int


def rr_boards(
    snapshot: Mapping[str, Any], board_data: Mapping[str, Any] | None = None
) -> tuple[RrBoard, ...] | None:
    """Each player's board as the table shows it: on each track the rails built (the best
    colour on each space), how far the locomotives reach (the game's public view says it:
    spaces beyond score nothing), the doublers over the first spaces of their track; the
    industry track with its factories and markers. The board's figures (tracks, colours,
    industry gaps) are the game's static data (``GameCatalogue.data``, fetched when
    ``board_data`` is not given); nothing here knows the rules."""
    table = snapshot.get("table")
    if snapshot.get("game") != "russian-railroads" or not isinstance(table, Mapping):
        return None
    boards = table.get("players")
    if not isinstance(boards, list):
        return None
    data: Mapping[str, Any] = (
        board_data if board_data is not None else games.data("russian-railroads")
    )
    tracks_data = [t for t in data.get("tracks") or [] if isinstance(t, Mapping)]
    colours = [str(c) for c in data.get("colours") or []]
    industry_data = data.get("industry")
    if not tracks_data or not colours or not isinstance(industry_data, Mapping):
        return None
    gaps = tuple(_int(g) for g in industry_data.get("gaps") or [])
    last = _int(industry_data.get("last"))
    view = snapshot.get("view")
    picture = view.get("picture") if isinstance(view, Mapping) else None
    reaches = picture.get("reach") if isinstance(picture, Mapping) else None
    if not isinstance(reaches, list) or len(reaches) != len(boards):
        return None  # a stored game from before the view said it: left out, never guessed
    players = snapshot.get("players") or []
    out = []
    for index, board in enumerate(boards):
        if not isinstance(board, Mapping) or not isinstance(reaches[index], list):
            return None
        spec = (
            players[index] if index < len(players) and isinstance(players[index], Mapping) else {}
        )
        rails = board.get("rails") or {}
        locos = board.get("locomotives") or {}
        doublers = _int(board.get("doublers"))
        tracks = []
        for row, track in enumerate(tracks_data):
            key, length = str(track.get("id")), _int(track.get("length"))
            positions = rails.get(key) or {}
            levels = tuple(_int(v) for v in locos.get(key) or [] if _int(v) > 0)
            given = reaches[index]
            reach = _int(given[row]) if row < len(given) else 0
            cells = []
            for space in range(1, length + 1):
                rail = ""
                for colour in colours:  # each colour follows the one before: the last is best
                    if _int(positions.get(colour)) >= space:
                        rail = colour
                cells.append(
                    RrCell(
                        space,
                        RR_LABEL_W + (space - 1) * RR_CELL + 4,
                        rail,
                        space <= reach,
                        key == data.get("doubler_track") and space <= doublers,
                    )
                )
            tracks.append(
                RrTrack(
                    key,
                    row * RR_ROW_H + 4,
                    length,
                    tuple(cells),
                    reach,
                    levels,
                    RR_LABEL_W + reach * RR_CELL + 4,
                )
            )
        factories = board.get("factories")
        built = len(factories) if isinstance(factories, list) else _int(factories)
        markers = {_int(m) for m in board.get("industry") or []}
        step_w = RR_BOARD_SPACES * RR_CELL / (last + 1)
        industry = tuple(
            RrIndustryStep(
                step,
                RR_LABEL_W + step * step_w + 4,
                step in gaps,
                step in gaps[:built],
                step in markers,
            )
            for step in range(last + 1)
        )
        engineers = board.get("engineers")
        out.append(
            RrBoard(
                str(board.get("name") or spec.get("name", "")),
                str(spec.get("colour") or ""),
                RR_BOARD_W,
                RR_BOARD_H,
                tuple(tracks),
                industry,
                len(tracks_data) * RR_ROW_H + 4,
                doublers,
                built,
                len(engineers) if isinstance(engineers, list) else 0,
            )
        )
    return tuple(out)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
