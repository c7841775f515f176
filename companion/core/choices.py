"""The choices tree: the game's answer to "what can the table enter now?".

python-chess has ``legal_moves``, OpenSpiel ``legal_actions``; a Trackside game has
``choices(state, viewer)``, a tree built from the table state and the rules. Its inner nodes are
steps a person picks ("Anna: claim a route" → "Paris – Wien (red)" → "3 red + 1 locomotive"),
its leaves complete actions. Every page, phone, seat reader's prompt and script builds its input
from it, so nothing outside the game holds game knowledge, and the property each game keeps
(tested by random playouts) is: **every leaf the tree offers, ``apply`` accepts**.

- ``key``: unique among siblings, no ``/`` (a path is the keys joined by ``/``).
- ``label``: a :class:`~companion.core.messages.Message`, rendered in the reader's language.
- ``player``: whom the node is for (``None``: the table).
- exactly one of ``action`` (a leaf) or ``children`` (a tuple, or a function that builds them
  when the node is opened: a large subtree such as every payment for every route is only built
  for the route the person picked).
- Finite and never empty: numbers are offered as options, and a node with nothing legal under it
  is not offered at all.
- ``swatches``: colours a page shows beside the label (a train card's colour, a route's), each
  a name from :data:`~companion.core.swatches.SWATCHES`; a player finds "purple" faster by its
  colour than by its word.
- ``viewer``: ``None`` is the table's view, which never reveals what a player holds face down;
  ``viewer=N`` adds the choices only player N may see (their own hidden hand, a secret trade).

See ``../shared/contracts/choices.md`` for the HTTP surface (``GET /api/choices``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

from companion.core.actions import Action
from companion.core.errors import TracksideError
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Message
from companion.core.swatches import check_swatches

Children = tuple["Choice", ...] | Callable[[], tuple["Choice", ...]]

PATH_SEPARATOR = "/"

S = TypeVar("S")
T = TypeVar("T")


class ChoicePathError(TracksideError, LookupError):
    """A path into the tree that names no node (the table moved on, or a typo); ``path`` is the
    part that was found, ``key`` the first key that was not."""

    def __init__(self, path: str, key: str, known: Sequence[str]) -> None:
        self.path = path
        self.key = key
        where = f"under {path!r}" if path else "at the top"
        listed = ", ".join(known[:12]) + (", …" if len(known) > 12 else "")
        super().__init__(f"no choice {key!r} {where}; choices there: {listed or 'none'}")


@dataclass(frozen=True, slots=True)
class Choice:
    """One node of the tree (see the module docstring)."""

    key: str
    label: Message
    player: int | None = None
    action: Action | None = None
    children: Children = field(default=(), compare=False)
    command: JsonObject | None = field(default=None, compare=False)
    """A table-level leaf (undo, redo, a correction, ending the game): the command's payload,
    as ``POST /api/input`` takes it with ``kind: command``. Games never set it."""
    swatches: tuple[str, ...] = ()
    by_name: bool = field(default=False, compare=False)
    """Its children are a list people look a name up in (cities, routes): every screen lists
    them in the order of their labels in the reader's language (its collation), not the
    game's order."""
    first: Action | None = field(default=None, compare=False)
    """For a node whose children are built when it is opened: the action of its first leaf
    (depth first), when the game knows it without building them (a route's first payment the
    engine accepts). A search that needs only one leaf of many nodes (the correction listing)
    tries it without opening the node. Never set on a leaf."""

    def __post_init__(self) -> None:
        if not self.key or PATH_SEPARATOR in self.key:
            raise ValueError(f"choice key {self.key!r}: must be non-empty and without '/'")
        has_children = callable(self.children) or bool(self.children)
        ends = (self.action is not None) + (self.command is not None) + has_children
        if ends != 1:
            raise ValueError(
                f"choice {self.key!r}: needs exactly one of an action, a command or children"
            )
        if self.first is not None and ends == 1 and not has_children:
            raise ValueError(f"choice {self.key!r}: a leaf has no first leaf under it")
        check_swatches(self.swatches, f"choice {self.key!r}")

    @property
    def is_leaf(self) -> bool:
        return self.action is not None or self.command is not None

    def input_json(self) -> JsonObject | None:
        """The complete input a leaf stands for (the body of ``POST /api/input``)."""
        if self.action is not None:
            return {"kind": "action", "payload": {"action": self.action.to_json()}}
        if self.command is not None:
            return {"kind": "command", "payload": dict(self.command)}
        return None

    def expand(self) -> tuple[Choice, ...]:
        """The children (built now when the game gave a function)."""
        if callable(self.children):
            return self.children()
        return self.children

    def to_json(self) -> JsonObject:
        """The node as the tree's JSON surface shows it; ``label`` still a message (the surface
        renders it in its reader's language)."""
        data: JsonObject = {"key": self.key, "label": self.label.to_json(), "player": self.player}
        if self.swatches:
            data["swatches"] = list(self.swatches)
        if self.by_name:
            data["by_name"] = True
        if self.action is not None:
            data["action"] = self.action.to_json()
        elif self.command is not None:
            data["command"] = dict(self.command)
        else:
            data["more"] = True
        return data


def children_at(tree: Sequence[Choice], path: str) -> tuple[Choice, ...]:
    """The nodes under ``path`` (``""``: the top); :class:`ChoicePathError` when a key is not
    there. A path to a leaf has no children: the leaf itself is :func:`node_at`."""
    nodes = tuple(tree)
    walked: list[str] = []
    for key in _keys(path):
        found = next((c for c in nodes if c.key == key), None)
        if found is None:
            raise ChoicePathError(PATH_SEPARATOR.join(walked), key, [c.key for c in nodes])
        walked.append(key)
        nodes = () if found.is_leaf else found.expand()
    return nodes


