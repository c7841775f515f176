"""Enrolment: the tag registry from the command line, a tags file, and tap to enrol on a real
serial reader (a pseudo-terminal speaking RDM6300) into a real SQLite file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import Observation, ObservationKind
from companion.core.errors import EnrolmentError, UnknownComponentError
from companion.games import find_game
from companion.service import engine as engine_module
from companion.service import enrolment
from companion.service.cli import main
from companion.service.engine import Engine
from companion.service.enrolment import (
    TapEnroller,
    enrol,
    export_tags,
    import_tags,
    physical_copies,
    read_tags_file,
)
from companion.service.store import EventStore, TagBinding
from firmware_bridge.readers import Backoff, ReaderConfig
from tests.firmware_bridge.frame_fixtures import rdm6300_frame
from tests.firmware_bridge.ptys import PtyDevice, wait_until
from tests.service.conftest import command

ROOT = Path(__file__).resolve().parents[2]
TTR = "ticket-to-ride-europe"
RR = "russian-railroads"


@pytest.fixture
def device(tmp_path: Path) -> Iterator[PtyDevice]:
    dev = PtyDevice(tmp_path / "usb-rdm6300-if00-port0").plug()
    yield dev
    if dev.master is not None:
        dev.unplug()


def tap(device: PtyDevice, uid: str) -> None:
    """A card laid on an RDM6300 and lifted: a few repeated frames, then silence."""
    for _ in range(3):
        device.write(rdm6300_frame(uid))
        time.sleep(0.03)


class Lines(io.StringIO):
    """What the enroller says, readable while it talks."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.lines: list[str] = []

    def write(self, s: str) -> int:
        with self.lock:
            self.lines.extend(line for line in s.splitlines() if line)
        return len(s)

    def said(self, prefix: str) -> int:
        with self.lock:
            return sum(1 for line in self.lines if line.startswith(prefix))


# -- the service call ---------------------------------------------------------------------------
def test_an_engineer_tile_is_enrolled_and_a_second_binding_of_its_tag_names_both(
    store: EventStore,
) -> None:
    enrol(store, "04A1B2C3D4", RR, "engineer:two_any")
    with pytest.raises(EnrolmentError) as refused:
        enrol(store, "04A1B2C3D4", RR, "engineer:two_black")
    assert "engineer:two_any" in str(refused.value)
    assert "engineer:two_black" in str(refused.value)
    assert store.tags() == [TagBinding("04A1B2C3D4", RR, "engineer:two_any")]


def test_a_printed_label_an_empty_uid_and_a_missing_component_are_refused(
    store: EventStore,
) -> None:
    with pytest.raises(EnrolmentError, match="carries its own binding"):
        enrol(store, f"TS:{TTR}:card:red", TTR, "card:red")
    with pytest.raises(EnrolmentError, match="non-empty"):
        enrol(store, "", TTR, "card:red")
    with pytest.raises(UnknownComponentError, match="no component 'card:pink'"):
        enrol(store, "0F002A7F8A", TTR, "card:pink")
    assert store.tags() == []


def test_the_table_page_enrol_command_refuses_what_the_cli_refuses(
    store: EventStore, engine: Engine
) -> None:
    assert enrolment.SELF_DESCRIBING_PREFIX == engine_module.SELF_DESCRIBING_PREFIX
    outcome = engine.handle(
        command({"command": "enrol", "uid": f"TS:{TTR}:card:red", "game": TTR, "component": "x"})
    )
    assert outcome.outcome == "rejected"
    assert "carries its own binding" in outcome.message
    ok = engine.handle(
        command({"command": "enrol", "uid": "AB12", "game": TTR, "component": "card:red"})
    )
    assert ok.outcome == "enrolled"
    assert store.tag("AB12") == TagBinding("AB12", TTR, "card:red")


def test_a_train_card_colour_stands_for_twelve_cards_and_the_locomotive_for_fourteen() -> None:
    assert physical_copies(TTR, "card:red") == 12
    assert physical_copies(TTR, "card:locomotive") == 14
    assert physical_copies(TTR, "ticket:athina-angora") == 1
    assert physical_copies(RR, "locomotive:9") == 5
    assert physical_copies(RR, "token:kiev_medal") == 4


