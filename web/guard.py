"""Who may change things from a page: the table PIN (a session cookie after sign-in), trusted
subnets, the wrong-PIN rate limit, CSRF tokens, and sending a form's input to the engine.

One :class:`TableGuard` per app, kept in ``app.extensions["trackside"]`` so the page modules
(``web/app.py``, ``web/calibration.py`` …) share it; :func:`guard` finds it for a request.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Mapping
from typing import Any, Protocol

from flask import abort, current_app, flash, request, session

from companion.core.errors import SnapshotError
from companion.core.observation import Observation

PIN_FAILURES_ALLOWED = 5
PIN_FAILURE_WINDOW_S = 60.0
EXTENSION = "trackside"


class PinService(Protocol):
    @property
    def pin(self) -> str | None: ...

    @property
    def trusted_subnets(self) -> tuple[str, ...]: ...

    def submit_and_wait(self, observation: Observation, timeout_s: float) -> Mapping[str, Any]: ...


class TableGuard:
    def __init__(self, service: PinService) -> None:
        self.service = service
        self.failures: dict[str, deque[float]] = defaultdict(deque)
        self.networks = [ipaddress.ip_network(n) for n in service.trusted_subnets]

    def pin_fingerprint(self) -> str:
        pin = self.service.pin or ""
        return hashlib.sha256(b"trackside-pin:" + pin.encode()).hexdigest()[:16]

    def trusted(self) -> bool:
        """The request comes from a configured trusted subnet (e.g. the TV by the table)."""
        if self.service.pin is None or not self.networks:
            return False
        try:
            address = ipaddress.ip_address(request.remote_addr or "")
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def signed_in(self) -> bool:
        if self.service.pin is None:
            return False
        if self.trusted():
            return True
        return bool(session.get("pin_ok")) and session.get("pin_fp") == self.pin_fingerprint()

    def limited(self) -> bool:
        """Too many wrong PINs from this address within the window."""
        recent = self.failures[request.remote_addr or "?"]
        now = time.monotonic()
        while recent and now - recent[0] > PIN_FAILURE_WINDOW_S:
            recent.popleft()
        return len(recent) >= PIN_FAILURES_ALLOWED

    def count_failure(self) -> None:
        self.failures[request.remote_addr or "?"].append(time.monotonic())

    def pin_matches(self, given: str) -> bool:
        pin = self.service.pin or ""
        if pin and hmac.compare_digest(given.encode(), pin.encode()):
            return True
        self.count_failure()
        return False

    def who(self) -> str:
        name = str(session.get("who") or "")
        return f"table-page:{name}" if name else "table-page"

    def send(self, kind: str, payload: Mapping[str, Any], *, source: str | None = None) -> str:
        """Send one input from a page form and flash what became of it. Returns the outcome
        (``applied``, ``prompt``, ``rejected``, ``logged``, ``invalid`` or ``timeout``)."""
        try:
            observation = Observation.from_json(
                {"source": source or self.who(), "kind": kind, "payload": dict(payload)}, "form"
            )
        except SnapshotError as exc:
            flash(f"Not sent — {exc.path}: {exc.reason}", "error")
            return "invalid"
        try:
            outcome = self.service.submit_and_wait(observation, 10.0)
        except TimeoutError:
            flash("No answer within 10 s; the input is queued and will be handled.", "error")
            return "timeout"
        verdict = str(outcome.get("outcome"))
        message = str(outcome.get("message") or verdict)
        if verdict == "rejected":
            flash(f"Refused: {message}", "error")
        elif verdict == "prompt":
            flash(f"Question: {message}", "info")
        else:
            flash(message, "ok")
        return verdict


def guard() -> TableGuard:
    """The app's guard (for page modules)."""
    found = current_app.extensions[EXTENSION]
    assert isinstance(found, TableGuard)
    return found


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def require_csrf() -> None:
    expected = session.get("csrf")
    given = request.form.get("csrf", "")
    if not isinstance(expected, str) or not hmac.compare_digest(given.encode(), expected.encode()):
        abort(400, "the form is out of date (CSRF check failed): reload the page and try again")
