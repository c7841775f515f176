"""The club hub's known players, for the table page's name boxes (docs/hub.md, "Players").

The hub links results by name (and by the player codes it issues), so a table that offers the
names the hub already knows keeps a club's league clean: "Anička" tonight, not "Anicka". The
table asks the hub's ``/api/players`` in the background, at most once a minute, and the page
always answers at once from what it has: a hub that is away (the Wi-Fi, a restart) costs nothing
but the suggestions. The answer is bounded before it is parsed, like every input, and only
``hub_url`` itself is asked: a redirect is refused, not followed.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

MAX_ANSWER_BYTES = 256 * 1024
MAX_NAMES = 200
MAX_NAME_CHARS = 24  # the table page's name box
REFRESH_S = 60.0
TIMEOUT_S = 3.0


def parse_players(body: bytes) -> list[str]:
    """The names in a hub's ``/api/players`` answer, most games first, as the hub sorts them;
    ValueError naming what is wrong."""
    if len(body) > MAX_ANSWER_BYTES:
        raise ValueError(f"answer is {len(body)} bytes; at most {MAX_ANSWER_BYTES}")
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, list):
        raise ValueError("no 'players' list")
    names: list[str] = []
    for p in players:
        name = p.get("name") if isinstance(p, dict) else None
        clean = name.strip() if isinstance(name, str) and len(name) <= MAX_NAME_CHARS else ""
        if clean and clean not in names:
            names.append(clean)
        if len(names) >= MAX_NAMES:
            break
    return names


class RedirectRefusedError(OSError):
    """The hub's address answered with a redirect, which is not followed."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is refused, naming where it pointed: the table asks ``hub_url`` and nothing
    else (a redirect could send it anywhere, another machine or one of this one's own ports,
    with the answer shown on the table page)."""

    def redirect_request(  # noqa: PLR0917 (urllib calls it with these, positionally)
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        raise RedirectRefusedError(
            f"{req.full_url} answered {code} with a redirect to {newurl[:120]!r}; redirects "
            "are not followed: set [club] hub_url to the hub's own address"
        )


_OPENER = urllib.request.build_opener(_NoRedirect)


def _fetch(url: str) -> bytes:
    with _OPENER.open(url, timeout=TIMEOUT_S) as answer:
        return bytes(answer.read(MAX_ANSWER_BYTES + 1))


class KnownPlayers:
    """The hub's player names, refreshed in the background (thread-safe)."""

    def __init__(
        self,
        hub_url: str,
        *,
        fetch: Callable[[str], bytes] = _fetch,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = hub_url.rstrip("/") + "/api/players"
        self._fetch = fetch
        self._clock = clock
        self._lock = threading.Lock()
        self._names: list[str] = []
        self._fetched_at: float | None = None
        self._busy = False
        self._last_error = ""
        self.failures = 0

    def names(self) -> list[str]:
        """What the hub said last (empty before its first answer); starts a refresh when that
        is older than a minute. Never waits for the network."""
        with self._lock:
            due = self._fetched_at is None or self._clock() - self._fetched_at >= REFRESH_S
            start = due and not self._busy
            if start:
                self._busy = True
            names = list(self._names)
        if start:
            threading.Thread(target=self.refresh, name="known-players", daemon=True).start()
        return names

    def refresh(self) -> None:
        """Ask the hub now (the background thread's work; tests call it directly)."""
        try:
            names = parse_players(self._fetch(self.url))
        except Exception as exc:  # the hub away, a bad answer: keep what we had
            why = str(exc) or type(exc).__name__
            with self._lock:
                self.failures += 1
                self._fetched_at = self._clock()
                self._busy = False
                first = why != self._last_error
                self._last_error = why
            if first:
                log.warning("club hub: no player names from %s: %s", self.url, why)
            return
        with self._lock:
            self._names = names
            self._fetched_at = self._clock()
            self._busy = False
            self._last_error = ""
