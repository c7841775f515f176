"""Mini Express's board table on a page: the guided one-time form (16 track lengths × 1st, 2nd,
Other), its export as JSON and its import.

The share values are printed on the owner's board, not in the rulebook, so Trackside never
guesses one (docs/formats/mini-express.md, "The board table"). The form is pre-filled with the
rulebook's four cells (read-only), the saved table, the config's ``share_values`` and the cells
the game on the table already knows; saving sends the engine's ``save_board_table`` command,
and, when an unfinished Mini Express game lacks cells the saved table has, the ``share_values``
action for those cells. Share values are not secret: the export needs no PIN.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from flask import (
    Blueprint,
    Response,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from companion.core.errors import SnapshotError, TracksideError
from companion.core.messages import msg
from web import games, i18n
from web.guard import guard, require_csrf
from web.i18n import _

blueprint = Blueprint("board_table", __name__)

GAME_NAME = "mini-express"


def _me() -> Any:
    """Mini Express's share values table API, from the service's catalogue (web imports no
    game module)."""
    return games.catalogue().share_values()


RANK_TITLES = {
    "1st": msg("1st", context="influence rank"),
    "2nd": msg("2nd", context="influence rank"),
    "other": msg("Other", context="influence rank"),
}
IMPORT_MAX_BYTES = 64 * 1024
EXPORT_FORMAT = 1


@runtime_checkable
class BoardTableService(Protocol):
    """What this page needs from the service besides the guard's."""

    def latest(self) -> tuple[int, dict[str, Any]]: ...

    def setup_defaults(self, game: str) -> tuple[Mapping[str, Any], Mapping[str, Any]]: ...


@dataclass(frozen=True, slots=True)
class FormCell:
    track_length: int
    rank: str
    value: int | str | None
    """What the input shows (a rejected entry is shown back as typed)."""
    source: str
    """``rulebook``, ``saved``, ``config``, ``game`` or ``""`` (unknown)."""
    needed: bool
    """The game on the table needs this cell for its scoring and does not know it."""

    @property
    def name(self) -> str:
        return f"cell_{self.track_length}_{self.rank}"

    @property
    def label(self) -> str:
        return _("track length {n}, {rank}", n=self.track_length, rank=RANK_TITLES[self.rank])


@dataclass(frozen=True, slots=True)
class Sources:
    """Where the page's cells come from (each ``None`` when there is none)."""

    saved: Any
    config: Any
    game: Any
    needed: tuple[Any, ...]
    game_id: int | None
    """The unfinished Mini Express game on the table, if any."""
    problems: tuple[str, ...]

    @property
    def for_new_games(self) -> tuple[str, Any]:
        """What the next game starts with (the engine's precedence: the saved table replaces
        the config's ``share_values``), and which one that is."""
        rulebook = _me().ShareValueTable.from_rulebook()
        for name, table in (("saved", self.saved), ("config", self.config)):
            if table is not None:
                return name, rulebook.fill(table.cells(), check_rulebook=False)
        return "rulebook", rulebook


def _service() -> BoardTableService | None:
    service = guard().service
    return service if isinstance(service, BoardTableService) else None


def _parse(data: Any, where: str, problems: list[str]) -> Any:
    try:
        table = _me().ShareValueTable.from_json(data, where)
        _me().ShareValueTable.from_rulebook().fill(table.cells(), path=where)
    except TracksideError as exc:
        problems.append(f"{where} is not used here: {exc}")
        return None
    return table


def _sources() -> Sources:
    problems: list[str] = []
    service = _service()
    saved = config = game = None
    needed: tuple[Any, ...] = ()
    game_id = None
    if service is not None:
        config_options, saved_options = service.setup_defaults(GAME_NAME)
        if "share_values" in saved_options:
            saved = _parse(saved_options["share_values"], "the saved table", problems)
        if "share_values" in config_options:
            config = _parse(
                config_options["share_values"],
                '[games."mini-express"] share_values in the config',
                problems,
            )
        _version, snapshot = service.latest()
        unfinished = (snapshot.get("status") or {}).get("unfinished_games") or []
        if snapshot.get("game") == GAME_NAME and snapshot.get("game_id") in unfinished:
            try:
                state = _me().GAME.from_json(snapshot.get("table"))
            except TracksideError as exc:
                problems.append(f"the game on the table cannot be read: {exc}")
            else:
                game, needed = state.share_values, _me().GAME.needed_share_values(state)
                game_id = snapshot.get("game_id")
    return Sources(saved, config, game, needed, game_id, tuple(problems))


