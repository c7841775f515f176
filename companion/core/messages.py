"""Player-facing words as message ids with parameters (stdlib ``gettext`` conventions).

The engine and the games never build sentences for people: they return a :class:`Message`, whose
``msgid`` is the English text with ``{name}`` fields (gettext's convention: the English text *is*
the id, so a missing translation still reads as English), and its parameters. Each surface renders
it in its reader's language with that language's ``gettext.NullTranslations``; the event log
stores the id and the parameters, so an old game reads correctly in any language.

A parameter may itself be a :class:`Message` (a route's or a colour's name is translated too),
an ``int`` (numbers, also the count that picks a plural form) or a ``str`` taken as it is (a
player's own name). ``context`` is gettext's ``msgctxt`` (the same English word in two senses).

    >>> msg("{player}: claim a route", player="Anna").render()
    'Anna: claim a route'
    >>> plural("{n} engineer", "{n} engineers", "n", n=5).render()
    '5 engineers'
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from companion.core.errors import SnapshotError
from companion.core.jsonvalue import JsonObject, JsonValue

Param: TypeAlias = "str | int | Message"
Text: TypeAlias = "str | Message"
"""A player-facing text: a :class:`Message`, or a ``str`` shown as it is (a player's own name,
or English from code not yet moved to messages)."""

_NULL = gettext.NullTranslations()


@dataclass(frozen=True, slots=True)
class Message:
    """One player-facing text: ``msgid`` (English, with ``{name}`` fields) and its parameters."""

    msgid: str
    params: tuple[tuple[str, Param], ...] = ()
    plural: str = ""
    """gettext's ``msgid_plural``; with it, ``count`` names the parameter that picks the form."""
    count: str = ""
    context: str = ""
    """gettext's ``msgctxt``."""

    def param(self, name: str) -> Param | None:
        for key, value in self.params:
            if key == name:
                return value
        return None

    def render(self, translations: gettext.NullTranslations | None = None) -> str:
        """The text in the language of ``translations`` (English when ``None``)."""
        tr = translations or _NULL
        values = {k: _render_param(v, tr) for k, v in self.params}
        try:
            return self._template(tr).format(**values)
        except (KeyError, IndexError, ValueError):
            # A translation that names a field the id does not carry must not hide the move:
            # fall back to the English text, which the catalogue test keeps well-formed.
            return self._template(_NULL).format(**values)

    def _template(self, tr: gettext.NullTranslations) -> str:
        n = self.param(self.count) if self.plural else None
        return _template(tr, self.msgid, self.plural, n, self.context)

    def __str__(self) -> str:
        return self.render()

    def to_json(self) -> JsonObject:
        data: JsonObject = {"id": self.msgid}
        if self.params:
            data["params"] = {k: _param_json(v) for k, v in self.params}
        if self.plural:
            data["plural"] = self.plural
            data["count"] = self.count
        if self.context:
            data["context"] = self.context
        return data

    @classmethod
    def from_json(cls, data: Any, path: str = "message") -> Message:
        if isinstance(data, str):
            return cls(data)
        if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
            raise SnapshotError(path, f"expected a message {{'id': …}}, got {data!r}")
        raw = data.get("params", {})
        if not isinstance(raw, Mapping):
            raise SnapshotError(f"{path}.params", f"expected an object, got {raw!r}")
        params: list[tuple[str, Param]] = []
        for key, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, str | int | Mapping):
                raise SnapshotError(
                    f"{path}.params.{key}", f"expected text, a number or a message, got {value!r}"
                )
            params.append(
                (
                    str(key),
                    cls.from_json(value, f"{path}.params.{key}")
                    if isinstance(value, Mapping)
                    else value,
                )
            )
        return cls(
            data["id"],
            tuple(params),
            plural=str(data.get("plural", "")),
            count=str(data.get("count", "")),
            context=str(data.get("context", "")),
        )


def msg(msgid: str, *, context: str = "", **params: Param) -> Message:
    """``msg("{player}: pass", player="Anna")``."""
    return Message(msgid, tuple(params.items()), context=context)


def plural(
    msgid: str, plural_id: str, count: str, *, context: str = "", **params: Param
) -> Message:
    """A text with singular and plural forms; ``count`` names the parameter that decides."""
    return Message(msgid, tuple(params.items()), plural=plural_id, count=count, context=context)