def node_at(tree: Sequence[Choice], path: str) -> Choice:
    """The node ``path`` names; :class:`ChoicePathError` when there is none."""
    keys = _keys(path)
    if not keys:
        raise ChoicePathError("", "", [c.key for c in tree])
    parent = PATH_SEPARATOR.join(keys[:-1])
    siblings = children_at(tree, parent)
    found = next((c for c in siblings if c.key == keys[-1]), None)
    if found is None:
        raise ChoicePathError(parent, keys[-1], [c.key for c in siblings])
    return found


def step_sig(walked: Sequence[Choice]) -> str:
    """A short fingerprint of a step: each node's key, player and label on the way down to it.
    Two trees (an older table's and the newer one) give the same fingerprint for a path only
    when it is the same step for the same players, worded the same; a screen drawn for an older
    table keeps the person's place only then."""
    text = json.dumps(
        [[c.key, c.player, c.label.to_json()] for c in walked],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.blake2s(text.encode(), digest_size=6).hexdigest()


def nodes_on(tree: Sequence[Choice], path: str) -> list[Choice]:
    """The nodes ``path`` walks through, top first (:class:`ChoicePathError` when a key names
    no node); only the nodes on the way are expanded, never the last one's children."""
    keys = _keys(path)
    nodes: Sequence[Choice] = tuple(tree)
    walked: list[Choice] = []
    for i, key in enumerate(keys):
        found = next((c for c in nodes if c.key == key), None)
        if found is None:
            raise ChoicePathError(PATH_SEPARATOR.join(keys[:i]), key, [c.key for c in nodes])
        walked.append(found)
        if i < len(keys) - 1:
            nodes = () if found.is_leaf else found.expand()
    return walked


def leaves(tree: Sequence[Choice], prefix: str = "") -> Iterator[tuple[str, Choice]]:
    """Every leaf with its path, depth first (expands every lazy node: for tests and tools)."""
    for choice in tree:
        path = f"{prefix}{PATH_SEPARATOR}{choice.key}" if prefix else choice.key
        if choice.is_leaf:
            yield path, choice
        else:
            yield from leaves(choice.expand(), path)


def random_leaf(tree: Sequence[Choice], rng: random.Random) -> tuple[str, Choice] | None:
    """A leaf reached by picking a random child at every step (a playout's move), or ``None``
    for an empty tree."""
    nodes = tuple(tree)
    walked: list[str] = []
    while nodes:
        pick = rng.choice(nodes)
        walked.append(pick.key)
        if pick.is_leaf:
            return PATH_SEPARATOR.join(walked), pick
        nodes = pick.expand()
    return None


def check_tree(tree: Sequence[Choice], prefix: str = "", *, deep: bool = True) -> None:
    """Raise ``ValueError`` naming the path where the tree breaks its invariants: sibling keys
    not unique, an inner node with no children. ``deep=False`` checks one level only."""
    seen: set[str] = set()
    for choice in tree:
        path = f"{prefix}{PATH_SEPARATOR}{choice.key}" if prefix else choice.key
        if choice.key in seen:
            raise ValueError(f"{path}: two choices share the key {choice.key!r}")
        seen.add(choice.key)
        if choice.is_leaf:
            continue
        below = choice.expand()
        if not below:
            raise ValueError(f"{path}: offered, but nothing legal under it")
        if deep:
            check_tree(below, path)


def _keys(path: str) -> list[str]:
    return [k for k in path.split(PATH_SEPARATOR) if k] if path else []


_ACCEPTED: dict[tuple[int, int], tuple[object, Action, object]] = {}
"""The tables :func:`accepts` made last, by the state and the action (the very objects: a
tree's leaf carries the action it accepted), for :func:`applied`."""
_ACCEPTED_KEPT = 512


def accepts(apply: Callable[[S, Action], object], state: S, action: Action) -> bool:
    """Whether ``apply`` takes ``action`` on ``state`` (a refusal is a ``TracksideError``).

    A tree's leaves are checked with the game's own ``apply``, so the tree never offers what the
    rules refuse, and no rule is written twice (once to check, once to offer)."""
    try:
        after = apply(state, action)
    except TracksideError:
        return False
    key = (id(state), id(action))
    _ACCEPTED.pop(key, None)
    _ACCEPTED[key] = (state, action, after)  # (keeps both: their ids name no other object)
    while len(_ACCEPTED) > _ACCEPTED_KEPT:
        with contextlib.suppress(KeyError, RuntimeError, StopIteration):  # another thread's
            del _ACCEPTED[next(iter(_ACCEPTED))]
    return True


def applied(apply: Callable[[S, Action], T], state: S, action: Action) -> T:
    """``apply(state, action)``: the table :func:`accepts` made when the tree tried this very
    action on this very state (apply is a function of the state; the correction listing
    replays the leaves the tree offered), else applied now."""
    known = _ACCEPTED.get((id(state), id(action)))
    if known is not None and known[0] is state and known[1] is action:
        return cast("T", known[2])
    return apply(state, action)


def first_leaf(nodes: Sequence[Choice]) -> Choice | None:
    """The first leaf under ``nodes`` (depth first), or ``None``."""
    for node in nodes:
        if node.is_leaf:
            return node
        found = first_leaf(node.expand())
        if found is not None:
            return found
    return None


def branch(
    key: str, label: Message, player: int | None, build: Callable[[], tuple[Choice, ...]]
) -> Choice | None:
    """An inner node whose children ``build`` makes when opened, or ``None`` when it would be
    empty (a node with nothing legal under it is not offered). The children are built once."""
    built = build()
    if not built:
        return None
    return Choice(key, label, player, children=built)
