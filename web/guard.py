"""Who may change things from a page: the table PIN (a session cookie after sign-in), trusted
subnets, the wrong-PIN limits, CSRF tokens, the Host header
check, and sending a form's input to the engine.

Wrong PINs are bounded twice: per address (``PIN_FAILURES_ALLOWED`` a minute) and for the whole
table (after ``GLOBAL_FAILURES_ALLOWED`` wrong PINs from anywhere, PIN sign-in pauses, each pause
twice as long as the last, up to an hour), because a guest on the Wi-Fi can take as many
addresses as they like. An attempt is counted *before* its PIN is compared or hashed, and at most
``HASHES_AT_ONCE`` private PINs are hashed at a time (scrypt takes 16 MiB each).

One :class:`TableGuard` per app, kept in ``app.extensions["trackside"]`` so the page modules
(``web/app.py``, ``web/calibration.py`` …) share it; :func:`guard` finds it for a request.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import secrets
import socket
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from flask import Flask, abort, current_app, flash, request, session

from companion.core.errors import SnapshotError
from companion.core.observation import Observation
from web.i18n import _
from web.server import LARGE_BODIES

PIN_FAILURES_ALLOWED = 5
PIN_FAILURE_WINDOW_S = 60.0
GLOBAL_FAILURES_ALLOWED = 10
"""Wrong PINs from all addresses together before PIN sign-in pauses (then again after each
pause)."""
GLOBAL_PAUSE_FIRST_S = 30.0
GLOBAL_PAUSE_MAX_S = 3600.0
GLOBAL_QUIET_RESET_S = 3600.0
"""An hour without a wrong PIN forgets the escalation."""
HASHES_AT_ONCE = 2
HASH_WAIT_S = 5.0
SEAT_CODE_LENGTH = 8
"""The engine's seat codes (companion/service/engine.py issues and checks them: the table PIN
alone never sets a seat's PIN)."""
SESSION_TTL_S = 12 * 3600.0
"""A sign-in (table PIN or a player's view) lasts a game night at most."""
MAX_SESSIONS = 5000
EXTENSION = "trackside"
T = TypeVar("T")
log = logging.getLogger(__name__)


class PinRefusedError(Exception):
    """A PIN attempt that was not checked: too many wrong PINs, or too many checks at once.
    ``str()`` is the sentence for the page."""

    def __init__(self, message: str, status: int = 429) -> None:
        super().__init__(message)
        self.status = status