def _render_param(value: Param, tr: gettext.NullTranslations) -> str:
    if isinstance(value, Message):
        return value.render(tr)
    return str(value)


def _param_json(value: Param) -> JsonValue:
    return value.to_json() if isinstance(value, Message) else value


def render_text(
    value: Text | Mapping[str, Any] | None, translations: gettext.NullTranslations | None = None
) -> str:
    """A text in the language of ``translations``: a :class:`Message`, a message's JSON
    (``{"id": …, "params": …}``, as snapshots carry them) or a ``str`` taken as it is."""
    if value is None:
        return ""
    if isinstance(value, Message):
        return value.render(translations)
    if isinstance(value, Mapping):
        try:
            return Message.from_json(value).render(translations)
        except SnapshotError:
            return str(value)
    return str(value)


def text_json(value: Text) -> JsonValue:
    """A text for a snapshot: a message's JSON (rendered by each reader), a ``str`` as it is."""
    return value.to_json() if isinstance(value, Message) else value


def join_texts(parts: Sequence[Text], separator: str = "; ") -> Message:
    """Several texts as one message (``"{0}; {1}"``): each part is still rendered by the reader."""
    ids = separator.join(f"{{p{i}}}" for i in range(len(parts)))
    return Message(ids, tuple((f"p{i}", part) for i, part in enumerate(parts)))


_MESSAGE_KEYS = frozenset({"id", "params", "plural", "count", "context"})


def is_message_json(value: Any) -> bool:
    """Whether a JSON value is a message (``{"id": "…", "params": {…}}``, as :meth:`Message.
    to_json` writes it) rather than a game's own object."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("id"), str)
        and value.keys() <= _MESSAGE_KEYS
        and (isinstance(value.get("params", {}), Mapping))
    )


def render_json(value: Any, translations: gettext.NullTranslations | None = None) -> Any:
    """A snapshot for one reader: every message in it (at any depth) replaced by its text in
    the language of ``translations``; everything else as it is (copied where it holds one).

    Every live update renders the whole snapshot once per language, so JSON's own types take a
    short path (no ``Message`` built for a well-formed message); anything else goes the long
    way, with the same result."""
    return _walk(value, translations or _NULL)


def _walk(value: Any, tr: gettext.NullTranslations) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        if type(value.get("id")) is str and value.keys() <= _MESSAGE_KEYS:
            text = _fast_text(value, tr)
            if text is not None:
                return text
            if is_message_json(value):
                return render_text(value, tr)
        return {k: _walk(v, tr) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_walk(v, tr) for v in value]
    if is_message_json(value):
        return render_text(value, tr)
    if isinstance(value, Mapping):
        return {k: _walk(v, tr) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, tr) for v in value]
    return value


def _fast_text(data: dict[str, Any], tr: gettext.NullTranslations) -> str | None:
    """A well-formed message's JSON in words, as :meth:`Message.render` words it; ``None``
    for anything it does not take (the long way then decides)."""
    params = data.get("params")
    values: dict[str, str] = {}
    count: Any = None
    counter = data.get("count", "")
    if params is not None:
        if type(params) is not dict:
            return None
        for key, v in params.items():
            kind = type(v)
            if kind is str:
                values[key] = v
            elif kind is int:
                values[key] = str(v)
            elif kind is dict and type(v.get("id")) is str and v.keys() <= _MESSAGE_KEYS:
                inner = _fast_text(v, tr)
                if inner is None:
                    return None
                values[key] = inner
            else:
                return None
            if key == counter:
                count = v
    msgid = data["id"]
    plural_id = data.get("plural", "")
    context = data.get("context", "")
    if type(plural_id) is not str or type(context) is not str or type(counter) is not str:
        return None
    try:
        return _template(tr, msgid, plural_id, count, context).format(**values)
    except (KeyError, IndexError, ValueError):  # as Message.render falls back
        return _template(_NULL, msgid, plural_id, count, context).format(**values)


def _template(
    tr: gettext.NullTranslations, msgid: str, plural_id: str, count: Any, context: str
) -> str:
    """The catalogue's text for a message: its plural form for ``count`` (0 when it is not a
    whole number), in its ``context``."""
    if plural_id:
        number = count if isinstance(count, int) else 0
        if context:
            return tr.npgettext(context, msgid, plural_id, number)
        return tr.ngettext(msgid, plural_id, number)
    if context:
        return tr.pgettext(context, msgid)
    return tr.gettext(msgid)