# -- the tags file ------------------------------------------------------------------------------
def test_tags_list_export_and_import_round_trip_through_a_file(
    tmp_path: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = EventStore(db_path)
    enrol(store, "0F002A7F8A", TTR, "ticket:athina-angora")
    enrol(store, "04A1B2C3D4", RR, "bonus:points_15")
    store.close()
    exported = tmp_path / "tags.json"
    assert main(["tags", "export", str(exported), "--db", str(db_path)]) == 0
    document = json.loads(exported.read_text(encoding="utf-8"))
    assert document == {
        "format": 1,
        "tags": [
            {"uid": "04A1B2C3D4", "game": RR, "component": "bonus:points_15"},
            {"uid": "0F002A7F8A", "game": TTR, "component": "ticket:athina-angora"},
        ],
    }
    other = tmp_path / "other.sqlite3"
    assert main(["tags", "import", str(exported), "--db", str(other)]) == 0
    assert main(["tags", "import", str(exported), "--db", str(other)]) == 0  # again: no change
    capsys.readouterr()
    assert main(["tags", "list", "--db", str(other)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [
        f"04A1B2C3D4\t{RR}\tbonus:points_15",
        f"0F002A7F8A\t{TTR}\tticket:athina-angora",
    ]


def test_an_import_with_one_conflict_writes_nothing_and_names_both_bindings(
    tmp_path: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = EventStore(db_path)
    enrol(store, "0F002A7F8A", TTR, "ticket:athina-angora")
    store.close()
    incoming = tmp_path / "friend.json"
    incoming.write_text(
        json.dumps(
            {
                "format": 1,
                "tags": [
                    {"uid": "1111", "game": TTR, "component": "card:red"},
                    {"uid": "0F002A7F8A", "game": TTR, "component": "ticket:budapest-sofia"},
                ],
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(SystemExit) as failed:
        main(["tags", "import", str(incoming), "--db", str(db_path)])
    assert failed.value.code == 2
    error = capsys.readouterr().err
    assert "ticket:athina-angora" in error
    assert "ticket:budapest-sofia" in error
    store = EventStore(db_path)
    assert [b.uid for b in store.tags()] == ["0F002A7F8A"]  # "1111" was not written either
    store.close()


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"format": 2, "tags": []}, "format"),
        ({"format": 1, "tags": [{"uid": "A", "game": TTR}]}, "tags[0].component"),
        ({"format": 1, "tags": [{"uid": "A", "game": TTR, "component": "nope"}]}, "tags[0]"),
        ({"format": 1, "tags": [{"uid": "A", "game": "chess", "component": "x"}]}, "chess"),
        (
            {
                "format": 1,
                "tags": [
                    {"uid": "A", "game": TTR, "component": "card:red"},
                    {"uid": "A", "game": TTR, "component": "card:blue"},
                ],
            },
            "at tags[0]",
        ),
    ],
)
def test_a_malformed_tags_file_is_refused_naming_where(
    tmp_path: Path,
    db_path: Path,
    capsys: pytest.CaptureFixture[str],
    document: object,
    message: str,
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["tags", "import", str(bad), "--db", str(db_path)])
    assert message in capsys.readouterr().err
    store = EventStore(db_path)
    assert store.tags() == []
    store.close()


# -- tap to enrol on a real serial reader ------------------------------------------------------
def test_tap_to_enrol_walks_the_train_card_colours_one_card_each(
    device: PtyDevice, store: EventStore
) -> None:
    out = Lines()
    config = ReaderConfig(name="pad", protocol="rdm6300", port=str(device.link))
    enroller = TapEnroller(store, config, out, backoff=Backoff(0.02, 0.1))
    components = enrolment.components_of_kind(TTR, "train-card")[:2]  # purple, white
    done: list[TagBinding] = []
    walker = threading.Thread(
        target=lambda: done.extend(enroller.walk(TTR, components, copies=False, timeout_s=10))
    )
    walker.start()
    try:
        wait_until(lambda: out.said("tap: Train card: purple") == 1, what="the first prompt")
        tap(device, "0F002A7F8A")
        wait_until(lambda: out.said("tap: Train card: white") == 1, what="the second prompt")
        tap(device, "0F002A7F8A")  # the same card again: still purple, so refused
        time.sleep(0.8)  # lifted for longer than the removal time-out: a new tap
        tap(device, "0F002A7F8A")
        wait_until(lambda: out.said("refused:") >= 1, what="the refusal")
        tap(device, "1100AB12CD")
        walker.join(timeout=10)
    finally:
        enroller.close()
    assert done == [
        TagBinding("0F002A7F8A", TTR, "card:purple"),
        TagBinding("1100AB12CD", TTR, "card:white"),
    ]
    assert store.tag("1100AB12CD") == TagBinding("1100AB12CD", TTR, "card:white")
    assert "reader connected" in out.lines


def test_walking_the_red_cards_asks_for_each_of_the_twelve(
    device: PtyDevice, store: EventStore
) -> None:
    out = Lines()
    config = ReaderConfig(name="pad", protocol="rdm6300", port=str(device.link))
    enroller = TapEnroller(store, config, out, backoff=Backoff(0.02, 0.1))
    red = [enrolment.find_component(TTR, "card:red")]
    stop = threading.Event()
    done: list[TagBinding] = []
    walker = threading.Thread(target=lambda: done.extend(enroller.walk(TTR, red, stop=stop)))
    walker.start()
    try:
        for n in range(1, 13):
            wait_until(lambda n=n: out.said(f"tap: Train card: red ({n} of 12)") == 1)
            tap(device, f"00000000{n:02X}")
        walker.join(timeout=10)
    finally:
        stop.set()
        enroller.close()
    assert len(done) == 12
    assert {b.component for b in store.tags()} == {"card:red"}


def test_the_enrol_command_enrols_the_tag_tapped_on_a_pty_reader(
    device: PtyDevice, db_path: Path
) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.service.cli",
            "enrol",
            RR,
            "engineer:two_black",
            "--protocol",
            "rdm6300",
            "--port",
            str(device.link),
            "--db",
            str(db_path),
            "--timeout",
            "20",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        first = process.stdout.readline()
        assert first.startswith("tap: Engineer: 2 black steps"), first
        time.sleep(0.3)  # the port is opened after the prompt
        tap(device, "04A1B2C3D4")
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert f"enrolled 04A1B2C3D4 → {RR} engineer:two_black" in out
    store = EventStore(db_path)
    assert store.tag("04A1B2C3D4") == TagBinding("04A1B2C3D4", RR, "engineer:two_black")
    store.close()


def test_enrolled_by_tapping_then_scanned_in_a_game_it_is_that_component(
    store: EventStore, engine: Engine
) -> None:
    enrol(store, "0F002A7F8A", "tiny-race", "die-3")
    engine.handle(
        command(
            {
                "command": "start_game",
                "game": "tiny-race",
                "players": [
                    {"name": "Red", "colour": "red", "seat": 1},
                    {"name": "Blue", "colour": "blue", "seat": 2},
                ],
                "options": {"target": 10},
            }
        )
    )
    scan = Observation("pad", ObservationKind.TAG_PRESENT, {"uid": "0F002A7F8A"}, 1)  # type: ignore[arg-type]
    assert engine.handle(scan).outcome == "applied"


def test_enrol_with_a_uid_and_no_reader(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["enrol", TTR, "card:locomotive", "--uid", "TTRE-LOCO-01", "--db", str(db_path)]) == 0
    )
    assert "enrolled TTRE-LOCO-01" in capsys.readouterr().out


def test_enrol_with_the_reader_named_in_the_config(
    tmp_path: Path, device: PtyDevice, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "trackside.toml"
    config.write_text(
        f'[database]\npath = "{db_path}"\n\n'
        f'[[readers]]\nname = "red-seat"\nprotocol = "rdm6300"\nport = "{device.link}"\nseat = 1\n',
        encoding="utf-8",
    )
    done = threading.Event()

    def card_resting_on_the_pad() -> None:
        while not done.is_set():
            device.write(rdm6300_frame("0F002A7F8A"))
            time.sleep(0.05)

    holder = threading.Thread(target=card_resting_on_the_pad)
    holder.start()
    try:
        args = ["enrol", TTR, "ticket:athina-angora", "--reader", "red-seat"]
        code = main([*args, "--config", str(config), "--timeout", "10"])
    finally:
        done.set()
        holder.join()
    assert code == 0
    assert "enrolled 0F002A7F8A" in capsys.readouterr().out
    store = EventStore(db_path)
    assert store.tag("0F002A7F8A") == TagBinding("0F002A7F8A", TTR, "ticket:athina-angora")
    store.close()
    with pytest.raises(SystemExit):
        main(["enrol", TTR, "card:red", "--reader", "blue-seat", "--config", str(config)])
    assert "no reader 'blue-seat' in the config (red-seat)" in capsys.readouterr().err


def test_a_reader_that_is_not_there_is_shown_and_the_wait_times_out(
    tmp_path: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "usb-nothing-if00"
    args = ["enrol", TTR, "card:red", "--protocol", "rdm6300", "--port", str(missing)]
    code = main([*args, "--db", str(db_path), "--timeout", "1"])
    assert code == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "tap: Train card: red"
    assert any(line.startswith("reader searching") or "reader error" in line for line in out)
    store = EventStore(db_path)
    assert store.tags() == []
    store.close()


COMPONENTS = [(g, c.id) for g in (TTR, RR) for c in find_game(g).components]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.dictionaries(
        st.text(alphabet="0123456789ABCDEF", min_size=4, max_size=14),
        st.sampled_from(COMPONENTS),
        max_size=30,
    )
)
def test_any_registry_survives_export_and_import_unchanged(
    tmp_path_factory: pytest.TempPathFactory, registry: dict[str, tuple[str, str]]
) -> None:
    folder = tmp_path_factory.mktemp("round-trip")
    source = EventStore(folder / "a.sqlite3")
    copy = EventStore(folder / "b.sqlite3")
    try:
        assert import_tags(source, [TagBinding(u, g, c) for u, (g, c) in registry.items()]) == len(
            registry
        )
        export_tags(source, folder / "tags.json")
        bindings = read_tags_file(folder / "tags.json")
        assert import_tags(copy, bindings) == len(registry)
        assert import_tags(copy, bindings) == 0
        assert copy.tags() == source.tags()
    finally:
        source.close()
        copy.close()


def test_an_interrupted_walk_resumes_where_it_stopped(device: PtyDevice, store: EventStore) -> None:
    for n in range(1, 13):  # the orange cards were all done last week
        enrol(store, f"ORANGE{n:02}", TTR, "card:orange")
    for n in range(1, 11):  # ten red cards were tapped before the pizza came
        enrol(store, f"RED{n:02}", TTR, "card:red")
    out = Lines()
    config = ReaderConfig(name="pad", protocol="rdm6300", port=str(device.link))
    enroller = TapEnroller(store, config, out, backoff=Backoff(0.02, 0.1))
    colours = [enrolment.find_component(TTR, c) for c in ("card:orange", "card:red")]
    done: list[TagBinding] = []
    walker = threading.Thread(target=lambda: done.extend(enroller.walk(TTR, colours)))
    walker.start()
    try:
        wait_until(lambda: out.said("tap: Train card: red (11 of 12)") == 1)
        tap(device, "0000000011")
        wait_until(lambda: out.said("tap: Train card: red (12 of 12)") == 1)
        tap(device, "0000000012")
        walker.join(timeout=10)
    finally:
        enroller.close()
    assert "already enrolled: Train card: orange" in out.lines
    assert [b.uid for b in done] == ["0000000011", "0000000012"]
    assert sum(1 for b in store.tags() if b.component == "card:red") == 12
