"""The Mini Express board-table page over HTTP (Flask's test client on a running Trackside with a
real SQLite file): the PIN and CSRF guard it, bad cells are named, a save reaches the store and
the game on the table, the export downloads without the PIN and imports back.

Board figures are FICTIONAL (the printed table is not public) except the rulebook's four cells
(12/other 4, 5/other 2, 7/2nd 5, 9/1st 8)."""

from __future__ import annotations

import io
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.core import Observation, ObservationKind
from companion.service.config import parse_settings
from companion.service.runtime import Trackside

from .conftest import PIN
from .test_table import signed_in

URL = "/table/board-table/mini-express"
API = "/api/board-tables/mini-express"
GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden" / "mini-express.json"
RULEBOOK = {"5": {"other": 2}, "7": {"2nd": 5}, "9": {"1st": 8}, "12": {"other": 4}}


def token(client: FlaskClient) -> str:
    page = client.get(URL).get_data(as_text=True)
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page
    return match.group(1)


def save(client: FlaskClient, **cells: str) -> tuple[int, str]:
    response = client.post(URL, data={"csrf": token(client), **cells})
    if response.status_code == 303:
        return 303, client.get(URL).get_data(as_text=True)
    return response.status_code, response.get_data(as_text=True)


def submit(service: Trackside, kind: ObservationKind, payload: dict[str, Any]) -> None:
    outcome = service.submit_and_wait(Observation("test", kind, payload), 10)  # type: ignore[arg-type]
    assert outcome["outcome"] == "applied", outcome


def start_three(service: Trackside, options: dict[str, Any] | None = None) -> None:
    payload: dict[str, Any] = {
        "command": "start_game",
        "game": "mini-express",
        "players": [{"name": n} for n in ("Ann", "Ben", "Cat")],
    }
    if options:
        payload["options"] = options
    submit(service, ObservationKind.COMMAND, payload)


def game_table(service: Trackside) -> dict[str, Any]:
    _, snapshot = service.latest()
    table: dict[str, Any] = snapshot["table"]["share_values"]
    return table


def input_tag(page: str, name: str) -> str:
    match = re.search(rf'<td class="([^"]*)">\s*<input name="{name}"[^>]*>', page)
    assert match, name
    return match.group(0)


def test_the_page_and_its_saves_need_the_pin_and_the_csrf_token(service: Trackside) -> None:
    client = service.app.test_client()
    response = client.get(URL)
    assert response.status_code == 303 and response.headers["Location"].endswith("/table")
    assert "Enter the table PIN first." in client.get("/table").get_data(as_text=True)
    # a signed-out browser with a token from the PIN page is still refused
    page = client.get("/table").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf
    response = client.post(URL, data={"csrf": csrf.group(1), "cell_3_1st": "6"})
    assert response.status_code == 303
    response = client.post(f"{URL}/import", data={"csrf": csrf.group(1)})
    assert response.status_code == 303
    assert service.store.game_defaults("mini-express") == {}
    # signed in, but a forged form without the token
    client = signed_in(service)
    response = client.post(URL, data={"cell_3_1st": "6"})
    assert response.status_code == 400 and "CSRF check failed" in response.get_data(as_text=True)
    assert service.store.game_defaults("mini-express") == {}


def test_the_form_has_48_cells_and_the_rulebooks_four_are_read_only(service: Trackside) -> None:
    client = signed_in(service)
    page = client.get(URL).get_data(as_text=True)
    assert len(re.findall(r'<input name="cell_\d+_(?:1st|2nd|other)"', page)) == 48
    assert page.count('inputmode="numeric"') == 48
    rulebook = input_tag(page, "cell_12_other")
    assert 'value="4"' in rulebook and "readonly" in rulebook and "rulebook" in rulebook
    assert page.count("(from the rulebook)") == 4
    assert "readonly" not in input_tag(page, "cell_3_1st")
    assert '<b id="unknown-count">44</b> of 48 cells still unknown' in page
    assert "New games start with 4 known cells (the rulebook's cells only)" in page


