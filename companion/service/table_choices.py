"""The table's whole choices tree: the game's tree plus the table's own steps.

``GET /api/choices`` (``../shared/contracts/choices.md``) answers from here. The top of the tree
is, in order:

- ``prompt``: the question the engine is asking (a scan that needs a choice: which route, which
  payment); its options are leaves. A seat reader's or the camera's question is answered here
  like any other step.
- the game's own nodes (``game.choices(state, viewer)``), unchanged: their keys are the game's.
- ``table-undo`` / ``table-redo``: one tap each (the action they undo or redo is in the label).
- ``table-correct``: pick a line of the log ("Anna: claim route …"), then the same guided choices
  the game offered before that action; the leaf is a ``correct`` command. Only corrections
  under which every later action is still legal are offered, and a step only when such a
  correction is found among its first :data:`LEAVES_TRIED` tries, fewer when it is one of many
  siblings (:data:`NODE_LEAVES_TRIED`; no node over 50 ms, issue 48).
- ``table-end``: end the game, as ``finished`` (final scoring; offered only when the rules say
  the game is over) or ``abandoned`` (no winner); each label says what happens.
- ``table-reopen``: the only choice once the game on show has ended: take it up again (a
  ``game_reopened`` event; the end stays in the log).

A table-level leaf carries a command (``Choice.command``) instead of an action. Nothing here
reads the game's state beyond ``choices``/``is_over``/``apply``: one generic builder for every
game.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, cast

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice, accepts, applied
from companion.core.errors import TracksideError
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Message, Text, msg
from companion.core.privacy import private_actions
from companion.core.session import TableSession
from companion.service.collector import no_collection

log = logging.getLogger(__name__)

LOG_LINES_OFFERED = 40
"""Corrections reach back this many actions (the most recent first)."""


def has_choices(game: object) -> bool:
    return callable(getattr(game, "choices", None))


_TREES: dict[tuple[int, int | None], tuple[Any, tuple[Choice, ...]]] = {}
"""The last game trees built, by state and viewer: a tree is a function of the (immutable)
state and the viewer alone, and one tap asks for it several times (the page's step, its
fingerprint, the one-option look-ahead, the screens that follow the table); a Russian
Railroads turn tries every space's payments to build its top level."""
_TREES_KEPT = 8
_TREES_LOCK = threading.Lock()


def game_tree(session: TableSession, state: Any, viewer: int | None) -> tuple[Choice, ...]:
    if not has_choices(session.game):
        return ()
    key = (id(state), viewer)
    with _TREES_LOCK:
        cached = _TREES.get(key)
    if cached is not None and cached[0] is state:
        return cached[1]
    tree: tuple[Choice, ...] = session.game.choices(state, viewer)
    with _TREES_LOCK:
        if len(_TREES) >= _TREES_KEPT:
            _TREES.pop(next(iter(_TREES)))
        _TREES[key] = (state, tree)
    return tree


_OFFERED: dict[tuple[int, int | None], tuple[Any, dict[tuple[str, ...], Action]]] = {}
"""The leaves the live tree offered (built for a page, a phone, a reader, a script), by table
state and viewer: the path of each. The action entered is one of them when it was entered
through the tree, so a correction of it knows at once where it is in the tree (finding it by
searching builds many of the game's nodes: a Trains & Stations delivery's steps, Mini Express'
demand). Leaves are recorded as the nodes are opened; never read but for that."""
_OFFERED_KEPT = 256
_OFFERED_LEAVES = 4000
_OFFERED_LOCK = threading.Lock()


def _recording(
    nodes: tuple[Choice, ...], state: Any, viewer: int | None, parent: tuple[str, ...]
) -> tuple[Choice, ...]:
    """``nodes`` as they are, each step's children recorded in :data:`_OFFERED` when opened."""
    key = (id(state), viewer)
    leaves = [((*parent, n.key), n.action) for n in nodes if n.action is not None]
    if leaves:
        with _OFFERED_LOCK:
            cached = _OFFERED.pop(key, None)
            known = cached[1] if cached is not None and cached[0] is state else {}
            if len(known) < _OFFERED_LEAVES:
                known.update(leaves)
            _OFFERED[key] = (state, known)  # the most recent last
            while len(_OFFERED) > _OFFERED_KEPT:
                del _OFFERED[next(iter(_OFFERED))]
    return tuple(
        n if n.is_leaf else replace(n, children=_recorded_below(n, state, viewer, (*parent, n.key)))
        for n in nodes
    )


