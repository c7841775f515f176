"""Every player-facing text has a translation in all four languages (issue 17).

``scripts/i18n.py`` finds each message id in the code (``msg()``, ``plural()``, ``_()`` in
Python; ``_()``/``ngettext()`` in the templates) and checks each language's catalogue: an entry,
translated (no fallback to English), with exactly the id's ``{fields}``, the language's number of
plural forms, and a ``.mo`` compiled from its ``.po``.
"""

from __future__ import annotations

import gettext
import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType

import pytest

from companion.core.i18n import LANGUAGES, language_from_environment, negotiate, translations
from companion.core.messages import msg, plural

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("trackside_i18n", ROOT / "scripts" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


I18N = _tool()


def test_every_message_id_is_translated_in_every_language() -> None:
    problems = I18N.problems()
    assert not problems, f"{len(problems)} catalogue problem(s):\n" + "\n".join(problems[:60])


def test_the_extractor_finds_ids_contexts_and_plurals(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        'a = msg("{player}: pass", player=p)\n'
        'b = plural("{n} engineer", "{n} engineers", "n", n=k, context="count")\n'
        "c = msg(name)\n",  # not a literal: not an id
        encoding="utf-8",
    )
    found = list(I18N._python(source, "x"))
    assert [(f.msgid, f.plural, f.context, f.count) for f in found] == [
        ("{player}: pass", "", "", ""),
        ("{n} engineer", "{n} engineers", "count", "n"),
    ]


def test_the_check_catches_a_missing_field_and_an_untranslated_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = I18N.Found("d", "{player} passes", "", "", "here")
    monkeypatch.setattr(I18N, "extract", lambda: [fake])
    monkeypatch.setattr(I18N, "LOCALE", tmp_path)
    catalogues = {}
    for lang in LANGUAGES:
        cat = I18N._new(lang, "d")
        cat.add("{player} passes", {"cs": "pasuje", "en": "{player} passes"}.get(lang, ""))
        catalogues[lang] = cat
    monkeypatch.setattr(I18N, "load", lambda lang, domain: catalogues[lang])
    problems = I18N.problems()
    assert any(p.startswith("cs:") and "fields" in p for p in problems)
    assert any(p.startswith("sk:") and "not translated" in p for p in problems)
    assert not any(p.startswith("en:") for p in problems)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("cs-CZ,cs;q=0.9,en;q=0.8", "cs"),
        ("de-DE,es;q=0.5,en;q=0.4", "es"),
        ("sk", "sk"),
        ("fr-FR", "en"),
        ("", "en"),
        ("es;q=0,cs;q=0.1", "cs"),
    ],
)
def test_accept_language_picks_the_best_of_ours(header: str, expected: str) -> None:
    assert negotiate(header) == expected


def test_the_command_line_follows_lang() -> None:
    assert language_from_environment({"LANG": "cs_CZ.UTF-8"}) == "cs"
    assert language_from_environment({"LANGUAGE": "sk:cs", "LANG": "es_ES.UTF-8"}) == "sk"
    assert language_from_environment({"LANG": "C.UTF-8"}) == "en"
    assert language_from_environment({}) == "en"


def test_czech_has_three_plural_forms_from_the_catalogue() -> None:
    """Czech and Slovak: 1 / 2–4 / 5+ (the catalogue's own Plural-Forms header)."""
    po = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n'
        '"Plural-Forms: nplurals=3; plural=((n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2);\\n"\n\n'
        'msgid "{n} engineer"\nmsgid_plural "{n} engineers"\n'
        'msgstr[0] "{n} inženýr"\nmsgstr[1] "{n} inženýři"\nmsgstr[2] "{n} inženýrů"\n'
    )
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    buf = io.BytesIO()
    write_mo(buf, read_po(io.BytesIO(po.encode()), locale="cs"))
    cs = gettext.GNUTranslations(io.BytesIO(buf.getvalue()))
    engineers = [plural("{n} engineer", "{n} engineers", "n", n=k) for k in (1, 2, 5)]
    assert [m.render(cs) for m in engineers] == ["1 inženýr", "2 inženýři", "5 inženýrů"]


def test_every_language_loads_its_catalogues() -> None:
    for lang in LANGUAGES:
        tr = translations(lang)
        assert isinstance(tr, gettext.GNUTranslations), lang
    # an unknown language reads English, never fails
    assert msg("rule: {rule}", rule="x").render(translations("fr")) == "rule: x"


def test_each_language_keeps_the_projects_plural_rule_whatever_babel_says() -> None:
    """An update writes each language's own plural rule (``PLURAL_FORMS``), not the installed
    Babel's: Babel 2.19 gives Spanish a third form for millions, which would leave every Spanish
    plural with an empty form that the check reports missing."""
    for language, forms in (("cs", 3), ("sk", 3), ("es", 2), ("en", 2)):
        catalogue = I18N._new(language, "d")
        assert catalogue.num_plurals == forms
        assert catalogue.plural_forms == I18N.PLURAL_FORMS[language]
        written = I18N.po_path(language, "ticket_to_ride_europe").read_text(encoding="utf-8")
        assert f'"Plural-Forms: {I18N.PLURAL_FORMS[language]}\\n"' in written
