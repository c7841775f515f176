"""The message catalogues: find every player-facing text in the code, keep the ``.po`` files of
each language in step with it, compile them, and check that nothing is missing.

    python scripts/i18n.py update     # add new message ids to every .po (English filled in)
    python scripts/i18n.py compile    # .po → .mo (the service reads the .mo, standard library)
    python scripts/i18n.py check      # what is missing or wrong, per language (exit 1 if any)

Message ids are found without running anything: in Python, the string literals given to
``msg()``, ``plural()``, ``_()`` and ``N_()`` (with ``context=`` as gettext's ``msgctxt``); in
the Jinja templates, those given to ``_()`` and ``ngettext()``. The domain is the part of the
product the file belongs to (:data:`DOMAINS`). Babel (Debian: python3-babel) reads and writes
the catalogues and knows each language's plural rule; the service itself only needs the
standard library's ``gettext`` to read the compiled ``.mo``.
"""

from __future__ import annotations

import ast
import gettext
import io
import string
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from jinja2 import Environment, nodes

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "companion" / "locale"
LANGUAGES = ("cs", "sk", "es", "en")
# Each language's plural rule, the project's own rather than the installed Babel's: Babel 2.19
# (CLDR 46) gives Spanish a third form for millions ("1 millón de …"), so an update there would
# rewrite every Spanish catalogue with an empty third form that `check` then reports missing;
# no count on a table comes near a million.
PLURAL_FORMS: dict[str, str] = {
    "cs": "nplurals=3; plural=((n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2);",
    "sk": "nplurals=3; plural=((n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2);",
    "es": "nplurals=2; plural=(n != 1);",
    "en": "nplurals=2; plural=(n != 1);",
}

# (folder, domain): the first folder that holds a file names its domain
DOMAINS: tuple[tuple[str, str], ...] = (
    ("companion/games/russian_railroads", "russian_railroads"),
    ("companion/games/ticket_to_ride_europe", "ticket_to_ride_europe"),
    ("companion/games/mini_express", "mini_express"),
    ("companion/games/trains_and_stations", "trains_and_stations"),
    ("companion/games/tiny_race", "tiny_race"),
    ("companion/games", "trackside"),
    ("companion/core", "trackside"),
    ("companion/hub", "hub"),  # the club hub's pages (docs/hub.md)
    ("companion/service", "trackside"),
    # the scoreboard (TV and phone) apart from the other pages: two people can work on each
    ("web/templates/scoreboard.html", "scoreboard"),
    ("web/templates/_board.html", "scoreboard"),
    ("web/templates/game.html", "scoreboard"),
    ("web/templates/_map.html", "scoreboard"),
    ("web/templates/_join.html", "scoreboard"),
    ("web/templates/history.html", "scoreboard"),
    ("web/templates/_scoreboard", "scoreboard"),
    ("web/boards.py", "scoreboard"),
    ("web/scoreboard", "scoreboard"),
    ("web", "web"),
    ("firmware_bridge", "firmware"),
    ("vision", "vision"),
)

PY_CALLS = {
    "msg": "single",
    "_": "single",
    "N_": "single",
    "plural": "plural",
    "ngettext": "plural",  # web.i18n's: the count is always {n}
}
TEMPLATE_CALLS = {"_": "single", "ngettext": "plural"}


@dataclass(frozen=True, slots=True)
class Found:
    """One message id in the code: where, and its gettext key."""

    domain: str
    msgid: str
    plural: str
    context: str
    where: str
    count: str = ""
    """For a plural: the parameter whose number picks the form."""

    @property
    def key(self) -> str | tuple[str, str]:
        return (self.msgid, self.plural) if self.plural else self.msgid


