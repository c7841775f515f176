"""The LED scene: a pure function from the table snapshot to a colour for every LED.

The strip runs around the table; each seat owns one zone of ``leds_per_seat`` LEDs (seat 1 is
LEDs ``0 … leds_per_seat-1``, seat 2 the next zone, and so on). What the scene reads from the
snapshot, and what each look means, is documented in ``docs/leds.md``; keep the two in step.

Nothing here does I/O or reads the clock: ``now_s`` is passed in, so the same snapshot at the
same time always gives the same frame (tests and the benchmark rely on it). The snapshot comes
from our own service, but a light must never take the service down, so malformed fields are
ignored rather than raised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Colour = int
"""``0xRRGGBB``."""

OFF: Colour = 0x000000
RED: Colour = 0xFF0000
GREEN: Colour = 0x00FF00
AMBER: Colour = 0xFFA000
WHITE: Colour = 0xFFFFFF

# Seat colours by name. LEDs cannot show black, so a black player's seat glows a cold white
# (distinct from the warm full white of "white"); unknown names show white (docs/leds.md).
PALETTE: Mapping[str, Colour] = {
    "red": 0xFF0000,
    "green": 0x00FF00,
    "blue": 0x0000FF,
    "yellow": 0xFFC000,
    "orange": 0xFF5000,
    "purple": 0x8000FF,
    "violet": 0x8000FF,
    "pink": 0xFF3080,
    "white": 0xFFFFFF,
    "black": 0x6070A0,
    "grey": 0x808080,
    "gray": 0x808080,
    "brown": 0x8B3A0F,
    "cyan": 0x00FFFF,
    "teal": 0x00A080,
}
UNKNOWN_COLOUR: Colour = WHITE

# Brightness of a seat zone, as a fraction of the seat colour.
ACTIVE_LEVEL = 1.0  # the player (or players) whose turn it is
WAITING_LEVEL = 0.25  # everyone else still in the round
PASSED_LEVEL = 0.06  # players who passed this round: dimmed further

# Cue timings (seconds). A cue may carry its own ``duration_s`` (clamped to MAX_CUE_S).
ROUND_END_S = 3.0
ROUND_END_LAPS = 2.0  # the sweep runs round the whole table this many times
TUNNEL_S = 6.0
TUNNEL_PERIOD_S = 0.8  # on for TUNNEL_ON_S, off for the rest
TUNNEL_ON_S = 0.6
ERROR_S = 4.0
ERROR_PERIOD_S = 0.5  # red for the first half, dark for the second half
MAX_CUE_S = 600.0
MAX_TUNNEL_EXTRA_CARDS = 3  # Ticket to Ride Europe: three cards are turned, so 0–3 extra


@dataclass(frozen=True, slots=True)
class Frame:
    """One colour per LED, plus whether it changes with time alone (a blink or a sweep is
    running), so a driver knows to keep rendering without a new snapshot."""

    pixels: tuple[Colour, ...]
    animated: bool = False

    def __len__(self) -> int:
        return len(self.pixels)

    def hex(self, index: int) -> str:
        return f"{self.pixels[index]:06X}"

    def zone(self, seat: int, leds_per_seat: int) -> tuple[Colour, ...]:
        start = (seat - 1) * leds_per_seat
        return self.pixels[start : start + leds_per_seat]


@dataclass(frozen=True, slots=True)
class Run:
    """LEDs ``start … stop-1`` (stop exclusive, as WLED's ranges) all get ``colour``."""

    start: int
    stop: int
    colour: Colour


def parse_colour(value: object) -> Colour | None:
    """A palette name (any case) or ``#RRGGBB``; None when it is neither."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if text in PALETTE:
        return PALETTE[text]
    if len(text) == 7 and text.startswith("#"):
        try:
            return int(text[1:], 16)
        except ValueError:
            return None
    return None


def scale(colour: Colour, level: float) -> Colour:
    """The colour at ``level`` (0–1) brightness."""
    if level >= 1.0:
        return colour
    if level <= 0.0:
        return OFF
    r = round(((colour >> 16) & 0xFF) * level)
    g = round(((colour >> 8) & 0xFF) * level)
    b = round((colour & 0xFF) * level)
    return (r << 16) | (g << 8) | b


def blend(under: Colour, over: Colour, alpha: float) -> Colour:
    """``over`` laid on ``under`` with opacity ``alpha`` (0–1)."""
    if alpha >= 1.0:
        return over
    if alpha <= 0.0:
        return under
    out = 0
    for shift in (16, 8, 0):
        a = (under >> shift) & 0xFF
        b = (over >> shift) & 0xFF
        out |= round(a + (b - a) * alpha) << shift
    return out


def _int(value: object) -> int | None:
    # bool is an int in Python; a seat of True is malformed, not seat 1.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _index_set(value: object) -> frozenset[int]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        return frozenset()
    return frozenset(i for i in (_int(v) for v in value) if i is not None)


def _seat_colours(
    players: Sequence[object], seats: int, active: frozenset[int], passed: frozenset[int]
) -> dict[int, Colour]:
    """Seat → base colour of its zone. A player without a seat sits at seat ``index + 1``
    unless another player claimed that seat explicitly."""
    explicit: dict[int, int] = {}
    implicit: dict[int, int] = {}
    for index, player in enumerate(players):
        if not isinstance(player, Mapping):
            continue
        seat = _int(player.get("seat"))
        if seat is None and player.get("seat") is None:
            implicit.setdefault(index + 1, index)
        elif seat is not None:
            explicit.setdefault(seat, index)
    chosen = {**{s: i for s, i in implicit.items() if s not in explicit}, **explicit}
    out: dict[int, Colour] = {}
    for seat, index in chosen.items():
        if not 1 <= seat <= seats:
            continue
        player = players[index]
        assert isinstance(player, Mapping)
        colour = parse_colour(player.get("colour"))
        base = UNKNOWN_COLOUR if colour is None else colour
        if index in active:
            level = ACTIVE_LEVEL
        elif index in passed:
            level = PASSED_LEVEL
        else:
            level = WAITING_LEVEL
        out[seat] = scale(base, level)
    return out


@dataclass(frozen=True, slots=True)
class _Cue:
    kind: str
    start_s: float
    duration_s: float
    seat: int | None
    extra_cards: int | None


def _cues(value: object, now_s: float) -> list[_Cue]:
    """The cues running at ``now_s``, in the order given."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        return []
    defaults = {
        "round_end": ROUND_END_S,
        "tunnel": TUNNEL_S,
        "error": ERROR_S,
        "unknown_tag": ERROR_S,
    }
    out: list[_Cue] = []
    for item in value:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("kind")
        at_s = _number(item.get("at_s"))
        if not isinstance(kind, str) or kind not in defaults or at_s is None:
            continue
        duration = _number(item.get("duration_s"))
        duration = defaults[kind] if duration is None else max(0.0, min(duration, MAX_CUE_S))
        if not at_s <= now_s < at_s + duration:
            continue
        seat = _int(item.get("seat"))
        extra = _int(item.get("extra_cards"))
        if kind == "tunnel" and (extra is None or not 0 <= extra <= MAX_TUNNEL_EXTRA_CARDS):
            continue
        out.append(_Cue(kind, at_s, duration, seat, extra))
    return out


def scene(state: Mapping[str, object], *, seats: int, leds_per_seat: int, now_s: float) -> Frame:
    """The colours of a ``seats × leds_per_seat`` strip for this snapshot at time ``now_s``
    (the clock the snapshot's cue times ``at_s`` use). See docs/leds.md."""
    if seats < 1 or leds_per_seat < 1:
        raise ValueError(
            f"need at least one seat and one LED per seat, got {seats}×{leds_per_seat}"
        )
    total = seats * leds_per_seat
    pixels = [OFF] * total
    players = state.get("players")
    if state.get("game") is None or not isinstance(players, Sequence) or isinstance(players, str):
        players = ()
    status = state.get("status")
    status = status if isinstance(status, Mapping) else {}
    active = _index_set(status.get("active_players"))
    passed = _index_set(status.get("passed_players"))
    for seat, colour in _seat_colours(players, seats, active, passed).items():
        start = (seat - 1) * leds_per_seat
        pixels[start : start + leds_per_seat] = [colour] * leds_per_seat

    cues = _cues(state.get("cues"), now_s)
    # Lowest priority first: the sweep, then tunnel verdicts, then errors on top.
    order = {"round_end": 0, "tunnel": 1, "error": 2, "unknown_tag": 2}
    for cue in sorted(cues, key=lambda c: order[c.kind]):
        elapsed = now_s - cue.start_s
        if cue.kind == "round_end":
            _sweep(pixels, elapsed, cue.duration_s, leds_per_seat)
            continue
        zones = _zones(cue.seat, seats)
        if cue.kind == "tunnel":
            lit = (elapsed % TUNNEL_PERIOD_S) < TUNNEL_ON_S
            colour = (GREEN if cue.extra_cards == 0 else AMBER) if lit else OFF
        else:
            colour = RED if (elapsed % ERROR_PERIOD_S) < ERROR_PERIOD_S / 2 else OFF
        for seat in zones:
            start = (seat - 1) * leds_per_seat
            pixels[start : start + leds_per_seat] = [colour] * leds_per_seat
    return Frame(tuple(pixels), animated=bool(cues))


def _zones(seat: int | None, seats: int) -> range:
    """The seat a cue is for, or every seat when it names none (or one not at this table)."""
    if seat is not None and 1 <= seat <= seats:
        return range(seat, seat + 1)
    return range(1, seats + 1)


def _sweep(pixels: list[Colour], elapsed: float, duration: float, leds_per_seat: int) -> None:
    """A white comet running round the table: full white at its head, fading over its tail
    (half a seat long) into whatever was there."""
    total = len(pixels)
    head = int(elapsed / duration * ROUND_END_LAPS * total) % total if duration > 0 else 0
    tail = max(3, leds_per_seat // 2)
    for back in range(min(tail, total)):
        index = (head - back) % total
        pixels[index] = blend(pixels[index], WHITE, 1.0 - back / tail)


def changes(old: Frame | None, new: Frame) -> tuple[Run, ...]:
    """What to send to move a strip showing ``old`` to ``new``: runs of LEDs that differ, each
    run one colour. With no ``old`` (or a different length) the whole of ``new``, in runs."""
    pixels = new.pixels
    full = old is None or len(old.pixels) != len(pixels)
    before = () if old is None else old.pixels
    runs: list[Run] = []
    start = -1
    colour = OFF
    for index, value in enumerate(pixels):
        changed = full or before[index] != value
        if start >= 0 and (not changed or value != colour):
            runs.append(Run(start, index, colour))
            start = -1
        if changed and start < 0:
            start = index
            colour = value
    if start >= 0:
        runs.append(Run(start, len(pixels), colour))
    return tuple(runs)


def zone_colour(frame: Frame, seat: int, leds_per_seat: int) -> Colour:
    """The one colour that stands for a seat's zone on a single-colour light: the colour most
    of its LEDs show (ties: the brighter one, so a sweep passing through does not flicker the
    light dark)."""
    counts: dict[Colour, int] = {}
    for value in frame.zone(seat, leds_per_seat):
        counts[value] = counts.get(value, 0) + 1
    if not counts:
        return OFF
    return max(counts, key=lambda c: (counts[c], _luma(c)))


def table_colour(frame: Frame) -> Colour:
    """The colour most LEDs of the whole strip show (ties: the brighter)."""
    counts: dict[Colour, int] = {}
    for value in frame.pixels:
        counts[value] = counts.get(value, 0) + 1
    if not counts:
        return OFF
    return max(counts, key=lambda c: (counts[c], _luma(c)))


def _luma(colour: Colour) -> int:
    return ((colour >> 16) & 0xFF) * 3 + ((colour >> 8) & 0xFF) * 6 + (colour & 0xFF)
