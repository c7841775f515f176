"""The hub's pages and JSON (docs/hub.md): read-only, no PIN; only what the tables already
show everyone."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request

from companion.core.errors import TracksideError
from companion.core.spreadsheet import csv_cell
from companion.games import find_game
from companion.hub import i18n
from companion.hub.config import Season
from companion.hub.league import league
from companion.hub.tables import SEAT_COLOURS, Hub

PERIODS = ("night", "season")
PLAYERS_LISTED = 200
"""``/api/players``: the most-played names (a table takes at most 200 and 256 KiB)."""


def game_title(game: str | None) -> str:
    if not game:
        return ""
    try:
        return str(find_game(game).title)
    except (TracksideError, KeyError, ValueError):
        return game


@dataclass(frozen=True, slots=True)
class Period:
    """What a league page covers: ``night`` (the last ``night_hours``) or a ``season``
    (``season``: its number, 1 the oldest; None without seasons configured: everything)."""

    name: str
    since: float | None
    until: float | None = None
    season: int | None = None
    title: str | None = None

    def as_json(self, seasons: Sequence[Season]) -> dict[str, Any]:
        out: dict[str, Any] = {"period": self.name}
        if self.season is not None:
            s = seasons[self.season - 1]
            out["season"] = {
                "number": self.season,
                "name": s.name,
                "start": s.start.isoformat(),
                "end": seasons[self.season].start.isoformat()
                if self.season < len(seasons)
                else None,
            }
        return out


def season_at(seasons: Sequence[Season], now: float) -> int | None:
    """The number (1 the oldest) of the season running at ``now``, or None."""
    current = None
    for number, season in enumerate(seasons, 1):
        if season.start_s() <= now:
            current = number
    return current


def create_hub_app(
    hub: Hub,
    *,
    night_hours: float = 12.0,
    seasons: Sequence[Season] = (),
    language: str | None = None,
) -> Flask:
    """``language``: the pages' default (``[hub] language``); a screen's own choice
    (``?lang=``, its cookie, its browser's languages) comes first, as on a table's pages."""
    app = Flask(__name__)
    i18n.install(app, language)
    app.jinja_env.globals["game_title"] = game_title
    # a seat's colour on the wall: a shade of the fixed set, never text a table sent
    app.jinja_env.globals["seat_colour"] = lambda name: SEAT_COLOURS.get(name or "", "#555")

    def row(cells: list[object]) -> list[object]:
        """A CSV row a spreadsheet will not run (``=HYPERLINK(…)`` as a name stays text):
        the same escaping as the table's own export."""
        return [csv_cell(cell) for cell in cells]

    def period() -> Period:
        name = request.args.get("period", "night")
        if name not in PERIODS:
            abort(400, f"period: {name!r} is neither night nor season")
        now = time.time()
        if name == "night":
            return Period(name, now - night_hours * 3600)
        if not seasons:
            return Period(name, None)
        asked = request.args.get("season")
        if asked is None:
            number = season_at(seasons, now)
            if number is None:  # before the first season starts: everything so far
                return Period(name, None, seasons[0].start_s())
        elif asked.isdigit() and 1 <= int(asked) <= len(seasons):
            number = int(asked)
        else:
            abort(400, f"season: {asked[:20]!r} is not a season number 1–{len(seasons)}")
        until = seasons[number].start_s() if number < len(seasons) else None
        chosen = seasons[number - 1]
        return Period(name, chosen.start_s(), until, number, chosen.name)

    def results(
        since: float | None = None, table_id: str | None = None, until: float | None = None
    ) -> list[dict[str, Any]]:
        return hub.store.results(since, table_id, until)

    @app.get("/")
    def wall() -> str:
        return render_template("wall.html", tables=hub.views())

    @app.get("/partials/wall")
    def wall_partial() -> str:
        return render_template("_tables.html", tables=hub.views())

    @app.get("/t/<table_id>")
    def table_page(table_id: str) -> str:
        view = hub.view(table_id)
        if view is None:
            abort(404, f"no table {table_id!r} has been seen")
        done = results(table_id=table_id)[::-1][:20]
        return render_template("table.html", t=view, results=done)

    @app.get("/partials/t/<table_id>")
    def table_partial(table_id: str) -> str:
        view = hub.view(table_id)
        if view is None:
            abort(404)
        return render_template("_table.html", t=view)

    @app.get("/league")
    def league_page() -> str:
        p = period()
        rows = results(p.since, until=p.until)
        return render_template(
            "league.html",
            period=p.name,
            p=p,
            seasons=list(enumerate(seasons, 1))[::-1],
            rows=league(rows, hub.store.player_codes()),
            results=rows[::-1],
            periods=PERIODS,
        )

    def filename(p: Period) -> str:
        return p.name if p.season is None else f"season-{p.season}"

    @app.get("/league.csv")
    def league_csv() -> Response:
        p = period()
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["rank", "player", "code", "games", "wins", "points", "normalised_per_game"])
        for r in league(results(p.since, until=p.until), hub.store.player_codes()):
            w.writerow(
                row(
                    [
                        r["rank"],
                        r["name"],
                        r["code"] or "",
                        r["games"],
                        r["wins"],
                        r["points"],
                        r["normalised_per_game"],
                    ]
                )
            )
        return Response(
            out.getvalue(),
            mimetype="text/csv",
            headers={"Content-Disposition": f"attachment; filename=league-{filename(p)}.csv"},
        )

    @app.get("/results.csv")
    def results_csv() -> Response:
        span = period()
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["table_id", "game_id", "game", "ended_at", "player", "total", "winner"])
        for r in results(span.since, until=span.until):
            ended = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["ended_at"]))
            for p in r["players"]:
                w.writerow(
                    row(
                        [
                            r["table_id"],
                            r["game_id"],
                            r["game"],
                            ended,
                            p["name"],
                            p["total"],
                            "yes" if p["name"] in r["winners"] else "",
                        ]
                    )
                )
        return Response(
            out.getvalue(),
            mimetype="text/csv",
            headers={"Content-Disposition": f"attachment; filename=results-{filename(span)}.csv"},
        )

    @app.get("/api/tables")
    def api_tables() -> Response:
        return jsonify({"tables": hub.views()})

    @app.get("/api/results")
    def api_results() -> Response:
        return jsonify({"results": results()})

    @app.get("/api/league")
    def api_league() -> Response:
        p = period()
        return jsonify(
            {
                **p.as_json(seasons),
                "method": "docs/hub.md#league: wins, then normalised points per game "
                "(100 × total ÷ the mean total of that game type in the period)",
                "players": league(results(p.since, until=p.until), hub.store.player_codes()),
            }
        )

    @app.get("/api/hub")
    def api_hub() -> Response:
        return jsonify(hub.stats())

    @app.get("/api/players")
    def api_players() -> Response:
        """Known players with their codes, most games first: for a table page to offer."""
        rows = league(results(), hub.store.player_codes())
        rows.sort(key=lambda r: (-r["games"], r["name"]))
        listed = rows[:PLAYERS_LISTED]
        return jsonify(
            {
                "players": [
                    {"name": r["name"], "code": r["code"], "games": r["games"]} for r in listed
                ]
            }
        )

    return app
