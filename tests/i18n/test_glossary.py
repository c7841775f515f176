"""Issue 49, done-when: one term per thing, as the rulebook has it (``docs/glossary.md``).
Each listed term is used in its catalogue's translations, and none of its other spellings or
synonyms (the "never" column) is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary.md"
LOCALE = ROOT / "companion" / "locale"


def rows() -> list[tuple[str, str, str, str, tuple[str, ...]]]:
    found = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("language", "---") or not line.startswith("|"):
            continue
        language, domain, english, term, never = cells
        variants = tuple(v.strip().lower() for v in never.split(";") if v.strip())
        found.append((language, domain, english, term.lower(), variants))
    return found


def translations(language: str, domain: str, *, headings: bool = True) -> str:
    """Every translated text of one catalogue, in lower case (the ids left out); without
    ``headings``, the rulebook's section titles are left out too (quoted as printed, e.g.
    "LÍZNUTÍ KARET VAGÓNŮ", whatever spelling the rest of the rulebook uses)."""
    with (LOCALE / language / "LC_MESSAGES" / f"{domain}.po").open("rb") as fp:
        catalogue = read_po(fp, locale=language)
    texts: list[str] = []
    for message in catalogue:
        if not message.id or (not headings and message.context == "rulebook section"):
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        texts.extend(s for s in strings if s)
    return "\n".join(texts).lower()


GAME_TITLES = re.compile(r"jízdenky, prosím!")
"""The Czech title of Ticket to Ride: Europe holds "jízdenky": a title, not the term."""


@pytest.mark.parametrize(
    ("language", "domain", "english", "term", "never"),
    rows(),
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_each_rulebook_term_is_used_and_no_other_word_for_it(
    language: str, domain: str, english: str, term: str, never: tuple[str, ...]
) -> None:
    text = translations(language, domain)
    assert term in text, f"{language}/{domain}: the rulebook's {term!r} ({english}) is not used"
    without_titles = GAME_TITLES.sub("", translations(language, domain, headings=False))
    for variant in never:
        where = without_titles.find(variant)
        assert where < 0, (
            f"{language}/{domain}: {variant!r} for {english} (the rulebook says {term!r}): "
            f"…{without_titles[max(0, where - 60) : where + 60]}…"
        )


def test_the_glossary_is_read_whole() -> None:
    listed = rows()
    assert len(listed) >= 30
    assert {language for language, *_ in listed} == {"cs", "es"}
