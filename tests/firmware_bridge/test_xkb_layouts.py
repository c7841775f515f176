"""Issue 17: barcode scanners set to Slovak or Spanish, their layouts read from the system's
xkeyboard-config (Debian xkb-data) by libxkbcommon, not written by hand.

The key presses below are what a scanner set to that country types: Slovak is QWERTZ with the
digits on Shift of the number row (+ľščťžýáíé on the plain level), Spanish has Ñ beside L and
the acute accent as a dead key beside it (xkeyboard-config ``symbols/sk``, ``symbols/es``)."""

from __future__ import annotations

import pytest

from companion.core.errors import ConfigError
from firmware_bridge.keymaps import CZ, DE, UK, US, KeyDecoder, layout_table
from firmware_bridge.readers import ReaderConfig
from firmware_bridge.xkb import layout_table as from_xkb

SHIFT = 42
ENTER = 28


def typed(layout: str, keys: list[int | tuple[int, int]]) -> str:
    """Press each key (a code, or (modifier, code)) and Enter; the decoded scan's text."""
    decoder = KeyDecoder(layout)
    for key in keys:
        mod, code = key if isinstance(key, tuple) else (None, key)
        if mod is not None:
            decoder.key(mod, 1)
        decoder.key(code, 1)
        decoder.key(code, 0)
        if mod is not None:
            decoder.key(mod, 0)
    scan = decoder.key(ENTER, 1)
    assert scan is not None and not scan.unmapped, scan
    return scan.text


def test_a_slovak_scanner_types_digits_on_shift_and_qwertz_letters() -> None:
    # "ZY-12ľ": Z is the key US calls Y (21), Y the key US calls Z (44), '-' is the slash key
    # (53), digits need Shift on the number row, and the plain "2" key types ľ
    keys: list[int | tuple[int, int]] = [(SHIFT, 21), (SHIFT, 44), 53, (SHIFT, 2), (SHIFT, 3), 3]
    assert typed("sk", keys) == "ZY-12ľ"


def test_a_spanish_scanner_types_enye_and_accents() -> None:
    # "Ñ-1é": Ñ beside L (39), '-' on the slash key, digits plain, then the dead acute (40)
    # followed by e (18) composes é
    keys: list[int | tuple[int, int]] = [(SHIFT, 39), 53, 2, 40, 18]
    assert typed("es", keys) == "Ñ-1é"


@pytest.mark.parametrize(("ours", "xkb"), [(US, "us"), (UK, "gb"), (DE, "de"), (CZ, "cz")])
def test_the_built_in_tables_agree_with_xkeyboard_config(ours: dict, xkb: str) -> None:
    """Every character the hand-made tables give is the one libxkbcommon reads from the same
    xkeyboard-config file (they leave out some AltGr characters scanners never type)."""
    theirs = from_xkb(xkb, tuple(ours))
    for code, (plain, shifted, altgr) in ours.items():
        if code in (15, 57):  # tab and space: added by the table itself
            continue
        assert theirs[code][:2] == (plain, shifted), code
        if altgr:
            assert theirs[code][2] == altgr, code


def test_a_layout_the_system_does_not_have_is_a_config_error_naming_it() -> None:
    with pytest.raises(ValueError, match="unknown layout 'xx'"):
        layout_table("xx")
    with pytest.raises(ConfigError) as err:
        ReaderConfig("scanner", "hid", "/dev/input/event3", layout="xx")
    assert err.value.path == "readers.scanner.layout"
    assert ReaderConfig("scanner", "hid", "/dev/input/event3", layout="sk").layout == "sk"