class PinLimiter:
    """Wrong-PIN bookkeeping for one app (thread-safe; the web server has many threads)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.per_address: dict[str, deque[float]] = defaultdict(deque)
        self.failures = 0  # since the last pause (or since it was forgotten)
        self.pauses = 0
        self.paused_until = 0.0
        self.last_failure = -1e18
        self.hashing = threading.BoundedSemaphore(HASHES_AT_ONCE)

    def _recent(self, address: str, now: float) -> deque[float]:
        recent = self.per_address[address]
        while recent and now - recent[0] > PIN_FAILURE_WINDOW_S:
            recent.popleft()
        if not recent:
            del self.per_address[address]  # never grows with addresses seen once
            return self.per_address[address]
        return recent

    def pause_left(self) -> float:
        """Seconds until PIN sign-in opens again for everybody (0: open; a pause that is due
        starts with the next attempt)."""
        with self.lock:
            now = self.clock()
            if self.failures >= GLOBAL_FAILURES_ALLOWED and now >= self.paused_until:
                return float(min(GLOBAL_PAUSE_MAX_S, GLOBAL_PAUSE_FIRST_S * 2.0**self.pauses))
            return max(0.0, self.paused_until - now)

    def refusal(self, address: str) -> str | None:
        """Why an attempt from ``address`` is not checked now, or None."""
        with self.lock:
            return self._refusal(address, self.clock())

    def _refusal(self, address: str, now: float) -> str | None:
        if now < self.paused_until:
            wait = int(self.paused_until - now) + 1
            return _(
                "PIN sign-in is paused for {duration}: too many wrong PINs were tried "
                "from this Wi-Fi. Devices already signed in keep working.",
                duration=_duration(wait),
            )
        if len(self._recent(address, now)) >= PIN_FAILURES_ALLOWED:
            return _("Too many wrong PINs: wait a minute and try again.")
        return None

    def begin(self, address: str) -> float:
        """Count an attempt as wrong before it is checked (parallel guesses cannot all pass);
        :meth:`succeeded` takes it back. Raises PinRefusedError when attempts are not taken now."""
        with self.lock:
            now = self.clock()
            if now - self.last_failure > GLOBAL_QUIET_RESET_S:
                self.failures, self.pauses = 0, 0
            if self.failures >= GLOBAL_FAILURES_ALLOWED and now >= self.paused_until:
                pause = min(GLOBAL_PAUSE_MAX_S, GLOBAL_PAUSE_FIRST_S * 2.0**self.pauses)
                self.pauses += 1
                self.failures = 0
                self.paused_until = now + pause
            why = self._refusal(address, now)
            if why is not None:
                raise PinRefusedError(why)
            self.per_address[address].append(now)
            self.last_failure = now
            self.failures += 1
            return now

    def succeeded(self, address: str, stamp: float) -> None:
        """The attempt begun at ``stamp`` was right: it is not a failure."""
        with self.lock:
            recent = self.per_address.get(address)
            if recent and stamp in recent:
                recent.remove(stamp)
            self.failures = max(0, self.failures - 1)

    def check(self, address: str, compare: Callable[[], bool]) -> bool:
        """Count, then compare (``compare`` may be a slow hash): True when it matched."""
        stamp = self.begin(address)
        if compare():
            self.succeeded(address, stamp)
            return True
        return False

    @contextmanager
    def hash_slot(self) -> Iterator[None]:
        """One of the few hashing slots, or PinRefusedError (503) when they stay busy."""
        if not self.hashing.acquire(timeout=HASH_WAIT_S):
            raise PinRefusedError(_("The table is busy checking PINs: try again in a moment."), 503)
        try:
            yield
        finally:
            self.hashing.release()


def _duration(seconds: int) -> str:
    if seconds < 120:
        return _("{n} s", n=seconds)
    return _("{n} min", n=(seconds + 59) // 60)


def normalise_code(given: str) -> str:
    """A seat code as typed (``abcd-2345``, spaces), as the table shows it."""
    return "".join(c for c in given.upper() if c not in " -")[: SEAT_CODE_LENGTH * 2]


def host_allowed(host: str, names: tuple[str, ...]) -> bool:
    """Whether a request's ``Host`` names this table: an IP address, localhost, this machine's
    name (and ``.local``), or one of ``[web] hostnames``. Any other name is what a DNS-rebinding
    page sends (a site whose name now points at the Pi)."""
    name = host.strip().lower()
    if name.startswith("["):  # [v6]:port
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    name = name.rstrip(".")
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    own = socket.gethostname().lower()
    allowed = {"localhost", own, f"{own}.local", *(n.lower().rstrip(".") for n in names)}
    return name in allowed or name.endswith(".localhost")


class PinService(Protocol):
    @property
    def pin(self) -> str | None: ...

    @property
    def trusted_subnets(self) -> tuple[str, ...]: ...

    def submit_and_wait(self, observation: Observation, timeout_s: float) -> Mapping[str, Any]: ...


class Sessions:
    """Server-side sign-ins: the cookie carries only a random id listed here (nothing derived
    from any PIN: a signed cookie is readable by whoever holds it), so signing out (or locking a
    private view) ends that sign-in everywhere, a copied cookie included, and every sign-in ends
    by itself after ``SESSION_TTL_S``. A table sign-in also keeps, here in memory only, a keyed
    mark of the PIN it was made with (HMAC with a key drawn at start-up): a changed PIN matches
    no mark, which signs everyone out. In memory: a restart signs everyone out."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.expiry: dict[str, float] = {}
        self.marks: dict[str, bytes] = {}
        self.key = secrets.token_bytes(32)

    def mark(self, pin: str) -> bytes:
        """The PIN's keyed mark (never leaves this process)."""
        return hmac.new(self.key, pin.encode(), hashlib.sha256).digest()

    def start(self, pin: str | None = None) -> str:
        """A new sign-in's id; ``pin``: the table PIN it was made with (a table sign-in)."""
        sid = secrets.token_urlsafe(18)
        now = self.clock()
        with self.lock:
            if len(self.expiry) >= MAX_SESSIONS:
                self.expiry = {k: t for k, t in self.expiry.items() if t > now}
                while len(self.expiry) >= MAX_SESSIONS:  # the oldest sign-ins go first
                    del self.expiry[min(self.expiry, key=self.expiry.__getitem__)]
                self.marks = {k: m for k, m in self.marks.items() if k in self.expiry}
            self.expiry[sid] = now + SESSION_TTL_S
            if pin is not None:
                self.marks[sid] = self.mark(pin)
        return sid

    def valid(self, sid: object, pin: str | None = None) -> bool:
        """Whether ``sid`` is a live sign-in; with ``pin``, one made with that table PIN."""
        if not isinstance(sid, str):
            return False
        with self.lock:
            expires = self.expiry.get(sid)
            if expires is None:
                return False
            if expires <= self.clock():
                del self.expiry[sid]
                self.marks.pop(sid, None)
                return False
            if pin is None:
                return True
            mark = self.marks.get(sid)
        return mark is not None and hmac.compare_digest(mark, self.mark(pin))

    def end(self, sid: object) -> None:
        if isinstance(sid, str):
            with self.lock:
                self.expiry.pop(sid, None)
                self.marks.pop(sid, None)