def _form_cells(sources: Sources, typed: Mapping[str, str] | None = None) -> list[list[FormCell]]:
    """16 rows of 3 cells: each cell's value and where it comes from (the rulebook first, then
    the saved table, the config, the game on the table). ``typed``: a refused form's entries,
    shown back as they were."""
    rows = []
    for length in _me().TRACK_LENGTHS:
        row = []
        for rank in _me().RANKS:
            cell = (length, rank)
            value: int | str | None = None
            source = ""
            if cell in _me().KNOWN_SHARE_VALUES:
                value, source = _me().KNOWN_SHARE_VALUES[cell], "rulebook"
            else:
                for name, table in (
                    ("saved", sources.saved),
                    ("config", sources.config),
                    ("game", sources.game),
                ):
                    known = None if table is None else table.value(length, rank)
                    if known is not None:
                        value, source = known, name
                        break
            form_cell = FormCell(length, rank, value, source, cell in sources.needed)
            if typed is not None and source != "rulebook":
                entry = (typed.get(form_cell.name) or "").strip()
                value, source = (entry or None), ("typed" if entry else "")
                form_cell = FormCell(length, rank, value, source, form_cell.needed)
            row.append(form_cell)
        rows.append(row)
    return rows


def config_snippet(share_values: Mapping[str, Any]) -> str:
    """The ``[games."mini-express"]`` lines for the config (TOML) with this table."""
    rows = ", ".join(
        f'"{length}" = {{ ' + ", ".join(f'"{rank}" = {v}' for rank, v in row.items()) + " }"
        for length, row in share_values.items()
    )
    return f'[games."{GAME_NAME}"]\nshare_values = {{ {rows} }}\n'


def _words(cell: Any) -> str:
    return f"{cell[0]} · {i18n.t(RANK_TITLES[cell[1]])}"


def _page(sources: Sources, typed: Mapping[str, str] | None = None, status: int = 200) -> Any:
    rows = _form_cells(sources, typed)
    unknown = sum(1 for row in rows for c in row if c.value is None)
    which, for_new = sources.for_new_games
    return (
        render_template(
            "board_table.html",
            rows=rows,
            ranks=[(r, i18n.t(RANK_TITLES[r])) for r in _me().RANKS],
            unknown=unknown,
            total=len(_me().TRACK_LENGTHS) * len(_me().RANKS),
            needed=[_words(c) for c in sources.needed],
            game_id=sources.game_id,
            problems=sources.problems,
            new_games_from=which,
            new_games_known=len(for_new.cells()),
            config=config_snippet(for_new.to_json()),
            value_max=_me().SHARE_VALUE_MAX,
            messages=get_flashed_messages(with_categories=True),
        ),
        status,
    )


def _signed_in_or_login() -> BaseResponse | None:
    if not guard().signed_in():
        flash(_("Enter the table PIN first."), "error")
        return redirect(url_for("table"), 303)
    return None


class CellError(ValueError):
    def __init__(self, cell: FormCell, raw: str) -> None:
        super().__init__(
            _(
                "Not saved — {what}: expected a whole number {lo}–{hi}, got {value}",
                what=cell.label,
                lo=0,
                hi=_me().SHARE_VALUE_MAX,
                value=repr(raw),
            )
        )


