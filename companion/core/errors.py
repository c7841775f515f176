"""The error hierarchy.

One base, :class:`TracksideError`; each specific error also subclasses the builtin it resembles
(python-chess style), so callers may catch either. Messages carry the offending input ``!r`` and
enough context (field path, rule, rulebook section) for a player to act on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # messages imports SnapshotError from here
    import gettext

    from companion.core.messages import Message, Text


MAX_REASON = 300
"""The longest reason a :class:`SnapshotError` carries (characters); longer ones are cut."""


class TracksideError(Exception):
    """Base of every error Trackside raises on purpose."""


class IllegalActionError(TracksideError, ValueError):
    """An action the rules refuse. The state it was applied to is unchanged.

    ``rule`` says which rule in words, ``section`` where the rulebook says it (the rulebook's own
    section title). Each may be a :class:`~companion.core.messages.Message`, so every surface can
    say it in its reader's language (:meth:`render`); ``str(error)`` is the English text.
    """

    def __init__(self, message: Text, *, rule: Text = "", section: Text = "") -> None:
        self.message = message
        self.rule = rule
        self.section = section
        # the English text is made when asked for: a tree's builder and the correction
        # listing try many moves the rules refuse and read none of their reasons
        super().__init__(message)

    def __str__(self) -> str:
        return self.render()

    @property
    def text(self) -> Message:
        """The whole refusal as one message: what, the rule, and where the rulebook says it."""
        from companion.core.messages import join_texts, msg

        parts: list[Text] = [self.message]
        if self.rule:
            parts.append(msg("rule: {rule}", rule=self.rule))
        if self.section:
            parts.append(msg("rulebook: {section}", section=self.section))
        return join_texts(parts, " — ")

    def render(self, translations: gettext.NullTranslations | None = None) -> str:
        return self.text.render(translations)


class SnapshotError(TracksideError, ValueError):
    """A malformed table snapshot (JSON) or action; ``path`` names the field."""

    def __init__(self, path: str, reason: str) -> None:
        # a refusal quotes what it refuses, never all of it: a 2 MB "uid" must not become a
        # 2 MB message in the log, the database and every screen (issue 18, row 5)
        if len(reason) > MAX_REASON:
            reason = f"{reason[:MAX_REASON]}… ({len(reason)} characters)"
        path = path if len(path) <= MAX_REASON else f"{path[:MAX_REASON]}…"
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}" if path else reason)


class UnknownGameError(TracksideError, LookupError):
    """No registered game has this name."""

    def __init__(self, name: object, known: tuple[str, ...]) -> None:
        self.name = name
        super().__init__(f"unknown game {name!r}; known games: {', '.join(known)}")


class UnknownComponentError(TracksideError, LookupError):
    """A scan names a component the game does not have."""


class ConfigError(TracksideError, ValueError):
    """A bad configuration option; ``path`` is the option (e.g. ``web.port``)."""

    def __init__(self, path: str, reason: str, *, file: str = "") -> None:
        self.path = path
        self.reason = reason
        where = f"{file}: " if file else ""
        super().__init__(f"{where}{path}: {reason}")


class StoreError(TracksideError, RuntimeError):
    """The event store cannot do what was asked (full disk, read-only, locked)."""


class CorruptDatabaseError(StoreError):
    """The database file is not a Trackside database, or is damaged."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer Trackside; it is refused, never overwritten."""


class EnrolmentError(TracksideError, ValueError):
    """A tag cannot be enrolled (e.g. already bound to another component)."""
