"""Enrolment: binding tags (RFID uids, barcode texts, camera markers) to game components.

One service call, :func:`enrol`, is what ``trackside enrol`` (tap to enrol), the engine's
``enrol`` command (the table page) and ``trackside tags import`` all go through, so they accept
and refuse the same things: a uid must be non-empty, a printed ``TS:<game>:<component>`` code
carries its own binding and is never enrolled, the game and component must exist, and a uid
enrolled already to something else is refused with both bindings named (the store's rule).

The tags file (``trackside tags export`` / ``import``) is documented in ``docs/enrolment.md``::

    {"format": 1, "tags": [{"uid": "0F002A7F8A", "game": "russian-railroads",
                            "component": "engineer:two_any"}]}
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from companion.core.errors import (
    ConfigError,
    EnrolmentError,
    SnapshotError,
    TracksideError,
    UnknownComponentError,
)
from companion.core.game import Component
from companion.core.observation import Observation, ObservationKind
from companion.core.snapshot import Field
from companion.games import find_game
from companion.games.russian_railroads import board_data as rr_board
from companion.games.ticket_to_ride_europe import board as ttr_board
from companion.service.store import EventStore, TagBinding

TAGS_FORMAT = 1
SELF_DESCRIBING_PREFIX = "TS:"  # the engine's printed-label prefix (engine.py)
MAX_TAG_CHARS = 128
"""The longest tag the service takes: an RFID uid is at most 64 hex digits (10 bytes with
separators: 29 characters), a printed label ``TS:<game>:<component>`` under 80, a component's
barcode far less. Checked before anything else looks at the text (enrolment, import, a scan,
removal), wherever it came from: a reader, the seat pads, the table or setup page, a file."""


def check_tag_length(tag: str, field: str = "uid") -> None:
    """SnapshotError naming ``field`` and the limit when ``tag`` is longer than a tag can be."""
    if len(tag) > MAX_TAG_CHARS:
        raise SnapshotError(
            field,
            f"{len(tag)} characters; a tag's uid or barcode text is at most {MAX_TAG_CHARS}",
        )


# Physical copies of one component, where the rulebook's component list says there are several
# (one sticker or tag per physical piece). Anything not listed is one piece.
# Ticket to Ride Europe (seed 001, component list): "110 karet vagonů: 12 od každého druhu a 14
# lokomotiv" — 12 cards of each of the eight colours and 14 locomotives.
# Russian Railroads (seed 000, "HERNÍ MATERIÁL"): "37 lokomotiv (po 4 lokomotivách stupně 1 až 8,
# 5 lokomotiv stupně 9)" and "28 žetonů (4 x 7 různých)".
PHYSICAL_COPIES: dict[tuple[str, str], int] = {
    **{
        ("ticket-to-ride-europe", f"card:{c}"): ttr_board.CARDS_PER_COLOUR
        for c in ttr_board.COLOURS
    },
    ("ticket-to-ride-europe", "card:locomotive"): ttr_board.LOCOMOTIVE_CARDS,
    **{("russian-railroads", f"locomotive:{level}"): 4 for level in range(1, 9)},
    ("russian-railroads", "locomotive:9"): 5,
    **{("russian-railroads", f"token:{t}"): 4 for t in rr_board.TOKENS},
}


def physical_copies(game: str, component: str) -> int:
    """How many physical pieces stand for this component (1 unless the rulebook says more)."""
    return PHYSICAL_COPIES.get((game, component), 1)


def binding_for(uid: str, game_name: str, component: str) -> TagBinding:
    """The binding ``uid → game component``, checked; raises a :class:`TracksideError` naming
    what is wrong. Does not look at the registry (the store refuses a uid bound already)."""
    check_tag_length(uid)
    if not uid or uid != uid.strip():
        raise EnrolmentError(f"tag uid {uid!r}: expected a non-empty uid without spaces around it")
    if uid.startswith(SELF_DESCRIBING_PREFIX):
        raise EnrolmentError(
            f"tag {uid!r} is a printed Trackside label: it carries its own binding, "
            "nothing to enrol"
        )
    return TagBinding(uid, find_game(game_name).name, find_component(game_name, component).id)


def enrol(store: EventStore, uid: str, game: str, component: str) -> TagBinding:
    """Check and store one binding (the service call behind every way of enrolling)."""
    binding = binding_for(uid, game, component)
    return store.enrol(binding.uid, binding.game, binding.component)


def find_component(game_name: str, component: str) -> Component:
    game = find_game(game_name)
    for c in game.components:
        if c.id == component:
            return c
    raise UnknownComponentError(f"{game.name} has no component {component!r}")


def components_of_kind(game_name: str, kind: str) -> list[Component]:
    game = find_game(game_name)
    found = [c for c in game.components if c.kind == kind]
    if not found:
        kinds = sorted({c.kind for c in game.components})
        raise UnknownComponentError(
            f"{game.name} has no components of kind {kind!r} (it has {', '.join(kinds)})"
        )
    return found


def pieces_with_tags(store: EventStore, game: str, components: Sequence[Component]) -> int:
    """How many of these components' physical pieces have a tag (at most one per piece)."""
    counts: dict[str, int] = {}
    for b in store.tags():
        if b.game == game:
            counts[b.component] = counts.get(b.component, 0) + 1
    return sum(min(counts.get(c.id, 0), physical_copies(game, c.id)) for c in components)