def _recorded_below(
    node: Choice, state: Any, viewer: int | None, path: tuple[str, ...]
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _recording(node.expand(), state, viewer, path)


def same_in_every_view(game: object) -> bool:
    """Whether ``game``'s tree is the same in every view: it says so (``choices_by_viewer =
    False``: nothing it offers is hidden from anyone) and keeps no action private. Its
    correction lines are then built, searched and kept once for every view."""
    return own_view_choices(game) == frozenset() and not private_actions(game)


def own_view_choices(game: object) -> frozenset[str] | None:
    """The top-level keys of the nodes a view adds for its own player (a player's tickets, their
    secret speculation): every other node is the same in every view. ``None``: the game does not
    say (any node may differ); empty: the tree is the same in every view (``choices_by_viewer =
    False``). A game says so with ``own_view_choices``; ``tests/games/test_choices_views.py``
    checks it on random states."""
    if getattr(game, "choices_by_viewer", True) is False:
        return frozenset()
    keys = getattr(game, "own_view_choices", None)
    return None if keys is None else frozenset(k for k in keys if isinstance(k, str))


def offered_paths(
    state: Any,
    viewer: int | None,
    action: Action,
    *,
    every_view: bool = False,
    own_keys: frozenset[str] | None = None,
) -> list[tuple[tuple[str, ...], bool]]:
    """Where the live trees of ``state`` offered ``action``, if they were opened down to it
    (:data:`_OFFERED`), each with whether it is as good as ``viewer``'s own view's: that view
    first, then the other views' (the same step may be elsewhere in another player's view: their
    private steps are among the table's). ``every_view``: the trees are the same in every view
    (:func:`same_in_every_view`), each view's path is as good as ``viewer``'s own; ``own_keys``
    (:func:`own_view_choices`): so is another view's path outside these top-level nodes."""
    with _OFFERED_LOCK:
        views = [
            (view, list(known.items()))
            for (at, view), (kept, known) in _OFFERED.items()
            if at == id(state) and kept is state
        ]
    views.sort(key=lambda v: v[0] != viewer)
    return [
        (path, every_view or view == viewer or (own_keys is not None and path[0] not in own_keys))
        for view, known in views
        for path, leaf in known
        if leaf == action
    ]


def _name(session: TableSession, player: int | None) -> str:
    players = session.started.players
    if player is None or not 0 <= player < len(players):
        return "Table"
    return players[player].name


def describe(session: TableSession, action: Action) -> Text:
    """A log line for people: ``Anna: claim route route=paris-wien cards=3×red``; a private
    action keeps its secret until the game is over."""
    if action.kind in private_actions(session.game) and not session.game.is_over(session.state):
        return msg("{player}: a private move", player=_name(session, action.player))
    words = getattr(session.game, "describe", None)
    if words is not None:  # the game's own sentence, in each reader's language
        try:
            return cast("Message", words(action, [p.name for p in session.started.players]))
        except Exception:  # a describing bug must not cost the undo button
            log.exception("describing %r failed", action)
    return f"{_name(session, action.player)}: {action.describe()}"


def table_tree(
    session: TableSession, viewer: int | None, prompt: Prompt | None = None
) -> tuple[Choice, ...]:
    """The whole tree for the table (or, with ``viewer``, for that player's own view)."""
    found: list[Choice] = []
    if session.is_ended:
        # the game on show has ended: the table may take it up again (nothing is deleted)
        label = (
            msg(
                "Reopen this game (it was filed as finished): play goes on where it stopped, "
                "and the end stays in the log"
            )
            if session.ended == "finished"
            else msg(
                "Reopen this game (it was filed as abandoned): play goes on where it stopped, "
                "and the end stays in the log"
            )
        )
        return (
            Choice(
                "table-reopen",
                label,
                None,
                command={"command": "reopen_game"},
            ),
        )
    if prompt is not None and prompt.options:
        # a reader's or the camera's question: only the answers the rules accept now (a route
        # scanned: the payments the player can make, not every set of the right size)
        # (each in the game's own short words when it gave them: the colour a reveal missed;
        # else the move in words, made only for the answers the rules accept)
        leaves = tuple(
            Choice(
                f"option-{i + 1}",
                msg("{option}", option=prompt.labels[i] if prompt.labels else describe(session, a)),
                a.player,
                a,
                swatches=(prompt.swatches[i],) if prompt.swatches and prompt.swatches[i] else (),
            )
            for i, a in enumerate(prompt.options)
            if accepts(session.game.apply, session.state, a)
        )
        if leaves:
            question = msg("{question}", question=prompt.question)
            found.append(Choice("prompt", question, None, children=leaves))
    found.extend(_recording(game_tree(session, session.state, viewer), session.state, viewer, ()))
    if session.applied:
        last = session.applied[-1]
        found.append(
            Choice(
                "table-undo",
                msg("Undo: {line}", line=describe(session, last.action)),
                None,
                command={"command": "undo", "target_seq": last.seq},
            )
        )
    if session.redo_stack:
        again = session.redo_stack[-1]
        found.append(
            Choice(
                "table-redo",
                msg("Redo: {line}", line=describe(session, again.action)),
                None,
                command={"command": "redo", "target_seq": again.seq},
            )
        )
    if session.applied and has_choices(session.game):
        found.append(
            Choice(
                "table-correct",
                msg("Correct an earlier entry"),
                None,
                children=lambda: _corrections(session, viewer),
            )
        )
    found.append(Choice("table-end", msg("End the game…"), None, children=_end(session)))
    return tuple(found)


def _end(session: TableSession) -> tuple[Choice, ...]:
    over = session.game.is_over(session.state)
    # a game over whose final scoring still needs something (a board figure) is not filed as
    # finished until the table has entered it (the game's tree asks for it)
    scored = over and bool(session.game.score(session.state).winners)
    ends: list[Choice] = []
    if scored:
        ends.append(
            Choice(
                "finished",
                msg("Yes, the game is over: do the final scoring and file it as finished"),
                None,
                command={"command": "end_game", "reason": "finished"},
            )
        )
    ends.append(
        Choice(
            "abandoned",
            msg("Abandon the game: file it with no winner (it can be reopened later)")
            if over
            else msg(
                "The game is not over by the rules: abandon it, with no winner "
                "(it can be reopened later)"
            ),
            None,
            command={"command": "end_game", "reason": "abandoned"},
        )
    )
    return tuple(ends)


_LISTED: dict[tuple[int, int | None], tuple[TableSession, tuple[Choice, ...]]] = {}
"""The last correction listings built, by session and viewer: a path under ``table-correct``
(``?at=table-correct/seq-12/claim``) lists the lines again at every step, and a session never
changes (a new entry makes a new one). Each line keeps what it has found out (which leaves keep
the later actions legal, which nodes have such a leaf), so a deeper step does not search again
what the steps above it searched."""
_LISTED_KEPT = 8


def _corrections(session: TableSession, viewer: int | None) -> tuple[Choice, ...]:
    key = (id(session), viewer)
    cached = _LISTED.get(key)
    if cached is not None and cached[0] is session:
        return cached[1]
    with no_collection():
        listed = _list_corrections(session, viewer)
    if len(_LISTED) >= _LISTED_KEPT:
        _LISTED.clear()
    _LISTED[key] = (session, listed)
    return listed


def _list_corrections(session: TableSession, viewer: int | None) -> tuple[Choice, ...]:
    found: list[Choice] = []
    start = max(0, len(session.applied) - LOG_LINES_OFFERED)
    for index in range(len(session.applied) - 1, start - 1, -1):
        applied = session.applied[index]
        if applied.action.kind in private_actions(session.game) and viewer != applied.action.player:
            continue  # a secret action is corrected on its player's own view
        line = _Line(session, index, viewer)
        # a line is listed (``more: true``) only when some correction under it is legal: the
        # action in the log may not be one the tree offers (a scan, the camera's five cards at
        # once, a move whose player the rules do not read, a table corrected since), and when
        # no other choice keeps every later action legal the line would open on nothing
        # (choices.md: "a node listed with more: true has children at ?at=")
        listed = line.listed()
        line.check.forget_meetings()
        if not listed:
            continue
        found.append(
            Choice(
                f"seq-{applied.seq}",
                msg("#{seq} {line}", seq=applied.seq, line=describe(session, applied.action)),
                applied.action.player,
                children=line.rewrap(None, ()),
            )
        )
    return tuple(found)


def _still_legal(
    session: TableSession, index: int, viewer: int | None = None
) -> Callable[[Action], bool]:
    """Whether replacing action ``index`` by another keeps every later action legal, as far as
    ``viewer`` (the table: ``None``) may know: a later secret move of another player (a kept
    ticket, a declared hand, a speculation) is replayed where it still holds and passed over
    where it does not. Whether it still holds reads what its player holds face down, so a list
    that left such corrections out would tell the table about it (choices.md: "a correction's options do not change with
    another player's hidden hand or pending secret choice"); such a correction is offered,
    and if the secret move no longer holds the engine refuses it, telling why only to that
    move's player (companion.core.privacy).

    This is the definition (each call replays from the start); the listing answers the same
    with what it kept from earlier entries (:class:`_Replays`)."""
    later = [a.action for a in session.applied[index + 1 :]]
    game = session.game
    before = session.states[index]
    secret = frozenset() if game.is_over(session.state) else private_actions(game)

    def check(action: Action) -> bool:
        try:
            state = game.apply(before, action)
            for step, a in enumerate(later):
                if state == session.states[index + 1 + step]:
                    # back on the table as it was: the rest replays as it did (apply is a
                    # function of the state), so the original action costs one apply
                    return True
                if a.kind in secret and a.player != viewer:
                    with contextlib.suppress(TracksideError):  # not read: see above
                        state = game.apply(state, a)
                    continue
                state = game.apply(state, a)
        except TracksideError:
            return False
        return True

    return check


_FAILED, _SAME, _OPEN = "failed", "same", "open"


REPLAYS_KEPT = 16
"""The replays still going kept for one line (each keeps a table state; the others keep none).
Each state kept is walked by every full garbage collection, whichever request it lands on: with
256 a line (and 4000 :data:`MEETINGS_KEPT`), one took 50-58 ms in a Mini Express game, with 16
(and 1000) 12-20 ms; the replays kept saved next to nothing (issue 48,
``bench/bench_corrections.py``)."""


class _Replays:
    """What replacing one line's action by another did to the later actions, kept across the
    table's entries: each new entry lists the same older lines again with one more later
    action, so a replacement whose replay was still going (``open``: the state after the
    later actions replayed so far) costs one apply more, one that failed at a later action
    (``failed``, at its index) or came back to the table as it was (``same``) costs nothing.

    Valid for later actions that extend (or are a part of) the ones it was kept for, the same
    objects in the same order (a correction or an undo after the line starts anew), and the
    same secret kinds (they are passed over while the game is on)."""

    def __init__(self, later: tuple[Action, ...], secret: frozenset[str]) -> None:
        self.later = later
        self.secret = secret
        self.outcomes: dict[str, tuple[str, int, Any]] = {}
        self.states = 0  # replays kept going (each keeps a table state)

    def fits(self, later: tuple[Action, ...], secret: frozenset[str]) -> bool:
        n = min(len(later), len(self.later))
        return secret == self.secret and all(
            a is b for a, b in zip(later[:n], self.later[:n], strict=True)
        )


class _Check:
    """:func:`_still_legal` for one line of one table, answered with what :class:`_Replays`
    kept (and keeping what it finds)."""

    def __init__(self, session: TableSession, index: int, viewer: int | None, shape: _Shape):
        self.game = session.game
        self.before = session.states[index]
        self.logged = session.states[index + 1 :]
        self.later = tuple(a.action for a in session.applied[index + 1 :])
        self.viewer = viewer
        secret = frozenset() if self.game.is_over(session.state) else private_actions(self.game)
        self.replays = shape.replays_for(self.later, secret)
        self.secret = secret
        self.meetings: dict[tuple[int, Any], tuple[str, int, Any]] | None = {}

    def __call__(self, action: Action, key: str) -> bool:
        later = self.later
        known = self.replays.outcomes.get(key)
        if known is not None:
            how, at, state = known
            if how == _SAME or at >= len(later):
                return True  # (a failure past these later actions: they all replayed)
            if how == _FAILED:
                return False
        else:
            try:
                state = applied(self.game.apply, self.before, action)
            except TracksideError:
                self.replays.outcomes[key] = (_FAILED, -1, None)
                return False
            at = 0
        outcome = self._replay(state, at)
        replays = self.replays
        if outcome[0] != _OPEN:
            replays.outcomes[key] = outcome
        elif outcome[1] >= len(replays.later):  # (an older table's shorter one is not kept)
            if key in replays.outcomes:
                replays.outcomes[key] = outcome  # further on, in place of the one kept
            elif replays.states < REPLAYS_KEPT:  # nor more states than this
                replays.states += 1
                replays.outcomes[key] = outcome
        return outcome[0] != _FAILED

    def forget_meetings(self) -> None:
        if self.meetings:
            self.meetings = {}

    def _replay(self, state: Any, at: int) -> tuple[str, int, Any]:
        """How replaying the later actions from ``at`` on ``state`` ends. Replays of siblings
        meet (two payments leave the same table; the later actions overwrite what differed):
        each state met on the way is kept with the outcome (:data:`MEETINGS_KEPT`), and a
        replay that meets one ends there (apply is a function of the state)."""
        game, later, secret, meetings = self.game, self.later, self.secret, self.meetings
        met: list[tuple[int, Any]] = []
        outcome: tuple[str, int, Any] | None = None
        step = at
        while outcome is None and step < len(later):
            if state == self.logged[step]:
                # back on the table as it was: the rest replays as it did
                outcome = (_SAME, step, None)
                break
            if meetings is not None:
                try:
                    known = meetings.get((step, state))
                except TypeError:  # a state that cannot be hashed: nothing is kept
                    known = meetings = self.meetings = None
                if known is not None:
                    if known[0] != _OPEN or known[1] >= len(later):
                        outcome = known
                        break
                    step, state = known[1], known[2]  # (an earlier entry's): on from there
                    continue
                met.append((step, state))
            a = later[step]
            step += 1
            if a.kind in secret and a.player != self.viewer:
                with contextlib.suppress(TracksideError):  # not read: see _still_legal
                    state = game.apply(state, a)
                continue
            try:
                state = game.apply(state, a)
            except TracksideError:
                outcome = (_FAILED, step - 1, None)
        if outcome is None:
            outcome = (_OPEN, len(later), state)
        if meetings is not None:
            if len(meetings) + len(met) > MEETINGS_KEPT:
                meetings.clear()  # the siblings searched now meet, not those searched before
            for key in met:
                meetings[key] = outcome
        return outcome


MEETINGS_KEPT = 1000
"""The states met by one line's replays kept with their outcome (:meth:`_Check._replay`), at
most this many, while one node of the line is opened (the siblings searched then meet): each
keeps a table state alive, and a bigger heap costs every request a longer full garbage
collection."""


Path = tuple[str, ...]

LEAVES_TRIED: int | None = 24
"""How many leaves under a node are tried for one that keeps every later action legal before
the node is left out (issue 48: no node over 50 ms). The order: the action in the log, under
the nodes on its way; at each step the first leaves the game names (``Choice.first``); then
depth first in the tree's own order. A correction offered is always one the
engine accepts, and a node offered always opens on something; what this bounds is how hard a
correction is looked for: one only found after more tries than this is not offered (the table
can undo back to it and enter the move again). ``None``: no bound (the definition; tests)."""

NODE_LEAVES_TRIED = 96
"""How many leaves one node's children may try between them (each at most
:data:`LEAVES_TRIED`, at least one): a Mini Express build step lists ~25 places, each of which
tried up to 24 leaves (~340 replays, 75 ms here). A leaf that passes makes every node on its
way pass too (found from above), so a node offered still opens on something."""


def _tries(siblings: int) -> int:
    """The leaves tried under one of ``siblings`` nodes (:data:`NODE_LEAVES_TRIED`; no bound
    without :data:`LEAVES_TRIED`)."""
    if LEAVES_TRIED is None:
        return 1 << 62
    return max(1, min(LEAVES_TRIED, NODE_LEAVES_TRIED // max(1, siblings)))


ORIGINAL_SEARCH_NODES = 4000
ORIGINAL_SEARCH_BUILDS = 120
"""How many nodes the search for the action in the log may visit, and how many it may build
(most alike first; each build is the game's work: a Trains & Stations delivery's next step
tries its payouts), before it gives up: a logged action the tree does not offer (a scan, a
task card in another player's view) is not looked for in the whole tree. Not found, the line's
nodes are searched as any other (:data:`LEAVES_TRIED`)."""


class _SearchSpentError(Exception):
    """The search for the action in the log built as many nodes as it may."""


class _Shape:
    """A line's tree as the game offered it before the action in the log, and what is known of
    it that does not depend on the later actions: the nodes built so far (by path) and the path
    to the action in the log (found most alike first); and what replays of the later actions
    found (:class:`_Replays`). Kept across the table's entries (:data:`_SHAPES`), since each
    new entry lists the same older lines again with one more later action to replay."""

    def __init__(
        self,
        build: Callable[[], tuple[Choice, ...]],
        original: Action,
        offered: list[tuple[Path, bool]],
        own_keys: frozenset[str] = frozenset(),
    ) -> None:
        self._build = build
        self._tree: tuple[Choice, ...] | None = None
        self.original = original
        data = original.to_json()
        self.goal = _features(data)
        # a key that names the action's own words (its kind's parts, a city, a route) is tried
        # before any likeness is worked out (which builds that node's first leaf)
        texts = [w.replace(":", "-") for w in _strings(data.get("args", {}))]
        self.words = set(original.kind.split("_")) | set(texts)
        self.words |= {part for w in texts for part in w.split("-") if len(part) > 2}
        self.below: dict[Path, tuple[Choice, ...]] = {}
        self.first: dict[Path, Choice | None] = {}
        self.likeness: dict[Path, int] = {}
        # False: not looked for yet; the live tree's path (this very view's; another view's is
        # walked to be sure) is taken without a search
        own = [path for path, mine in offered if mine]
        self._original: Path | bool | None = own[0] if own else False
        if not own and offered and all(path[0] in own_keys for path, _ in offered):
            # only under another player's own nodes (their task card, their ticket): nowhere
            # in this view, which adds only its own player's (no search for it)
            self._original = None
        self.offered = [path for path, mine in offered if not mine]
        self.replays: _Replays | None = None
        self.lock = threading.Lock()
        self._builds_left: int | None = None
        self._locating: int | None = None  # the thread looking for it (the others build freely)

    def replays_for(self, later: tuple[Action, ...], secret: frozenset[str]) -> _Replays:
        with self.lock:
            replays = self.replays
            if replays is None or not replays.fits(later, secret):
                replays = self.replays = _Replays(later, secret)
            elif len(later) > len(replays.later):
                replays.later = later
            return replays

    def children(self, node: Choice, path: Path) -> tuple[Choice, ...]:
        known = self.below.get(path)
        if known is None:
            if self._builds_left is not None and self._locating == threading.get_ident():
                if self._builds_left <= 0:
                    raise _SearchSpentError
                self._builds_left -= 1
            known = self.below[path] = node.expand()
            _built(self)
        return known

    @property
    def tree(self) -> tuple[Choice, ...]:
        """The game's tree before the line's action (built when first needed: a line whose
        action's path is known is listed without it; built again when forgotten)."""
        tree = self._tree
        if tree is None:
            tree = self._tree = self._build()
            _built(self)
        return tree

    def forget_built(self) -> None:
        """Let go of the game's nodes built so far (built again when needed): what was found
        out about them (by path) is kept."""
        self._tree = None
        self.below = {}

    def looked_for(self) -> bool:
        """Whether the action in the log was looked for already (found or not)."""
        return self._original is not False

    def first_leaf(self, node: Choice, path: Path) -> Choice | None:
        if path in self.first:
            return self.first[path]
        found: Choice | None = None
        if node.is_leaf:
            found = node
        else:
            for child in self.children(node, path):
                found = self.first_leaf(child, (*path, child.key))
                if found is not None:
                    break
        self.first[path] = found
        return found

    def distance(self, node: Choice, path: Path) -> int:
        known = self.likeness.get(path)
        if known is not None:
            return known
        if node.first is not None and path not in self.below:
            action: Action | None = node.first  # named by the game: nothing to build
        else:
            leaf = self.first_leaf(node, path)
            action = None if leaf is None else leaf.action
        if action is None:
            known = 1 << 30
        elif action == self.original:
            known = -1
        else:
            known = _distance(self.goal, _features(action.to_json()))
        self.likeness[path] = known
        return known

    def ranked(self, nodes: tuple[Choice, ...], parent: Path) -> Iterator[tuple[Choice, Path]]:
        """``nodes`` with their paths, a node whose key names the action's own words first, then
        by the likeness of their first leaves (worked out only when the search gets there)."""
        paths = [(*parent, node.key) for node in nodes]
        named = [i for i, node in enumerate(nodes) if node.key in self.words]
        for i in named:
            yield nodes[i], paths[i]
        rest = [i for i in range(len(nodes)) if nodes[i].key not in self.words]
        rest.sort(key=lambda i: (self.distance(nodes[i], paths[i]), i))
        for i in rest:
            yield nodes[i], paths[i]

    def original_path(self) -> Path | None:
        """The path to the leaf that is the action in the log, or ``None`` (not offered, or
        not found within :data:`ORIGINAL_SEARCH_NODES`). Depth first, the children most like
        it first; first following only that order, then leaving it at one step of the way,
        then at two (limited discrepancy search): a child that only looked most alike (by its
        first leaf) does not cost a whole search of its subtree first."""
        with self.lock:
            if self._original is False:
                self._original = next((p for p in self.offered if self._leads_to(p)), False)
            if self._original is False:
                budget = [ORIGINAL_SEARCH_NODES]
                found = None
                self._builds_left = ORIGINAL_SEARCH_BUILDS
                self._locating = threading.get_ident()
                try:
                    for allowed in DISCREPANCIES:
                        found = self._locate(self.tree, (), allowed, budget)
                        if found is not None or budget[0] <= 0:
                            break
                except _SearchSpentError:
                    found = None
                finally:
                    self._builds_left = self._locating = None
                self._original = found
            return self._original if isinstance(self._original, tuple) else None

    def _leads_to(self, path: Path) -> bool:
        """Whether ``path`` names the action in the log in this tree."""
        nodes = self.tree
        for depth, key in enumerate(path):
            node = next((n for n in nodes if n.key == key), None)
            if node is None:
                return False
            if depth == len(path) - 1:
                return node.action == self.original
            if node.is_leaf:
                return False
            nodes = self.children(node, path[: depth + 1])
        return False

    def _locate(
        self, nodes: tuple[Choice, ...], parent: Path, allowed: int, budget: list[int]
    ) -> Path | None:
        for rank, (node, path) in enumerate(self.ranked(nodes, parent)):
            left = allowed if rank == 0 else allowed - 1
            if left < 0 or budget[0] <= 0:
                return None
            budget[0] -= 1
            if node.is_leaf:
                if node.action == self.original:
                    return path
                continue
            found = self._locate(self.children(node, path), path, left, budget)
            if found is not None:
                return found
        return None


BUILT_KEPT = 4
"""How many lines keep the game's nodes they built (the most recently built ones). A game's
nodes keep what is built under them (Mini Express' steps build once and keep), so each line
searched keeps thousands of objects alive, and a full garbage collection walks them all on
whichever request happens to set it off (120-230 ms with every line's nodes kept)."""
_BUILT: OrderedDict[int, _Shape] = OrderedDict()
_BUILT_LOCK = threading.Lock()


def _built(shape: _Shape) -> None:
    """``shape`` has built nodes now: the least recently built beyond :data:`BUILT_KEPT` let
    go of theirs."""
    with _BUILT_LOCK:
        _BUILT[id(shape)] = shape
        _BUILT.move_to_end(id(shape))
        while len(_BUILT) > BUILT_KEPT:
            _BUILT.popitem(last=False)[1].forget_built()


_SHAPES: dict[tuple[int, int | None], tuple[Any, _Shape]] = {}
"""The shapes of the lines listed lately, by the table state before the line's action and the
viewer (the state is kept with it, so its id names it)."""
_SHAPES_KEPT = 128
_SHAPES_LOCK = threading.Lock()


def _shape(session: TableSession, index: int, viewer: int | None) -> _Shape:
    before = session.states[index]
    original = session.applied[index].action
    every_view = same_in_every_view(session.game)
    if every_view:
        viewer = None  # one shape for every view (a move entered in its player's view)
    key = (id(before), viewer)
    with _SHAPES_LOCK:  # the web answers from several threads
        cached = _SHAPES.pop(key, None)
        if cached is not None and cached[0] is before and cached[1].original == original:
            shape = cached[1]
        else:
            own_keys = own_view_choices(session.game)
            offered = offered_paths(
                before, viewer, original, every_view=every_view, own_keys=own_keys
            )
            if viewer is not None and original.player == viewer:
                own_keys = frozenset()  # (its own nodes may offer it here too)
            shape = _Shape(
                _tree_builder(session, before, viewer), original, offered, own_keys or frozenset()
            )
        _SHAPES[key] = (before, shape)  # the most recent last
        while len(_SHAPES) > _SHAPES_KEPT:
            del _SHAPES[next(iter(_SHAPES))]
    return shape


def _tree_builder(
    session: TableSession, state: Any, viewer: int | None
) -> Callable[[], tuple[Choice, ...]]:
    game = session.game
    return lambda: tuple(game.choices(state, viewer)) if has_choices(game) else ()


class _Line:
    """One line of the log under ``table-correct``: the game's nodes before that action, with
    each leaf turned into a ``correct`` command and only the nodes kept that have a leaf under
    them passing :func:`_still_legal` (every later action still legal).

    What is offered is exactly that; how fast it is found is this class's business. The nodes
    on the way to the action in the log pass at once (the action itself passes: the table as
    it was); any other node is searched depth first, in the tree's own order, until a leaf
    passes. Every answer is kept (by path and by action), so each step deeper searches only
    what is new; what does not depend on the later actions, and the replays of earlier
    entries, are kept across entries (:class:`_Shape`, :class:`_Replays`)."""

    def __init__(self, session: TableSession, index: int, viewer: int | None) -> None:
        self.shape = shape = _shape(session, index, viewer)
        self.target = session.applied[index].seq
        self.check = _Check(session, index, viewer, shape)
        self.original = shape.original
        self.tried = LEAVES_TRIED if LEAVES_TRIED is not None else 1 << 62
        self.found: dict[Path, bool] = {}
        self.leaf_ok: dict[Path, bool] = {}
        self.on_the_way: set[Path] = set()
        self.located = False

    def locate(self) -> None:
        """The nodes on the way to the action in the log pass (found once per line and kept
        across entries, :meth:`_Shape.original_path`); known before any other node is searched."""
        if self.located:
            return
        self.located = True
        original = self.shape.original_path()
        if original is not None:
            for depth in range(len(original) + 1):
                self.on_the_way.add(original[:depth])
                self.found[original[:depth]] = True

    def listed(self) -> bool:
        """Whether the line has a correction under it. One leaf is tried (the first of the
        order :meth:`_first_pass` takes) before the action in the log is looked for (which may
        open many nodes): most later actions do not depend on the one corrected. (The line,
        opened, finds that leaf again among the first tries of the node it is in.) A move entered through the tree is known where it is: the line is
        listed without building the tree (a Russian Railroads turn's top level tries every
        space's payments)."""
        if self.shape.looked_for():
            self.locate()
        elif () not in self.found and self._first_pass(self.shape.tree, (), [1]) is True:
            self.found[()] = True  # the first try, in the order every node of the line takes
        known = self.found.get(())
        return known if known is not None else self.any_leaf(self.shape.tree, ())

    def children(self, node: Choice, path: Path) -> tuple[Choice, ...]:
        return self.shape.children(node, path)

    def passes(self, action: Action) -> bool:
        if action == self.original:
            return True  # the action in the log: the table as it was
        return self.check(action, json.dumps(action.to_json(), sort_keys=True))

    def any_leaf(self, nodes: tuple[Choice, ...], parent: Path) -> bool:
        """Whether one of the first :data:`LEAVES_TRIED` leaves under ``nodes`` (the children
        of ``parent``), the action in the log first, passes."""
        known = self.found.get(parent)
        if known is None:
            self.locate()
            known = self.found.get(parent)
        if known is None:
            known = self.found[parent] = self._first_pass(nodes, parent, [self.tried]) is True
        return known

    def has_leaf(self, node: Choice, path: Path, siblings: int = 1) -> bool:
        """Whether one of the first leaves under ``node`` (at ``path``; itself, for a leaf), the
        action in the log first, passes: :data:`LEAVES_TRIED`, fewer when it is one of many
        ``siblings`` (:data:`NODE_LEAVES_TRIED`), and any node on the way to a leaf that passed
        already (found under a node above it)."""
        known = self.found.get(path)
        if known is None:
            self.locate()
            known = self.found.get(path)
        if known is None:
            if node.is_leaf:
                known = self._leaf(node, path)
            else:
                # itself among its siblings: the first leaf it names, then its children
                known = self._first_pass((node,), path[:-1], [_tries(siblings)]) is True
            self.found[path] = known
        return known

    def _first_pass(self, nodes: tuple[Choice, ...], parent: Path, left: list[int]) -> bool | None:
        """``True`` at the first leaf that passes, ``False`` when none does, ``None`` when
        ``left`` (leaves still to try, shared down the search) ran out first. The order: the
        first leaves the game names (``Choice.first``: a route's first payment, tried without
        building the payments), then depth first in the tree's order. A leaf that passes makes
        every node on its way pass (found from above: a node offered opens on something)."""
        for node in nodes:
            if (*parent, node.key) in self.on_the_way:
                return True  # the action in the log is under it: tried first
        for node in nodes:
            if node.first is not None and not node.is_leaf:
                if left[0] <= 0:
                    return None
                left[0] -= 1
                if self.passes(node.first):
                    path = (*parent, node.key)
                    for depth in range(len(path) + 1):  # (its first child names it first)
                        self.found.setdefault(path[:depth], True)
                    return True
        for node in nodes:
            path = (*parent, node.key)
            if node.is_leaf:
                if left[0] <= 0:
                    return None
                left[0] -= 1
                if self._leaf(node, path):
                    for depth in range(len(path)):  # every node on its way opens on it
                        self.found.setdefault(path[:depth], True)
                    return True
                continue
            below = self._first_pass(self.children(node, path), path, left)
            if below is not False:
                return below
        return False

    def _leaf(self, node: Choice, path: Path) -> bool:
        known = self.leaf_ok.get(path)
        if known is None:
            known = self.leaf_ok[path] = node.action is not None and self.passes(node.action)
        return known

    def rewrap(self, above: Choice | None, parent: Path) -> Callable[[], tuple[Choice, ...]]:
        """The game's nodes under ``above`` (``None``: the top) with each leaf turned into a
        ``correct`` command for the line (built when opened: a node listed is not opened)."""

        def build() -> tuple[Choice, ...]:
            with no_collection():
                try:
                    return opened()
                finally:
                    self.check.forget_meetings()  # (each keeps a table state)

        def opened() -> tuple[Choice, ...]:
            found: list[Choice] = []
            nodes = self.shape.tree if above is None else self.children(above, parent)
            for node in nodes:
                path = (*parent, node.key)
                if not self.has_leaf(node, path, len(nodes)):
                    continue
                if node.action is not None:
                    command: JsonObject = {
                        "command": "correct",
                        "target_seq": self.target,
                        "action": node.action.to_json(),
                    }
                    found.append(
                        Choice(
                            node.key,
                            node.label,
                            node.player,
                            command=command,
                            swatches=node.swatches,
                        )
                    )
                else:
                    below = self.rewrap(node, path)
                    found.append(
                        Choice(
                            node.key,
                            node.label,
                            node.player,
                            children=below,
                            swatches=node.swatches,
                        )
                    )
            return tuple(found)

        return build


LENGTH_WEIGHT = 3

DISCREPANCIES = (0, 1, 2)
"""The first rounds of a line's search: how many steps may leave the likeness order."""


def _features(value: object, at: str = "") -> Counter[str]:
    """An action's JSON as a bag of (place, value) features; a list's items are counted both
    as a bag (five dice rolled: which faces) and by place (the first city of a delivery)."""
    found: Counter[str] = Counter()
    if isinstance(value, dict):
        for key, item in value.items():
            found.update(_features(item, f"{at}.{key}"))
    elif isinstance(value, list | tuple):
        # how many (five dice or six, two bonus dice or none) weighs more than any one item
        found[f"{at}#"] += LENGTH_WEIGHT * len(value)
        for place, item in enumerate(value):
            found.update(_features(item, f"{at}[]"))
            found.update(_features(item, f"{at}[{place}]"))
    else:
        found[f"{at}={value!r}"] += 1
    return found


def _strings(value: object) -> Iterator[str]:
    """Every text in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _distance(a: Counter[str], b: Counter[str]) -> int:
    return sum(abs(a[k] - b[k]) for k in a.keys() | b.keys())


def tree_seq(session: TableSession) -> int:
    """The table's sequence number a tree is built for (its log's last entry)."""
    return session.entries[-1].seq
