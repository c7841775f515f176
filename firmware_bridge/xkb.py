"""Keyboard layouts from xkeyboard-config through libxkbcommon (ctypes; no build step).

A keyboard-wedge scanner set to "Slovak" or "Spanish" types its barcodes in that layout. Rather
than copy every country's keys by hand, the table for such a layout is read from the system's
own keyboard data: Debian's ``xkb-data`` (xkeyboard-config, ``/usr/share/X11/xkb``) compiled by
``libxkbcommon0`` — the same library and files the desktop uses, so a layout reads exactly as
the Pi's own keyboard would type it. Both packages are in Raspberry Pi OS (the installer adds
them); without them, only the built-in tables (``us``, ``uk``, ``de``, ``cz``) are there.

For each physical key (Linux input event code; xkb's keycode is that + 8) the table holds the
character at level 1 (plain), 2 (Shift) and 3 (AltGr), and a dead key as its keysym name
(``dead_acute``), as :mod:`firmware_bridge.keymaps` expects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Iterable
from functools import lru_cache

Levels = tuple[str, str, str]

_EVDEV_OFFSET = 8
_XKB_KEYMAP_COMPILE_NO_FLAGS = 0
_XKB_CONTEXT_NO_FLAGS = 0


class XkbError(RuntimeError):
    """libxkbcommon is missing, or it has no layout of that name."""


class _RuleNames(ctypes.Structure):
    _fields_ = [
        ("rules", ctypes.c_char_p),
        ("model", ctypes.c_char_p),
        ("layout", ctypes.c_char_p),
        ("variant", ctypes.c_char_p),
        ("options", ctypes.c_char_p),
    ]


@lru_cache(maxsize=1)
def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("xkbcommon") or "libxkbcommon.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        raise XkbError(
            "libxkbcommon is not installed (Debian: apt-get install libxkbcommon0 xkb-data)"
        ) from exc
    lib.xkb_context_new.restype = ctypes.c_void_p
    lib.xkb_context_new.argtypes = [ctypes.c_int]
    lib.xkb_context_unref.argtypes = [ctypes.c_void_p]
    lib.xkb_keymap_new_from_names.restype = ctypes.c_void_p
    lib.xkb_keymap_new_from_names.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(_RuleNames),
        ctypes.c_int,
    ]
    lib.xkb_keymap_unref.argtypes = [ctypes.c_void_p]
    lib.xkb_keymap_key_get_syms_by_level.restype = ctypes.c_int
    lib.xkb_keymap_key_get_syms_by_level.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_uint32,
        ctypes.c_uint32,
        ctypes.POINTER(ctypes.POINTER(ctypes.c_uint32)),
    ]
    lib.xkb_keysym_to_utf32.restype = ctypes.c_uint32
    lib.xkb_keysym_to_utf32.argtypes = [ctypes.c_uint32]
    lib.xkb_keysym_get_name.restype = ctypes.c_int
    lib.xkb_keysym_get_name.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
    return lib


def _symbol(lib: ctypes.CDLL, keymap: int, code: int, level: int) -> str:
    syms = ctypes.POINTER(ctypes.c_uint32)()
    n = lib.xkb_keymap_key_get_syms_by_level(
        keymap, code + _EVDEV_OFFSET, 0, level, ctypes.byref(syms)
    )
    if n != 1:
        return ""
    sym = syms[0]
    buf = ctypes.create_string_buffer(64)
    lib.xkb_keysym_get_name(sym, buf, len(buf))
    name = buf.value.decode("ascii", "replace")
    if name.startswith("dead_"):
        return name
    point = lib.xkb_keysym_to_utf32(sym)
    if point < 0x20 or point == 0x7F:
        return "\t" if point == 0x09 else ""
    return chr(point)


@lru_cache(maxsize=16)
def _compiled(layout: str, variant: str, codes: tuple[int, ...]) -> dict[int, Levels]:
    lib = _library()
    context = lib.xkb_context_new(_XKB_CONTEXT_NO_FLAGS)
    if not context:
        raise XkbError("libxkbcommon could not start (no xkb-data?)")
    try:
        names = _RuleNames(b"evdev", b"pc105", layout.encode(), variant.encode(), None)
        keymap = lib.xkb_keymap_new_from_names(
            context, ctypes.byref(names), _XKB_KEYMAP_COMPILE_NO_FLAGS
        )
        if not keymap:
            raise XkbError(
                f"no keyboard layout {layout!r}"
                + (f" variant {variant!r}" if variant else "")
                + " in xkeyboard-config (names as in /usr/share/X11/xkb/symbols, e.g. sk, es)"
            )
        try:
            table: dict[int, Levels] = {}
            for code in codes:
                levels = tuple(_symbol(lib, keymap, code, level) for level in range(3))
                if any(levels):
                    table[code] = levels  # type: ignore[assignment]
            return table
        finally:
            lib.xkb_keymap_unref(keymap)
    finally:
        lib.xkb_context_unref(context)


def layout_table(name: str, codes: Iterable[int]) -> dict[int, Levels]:
    """``name`` (``sk``, ``es``, ``fr``, or ``layout(variant)`` like ``es(cat)``) → per key
    code its (plain, Shift, AltGr) characters, from the system's xkeyboard-config. Raises
    :class:`XkbError` when libxkbcommon or that layout is not there."""
    layout, _, variant = name.partition("(")
    if not layout or not layout.replace("_", "").isalnum():
        raise XkbError(f"not a layout name: {name!r}")
    variant = variant.rstrip(")")
    return dict(_compiled(layout, variant, tuple(sorted(set(codes)))))