# -- the tags file ------------------------------------------------------------------------------
def tags_document(bindings: Sequence[TagBinding]) -> dict[str, Any]:
    return {
        "format": TAGS_FORMAT,
        "tags": [{"uid": b.uid, "game": b.game, "component": b.component} for b in bindings],
    }


def parse_tags_document(data: Any) -> list[TagBinding]:
    """The bindings of a tags file, every one checked; raises naming the field path."""
    doc = Field(data)
    doc.only("format", "tags")
    doc.get("format").int(lo=TAGS_FORMAT, hi=TAGS_FORMAT)
    bindings: list[TagBinding] = []
    first_at: dict[str, tuple[int, TagBinding]] = {}
    for i, item in enumerate(doc.get("tags").list()):
        item.only("uid", "game", "component")
        uid, game, component = (item.get(k).str() for k in ("uid", "game", "component"))
        check_tag_length(uid, f"{item.path}.uid")
        try:
            binding = binding_for(uid, game, component)
        except TracksideError as exc:
            raise SnapshotError(item.path, str(exc)) from None
        seen = first_at.get(uid)
        if seen is not None:
            if seen[1] != binding:
                raise EnrolmentError(
                    f"{item.path}: tag {uid!r} is bound to {binding.game} "
                    f"{binding.component!r} here but to {seen[1].game} {seen[1].component!r} "
                    f"at tags[{seen[0]}]"
                )
            continue
        first_at[uid] = (i, binding)
        bindings.append(binding)
    return bindings


def export_tags(store: EventStore, path: Path) -> int:
    bindings = store.tags()
    text = json.dumps(tags_document(bindings), ensure_ascii=False, indent=1) + "\n"
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise EnrolmentError(f"{path}: {exc.strerror or exc}") from None
    return len(bindings)


def read_tags_file(path: Path) -> list[TagBinding]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EnrolmentError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise EnrolmentError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EnrolmentError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}"
        ) from None
    try:
        return parse_tags_document(data)
    except TracksideError as exc:
        raise EnrolmentError(f"{path}: {exc}") from None


def import_tags(store: EventStore, bindings: Sequence[TagBinding]) -> int:
    """All or nothing (one transaction); returns how many bindings were new."""
    return store.enrol_many(bindings)