def domain_of(path: Path) -> str:
    rel = path.relative_to(ROOT).as_posix()
    for prefix, domain in DOMAINS:
        # a prefix without a file extension also takes files named after it (_scoreboard_*.html)
        if rel == prefix or rel.startswith(prefix if "." not in prefix else prefix + "/"):
            return domain
    return ""


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def _const(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _python(path: Path, domain: str) -> Iterator[Found]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else ""
        kind = PY_CALLS.get(name)
        if kind is None or not node.args:
            continue
        msgid = _const(node.args[0])
        if msgid is None:
            continue
        plural_id: str | None = ""
        count = ""
        if kind == "plural":
            plural_id = _const(node.args[1]) if len(node.args) > 1 else None
            count = (_const(node.args[2]) if len(node.args) > 2 else None) or ""
            if name == "ngettext":
                count = "n"
            if plural_id is None:
                continue
        context = ""
        for kw in node.keywords:
            if kw.arg == "context":
                context = _const(kw.value) or ""
        where = f"{_rel(path)}:{node.lineno}"
        yield Found(domain, msgid, plural_id, context, where, count)


_ENV = Environment()


def _template(path: Path, domain: str) -> Iterator[Found]:
    tree = _ENV.parse(path.read_text(encoding="utf-8"))
    for node in tree.find_all(nodes.Call):
        if not isinstance(node.node, nodes.Name):
            continue
        kind = TEMPLATE_CALLS.get(node.node.name)
        if kind is None or not node.args or not isinstance(node.args[0], nodes.Const):
            continue
        msgid = node.args[0].value
        plural_id = ""
        if kind == "plural":
            if len(node.args) < 2 or not isinstance(node.args[1], nodes.Const):
                continue
            plural_id = node.args[1].value
        context = ""
        for kw in node.kwargs:
            if kw.key == "context" and isinstance(kw.value, nodes.Const):
                context = kw.value.value
        if isinstance(msgid, str):
            where = f"{_rel(path)}:{node.lineno}"
            yield Found(domain, msgid, str(plural_id), str(context), where, "n")


def words_in(text: str) -> bool:
    """Whether a message id has words to translate (``"{p0}; {p1}"`` has none)."""
    return any(ch.isalpha() for lit, *_ in string.Formatter().parse(text) for ch in lit)


def extract() -> list[Found]:
    """Every message id in the code with words in it, in file order."""
    found: list[Found] = []
    for folder in ("companion", "web", "firmware_bridge", "vision"):
        for path in sorted((ROOT / folder).rglob("*")):
            domain = domain_of(path)
            if not domain:
                continue
            if path.suffix == ".py":
                found.extend(_python(path, domain))
            elif path.suffix == ".html":
                found.extend(_template(path, domain))
    return [f for f in found if words_in(f.msgid)]


def po_path(language: str, domain: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def load(language: str, domain: str) -> Catalog:
    path = po_path(language, domain)
    if path.exists():
        with path.open("rb") as fp:
            return read_po(fp, locale=language, domain=domain)
    return _new(language, domain)


_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _new(language: str, domain: str) -> Catalog:
    # fixed dates: an update that adds nothing changes nothing (no churn, no merge conflicts)
    catalogue = Catalog(
        locale=language,
        domain=domain,
        project="Trackside",
        version="1",
        creation_date=_EPOCH,
        revision_date=_EPOCH,
        fuzzy=False,
        header_comment=f"# Trackside: {domain} in {language}.",
        last_translator="Trackside",
        language_team=language,
        msgid_bugs_address="",
    )
    catalogue.mime_headers = [("Plural-Forms", PLURAL_FORMS[language])]
    return catalogue


def save(catalogue: Catalog, language: str, domain: str) -> None:
    path = po_path(language, domain)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    write_po(buf, catalogue, width=100, omit_header=False, sort_output=False, ignore_obsolete=True)
    path.write_bytes(buf.getvalue())


def update() -> None:
    """Add every new message id to every language's ``.po`` (English gets the id itself);
    ids no longer in the code are dropped."""
    by_domain: dict[str, list[Found]] = {}
    for f in extract():
        by_domain.setdefault(f.domain, []).append(f)
    for domain, found in by_domain.items():
        for language in LANGUAGES:
            old = load(language, domain)
            new = _new(language, domain)
            seen: set[tuple[object, str]] = set()
            for f in found:
                ident = (f.key, f.context)
                if ident in seen:
                    continue
                seen.add(ident)
                kept = old.get(f.msgid, f.context or None)
                if kept is not None and kept.string and (bool(f.plural) == kept.pluralizable):
                    translated = kept.string
                elif language == "en":
                    translated = (f.msgid, f.plural) if f.plural else f.msgid
                else:
                    translated = ("",) * new.num_plurals if f.plural else ""
                if f.plural and language == "en" and not any(translated):
                    translated = (f.msgid, f.plural)
                new.add(f.key, translated, locations=(), context=f.context or None)
            save(new, language, domain)


def compile_all() -> list[Path]:
    written = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        data = _mo_bytes(po)
        if not mo.exists() or _messages(mo.read_bytes()) != _messages(data):
            mo.write_bytes(data)
            written.append(mo)
    return written


def _mo_bytes(po: Path) -> bytes:
    with po.open("rb") as fp:
        catalogue = read_po(fp)
    buf = io.BytesIO()
    write_mo(buf, catalogue, use_fuzzy=False)
    return buf.getvalue()


def fields(text: str) -> set[str]:
    """The ``{name}`` fields of a text (``{{`` is a brace, not a field)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def problems() -> list[str]:
    """Everything wrong with the catalogues, one line each (empty: all complete and compiled)."""
    out: list[str] = []
    found = extract()
    catalogues = {(lang, d): load(lang, d) for lang in LANGUAGES for d in {f.domain for f in found}}
    for f in found:
        try:
            expected = fields(f.msgid) | fields(f.plural)
        except ValueError as exc:
            out.append(f"{f.where}: the id {f.msgid!r} is not a valid format string ({exc})")
            continue
        for language in LANGUAGES:
            entry = catalogues[(language, f.domain)].get(f.msgid, f.context or None)
            if entry is None:
                out.append(f"{language}: {f.where}: no entry for {f.msgid!r}")
                continue
            strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
            if bool(f.plural) != entry.pluralizable:
                out.append(f"{language}: {f.where}: {f.msgid!r} plural forms do not match the code")
                continue
            if not all(strings) or entry.fuzzy:
                out.append(f"{language}: {f.where}: {f.msgid!r} is not translated")
                continue
            for s in strings:
                try:
                    got = fields(s)
                except ValueError as exc:
                    out.append(f"{language}: {f.where}: {s!r} is not a valid format ({exc})")
                    continue
                # a plural form may leave its count out ("jeden inženýr"), nothing else
                missing = expected - got - ({f.count} if f.plural else set())
                if got - expected or missing:
                    out.append(
                        f"{language}: {f.where}: {s!r} has the fields {sorted(got)}, "
                        f"{f.msgid!r} has {sorted(expected)}"
                    )
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists() or _messages(mo.read_bytes()) != _messages(_mo_bytes(po)):
            out.append(f"{mo.relative_to(ROOT)}: not compiled from its .po (run: compile)")
    return out


def _messages(mo: bytes) -> dict[object, str]:
    """A compiled catalogue's messages as the standard library reads them, without the header
    (which names the Babel that wrote it)."""
    catalogue = gettext.GNUTranslations(io.BytesIO(mo))
    return {k: v for k, v in catalogue._catalog.items() if k != ""}  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "update":
        update()
        compile_all()
        return 0
    if command == "compile":
        for mo in compile_all():
            print(f"wrote {mo.relative_to(ROOT)}")
        return 0
    if command == "check":
        lines = problems()
        for line in lines:
            print(line)
        print(f"{len(lines)} problem(s)", file=sys.stderr)
        return 1 if lines else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
