"""The players' languages: gettext catalogues, chosen per reader (standard library only).

Catalogues live in ``companion/locale/<language>/LC_MESSAGES/<domain>.mo`` (compiled from the
``.po`` beside them by ``scripts/i18n.py compile``). A domain is one part of the product — a
game (``russian_railroads``), the pages (``web``), the service (``trackside``) — so each part's
words are kept together; for rendering, all domains of a language are one catalogue.

    >>> from companion.core.messages import msg
    >>> msg("no game on the table").render(translations("en"))
    'no game on the table'
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

LANGUAGES: tuple[str, ...] = ("cs", "sk", "es", "en")
"""Every language Trackside speaks, each complete (the catalogue test holds it to that)."""

DEFAULT_LANGUAGE = "en"

LANGUAGE_NAMES: Mapping[str, str] = {
    "cs": "Čeština",
    "sk": "Slovenčina",
    "es": "Español",
    "en": "English",
}
"""Each language's name in itself, for the language switch."""


def domains() -> tuple[str, ...]:
    """The catalogue domains there are (one ``.po`` per language each)."""
    found = {p.stem for p in LOCALE_DIR.glob(f"{DEFAULT_LANGUAGE}/LC_MESSAGES/*.po")}
    return tuple(sorted(found))


@lru_cache(maxsize=len(LANGUAGES) + 1)
def translations(language: str) -> gettext.NullTranslations:
    """All of ``language``'s catalogues as one; an unknown language reads English."""
    language = normalise(language) or DEFAULT_LANGUAGE
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    merged: gettext.GNUTranslations | None = None
    for mo in sorted(LOCALE_DIR.glob(f"{language}/LC_MESSAGES/*.mo")):
        with mo.open("rb") as fp:
            catalogue = gettext.GNUTranslations(fp)
        if merged is None:
            merged = catalogue
            continue
        # One dictionary for the language, not a chain of fallbacks: a lookup is one dict get
        # instead of one per catalogue (a Russian Railroads snapshot renders ~1,500 messages per
        # update). The first catalogue with a message keeps it, as the chain did; every
        # catalogue of a language has the same Plural-Forms (scripts/i18n.py writes them).
        for key, text in catalogue._catalog.items():  # type: ignore[attr-defined]
            merged._catalog.setdefault(key, text)  # type: ignore[attr-defined]
    return merged if merged is not None else gettext.NullTranslations()


def normalise(tag: str | None) -> str:
    """``"cs-CZ"``, ``"cs_CZ.UTF-8"``, ``"CS"`` → ``"cs"``; a language we do not speak → ``""``."""
    if not tag:
        return ""
    base = tag.strip().replace("_", "-").split(".")[0].split("@")[0].split("-")[0].lower()
    return base if base in LANGUAGES else ""


def negotiate(accept_language: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """The best of our languages for an HTTP ``Accept-Language`` header (RFC 9110 §12.5.4),
    else ``default``. Bounded: only the header's first 512 characters are read."""
    best = ""
    best_q = 0.0
    for item in (accept_language or "")[:512].split(","):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        language = normalise(tag)
        if language and q > best_q:  # strictly better: earlier entries win ties
            best, best_q = language, q
    return best or (normalise(default) or DEFAULT_LANGUAGE)


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The command line's language, as gettext picks it: ``LANGUAGE``, ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG`` (the first one set); English when none names ours."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            for tag in value.split(":"):
                language = normalise(tag)
                if language:
                    return language
            return DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def available(languages: Iterable[str] = LANGUAGES) -> tuple[str, ...]:
    return tuple(lang for lang in languages if lang in LANGUAGES)
