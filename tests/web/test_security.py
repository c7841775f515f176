"""Issue 18, attacked as a guest on the same Wi-Fi would: one test per row of the issue's table
(rows 1, 2, 8, 10 and the small ones here; the server, MQTT and broker rows in their own files).
Loopback only, each bounded in time."""

from __future__ import annotations

import csv
import io
import re
import threading
import time
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from web import guard as guard_module
from web import private
from web.guard import (
    GLOBAL_FAILURES_ALLOWED,
    GLOBAL_PAUSE_FIRST_S,
    PIN_FAILURES_ALLOWED,
    PinLimiter,
    PinRefusedError,
    host_allowed,
)

from .conftest import PIN
from .private_table import ANN_PIN, at_speculation, claim, csrf_of, grant_code, signed_in_table

pytestmark = pytest.mark.timeout(60)


def guest(service: Trackside, address: str = "127.0.0.9") -> FlaskClient:
    """A browser on the Wi-Fi at ``address``."""
    client = service.app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def try_pin_form(client: FlaskClient, player: int, **fields: str) -> str:
    form = client.get(f"/me/{player}").get_data(as_text=True)
    game_id = re.search(r'name="game_id" value="(\d+)"', form)
    assert game_id, form
    data = {"csrf": csrf_of(form), "game_id": game_id.group(1), **fields}
    response = client.post(f"/me/{player}", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    return client.get(str(response.headers["Location"])).get_data(as_text=True)


# -- row 1: seats are granted by the table ------------------------------------------------
def test_row1_a_guest_cannot_claim_any_seat_without_the_tables_code(service: Trackside) -> None:
    at_speculation(service)
    started = time.monotonic()
    for player in range(3):
        intruder = guest(service, f"127.0.1.{player + 1}")
        for code in ("", "AAAAAAAA", "23456789"):
            page = try_pin_form(intruder, player, code=code, pin="123456", pin_again="123456")
            assert "That seat code is not valid" in page and "only you see this" not in page
        assert service.player_pin_hash(1, player) is None
        assert intruder.get("/me/partial").status_code == 401
    assert time.monotonic() - started < 30


def test_row1_the_code_works_once_for_its_own_seat(service: Trackside) -> None:
    at_speculation(service)
    code = grant_code(service.app, 0)
    # Ben's name does not open with Ann's code
    page = try_pin_form(guest(service), 1, code=code, pin="123456", pin_again="123456")
    assert "That seat code is not valid" in page and service.player_pin_hash(1, 1) is None
    ann = service.app.test_client()
    page = claim(ann, 0, ANN_PIN, code=code.lower().replace("-", " "))  # typed loosely
    assert "only you see this" in page
    # used: the same code opens nothing again, not even after a reset
    table = signed_in_table(service)
    page = table.get("/table").get_data(as_text=True)
    table.post("/me/reset/0", data={"csrf": csrf_of(page)})
    assert service.player_pin_hash(1, 0) is None
    page = try_pin_form(guest(service), 0, code=code, pin="654321", pin_again="654321")
    assert "That seat code is not valid" in page and service.player_pin_hash(1, 0) is None


def test_row1_a_reset_seat_waits_for_a_new_code(service: Trackside) -> None:
    """After a reset a script re-claimed the seat in 62 ms; now the code the table granted
    before the reset is dead too."""
    at_speculation(service)
    table = signed_in_table(service)
    page = table.get("/table").get_data(as_text=True)
    table.post("/me/code/0", data={"csrf": csrf_of(page)})
    code = re.search(r'data-player="0">([A-Z0-9-]+)<', table.get("/table").get_data(as_text=True))
    assert code
    table.post("/me/reset/0", data={"csrf": csrf_of(page)})  # the table changes its mind
    page = try_pin_form(guest(service), 0, code=code.group(1), pin="123456", pin_again="123456")
    assert "That seat code is not valid" in page and service.player_pin_hash(1, 0) is None


def test_row1_codes_are_shown_only_to_a_table_pin_session(tmp_path: Path) -> None:
    settings = parse_settings(
        {"web": {"pin": PIN, "trusted_subnets": ["127.0.0.1/32"]}}, data_dir=tmp_path
    )
    service = Trackside(settings)
    service.start(web=False)
    try:
        at_speculation(service)
        code = grant_code(service.app, 0)
        tv = service.app.test_client()  # a trusted screen: signed in without the PIN
        page = tv.get("/table").get_data(as_text=True)
        assert code not in page and "/me/code/" not in page
        assert "a trusted screen cannot grant them" in page
        for path in ("/me/code/1", "/me/reset/0"):
            response = tv.post(path, data={"csrf": csrf_of(page)})
            assert response.status_code == 303
        assert service.player_pin_hash(1, 0) is None
        after = signed_in_table(service).get("/table").get_data(as_text=True)
        assert 'data-player="1"' not in after  # the trusted screen granted nothing
    finally:
        service.stop()


# -- row 2: PIN guessing is bounded for the whole table ----------------------------------
def test_row2_many_addresses_pause_pin_sign_in_for_everybody(service: Trackside) -> None:
    addresses = [f"127.0.{i // 250}.{i % 250 + 1}" for i in range(GLOBAL_FAILURES_ALLOWED + 5)]
    refused = 0
    for n, address in enumerate(addresses):
        client = guest(service, address)
        page = client.get("/table").get_data(as_text=True)
        client.post("/table/login", data={"csrf": csrf_of(page), "pin": f"{n:06d}"})
        page = client.get("/table").get_data(as_text=True)
        if "PIN sign-in is paused" in page:
            refused += 1
    assert refused >= 5  # each address tried once: only the table-wide bound stopped them
    # even the right PIN from a fresh address waits, and the table page says why
    client = guest(service, "127.0.9.9")
    page = client.get("/table").get_data(as_text=True)
    assert "PIN sign-in is paused for 30 s" in page
    client.post("/table/login", data={"csrf": csrf_of(page), "pin": PIN})
    assert "Start a game" not in client.get("/table").get_data(as_text=True)
    api = client.post("/api/input", json={}, headers={"X-Trackside-Pin": PIN})
    assert api.status_code == 429 and "paused" in api.get_json()["error"]


def test_row2_pauses_grow_and_an_hour_of_quiet_forgets_them() -> None:
    now = [1000.0]
    limiter = PinLimiter(clock=lambda: now[0])
    pauses = []
    for round_ in range(5):
        for i in range(GLOBAL_FAILURES_ALLOWED):
            limiter.begin(f"10.0.{round_}.{i}")
        with pytest.raises(PinRefusedError, match="paused"):
            limiter.begin("10.9.9.9")
        pauses.append(limiter.pause_left())
        now[0] += pauses[-1] + 0.01
    assert pauses == [GLOBAL_PAUSE_FIRST_S * 2**k for k in range(5)]
    now[0] += 3601
    for i in range(GLOBAL_FAILURES_ALLOWED):
        limiter.begin(f"10.1.0.{i}")
    with pytest.raises(PinRefusedError):
        limiter.begin("10.9.9.9")
    assert limiter.pause_left() == pytest.approx(GLOBAL_PAUSE_FIRST_S, abs=0.1)


def test_row2_a_right_pin_does_not_count_and_addresses_are_forgotten() -> None:
    now = [0.0]
    limiter = PinLimiter(clock=lambda: now[0])
    for _ in range(3 * GLOBAL_FAILURES_ALLOWED):
        assert limiter.check("10.0.0.1", lambda: True)
    assert limiter.refusal("10.0.0.1") is None and limiter.pause_left() == 0
    for i in range(1000):
        limiter.per_address[f"10.0.{i // 250}.{i % 250}"].append(now[0])
    now[0] += 61
    assert limiter.refusal("10.0.0.5") is None
    assert len(limiter.per_address) <= 1000  # entries go as they are looked at


# -- row 8: parallel guesses are counted before the hash; hashing is bounded -------------
def test_row8_thirty_parallel_guesses_hash_at_most_five(
    service: Trackside, monkeypatch: pytest.MonkeyPatch
) -> None:
    at_speculation(service)
    claim(service.app.test_client(), 0, ANN_PIN)
    hashed, running, peak = [0], [0], [0]
    lock = threading.Lock()
    real = private.pin_matches

    def counting(pin: str, stored: str) -> bool:
        with lock:
            hashed[0] += 1
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        try:
            time.sleep(0.05)
            return real(pin, stored)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(private, "pin_matches", counting)
    clients = []
    for _ in range(30):
        client = guest(service, "127.0.3.3")
        form = client.get("/me/0").get_data(as_text=True)
        clients.append((client, csrf_of(form)))
    barrier = threading.Barrier(30)
    said: list[str] = []

    def guess(client: FlaskClient, token: str, n: int) -> None:
        barrier.wait(10)
        response = client.post("/me/0", data={"csrf": token, "game_id": "1", "pin": f"{n:04d}"})
        said.append(client.get(str(response.headers["Location"])).get_data(as_text=True))

    threads = [threading.Thread(target=guess, args=(c, t, n)) for n, (c, t) in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(said) == 30
    assert hashed[0] == PIN_FAILURES_ALLOWED
    assert peak[0] <= guard_module.HASHES_AT_ONCE
    assert sum("Too many wrong PINs" in page for page in said) == 30 - PIN_FAILURES_ALLOWED


# -- row 10: trusted subnets are screens, not the Wi-Fi; the Host header is checked -------
def test_row10_a_trusted_screen_cannot_reset_a_pin_or_read_a_hand(tmp_path: Path) -> None:
    settings = parse_settings(
        {"web": {"pin": PIN, "trusted_subnets": ["127.0.0.1/32"]}}, data_dir=tmp_path
    )
    service = Trackside(settings)
    service.start(web=False)
    try:
        at_speculation(service)
        claim(service.app.test_client(), 0, ANN_PIN)
        tv = service.app.test_client()
        page = tv.get("/table").get_data(as_text=True)
        assert "Reset PIN" not in page
        tv.post("/me/reset/0", data={"csrf": csrf_of(page)})
        assert service.player_pin_hash(1, 0) is not None
        assert tv.get("/me/partial").status_code == 401
    finally:
        service.stop()


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost:8080", True),
        ("127.0.0.1:8080", True),
        ("192.168.1.20", True),
        ("[fe80::1]:8080", True),
        ("trackside.lan", True),
        ("TRACKSIDE.LAN.", True),
        ("attacker.example", False),
        ("attacker.example:8080", False),
        ("", False),
    ],
)
def test_row10_host_names(host: str, allowed: bool) -> None:
    assert host_allowed(host, ("trackside.lan",)) is allowed


