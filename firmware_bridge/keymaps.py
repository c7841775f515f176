"""Key codes to text for keyboard-wedge scanners, in the layouts hobbyists' scanners type. Pure.

A keyboard-wedge scanner "types" a barcode as key presses in the layout it was set up for
(its manual's "keyboard country" codes): a German-set scanner presses the key labelled Z for
"y". To get the text back we need the same layout here, per reader (``layout =`` in config).

Codes are Linux input event codes (``linux/input-event-codes.h``, a stable kernel ABI). The
tables give the characters of each physical key at level 1 (plain), 2 (Shift), 3 (AltGr),
copied from xkeyboard-config's ``symbols/us``, ``gb``, ``de`` and ``cz`` (the ``basic``
variants, as installed under ``/usr/share/X11/xkb/symbols``; a test checks them against
libxkbcommon's reading of those files). Every other layout (Slovak ``sk``, Spanish ``es``, …)
is read from those files at run time by libxkbcommon (:mod:`firmware_bridge.xkb`); dead keys are written
``dead_<name>`` and combine with the next character (Unicode NFC). Numeric-keypad keys type
their digits (scanners that send keypad codes assume Num Lock on).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Linux input event codes of the keys the tables use.
KEY_ESC, KEY_BACKSPACE, KEY_TAB, KEY_ENTER = 1, 14, 15, 28
KEY_LEFTCTRL, KEY_LEFTSHIFT, KEY_RIGHTSHIFT, KEY_LEFTALT = 29, 42, 54, 56
KEY_SPACE, KEY_CAPSLOCK, KEY_NUMLOCK = 57, 58, 69
KEY_102ND, KEY_KPENTER, KEY_RIGHTCTRL, KEY_RIGHTALT = 86, 96, 97, 100
KEY_GRAVE, KEY_BACKSLASH = 41, 43

NUMBER_ROW = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)  # 1 … 0, minus, equal
TOP_ROW = (16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27)  # q … p, [, ]
HOME_ROW = (30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)  # a … l, ;, '
BOTTOM_ROW = (44, 45, 46, 47, 48, 49, 50, 51, 52, 53)  # z … m, comma, dot, slash
KEYPAD = {
    71: "7", 72: "8", 73: "9", 74: "-", 75: "4", 76: "5", 77: "6", 78: "+",
    79: "1", 80: "2", 81: "3", 82: "0", 83: ".", 55: "*", 98: "/",
}  # fmt: skip

# name → (combining mark, the character it types alone)
DEAD_KEYS = {
    "dead_cedilla": ("\u0327", "¸"),
    "dead_ogonek": ("\u0328", "˛"),
    "dead_doubleacute": ("\u030b", "˝"),
    "dead_abovedot": ("\u0307", "˙"),
    "dead_breve": ("\u0306", "˘"),
    "dead_macron": ("\u0304", "¯"),
    "dead_acute": ("\u0301", "´"),
    "dead_grave": ("\u0300", "`"),
    "dead_circumflex": ("\u0302", "^"),
    "dead_caron": ("\u030c", "ˇ"),
    "dead_abovering": ("\u030a", "°"),
    "dead_diaeresis": ("\u0308", "¨"),
    "dead_tilde": ("\u0303", "~"),
}

Levels = tuple[str, str, str]  # plain, Shift, AltGr ("" when the level types nothing)


def _rows(
    codes: tuple[int, ...], plain: list[str], shift: list[str], altgr: list[str]
) -> dict[int, Levels]:
    assert len(codes) == len(plain) == len(shift) == len(altgr), codes
    return {code: (p, s, a) for code, p, s, a in zip(codes, plain, shift, altgr, strict=True)}


def _chars(text: str) -> list[str]:
    return list(text)


def _blank(n: int) -> list[str]:
    return [""] * n


def _layout(*parts: dict[int, Levels]) -> dict[int, Levels]:
    table: dict[int, Levels] = {KEY_SPACE: (" ", " ", " "), KEY_TAB: ("\t", "\t", "")}
    for part in parts:
        table.update(part)
    return table


US = _layout(
    _rows(NUMBER_ROW, _chars("1234567890-="), _chars("!@#$%^&*()_+"), _blank(12)),
    _rows(TOP_ROW, _chars("qwertyuiop[]"), _chars("QWERTYUIOP{}"), _blank(12)),
    _rows(HOME_ROW, _chars("asdfghjkl;'"), _chars('ASDFGHJKL:"'), _blank(11)),
    _rows(BOTTOM_ROW, _chars("zxcvbnm,./"), _chars("ZXCVBNM<>?"), _blank(10)),
    {KEY_GRAVE: ("`", "~", ""), KEY_BACKSLASH: ("\\", "|", ""), KEY_102ND: ("<", ">", "|")},
)

UK = _layout(
    US,
    {3: ("2", '"', ""), 4: ("3", "£", ""), 5: ("4", "$", "€")},
    {40: ("'", "@", ""), KEY_GRAVE: ("`", "¬", "|"), KEY_BACKSLASH: ("#", "~", "")},
    {KEY_102ND: ("\\", "|", "|")},
)

DE = _layout(
    _rows(
        NUMBER_ROW,
        [*"1234567890ß", "dead_acute"],
        [*'!"§$%&/()=?', "dead_grave"],
        ["", "²", "³", "", "", "", "{", "[", "]", "}", "\\", ""],
    ),
    _rows(
        TOP_ROW,
        _chars("qwertzuiopü+"),
        _chars("QWERTZUIOPÜ*"),
        ["@", "", "€", "", "", "", "", "", "", "", "", "~"],
    ),
    _rows(HOME_ROW, _chars("asdfghjklöä"), _chars("ASDFGHJKLÖÄ"), _blank(11)),
    _rows(
        BOTTOM_ROW,
        _chars("yxcvbnm,.-"),
        _chars("YXCVBNM;:_"),
        ["»", "«", "", "", "", "", "µ", "·", "…", "–"],
    ),
    {KEY_GRAVE: ("dead_circumflex", "°", ""), KEY_BACKSLASH: ("#", "'", "")},
    {KEY_102ND: ("<", ">", "|")},
)

CZ = _layout(
    _rows(
        NUMBER_ROW,
        [*"+ěščřžýáíé=", "dead_acute"],
        [*"1234567890%", "dead_caron"],
        [*"!@#$%^&*{}", "", ""],
    ),
    _rows(
        TOP_ROW,
        _chars("qwertzuiopú)"),
        _chars("QWERTZUIOP/("),
        ["\\", "|", "€", "", "", "", "", "", "", "", "[", "]"],
    ),
    _rows(
        HOME_ROW,
        _chars("asdfghjklů§"),
        _chars('ASDFGHJKL"!'),
        _chars("~đĐ[]`'łŁ$'"),
    ),
    _rows(
        BOTTOM_ROW,
        _chars("yxcvbnm,.-"),
        _chars("YXCVBNM?:_"),
        _chars("°#&@{}^<>*"),
    ),
    {
        KEY_GRAVE: (";", "dead_abovering", "`"),
        KEY_BACKSLASH: ("dead_diaeresis", "'", "\\"),
        KEY_102ND: ("\\", "|", "/"),
    },
)

LAYOUT_TABLES: dict[str, dict[int, Levels]] = {"us": US, "uk": UK, "de": DE, "cz": CZ}
"""The layouts built in (no system library needed); every other is read from xkeyboard-config
(:func:`layout_table`)."""

SYSTEM_LAYOUTS = ("sk", "es")
"""Layouts documented and tested from the system's xkeyboard-config (any other xkb layout name,
``fr`` or ``es(cat)``, works the same way where the Pi has it)."""

_KEYS = (*NUMBER_ROW, *TOP_ROW, *HOME_ROW, *BOTTOM_ROW, KEY_GRAVE, KEY_BACKSLASH, KEY_102ND)


def layout_table(name: str) -> dict[int, Levels]:
    """The key table of a layout: built in, else compiled from xkeyboard-config by libxkbcommon
    (:mod:`firmware_bridge.xkb`). ``ValueError`` names the layout when there is none."""
    if name in LAYOUT_TABLES:
        return LAYOUT_TABLES[name]
    from firmware_bridge.xkb import XkbError
    from firmware_bridge.xkb import layout_table as from_xkb

    try:
        table = from_xkb(name, _KEYS)
    except XkbError as exc:
        raise ValueError(f"unknown layout {name!r}: {exc}") from None
    # a dead key we cannot combine types nothing (counted as unmapped), never its name
    known = {
        code: tuple("" if c.startswith("dead_") and c not in DEAD_KEYS else c for c in levels)
        for code, levels in table.items()
    }
    return _layout(known)  # type: ignore[arg-type]


KEY_DOWN, KEY_UP, KEY_REPEAT = 1, 0, 2
_SHIFTS = {KEY_LEFTSHIFT, KEY_RIGHTSHIFT}
_CTRLS = {KEY_LEFTCTRL, KEY_RIGHTCTRL}
_IGNORED = {KEY_LEFTALT, KEY_NUMLOCK, KEY_ESC}


MAX_SCAN_CHARS = 1024
"""The longest scan kept, as a line reader's longest line (``frames.LineParser``): a scanner
(or anything posing as a keyboard) typing on without Enter does not grow a buffer for ever."""


@dataclass(frozen=True, slots=True)
class Scan:
    """One finished scan: its text, and the key codes that typed nothing in this layout;
    ``dropped``: characters typed beyond ``MAX_SCAN_CHARS`` (the scan is then refused)."""

    text: str
    unmapped: tuple[int, ...] = ()
    dropped: int = 0


class KeyDecoder:
    """Key events of one scanner → finished scans; Enter (or keypad Enter) ends a scan."""

    def __init__(self, layout: str = "us") -> None:
        self.layout = layout
        self._table = layout_table(layout)
        self._held: set[int] = set()
        self._caps = False
        self._dead = ""
        self._text: list[str] = []
        self._unmapped: list[int] = []
        self._dropped = 0

    @property
    def has_partial(self) -> bool:
        return bool(self._text or self._unmapped or self._dead)

    def key(self, code: int, value: int) -> Scan | None:
        """One ``EV_KEY`` event (value 1 down, 0 up, 2 repeat); a :class:`Scan` on Enter."""
        if value == KEY_UP:
            self._held.discard(code)
            return None
        if value != KEY_DOWN:
            return None  # auto-repeat: a scanner never holds a key on purpose
        self._held.add(code)
        if code in (KEY_ENTER, KEY_KPENTER):
            return self.finish()
        if code == KEY_CAPSLOCK:
            self._caps = not self._caps
        elif code == KEY_BACKSPACE:
            if self._text:
                self._text.pop()
        elif code in _SHIFTS or code in _CTRLS or code in (KEY_RIGHTALT, *_IGNORED):
            pass
        elif code in KEYPAD:
            self._type(KEYPAD[code])
        else:
            self._press(code)
        return None

    def _press(self, code: int) -> None:
        levels = self._table.get(code)
        if levels is None:
            self._unmap(code)
            return
        plain, shifted, altgr = levels
        shift = bool(self._held & _SHIFTS)
        if self._held & _CTRLS:
            # Ctrl+letter or Ctrl+[\]^_ types a control character: GS1 scanners send the
            # group separator (0x1D) as Ctrl+].
            base = plain.upper() if len(plain) == 1 else ""
            if base and "@" <= base <= "_":
                self._type(chr(ord(base) & 0x1F))
            else:
                self._unmap(code)
            return
        if KEY_RIGHTALT in self._held:
            char = altgr
        elif self._caps and len(plain) == 1 and plain.isalpha():
            # Caps Lock capitalises letters only and Shift undoes it; a letter whose Shift level
            # is something else (Czech ě/2) is capitalised itself, as xkb's semi-alphabetic type.
            if shifted == plain.upper():
                char = plain if shift else shifted
            else:
                char = shifted if shift else plain.upper()
        else:
            char = shifted if shift else plain
        if not char:
            self._unmap(code)
        elif char in DEAD_KEYS:
            if self._dead:
                self._text.append(DEAD_KEYS[self._dead][1])
            self._dead = char
        else:
            self._type(char)

    def _unmap(self, code: int) -> None:
        if len(self._unmapped) >= MAX_SCAN_CHARS:
            self._dropped += 1
        else:
            self._unmapped.append(code)

    def _type(self, char: str) -> None:
        if len(self._text) >= MAX_SCAN_CHARS:
            self._dropped += 1
            self._dead = ""
            return
        if self._dead:
            mark, alone = DEAD_KEYS[self._dead]
            self._dead = ""
            if char == " ":
                char = alone
            else:
                composed = unicodedata.normalize("NFC", char + mark)
                char = composed if len(composed) == 1 else alone + char
        self._text.append(char)

    def finish(self) -> Scan | None:
        """End the scan in progress (Enter); None when nothing was typed."""
        if self._dead:
            self._text.append(DEAD_KEYS[self._dead][1])
            self._dead = ""
        text, unmapped, dropped = "".join(self._text), tuple(self._unmapped), self._dropped
        self._text, self._unmapped, self._dropped = [], [], 0
        if not text and not unmapped:
            return None
        return Scan(text, unmapped, dropped)
