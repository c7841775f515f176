"""The config file: documented defaults; a bad option stops start-up naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core import ConfigError
from companion.service.config import load_settings, parse_settings
from companion.service.engine import Engine
from companion.service.store import EventStore

from .conftest import command, start_tiny


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "trackside.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKSIDE_DATA", str(tmp_path))
    settings = load_settings()
    assert settings.web.port == 8080 and settings.web.pin is None
    assert settings.database.path == tmp_path / "db" / "trackside.sqlite3"
    assert settings.mqtt is None and settings.readers == ()


def test_the_contract_example_parses(tmp_path: Path) -> None:
    recording = tmp_path / "night.jsonl"
    recording.write_text("{}\n")
    path = write(
        tmp_path,
        f"""
[web]
host = "0.0.0.0"
port = 8080
pin = "471108"

[database]
path = "{tmp_path}/db.sqlite3"

[mqtt]
host = "127.0.0.1"
port = 1883
table_id = "table-1"

[[readers]]
name = "red-seat"
protocol = "rdm6300"
port = "/dev/serial/by-id/usb-FTDI-if00"
seat = 1

[[readers]]
name = "night"
protocol = "replay"
port = "night.jsonl"
speed = 10
""",
    )
    s = load_settings(path)
    assert s.web.pin == "471108" and s.mqtt is not None and s.mqtt.table_id == "table-1"
    assert [r.name for r in s.readers] == ["red-seat", "night"]
    assert s.readers[1].port == str(recording) and s.readers[1].speed == 10.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[web]\nport = 99999", "web.port: expected a whole number 0–65535, got 99999"),
        ("[web]\npin = 4711", "web.pin: write the PIN in quotes"),
        ("[web]\npin = '4711'", "web.pin: expected at least 6 digits, got 4: a shorter PIN"),
        ("[web]\npin = '١٢٣٤٥٦'", "web.pin: expected digits 0–9 only"),  # Arabic-Indic digits
        (
            "[web]\npin = '471108'\ntrusted_subnets = ['192.168.1.0/24']",
            "web.trusted_subnets[0]: '192.168.1.0/24' holds 256 addresses; trust only",
        ),
        ("[web]\nhostnames = ['evil.example/x']", "web.hostnames: expected a list of host names"),
        ("[web]\nprot = 1", "web.prot: unknown option"),
        (
            "[web]\npin = '471108'\ntrusted_subnets = ['192.168.1.7/24']",
            "web.trusted_subnets[0]: '192.168.1.7/24' is not a network",
        ),
        (
            "[web]\npin = '471108'\ntrusted_subnets = '10.0.0.0/8'",
            "web.trusted_subnets: expected a list",
        ),
        (
            "[web]\ntrusted_subnets = ['10.0.0.1/32']",
            "web.trusted_subnets: trusted subnets need a pin",
        ),
        ("[[readers]]\nname = 'a'\nprotocol = 'nfc'", "readers[0].protocol: 'nfc' is not one of"),
        (
            "[[readers]]\nname = 'a'\nprotocol = 'rdm6300'",
            "readers[0].port: a rdm6300 reader needs a port",
        ),
        ("[[readers]]\nname = 'a'\nprotocol = 'virtual'\nseat = 0", "readers[0].seat"),
        (
            "[[readers]]\nname = 'a'\nprotocol = 'virtual'\n[[readers]]\nname = 'a'\nprotocol = 'virtual'",
            "readers[1].name: 'a' is used twice",
        ),
        ("[mqtt]\nhost = 'localhost'\ntable_id = 'a/b'", "mqtt.table_id"),
        ("web = [", "(syntax)"),
    ],
)
def test_bad_option_names_its_path(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(write(tmp_path, text))
    assert message in str(info.value)
    assert str(tmp_path) in str(info.value)


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--config: no such file"):
        load_settings(tmp_path / "nope.toml")


def test_settings_are_frozen(tmp_path: Path) -> None:
    settings = parse_settings({}, data_dir=tmp_path)
    with pytest.raises(AttributeError):
        settings.web = None  # type: ignore[misc]


def test_game_defaults_from_config_go_into_the_game_log(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, '[games."tiny-race"]\ntarget = 5\n'))
    assert settings.game_options["tiny-race"] == {"target": 5}
    store = EventStore(tmp_path / "t.sqlite3")
    engine = Engine(store, game_options=settings.game_options)
    engine.handle(start_tiny(target=8))  # the table's choice wins over the config
    assert engine.session().state.target == 8  # type: ignore[union-attr]
    engine.handle(command({"command": "end_game"}))
    players = [{"name": "Ana"}, {"name": "Ben"}]
    engine.handle(command({"command": "start_game", "game": "tiny-race", "players": players}))
    assert engine.session().state.target == 5  # type: ignore[union-attr]
    # the merged options are in the log: a later config change never alters this game
    assert store.entries(2)[0].event.options["target"] == 5  # type: ignore[union-attr]
    store.close()


def test_unknown_game_section_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"games\.chess: unknown game"):
        load_settings(write(tmp_path, "[games.chess]\nx = 1\n"))


def test_trusted_subnets_for_kiosk_screens(tmp_path: Path) -> None:
    text = "[web]\npin = '471108'\ntrusted_subnets = ['192.168.1.50/32', 'fd00::8/125']"
    settings = load_settings(write(tmp_path, text))
    assert settings.web.trusted_subnets == ("192.168.1.50/32", "fd00::8/125")


def test_issue18_row15_the_three_start_up_errors_name_their_option(tmp_path: Path) -> None:
    """A missing CA file with TLS, a host name that does not resolve, a port in use: each a
    one-line ConfigError naming the option, not a traceback."""
    import socket

    from companion.service.runtime import Trackside

    text = "[mqtt]\nhost = 'broker'\ntls = true\nca_file = '/nonexistent/ca.pem'\n"
    with pytest.raises(ConfigError, match=r"mqtt\.ca_file: no such file '/nonexistent/ca.pem'"):
        load_settings(write(tmp_path, text))
    cases = []
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        cases = [
            (
                {"host": "no-such-host.invalid", "port": 0},
                r"web\.host: cannot resolve 'no-such-host.invalid'",
            ),
            ({"host": "127.0.0.1", "port": port}, rf"web\.port: port {port} is in use"),
            ({"host": "192.0.2.1", "port": 0}, r"web\.host: '192.0.2.1' is not an address"),
        ]
        for web, message in cases:
            service = Trackside(parse_settings({"web": web}, data_dir=tmp_path / "d"))
            try:
                with pytest.raises(ConfigError, match=message) as info:
                    service.start()
                assert "\n" not in str(info.value)
            finally:
                service.stop()


def test_issue18_row15_a_pin_of_other_digits_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"web\.pin: expected digits 0–9 only"):
        load_settings(write(tmp_path, "[web]\npin = '٠١٢٣٤٥٦'\n"))