def test_saving_stores_the_table_and_a_cleared_cell_is_forgotten(service: Trackside) -> None:
    client = signed_in(service)
    status, page = save(
        client, cell_3_1st="6", cell_3_2nd=" 4 ", cell_12_other="4", cell_0_other="0"
    )
    assert status == 303
    assert "board table saved for new Mini Express games: 7 of 48 cells known, 41 unknown" in page
    assert service.store.game_defaults("mini-express") == {
        "share_values": {"0": {"other": 0}, "3": {"1st": 6, "2nd": 4}, **RULEBOOK}
    }
    assert 'value="6"' in input_tag(page, "cell_3_1st") and "saved" in input_tag(page, "cell_3_1st")
    assert '<b id="unknown-count">41</b>' in page
    assert "New games start with 7 known cells (the saved table)" in page
    # the next save without 3/2nd clears it; the rulebook's cells stay whatever is sent
    status, page = save(client, cell_3_1st="6")
    assert service.store.game_defaults("mini-express") == {
        "share_values": {"3": {"1st": 6}, **RULEBOOK}
    }
    assert 'value=""' in input_tag(page, "cell_3_2nd")


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (
            {"cell_3_1st": "x"},
            "Not saved — track length 3, 1st: expected a whole number 0–99, got &#39;x&#39;",
        ),
        (
            {"cell_15_other": "100"},
            "Not saved — track length 15, Other: expected a whole number 0–99",
        ),
        ({"cell_0_2nd": "-1"}, "Not saved — track length 0, 2nd: expected a whole number 0–99"),
        ({"cell_0_2nd": "2.5"}, "Not saved — track length 0, 2nd"),
    ],
)
def test_a_bad_cell_is_named_and_the_typed_form_comes_back(
    service: Trackside, cells: dict[str, str], message: str
) -> None:
    client = signed_in(service)
    status, page = save(client, cell_4_1st="7", **cells)
    assert status == 400 and message in page
    assert 'value="7"' in input_tag(page, "cell_4_1st")  # nothing typed is lost
    assert service.store.game_defaults("mini-express") == {}


def test_a_changed_rulebook_cell_is_refused_by_the_engine_and_kept_as_a_record(
    service: Trackside,
) -> None:
    client = signed_in(service)
    save(client, cell_3_1st="6")
    kept = service.store.game_defaults("mini-express")
    status, page = save(client, cell_3_1st="7", cell_12_other="5")  # a forged read-only cell
    assert status == 303
    assert (
        "Refused: track length 12, 3rd place or lower = 5, but the rulebook&#39;s scoring "
        "example shows 4 — rule: cells printed in the rulebook cannot be changed" in page
    )
    assert service.store.game_defaults("mini-express") == kept
    raw = service.store.inputs(1)[0]
    assert raw["outcome"] == "rejected" and raw["payload"]["share_values"]["12"] == {"other": 5}


def test_the_export_needs_no_pin_and_imports_back(service: Trackside, tmp_path: Path) -> None:
    anyone = service.app.test_client()
    response = anyone.get(API)
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    body = response.get_json()
    assert body["game"] == "mini-express" and body["source"] == "rulebook"
    assert body["share_values"] == RULEBOOK and len(body["missing"]) == 44
    assert body["missing"][:2] == ["share_values.0.1st", "share_values.0.2nd"]

    client = signed_in(service)
    save(client, cell_3_1st="6", cell_4_2nd="3")
    exported = anyone.get(API).get_json()
    assert exported["source"] == "saved" and len(exported["missing"]) == 42
    assert exported["share_values"] == {"3": {"1st": 6}, "4": {"2nd": 3}, **RULEBOOK}
    # its config lines are TOML the config accepts, with the same table
    assert exported["config"].startswith('[games."mini-express"]\nshare_values = { "3" = {')
    settings = parse_settings(tomllib.loads(exported["config"]), data_dir=tmp_path)
    assert settings.game_options["mini-express"] == {"share_values": exported["share_values"]}

    # forget a cell, then import the exported file: the table is as it was exported
    save(client, cell_3_1st="6")
    data = {"csrf": token(client), "file": (io.BytesIO(json.dumps(exported).encode()), "t.json")}
    response = client.post(f"{URL}/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 303
    assert service.store.game_defaults("mini-express") == {"share_values": exported["share_values"]}
    # a bad file is named and changes nothing
    for content, message in (
        (b"{nope", "Not imported — file: not a JSON file"),
        (
            b'{"game": "tiny-race", "share_values": {}}',
            "Not imported — file.game: &#39;tiny-race&#39;",
        ),
        (b"", "Not imported — file: choose the exported JSON file first"),
        (b'{"3": {"1st": "x"}}', "Refused: payload.share_values.3.1st: expected a whole number"),
    ):
        data = {"csrf": token(client), "file": (io.BytesIO(content), "t.json")}
        client.post(f"{URL}/import", data=data, content_type="multipart/form-data")
        assert message in client.get(URL).get_data(as_text=True)
        assert service.store.game_defaults("mini-express") == {
            "share_values": exported["share_values"]
        }


@pytest.fixture
def configured(tmp_path: Path) -> Iterator[Trackside]:
    """A Trackside whose config gives Mini Express a few cells."""
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
            "games": {"mini-express": {"share_values": {"1": {"1st": 2}, "3": {"1st": 6}}}},
        },
        data_dir=tmp_path,
    )
    svc = Trackside(settings)
    svc.start(web=False)
    yield svc
    svc.stop()


