"""Each screen in its reader's language (the edge of issue 17's catalogues).

The language of a request, first that applies:
1. ``?lang=xx`` — the switch on every page; the answer remembers it in a cookie (a year);
2. the ``lang`` cookie — what this screen chose before (``/me`` on a player's phone keeps the
   player's own choice this way);
3. ``Accept-Language`` — the browser's languages;
4. ``[web] language`` of the config (the table's default), else English.

Templates get ``_("text with {field}", field=…)``, ``ngettext("one {n} …", "{n} …", n)``, the
``t`` filter (a message, a message's JSON as snapshots carry it, or plain text), ``num`` and
``when`` (numbers and dates in the language's own format, by Babel's CLDR data) and ``lang``.
"""

from __future__ import annotations

import functools
import gettext
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import icu
from babel.dates import format_datetime, format_time
from babel.numbers import format_decimal
from flask import Flask, Response, g, has_request_context, request
from markupsafe import Markup, escape

from companion.core.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    negotiate,
    normalise,
    translations,
)
from companion.core.messages import Message, render_json, render_text

COOKIE = "lang"
CONFIG_KEY = "TRACKSIDE_LANGUAGE"
"""``app.config`` key of the table's default language (``[web] language``)."""

_LOCALES = {"en": "en_GB"}
"""CLDR locale per language where the bare language would be another country's: the table's
English is British (24-hour times, day before month), as the rest of the product writes it."""

_stream = threading.local()
"""The language of the request a server thread answered last: a streamed body (server-sent
events) is iterated by the same thread after the request's context has ended, and must keep
speaking its reader's language rather than fall back to the table's default."""


def language() -> str:
    """This request's language (cached on ``g``)."""
    cached = getattr(g, "lang", None)
    if cached:
        return str(cached)
    from flask import current_app

    default = normalise(current_app.config.get(CONFIG_KEY)) or DEFAULT_LANGUAGE
    chosen = normalise(request.args.get("lang")) or normalise(request.cookies.get(COOKIE))
    lang = chosen or negotiate(request.headers.get("Accept-Language"), default)
    g.lang = lang
    return lang


@functools.cache
def _collator(lang: str) -> icu.Collator:
    return icu.Collator.createInstance(icu.Locale(_LOCALES.get(lang, lang)))


def collation_key(lang: str | None = None) -> Callable[[str], bytes]:
    """The sort key of words in ``lang`` (this request's language by default): ICU's collation
    for the language (PyICU, Debian's python3-icu), so a Czech list has Č after C, Ch after H
    and Ř after R, and a Spanish one Ñ after N, as their readers expect (plain code-point
    order, or one language's rules for all, would not)."""
    chosen = lang or (language() if has_request_context() else DEFAULT_LANGUAGE)
    return _collator(chosen).getSortKey  # type: ignore[no-any-return]


def tr() -> gettext.NullTranslations:
    """This request's catalogue; outside a request (a unit test, a log line) English."""
    return translations(language() if has_request_context() else DEFAULT_LANGUAGE)


def _(msgid: str, context: str = "", **params: Any) -> str:
    return Message(msgid, tuple(params.items()), context=context).render(tr())


def ngettext(singular: str, plural_id: str, n: int, context: str = "", **params: Any) -> str:
    values = {"n": n, **params}
    return Message(
        singular, tuple(values.items()), plural=plural_id, count="n", context=context
    ).render(tr())


def _html(msgid: str, context: str = "", **params: Any) -> Markup:
    """``_()`` for templates: the catalogue's text is the page's own (it may hold ``<b>``),
    every parameter is escaped (a player's name is never markup)."""
    return _markup(Message(msgid, tuple(params.items()), context=context))


def _nhtml(singular: str, plural_id: str, n: int, context: str = "", **params: Any) -> Markup:
    values = {"n": n, **params}
    return _markup(
        Message(singular, tuple(values.items()), plural=plural_id, count="n", context=context)
    )


def _markup(message: Message) -> Markup:
    catalogue = tr()
    values = {
        k: escape(v.render(catalogue) if isinstance(v, Message) else v) for k, v in message.params
    }
    # the values are escaped already, so plain str.format gives what Markup.format would (and
    # takes a fraction of its time: a Russian Railroads board holds a hundred of these)
    try:
        return Markup(message._template(catalogue).format(**values))
    except (KeyError, IndexError, ValueError):  # as Message.render: the English text instead
        return Markup(message._template(gettext.NullTranslations()).format(**values))