def cells_from_form(form: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """The form's 48 inputs (``cell_<length>_<rank>``) as the notation's ``share_values``; an
    empty input is an unknown cell. A bad entry raises :class:`CellError` naming the cell."""
    table: dict[str, dict[str, int]] = {}
    for length in _me().TRACK_LENGTHS:
        for rank in _me().RANKS:
            probe = FormCell(length, rank, None, "", False)
            raw = (form.get(probe.name) or "").strip()
            if not raw:
                continue
            if not raw.isascii() or not raw.isdigit() or int(raw) > _me().SHARE_VALUE_MAX:
                raise CellError(probe, raw)
            table.setdefault(str(length), {})[rank] = int(raw)
    return table


def _save(share_values: Mapping[str, Any]) -> None:
    """Save the table; then give an unfinished Mini Express game the cells it lacks."""
    verdict = guard().send(
        "command",
        {"command": "save_board_table", "game": GAME_NAME, "share_values": dict(share_values)},
    )
    if verdict != "saved":
        return
    sources = _sources()
    if sources.game is None or sources.saved is None:
        return
    lacking: dict[str, dict[str, int]] = {}
    kept = []
    for (length, rank), value in sorted(sources.saved.cells().items()):
        known = sources.game.value(length, rank)
        if known is None:
            lacking.setdefault(str(length), {})[rank] = value
        elif known != value:
            kept.append(
                _(
                    "{cell} = {known} (saved: {value})",
                    cell=_words((length, rank)),
                    known=known,
                    value=value,
                )
            )
    if kept:
        flash(
            _(
                "The game on the table (#{game}) keeps its own {cells}. If it was misread, "
                "correct that entry in the game's log.",
                game=str(sources.game_id),
                cells="; ".join(kept),
            ),
            "info",
        )
    if lacking:
        cells = [_words((int(k), r)) for k, row in lacking.items() for r in row]
        flash(
            _(
                "The game on the table (#{game}) lacked {n} of these cells ({cells}): sending "
                "them to it as a share_values action.",
                game=str(sources.game_id),
                n=len(cells),
                cells=", ".join(cells),
            ),
            "info",
        )
        guard().send("action", {"action": {"kind": "share_values", "args": {"cells": lacking}}})


# -- routes --------------------------------------------------------------------------------------
@blueprint.get("/table/board-table/mini-express")
def form() -> Any:
    denied = _signed_in_or_login()
    if denied is not None:
        return denied
    return _page(_sources())


@blueprint.post("/table/board-table/mini-express")
def save() -> Any:
    require_csrf()
    denied = _signed_in_or_login()
    if denied is not None:
        return denied
    try:
        share_values = cells_from_form(request.form)
    except CellError as exc:
        flash(str(exc), "error")
        return _page(_sources(), typed=request.form, status=400)
    _save(share_values)
    return redirect(url_for("board_table.form"), 303)


@blueprint.post("/table/board-table/mini-express/import")
def import_file() -> Any:
    """A file from the export (or any JSON with ``share_values``, or the bare table) is saved
    as the board table."""
    require_csrf()
    denied = _signed_in_or_login()
    if denied is not None:
        return denied
    upload = request.files.get("file")
    raw = upload.stream.read(IMPORT_MAX_BYTES + 1) if upload is not None else b""
    try:
        if not raw:
            raise SnapshotError("file", "choose the exported JSON file first")
        if len(raw) > IMPORT_MAX_BYTES:
            raise SnapshotError("file", f"larger than {IMPORT_MAX_BYTES // 1024} KB")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise SnapshotError("file", f"not a JSON file ({exc})") from None
        if isinstance(data, dict) and "share_values" in data:
            if data.get("game", GAME_NAME) != GAME_NAME:
                raise SnapshotError("file.game", f"{data.get('game')!r} is not {GAME_NAME}")
            data = data["share_values"]
        if not isinstance(data, dict):
            raise SnapshotError("file.share_values", "expected an object of track lengths")
    except SnapshotError as exc:
        flash(_("Not imported — {why}", why=str(exc)), "error")
        return redirect(url_for("board_table.form"), 303)
    _save(data)
    return redirect(url_for("board_table.form"), 303)


@blueprint.get("/api/board-tables/mini-express")
def export() -> Response:
    """The table new games start with, as a download: ``share_values`` (the notation the config
    and the snapshots use), the cells still unknown, and where the table comes from."""
    which, table = _sources().for_new_games
    body = {
        "game": GAME_NAME,
        "format": EXPORT_FORMAT,
        "source": which,
        "share_values": table.to_json(),
        "missing": [_me().cell_path(c) for c in table.missing()],
        "config": config_snippet(table.to_json()),
    }
    response = Response(
        json.dumps(body, indent=2, ensure_ascii=False) + "\n", mimetype="application/json"
    )
    response.headers["Content-Disposition"] = (
        'attachment; filename="trackside-mini-express-board-table.json"'
    )
    return response


# -- the generic "board figures" page: any game that declares owner-supplied figures ------------
# A game declares them with ``board_figures(options)`` (every figure the rulebooks do not print:
# key, description, value, confirmed, source, lo, hi) and ``board_figure_options(saved,
# entered)``; the engine's ``save_board_table`` command saves them for new games. Mini Express's
# figures are its board table: the grid above is its form of this page.
FIGURE_MAX_CHARS = 3


@dataclass(frozen=True, slots=True)
class FigureRow:
    key: str
    description: str
    value: str
    """What the input shows: the owner's value, or what was typed into a refused form."""
    in_use: str
    """The value games use now when the owner has not set one (``""``: unknown)."""
    status: str
    """``owner`` (set from the box), ``unverified`` (one source), ``unknown``."""
    source: str
    lo: int
    hi: int


def _figures_game(name: str) -> Any:
    try:
        game = games.find_game(name)
    except TracksideError:
        return None
    return game if hasattr(game, "board_figures") else None


def _figure_rows(game: Any, typed: Mapping[str, str] | None = None) -> list[FigureRow]:
    service = _service()
    options: dict[str, Any] = {}
    if service is not None:
        config, saved = service.setup_defaults(game.name)
        options = {**config, **saved}
    rows = []
    for fig in game.board_figures(options):
        owner = bool(fig["confirmed"]) and fig["value"] is not None and bool(fig.get("owner"))
        value = str(fig["value"]) if owner else ""
        if typed is not None:
            value = (typed.get(f"figure_{fig['key']}") or "").strip()
        status = "owner" if owner else ("unverified" if fig["value"] is not None else "unknown")
        in_use = "" if fig["value"] is None else str(fig["value"])
        rows.append(
            FigureRow(
                str(fig["key"]),
                i18n.t(fig["description"]),
                value,
                in_use,
                status,
                i18n.t(fig["source"]),
                int(fig["lo"]),
                int(fig["hi"]),
            )
        )
    return rows


def _figures_page(game: Any, typed: Mapping[str, str] | None = None, status: int = 200) -> Any:
    rows = _figure_rows(game, typed)
    return (
        render_template(
            "board_figures.html",
            title=game.title,
            game=game.name,
            rows=rows,
            owner=sum(1 for r in rows if r.status == "owner"),
            unverified=sum(1 for r in rows if r.status == "unverified"),
            unknown=sum(1 for r in rows if r.status == "unknown"),
            messages=get_flashed_messages(with_categories=True),
        ),
        status,
    )


@blueprint.get("/table/board-figures/<game>")
def figures_form(game: str) -> Any:
    denied = _signed_in_or_login()
    if denied is not None:
        return denied
    if game == GAME_NAME:
        return redirect(url_for("board_table.form"), 303)
    found = _figures_game(game)
    if found is None:
        return render_template("board_figures.html", missing=game), 404
    return _figures_page(found)


@blueprint.post("/table/board-figures/<game>")
def figures_save(game: str) -> Any:
    require_csrf()
    denied = _signed_in_or_login()
    if denied is not None:
        return denied
    found = _figures_game(game)
    if found is None or game == GAME_NAME:
        return render_template("board_figures.html", missing=game), 404
    figures: dict[str, int | None] = {}
    for row in _figure_rows(found):
        raw = (request.form.get(f"figure_{row.key}") or "").strip()
        if not raw:
            figures[row.key] = None
            continue
        if (
            len(raw) > FIGURE_MAX_CHARS
            or not raw.isascii()
            or not raw.isdigit()
            or not row.lo <= int(raw) <= row.hi
        ):
            flash(
                _(
                    "Not saved — {what}: expected a whole number {lo}–{hi}, got {value}",
                    what=row.description,
                    lo=row.lo,
                    hi=row.hi,
                    value=repr(raw),
                ),
                "error",
            )
            return _figures_page(found, typed=request.form, status=400)
        figures[row.key] = int(raw)
    guard().send("command", {"command": "save_board_table", "game": game, "figures": figures})
    return redirect(url_for("board_table.figures_form", game=game), 303)