def test_the_form_is_pre_filled_from_the_config_and_the_saved_table_wins(
    configured: Trackside,
) -> None:
    client = signed_in(configured)
    page = client.get(URL).get_data(as_text=True)
    assert "config" in input_tag(page, "cell_1_1st") and 'value="2"' in input_tag(
        page, "cell_1_1st"
    )
    assert "New games start with 6 known cells (the config's share_values)" in page
    assert configured.app.test_client().get(API).get_json()["source"] == "config"
    # the owner clears 1/1st (the config's) and adds 4/2nd: the saved table is what new games get
    save(client, cell_3_1st="6", cell_4_2nd="3")
    start_three(configured)
    assert game_table(configured) == {"3": {"1st": 6}, "4": {"2nd": 3}, **RULEBOOK}
    export = configured.app.test_client().get(API).get_json()
    assert export["source"] == "saved" and "1" not in export["share_values"]


def test_saving_mid_game_also_fills_the_cells_the_game_lacks(service: Trackside) -> None:
    start_three(service, {"share_values": {"4": {"2nd": 2}}})
    client = signed_in(service)
    page = client.get("/table").get_data(as_text=True)
    assert 'href="/table/board-table/mini-express"' in page
    page = client.get(URL).get_data(as_text=True)
    assert "game" in input_tag(page, "cell_4_2nd") and 'value="2"' in input_tag(page, "cell_4_2nd")
    # 4/2nd is read as 3 now: the game keeps its 2 (say so); 3/1st and 0/other are new to it
    _, page = save(client, cell_3_1st="6", cell_4_2nd="3", cell_0_other="1")
    assert "The game on the table (#1) keeps its own 4 · 2nd = 2 (saved: 3)" in page
    assert (
        "The game on the table (#1) lacked 2 of these cells (0 · Other, 3 · 1st): sending them "
        "to it as a share_values action." in page
    )
    # the engine's outcome of the action, in words
    assert "The table fills in cells of the board&#39;s share-value table" in page
    assert game_table(service) == {"0": {"other": 1}, "3": {"1st": 6}, "4": {"2nd": 2}, **RULEBOOK}
    # saving the same table again sends nothing more to the game
    _, snapshot = service.latest()
    seq = snapshot["seq"]
    save(client, cell_3_1st="6", cell_4_2nd="3", cell_0_other="1")
    assert service.latest()[1]["seq"] == seq


def play_golden_without(service: Trackside, cell: tuple[str, str]) -> None:
    """The golden solo game (Turista) to its end, started without one of its cells."""
    golden = json.loads(GOLDEN.read_text())
    share_values = json.loads(json.dumps(golden["options"]["share_values"]))
    del share_values[cell[0]][cell[1]]
    share_values = {k: v for k, v in share_values.items() if v}
    start = {
        "command": "start_game",
        "game": "mini-express",
        "players": golden["players"],
        "options": {**golden["options"], "share_values": share_values},
    }
    submit(service, ObservationKind.COMMAND, start)
    for step in golden["steps"]:
        if "refused" in step:
            continue
        if "scan" in step:
            obs = Observation(
                "seat-1",  # type: ignore[arg-type]
                ObservationKind.TEXT,
                {"text": f"TS:mini-express:{step['scan']['component']}"},
                1,  # type: ignore[arg-type]
            )
            assert service.submit_and_wait(obs, 10)["outcome"] == "applied"
        else:
            submit(service, ObservationKind.ACTION, {"action": step["action"]})


def test_after_the_game_end_the_page_highlights_the_needed_cell_and_saving_scores_the_game(
    service: Trackside,
) -> None:
    play_golden_without(service, ("2", "2nd"))
    _, snapshot = service.latest()
    assert snapshot["over"] and snapshot["winners"] == []
    client = signed_in(service)
    table = client.get("/table").get_data(as_text=True)
    assert "Mini Express board table" in table
    assert (
        "Still waiting for track length 2, 2nd place from the board table, for the final scoring: "
        "enter it on the board table page before you end the game" in table
    )
    page = client.get(URL).get_data(as_text=True)
    assert "needs 1 cell for its scoring:" in page and "<b>2 · 2nd</b>" in page
    assert "needed" in input_tag(page, "cell_2_2nd")
    assert "needed" not in input_tag(page, "cell_3_other")  # known to the game
    _, page = save(client, cell_2_2nd="3", cell_0_2nd="2", cell_0_other="1", cell_3_other="2")
    _, snapshot = service.latest()
    assert snapshot["winners"] == ["automa"] and snapshot["notes"] == []
    assert "needs 1 cell" not in page
    assert "Still waiting for" not in client.get("/table").get_data(as_text=True)


def test_the_link_shows_at_the_start_and_with_mini_express_only(service: Trackside) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    client = signed_in(service)
    assert 'id="board-table-link"' in client.get("/table").get_data(as_text=True)
    submit(
        service,
        ObservationKind.COMMAND,
        {"command": "start_game", "game": "tiny-race", "players": [{"name": "Red"}]},
    )
    assert 'id="board-table-link"' not in client.get("/table").get_data(as_text=True)