def t(value: Any) -> str:
    """A text for this reader: a message, a message's JSON, or plain text as it is."""
    return render_text(value, tr())


def num(value: Any, digits: int = 0) -> str:
    """``1234.5`` → ``1 234,5`` in Czech, ``1.234,5`` in Spanish, ``1,234.5`` in English."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return _num(value, digits, language())


@functools.lru_cache(maxsize=4096)
def _num(value: float, digits: int, lang: str) -> str:
    """Babel's formatting, remembered: a board shows the same few hundred numbers on every
    update, and parsing the pattern and the locale each time was a third of drawing one."""
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=lang)


def when(wall_time_s: float | None, what: str = "datetime") -> str:
    """A time in the language's format (``what``: ``datetime`` or ``time``)."""
    if not wall_time_s:
        return "—"
    moment = datetime.fromtimestamp(wall_time_s).astimezone()
    locale = _LOCALES.get(language(), language())
    if what == "time":
        return format_time(moment, format="medium", locale=locale)
    return format_datetime(moment, format="short", locale=locale)


def language_link(code: str) -> str:
    """This page in language ``code``: the same path and query (a seat code, ``?at=``) with
    ``lang`` replaced, so switching never loses a player's place."""
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    args.append(("lang", code))
    return f"{request.path}?{urlencode(args)}"


def install(app: Flask, default_language: str | None = None) -> None:
    """Language selection and the template helpers, for every page of ``app``."""
    app.config.setdefault(CONFIG_KEY, normalise(default_language) or DEFAULT_LANGUAGE)
    app.jinja_env.globals.update(_=_html, ngettext=_nhtml, language_link=language_link)
    app.jinja_env.filters.update(t=t, num=num, when=when)

    @app.context_processor
    def language_context() -> dict[str, Any]:
        current = language()
        return {
            "lang": current,
            "languages": [(code, LANGUAGE_NAMES[code]) for code in LANGUAGES],
        }

    @app.after_request
    def remember_language(response: Response) -> Response:
        _stream.lang = language()  # for a streamed body, read after this context ends
        asked = normalise(request.args.get("lang"))
        if asked and asked != request.cookies.get(COOKIE):
            response.set_cookie(
                COOKIE, asked, max_age=365 * 24 * 3600, samesite="Lax", httponly=True
            )
        if "Content-Language" not in response.headers and getattr(g, "lang", None):
            response.headers["Content-Language"] = g.lang
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response


class Localised:
    """The table service as one screen sees it: every message in a snapshot or an answer is
    rendered in this request's language (outside a request: the table's default). Rendered
    snapshots are kept per (version, language), so a hundred screens cost one rendering each."""

    def __init__(self, service: Any, default_language: str) -> None:
        self._service = service
        self._default = normalise(default_language) or DEFAULT_LANGUAGE
        self._cache: dict[tuple[int, str], Any] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        """Snapshots served from the cache, and rendered anew (``bench/bench_i18n.py``)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)

    def _language(self) -> str:
        if has_request_context():
            return language()
        return str(getattr(_stream, "lang", "") or self._default)

    def _rendered(self, version: int, snapshot: Any) -> Any:
        key = (version, self._language())
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self.hits += 1
                return hit
            self.misses += 1
        rendered = render_json(snapshot, translations(key[1]))
        with self._lock:
            if len(self._cache) >= 16:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = rendered
        return rendered

    def latest(self) -> tuple[int, Any]:
        version, snapshot = self._service.latest()
        return version, self._rendered(version, snapshot)

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, Any]:
        newer, snapshot = self._service.wait_newer(version, timeout_s)
        return newer, self._rendered(newer, snapshot)

    def submit_and_wait(self, observation: Any, timeout_s: float) -> Any:
        answer = self._service.submit_and_wait(observation, timeout_s)
        return render_json(answer, translations(self._language()))

    def private_view(self, game_id: int, player: int) -> Any:
        """A player's own view (``/me``), its messages in that screen's language."""
        view = self._service.private_view(game_id, player)
        return None if view is None else render_json(view, translations(self._language()))
