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
  under which every later action is still legal are offered.
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
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, cast

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice, accepts
from companion.core.errors import TracksideError
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Message, Text, msg
from companion.core.privacy import private_actions
from companion.core.session import TableSession

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
    found.extend(game_tree(session, session.state, viewer))
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
        line = _Line(
            _shape(session, index, viewer), applied.seq, _still_legal(session, index, viewer)
        )
        # a line is listed (``more: true``) only when some correction under it is legal: the
        # action in the log may not be one the tree offers (a scan, the camera's five cards at
        # once, a move whose player the rules do not read, a table corrected since), and when
        # no other choice keeps every later action legal the line would open on nothing
        # (choices.md: "a node listed with more: true has children at ?at=")
        if not line.any_leaf(line.tree, ()):
            continue
        found.append(
            Choice(
                f"seq-{applied.seq}",
                msg("#{seq} {line}", seq=applied.seq, line=describe(session, applied.action)),
                applied.action.player,
                children=line.rewrap(line.tree, ()),
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
    move's player (companion.core.privacy)."""
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


Path = tuple[str, ...]


class _Shape:
    """A line's tree as the game offered it before the action in the log, and what is known of
    it that does not depend on the later actions: the nodes built so far (by path), each node's
    first leaf, and how much it looks like the action in the log. Kept across the table's
    entries (:data:`_SHAPES`), since each new entry lists the same older lines again with one
    more later action to replay."""

    def __init__(self, tree: tuple[Choice, ...], original: Action) -> None:
        self.tree = tree
        self.original = original
        data = original.to_json()
        self.goal = _features(data)
        # a key that names the action's own words (its kind's parts, a city, a route) is tried
        # before any likeness is worked out (which builds that node's first leaf)
        self.words = set(original.kind.split("_")) | {
            w.replace(":", "-") for w in _strings(data.get("args", {}))
        }
        self.below: dict[Path, tuple[Choice, ...]] = {}
        self.first: dict[Path, Choice | None] = {}
        self.likeness: dict[Path, int] = {}

    def children(self, node: Choice, path: Path) -> tuple[Choice, ...]:
        known = self.below.get(path)
        if known is None:
            known = self.below[path] = node.expand()
        return known

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
        leaf = self.first_leaf(node, path)
        if leaf is None or leaf.action is None:
            known = 1 << 30
        elif leaf.action == self.original:
            known = -1
        else:
            known = _distance(self.goal, _features(leaf.action.to_json()))
        self.likeness[path] = known
        return known


_SHAPES: dict[tuple[int, int | None], tuple[Any, _Shape]] = {}
"""The shapes of the lines listed lately, by the table state before the line's action and the
viewer (the state is kept with it, so its id names it)."""
_SHAPES_KEPT = 128
_SHAPES_LOCK = threading.Lock()


def _shape(session: TableSession, index: int, viewer: int | None) -> _Shape:
    before = session.states[index]
    original = session.applied[index].action
    key = (id(before), viewer)
    with _SHAPES_LOCK:  # the web answers from several threads
        cached = _SHAPES.pop(key, None)
        if cached is not None and cached[0] is before and cached[1].original == original:
            shape = cached[1]
        else:
            shape = _Shape(game_tree(session, before, viewer), original)
        _SHAPES[key] = (before, shape)  # the most recent last
        while len(_SHAPES) > _SHAPES_KEPT:
            del _SHAPES[next(iter(_SHAPES))]
    return shape


class _Line:
    """One line of the log under ``table-correct``: the game's nodes before that action, with
    each leaf turned into a ``correct`` command and only the nodes kept that have a leaf under
    them passing ``check`` (every later action still legal).

    What is offered is exactly that; how fast it is found is this class's business. Whether a
    node has a passing leaf is searched with the nodes most like the action in the
    log first (best first over the subtree): a node whose key names the action's own words,
    then by the likeness of its first leaf (arguments counted as features, see :func:`_features`). The action in the log
    itself passes without a replay, and a correction like it is the likeliest to keep the later
    actions legal. Every answer is kept (by path and by action), so each step deeper searches
    only what is new; what does not depend on the later actions is kept across entries
    (:class:`_Shape`)."""

    def __init__(self, shape: _Shape, target: int, check: Callable[[Action], bool]) -> None:
        self.shape = shape
        self.tree = shape.tree
        self.target = target
        self.check = check
        self.original = shape.original
        self.passed: dict[str, bool] = {}
        self.found: dict[Path, bool] = {}

    def children(self, node: Choice, path: Path) -> tuple[Choice, ...]:
        return self.shape.children(node, path)

    def passes(self, action: Action) -> bool:
        if action == self.original:
            return True  # the action in the log: the table as it was
        key = json.dumps(action.to_json(), sort_keys=True)
        known = self.passed.get(key)
        if known is None:
            known = self.passed[key] = self.check(action)
        return known

    # -- the search ------------------------------------------------------------------------
    def has_leaf(self, node: Choice, path: Path) -> bool:
        """Whether some leaf under ``node`` (at ``path``; itself, for a leaf) passes ``check``."""
        if node.is_leaf:
            return bool(self._search(node, path, None))
        return self.any_leaf(self.children(node, path), path)

    def any_leaf(self, nodes: tuple[Choice, ...], parent: Path) -> bool:
        """Whether some leaf under ``nodes`` (the children of ``parent``) passes ``check``.

        Depth first, the children most like the action in the log first; first following only
        that order (no discrepancy), then leaving it at one step of the way, then everywhere
        (limited discrepancy search): a child that only looked most alike (by its first leaf)
        does not cost a whole search of its subtree before the path to the action in the log is
        tried. Only the last round decides that nothing passes."""
        known = self.found.get(parent)
        if known is not None:
            return known
        for allowed in (*DISCREPANCIES, None):
            found = self._among(nodes, parent, allowed)
            if found is not None:
                self.found[parent] = found
                return found
        raise AssertionError("the last round always decides")  # pragma: no cover

    def _among(self, nodes: tuple[Choice, ...], parent: Path, allowed: int | None) -> bool | None:
        unknown = False
        for rank, (node, path) in enumerate(self.ranked(nodes, parent)):
            left = allowed if rank == 0 or allowed is None else allowed - 1
            if left is not None and left < 0:
                unknown = True
                break
            found = self._search(node, path, left)
            if found:
                return True
            unknown = unknown or found is None
        return None if unknown else False

    def ranked(self, nodes: tuple[Choice, ...], parent: Path) -> Iterator[tuple[Choice, Path]]:
        """``nodes`` with their paths, a node whose key names the action's own words first, then
        by the likeness of their first leaves (worked out only when the search gets there)."""
        paths = [(*parent, node.key) for node in nodes]
        words = self.shape.words
        named = [i for i, node in enumerate(nodes) if node.key in words]
        for i in named:
            yield nodes[i], paths[i]
        rest = [i for i in range(len(nodes)) if nodes[i].key not in words]
        rest.sort(key=lambda i: (self.shape.distance(nodes[i], paths[i]), i))
        for i in rest:
            yield nodes[i], paths[i]

    def _search(self, node: Choice, path: Path, allowed: int | None) -> bool | None:
        """Whether a leaf under ``node`` passes; ``None`` when the search left undecided what
        it was not allowed to try."""
        known = self.found.get(path)
        if known is not None:
            return known
        if node.is_leaf:
            ok = node.action is not None and self.passes(node.action)
            self.found[path] = ok
            return ok
        found = self._among(self.children(node, path), path, allowed)
        if found is not None:
            self.found[path] = found
        return found

    def rewrap(self, nodes: tuple[Choice, ...], parent: Path) -> Callable[[], tuple[Choice, ...]]:
        """The game's nodes with each leaf turned into a ``correct`` command for the line."""

        def build() -> tuple[Choice, ...]:
            found: list[Choice] = []
            for node in nodes:
                path = (*parent, node.key)
                if not self.has_leaf(node, path):
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
                    below = self.rewrap(self.children(node, path), path)
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
