"""The scoreboard's "join from your phone" QR code, shown while no game is on the table.

The address comes from the service (``join_url``: the table page at the Pi's LAN address, so
a phone on the same Wi-Fi opens it without mDNS); without one (the demo, tests) the address the
scoreboard itself was opened at is used, unless that is the loopback, which no phone reaches.
"""

from __future__ import annotations

from typing import Any

import segno
from flask import request
from markupsafe import Markup

LOOPBACK = ("127.", "localhost", "[::1]", "::1")


def join_link(service: Any) -> str | None:
    url = getattr(service, "join_url", None)
    if isinstance(url, str) and url:
        return url
    host = request.host
    if host.startswith(LOOPBACK):
        return None
    return f"{request.host_url.rstrip('/')}/table"


def join_context(service: Any, snapshot: dict[str, Any]) -> dict[str, Any]:
    """``join_url`` and ``join_qr`` (inline SVG) for the template, only with no players."""
    if snapshot.get("players"):
        return {"join_url": None, "join_qr": None}
    link = join_link(service)
    if link is None:
        return {"join_url": None, "join_qr": None}
    # make_qr: never a Micro QR, which phone cameras do not read
    svg = segno.make_qr(link, error="m").svg_inline(
        dark="#000", light="#fff", border=4, omitsize=True
    )
    return {"join_url": link, "join_qr": Markup(svg)}