def test_row10_a_rebinding_host_is_refused(tmp_path: Path) -> None:
    settings = parse_settings(
        {"web": {"pin": PIN, "hostnames": ["trackside.lan"]}}, data_dir=tmp_path
    )
    service = Trackside(settings)
    try:
        client = service.app.test_client()
        response = client.get("/api/state", headers={"Host": "rebind.attacker.example"})
        assert response.status_code == 400
        assert "add it to [web] hostnames" in response.get_json()["error"]
        for host in ("trackside.lan:8080", "192.168.1.20:8080", "localhost"):
            assert client.get("/api/state", headers={"Host": host}).status_code == 200, host
    finally:
        service.stop()


# -- rows 11–14: the small ones ------------------------------------------------------------
def start_with(service: Trackside, players: list[dict[str, object]]) -> None:
    client = service.app.test_client()
    body = {
        "kind": "command",
        "payload": {"command": "start_game", "game": "tiny-race", "players": players},
    }
    response = client.post("/api/input", json=body, headers={"X-Trackside-Pin": PIN})
    assert response.status_code == 200, response.get_data(as_text=True)


def test_row11_csv_cells_that_start_a_formula_are_escaped(service: Trackside) -> None:
    start_with(
        service,
        [
            {"name": '=HYPERLINK("http://attacker.example","win")', "seat": 1},
            {"name": "+1+cmd|' /C calc'!A0", "seat": 2},
            {"name": "@SUM(A1)"},
            {"name": "-2"},
        ],
    )
    response = service.app.test_client().get("/api/games/1/export?format=csv")
    body = response.get_data(as_text=True)
    cells = list(csv.reader(io.StringIO(body)))[1:]
    names = {row[2] for row in cells}
    assert names == {
        '\'=HYPERLINK("http://attacker.example","win")',
        "'+1+cmd|' /C calc'!A0",
        "'@SUM(A1)",
        "'-2",
    }
    assert not any(cell.startswith(("=", "+", "@")) for row in cells for cell in row)
    assert all(row[4].lstrip("-").isdigit() for row in cells)  # numbers stay numbers