class TableGuard:
    def __init__(self, service: PinService) -> None:
        self.service = service
        self.limiter = PinLimiter()
        self.sessions = Sessions()
        self.networks = [ipaddress.ip_network(n) for n in service.trusted_subnets]

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
        return self.pin_session()

    def pin_session(self) -> bool:
        """Signed in with the table PIN (not merely a trusted screen): granting seat codes and
        resetting players' PINs need this."""
        pin = self.service.pin
        return (
            pin is not None
            and bool(session.get("pin_ok"))
            and self.sessions.valid(session.get("sid"), pin)
        )

    def address(self) -> str:
        return request.remote_addr or "?"

    def refusal(self) -> str | None:
        """Why a PIN from this request would not be checked now (paused, or this address has
        had too many wrong ones), or None."""
        return self.limiter.refusal(self.address())

    def limited(self) -> bool:
        return self.refusal() is not None

    def pin_matches(self, given: str) -> bool:
        """The table PIN, counted before it is compared. Raises PinRefusedError when no attempt is
        taken now. No PIN at all (a request without the header, an empty field) is no guess: it
        is refused without counting, so it cannot pause sign-in for everyone."""
        pin = (self.service.pin or "").encode()
        if not given:
            return False
        return bool(pin) and self.limiter.check(
            self.address(), lambda: hmac.compare_digest(given.encode(), pin)
        )

    def hashed_pin_matches(self, compare: Callable[[], bool]) -> bool:
        """A private PIN: counted first, then hashed in one of the few hashing slots."""

        def bounded() -> bool:
            with self.limiter.hash_slot():
                return compare()

        stamp = self.limiter.begin(self.address())
        try:
            matched = bounded()
        except PinRefusedError:
            self.limiter.succeeded(self.address(), stamp)  # not checked: not a failure
            raise
        if matched:
            self.limiter.succeeded(self.address(), stamp)
        return matched

    def bounded_hash(self, work: Callable[[], T]) -> T:
        """Hash a new PIN in one of the hashing slots (PinRefusedError when they stay busy)."""
        with self.limiter.hash_slot():
            return work()

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
            flash(_("Not sent — {field}: {reason}", field=exc.path, reason=exc.reason), "error")
            return "invalid"
        try:
            outcome = self.service.submit_and_wait(observation, 10.0)
        except TimeoutError:
            flash(
                _("No answer within {n} s; the input is queued and will be handled.", n=10), "error"
            )
            return "timeout"
        verdict = str(outcome.get("outcome"))
        message = str(outcome.get("message") or verdict)
        if verdict == "rejected":
            flash(_("Refused: {why}", why=message), "error")
        elif verdict == "prompt":
            flash(_("Question: {question}", question=message), "info")
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
        abort(400, _("the form is out of date (CSRF check failed): reload the page and try again"))


# -- request limits and the Host check (installed by create_app) ------------------------------
MAX_BODY_BYTES = 256 * 1024
"""The largest request body a page or the API sends (a form, a JSON input); bigger is refused
with 413 before it is read, and the WSGI server refuses it too (no upload is spooled to disk)."""
MAX_FORM_PARTS = 200


def protect(app: Flask, hostnames: tuple[str, ...]) -> None:
    """Body limits and the ``Host`` check for every request of ``app``."""
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        MAX_FORM_MEMORY_SIZE=MAX_BODY_BYTES,
        MAX_FORM_PARTS=MAX_FORM_PARTS,
    )

    @app.errorhandler(RecursionError)
    def too_deeply_nested(exc: RecursionError) -> tuple[dict[str, str] | str, int]:
        """Input nested so deep that walking it gave up: the sender's mistake (400), one log
        line, no traceback."""
        log.warning("web: %s %s: input nested too deeply", request.method, request.path)
        message = _("the input is nested too deeply (at most {n} levels)", n=MAX_JSON_DEPTH)
        if request.path.startswith("/api/"):
            return {"error": message, "field": "body"}, 400
        return message, 400

    @app.before_request
    def check_host() -> None:
        host = request.host or ""
        if not host_allowed(host, hostnames):
            abort(
                400,
                f"this table is not reached by the name {host[:60]!r}: add it to [web] hostnames "
                "in the config if it is yours",
            )
        length = request.content_length
        limit = LARGE_BODIES.get(request.path, MAX_BODY_BYTES)  # the restore: a whole backup
        if limit > MAX_BODY_BYTES:
            request.max_content_length = limit
        if length is not None and length > limit:
            abort(
                413,
                _(
                    "the request body is {length} bytes; the limit is {limit}",
                    length=length,
                    limit=limit,
                ),
            )


MAX_JSON_DEPTH = 32
"""No input a page or a script sends nests deeper; deeper JSON is refused with 400 before any
code walks it recursively."""


def too_deep(value: object, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether parsed JSON nests deeper than ``limit`` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def short(text: str, limit: int = 160) -> str:
    """A refusal quotes at most ``limit`` characters of what it refuses."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"
