"""The hub's pages in the reader's language (docs/hub.md, "Pages"), chosen as on a table's
pages: ``?lang=xx`` (remembered in a cookie), the ``lang`` cookie, the browser's
``Accept-Language``, then ``[hub] language``. The catalogues are the standard library's gettext
(``companion.core.i18n``); templates get ``_("text with {field}", field=…)``, whose parameters
are escaped (a player's name is never markup) while the catalogue's own text may hold ``<b>``.
(The table's pages have the same in ``web.i18n``; the hub imports no adapter.)"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Flask, Response, current_app, g, request
from markupsafe import Markup, escape

from companion.core.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    negotiate,
    normalise,
    translations,
)

COOKIE = "lang"
CONFIG_KEY = "HUB_LANGUAGE"


def language() -> str:
    """This request's language (cached on ``g``)."""
    cached = getattr(g, "lang", None)
    if cached:
        return str(cached)
    default = normalise(current_app.config.get(CONFIG_KEY)) or DEFAULT_LANGUAGE
    chosen = normalise(request.args.get("lang")) or normalise(request.cookies.get(COOKIE))
    g.lang = chosen or negotiate(request.headers.get("Accept-Language"), default)
    return str(g.lang)


def _html(msgid: str, **params: Any) -> Markup:
    values = {k: escape(v) for k, v in params.items()}
    try:
        return Markup(translations(language()).gettext(msgid)).format(**values)
    except (KeyError, IndexError, ValueError):  # a broken translation: the English text
        return Markup(msgid).format(**values)


def language_link(code: str) -> str:
    """This page in language ``code`` (its other query arguments kept)."""
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    args.append(("lang", code))
    return f"{request.path}?{urlencode(args)}"


def install(app: Flask, default_language: str | None = None) -> None:
    app.config[CONFIG_KEY] = normalise(default_language) or DEFAULT_LANGUAGE
    app.jinja_env.globals.update(_=_html, language_link=language_link)

    @app.context_processor
    def language_context() -> dict[str, Any]:
        return {
            "lang": language(),
            "languages": [(code, LANGUAGE_NAMES[code]) for code in LANGUAGES],
        }

    @app.after_request
    def remember_language(response: Response) -> Response:
        asked = normalise(request.args.get("lang"))
        if asked and asked != request.cookies.get(COOKIE):
            response.set_cookie(
                COOKIE, asked, max_age=365 * 24 * 3600, samesite="Lax", httponly=True
            )
        if getattr(g, "lang", None):
            response.headers["Content-Language"] = g.lang
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response
