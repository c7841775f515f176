"""The hub's pages and JSON (docs/hub.md): read-only, no PIN; only what the tables already
show everyone."""

from __future__ import annotations

import csv
import io
import time
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request

from companion.core.errors import TracksideError
from companion.games import find_game
from companion.hub.league import league
from companion.hub.tables import SEAT_COLOURS, Hub
from companion.service.export import csv_cell

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


def create_hub_app(hub: Hub, *, night_hours: float = 12.0) -> Flask:
    app = Flask(__name__)
    app.jinja_env.globals["game_title"] = game_title
    # a seat's colour on the wall: a shade of the fixed set, never text a table sent
    app.jinja_env.globals["seat_colour"] = lambda name: SEAT_COLOURS.get(name or "", "#555")

    def row(cells: list[object]) -> list[object]:
        """A CSV row a spreadsheet will not run (``=HYPERLINK(…)`` as a name stays text):
        the same escaping as the table's own export."""
        return [csv_cell(cell) for cell in cells]

    def period() -> tuple[str, float | None]:
        name = request.args.get("period", "night")
        if name not in PERIODS:
            abort(400, f"period: {name!r} is neither night nor season")
        return name, (time.time() - night_hours * 3600 if name == "night" else None)

    def results(since: float | None = None, table_id: str | None = None) -> list[dict[str, Any]]:
        return hub.store.results(since, table_id)

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
        name, since = period()
        rows = results(since)
        return render_template(
            "league.html",
            period=name,
            rows=league(rows, hub.store.player_codes()),
            results=rows[::-1],
            periods=PERIODS,
        )

    @app.get("/league.csv")
    def league_csv() -> Response:
        name, since = period()
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["rank", "player", "code", "games", "wins", "points", "normalised_per_game"])
        for r in league(results(since), hub.store.player_codes()):
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
            headers={"Content-Disposition": f"attachment; filename=league-{name}.csv"},
        )

    @app.get("/results.csv")
    def results_csv() -> Response:
        name, since = period()
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["table_id", "game_id", "game", "ended_at", "player", "total", "winner"])
        for r in results(since):
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
            headers={"Content-Disposition": f"attachment; filename=results-{name}.csv"},
        )

    @app.get("/api/tables")
    def api_tables() -> Response:
        return jsonify({"tables": hub.views()})

    @app.get("/api/results")
    def api_results() -> Response:
        return jsonify({"results": results()})

    @app.get("/api/league")
    def api_league() -> Response:
        name, since = period()
        return jsonify(
            {
                "period": name,
                "method": "docs/hub.md#league: wins, then normalised points per game "
                "(100 × total ÷ the mean total of that game type in the period)",
                "players": league(results(since), hub.store.player_codes()),
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