def test_row12_a_colour_cannot_inject_css(service: Trackside) -> None:
    start_with(
        service,
        [
            {"name": "Red", "colour": "red;background:url(http://attacker.example/x)", "seat": 1},
            {"name": "Blue", "colour": "#1e63c4", "seat": 2},
        ],
    )
    page = service.app.test_client().get("/").get_data(as_text=True)
    assert "attacker.example" not in page and "url(" not in page
    assert "#1e63c4" in page and "#555" in page


@pytest.mark.parametrize("depth", [40, 500, 700, 950, 5000])
def test_row13_deep_json_is_a_400_in_one_line(service: Trackside, depth: int) -> None:
    client = service.app.test_client()
    body = '{"kind":"action","payload":{"action":' + '{"a":' * depth + "1" + "}" * depth + "}}"
    response = client.post(
        "/api/input",
        data=body,
        headers={"X-Trackside-Pin": PIN, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert "nested" in error and "\n" not in error and len(error) < 200


def test_row13_a_deep_form_field_is_a_400_not_a_500(service: Trackside) -> None:
    start_with(service, [{"name": "Red"}, {"name": "Blue"}])
    table = signed_in_table(service)
    page = table.get("/table").get_data(as_text=True)
    deep = "[" * 900 + "]" * 900
    response = table.post(
        "/table/action",
        data={"csrf": csrf_of(page), "kind": "advance", "player": "0", "args": deep},
    )
    assert response.status_code in (303, 400)
    assert "internal error" not in table.get("/table").get_data(as_text=True)


def test_row14_history_replays_a_game_only_when_its_log_changed(
    service: Trackside, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.core.session import TableSession

    client = service.app.test_client()
    end = {"kind": "command", "payload": {"command": "end_game", "reason": "abandoned"}}
    for n in range(6):
        start_with(service, [{"name": "Red", "seat": 1}, {"name": "Blue", "seat": 2}])
        if n < 5:
            response = client.post("/api/input", json=end, headers={"X-Trackside-Pin": PIN})
            assert response.status_code == 200, response.get_data(as_text=True)
    replays = [0]
    real = TableSession.replay

    def counting(*args: object, **kwargs: object) -> TableSession:
        replays[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(TableSession, "replay", staticmethod(counting))
    first = client.get("/history").get_data(as_text=True)
    # the five ended games come from their stored results: only the running one is replayed
    assert replays[0] == 1
    replays[0] = 0
    for _ in range(5):
        assert client.get("/history").get_data(as_text=True) == first
    assert replays[0] == 0
    service.scan("red-seat", "04D1E5000002")  # a move in the running game
    service.wait_idle()
    client.get("/history")
    assert replays[0] == 1


# -- row 9: sessions end on the server -----------------------------------------------------
def copy_cookies(source: FlaskClient, target: FlaskClient) -> None:
    for cookie in source._cookies.values():
        target.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)


def test_row9_a_copied_table_cookie_dies_with_sign_out(service: Trackside) -> None:
    table = signed_in_table(service)
    thief = service.app.test_client()
    copy_cookies(table, thief)
    assert "Start a game" in thief.get("/table").get_data(as_text=True)
    page = table.get("/table").get_data(as_text=True)
    table.post("/table/logout", data={"csrf": csrf_of(page)})
    after = thief.get("/table").get_data(as_text=True)
    assert "Start a game" not in after and 'name="pin"' in after


def test_row9_a_copied_private_cookie_dies_with_the_lock(service: Trackside) -> None:
    at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    thief = service.app.test_client()
    copy_cookies(ann, thief)
    assert "only you see this" in thief.get("/me").get_data(as_text=True)
    page = ann.get("/me").get_data(as_text=True)
    ann.post("/me/lock", data={"csrf": csrf_of(page)})
    assert thief.get("/me/partial").status_code == 401
    assert "only you see this" not in thief.get("/me").get_data(as_text=True)


def test_row9_sign_ins_expire() -> None:
    now = [0.0]
    sessions = guard_module.Sessions(clock=lambda: now[0])
    sid = sessions.start()
    assert sessions.valid(sid)
    now[0] += guard_module.SESSION_TTL_S + 1
    assert not sessions.valid(sid) and not sessions.valid("forged") and not sessions.valid(None)
    for _ in range(guard_module.MAX_SESSIONS + 10):
        sessions.start()
    assert len(sessions.expiry) <= guard_module.MAX_SESSIONS