# -- tap to enrol -------------------------------------------------------------------------------
class TapEnroller:
    """One reader held open while the user taps tags; each tag read is offered to
    :func:`enrol`. Reader states (searching, error with its text) are shown on ``out``."""

    def __init__(
        self,
        store: EventStore,
        reader_config: Any,
        out: TextIO,
        *,
        open_reader: Callable[..., Any] | None = None,
        backoff: Any = None,
    ) -> None:
        if open_reader is None:
            from firmware_bridge.readers import open_reader as opener

            open_reader = opener
        self.store = store
        self.out = out
        self._tags: queue.Queue[str] = queue.Queue()
        self.reader = open_reader(reader_config, self._sink, backoff=backoff)
        self._shown: tuple[str, str] | None = None
        self.reader.start()

    def _sink(self, observation: Observation) -> None:
        if observation.kind in (ObservationKind.TAG_PRESENT, ObservationKind.TEXT):
            tag = observation.tag
            if tag:
                self._tags.put(tag)

    def _say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def _show_status(self) -> None:
        status = self.reader.status()
        if (status.state, status.last_error) != self._shown:
            self._shown = (status.state, status.last_error)
            error = f": {status.last_error}" if status.last_error else ""
            self._say(f"reader {status.state}{error}")

    def next_tag(self, deadline: float | None, stop: threading.Event | None = None) -> str | None:
        """The next tag read, or None at the deadline (monotonic seconds) or when stopped."""
        while deadline is None or time.monotonic() < deadline:
            if stop is not None and stop.is_set():
                return None
            self._show_status()
            try:
                return self._tags.get(timeout=0.05)
            except queue.Empty:
                continue
        return None

    def enrol_next(
        self,
        game: str,
        component: Component,
        prompt: str,
        *,
        timeout_s: float | None = None,
        stop: threading.Event | None = None,
    ) -> TagBinding | None:
        """Ask for ``prompt``, enrol the next tag read; a refused tag (enrolled already, a
        printed label) is explained and the same piece asked for again."""
        self._say(f"tap: {prompt}")
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            uid = self.next_tag(deadline, stop)
            if uid is None:
                return None
            try:
                binding = enrol(self.store, uid, game, component.id)
            except EnrolmentError as exc:
                self._say(f"refused: {exc}; tap another tag for {prompt}")
                continue
            self._say(f"enrolled {binding.uid} → {binding.game} {binding.component}")
            return binding

    def walk(
        self,
        game: str,
        components: Sequence[Component],
        *,
        copies: bool = True,
        timeout_s: float | None = None,
        stop: threading.Event | None = None,
    ) -> list[TagBinding]:
        """One tap per component (per physical piece when ``copies``), in order; stops at
        the first time-out. Resumable: pieces with a tag already are skipped (with 4 red cards
        enrolled, the walk asks for red 5 of 12)."""
        done: list[TagBinding] = []
        enrolled: dict[str, int] = {}
        for b in self.store.tags():
            if b.game == game:
                enrolled[b.component] = enrolled.get(b.component, 0) + 1
        for component in components:
            total = physical_copies(game, component.id) if copies else 1
            have = enrolled.get(component.id, 0)
            if have >= total:
                self._say(f"already enrolled: {component.name}")
                continue
            for n in range(have + 1, total + 1):
                prompt = component.name if total == 1 else f"{component.name} ({n} of {total})"
                binding = self.enrol_next(game, component, prompt, timeout_s=timeout_s, stop=stop)
                if binding is None:
                    return done
                done.append(binding)
        return done

    def close(self) -> None:
        self.reader.stop()


# -- the command line ---------------------------------------------------------------------------
def open_store(args: argparse.Namespace) -> EventStore:
    from companion.service.config import load_settings

    if args.db:
        return EventStore(Path(args.db))
    config = Path(args.config) if args.config else None
    return EventStore(load_settings(config).database.path)


def _reader_config(args: argparse.Namespace) -> Any:
    from firmware_bridge.readers import ReaderConfig

    if args.reader:
        from companion.service.config import load_settings
        from companion.service.runtime import reader_config

        settings = load_settings(Path(args.config) if args.config else None)
        for reader in settings.readers:
            if reader.name == args.reader:
                if reader.protocol in ("virtual", "replay"):
                    raise ConfigError(
                        "--reader",
                        f"{reader.name} is a {reader.protocol} reader; tap to enrol needs "
                        "a serial or HID reader",
                    )
                return reader_config(reader)
        names = ", ".join(r.name for r in settings.readers) or "none"
        raise ConfigError("--reader", f"no reader {args.reader!r} in the config ({names})")
    if not args.protocol or not args.port:
        raise ConfigError("--port", "give --protocol and --port, or --reader NAME, or --uid")
    try:
        return ReaderConfig(name=args.port, protocol=args.protocol, port=args.port, baud=args.baud)
    except ConfigError as error:
        raise ConfigError(f"--{error.path.rsplit('.', 1)[-1]}", error.reason) from None


def cmd_tags(args: argparse.Namespace) -> int:
    store = open_store(args)
    try:
        if args.tags_command == "list":
            for b in store.tags():
                print(f"{b.uid}\t{b.game}\t{b.component}")
        elif args.tags_command == "export":
            count = export_tags(store, Path(args.file))
            print(f"{count} tags written to {args.file}")
        else:
            bindings = read_tags_file(Path(args.file))
            added = import_tags(store, bindings)
            print(f"{added} tags enrolled, {len(bindings) - added} already there")
    finally:
        store.close()
    return 0


def cmd_enrol(args: argparse.Namespace) -> int:
    if (args.component is None) == (args.all is None):
        raise ConfigError("COMPONENT", "give one component, or --all KIND")
    if args.all is not None:
        components = components_of_kind(args.game, args.all)
    else:
        components = [find_component(args.game, args.component)]
    store = open_store(args)
    try:
        if args.uid is not None:
            if args.all is not None:
                raise ConfigError("--uid", "--uid enrols one component, not --all")
            binding = enrol(store, args.uid, args.game, components[0].id)
            print(f"enrolled {binding.uid} → {binding.game} {binding.component}")
            return 0
        enroller = TapEnroller(store, _reader_config(args), sys.stdout)
        try:
            if args.all is not None:
                before = pieces_with_tags(store, args.game, components)
                total = sum(physical_copies(args.game, c.id) for c in components)
                enroller.walk(args.game, components, timeout_s=args.timeout)
                now = pieces_with_tags(store, args.game, components)
                if now < total:
                    print(f"no tag read within {args.timeout:g} s; stopping")
                print(f"{now - before} enrolled now; {now} of {total} pieces have a tag")
                return 0 if now >= total else 1
            first = components[0]
            found = enroller.enrol_next(args.game, first, first.name, timeout_s=args.timeout)
            if found is None:
                print(f"no tag read within {args.timeout:g} s; nothing enrolled")
                return 1
            return 0
        except KeyboardInterrupt:
            return 1
        finally:
            enroller.close()
    finally:
        store.close()


def _db_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="config file (to find the database and readers)")
    p.add_argument("--db", help="the database file (instead of the config's)")


def register(sub: Any) -> None:
    """Add ``trackside tags`` and ``trackside enrol`` to the CLI's subcommands."""
    p = sub.add_parser("tags", help="the tag registry: list, export or import bindings")
    tags = p.add_subparsers(dest="tags_command", required=True, metavar="ACTION")
    q = tags.add_parser("list", help="print every binding: uid, game, component")
    _db_options(q)
    q = tags.add_parser("export", help="write every binding to a tags file (JSON)")
    q.add_argument("file")
    _db_options(q)
    q = tags.add_parser("import", help="enrol a tags file's bindings (all or nothing)")
    q.add_argument("file")
    _db_options(q)
    p.set_defaults(func=cmd_tags)

    p = sub.add_parser("enrol", help="tap a tag on a reader to bind it to a component")
    p.add_argument("game", help="game id, e.g. ticket-to-ride-europe")
    p.add_argument("component", nargs="?", help="component id, e.g. ticket:athina-angora")
    p.add_argument("--all", metavar="KIND", help="every component of this kind, one tap each")
    p.add_argument("--uid", help="enrol this uid or barcode text without a reader")
    p.add_argument("--reader", help="a reader's name in the config's [[readers]]")
    p.add_argument("--protocol", choices=("rdm6300", "id12la", "pn532", "line", "hid"))
    p.add_argument("--port", help="device, e.g. /dev/serial/by-id/…")
    p.add_argument("--baud", type=int)
    p.add_argument("--timeout", type=float, help="give up after this many seconds per tap")
    _db_options(p)
    p.set_defaults(func=cmd_enrol)
