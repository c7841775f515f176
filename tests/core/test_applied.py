"""``applied``: the table ``accepts`` made when a tree tried a leaf, used again."""

from __future__ import annotations

from companion.core.actions import Action
from companion.core.choices import accepts, applied
from companion.core.errors import IllegalActionError


def test_a_leaf_the_tree_accepted_is_not_applied_again() -> None:
    calls: list[Action] = []

    def apply(state: tuple[int, ...], action: Action) -> tuple[int, ...]:
        calls.append(action)
        if action.arg("n") < 0:
            raise IllegalActionError("negative")
        return (*state, action.arg("n"))

    state = (1,)
    leaf = Action("add", 0, {"n": 2})
    assert accepts(apply, state, leaf)
    assert applied(apply, state, leaf) == (1, 2)
    assert calls == [leaf]  # the table accepts made
    # an equal action that is another object, or another state: applied now
    twin = Action("add", 0, {"n": 2})
    assert applied(apply, state, twin) == (1, 2)
    other = tuple([1])  # equal, another object
    assert other is not state
    assert applied(apply, other, leaf) == (1, 2)
    assert calls == [leaf, twin, leaf]
    # a refused action is not kept: applied now, refused again
    wrong = Action("add", 0, {"n": -1})
    assert not accepts(apply, state, wrong)
    try:
        applied(apply, state, wrong)
    except IllegalActionError:
        pass
    else:
        raise AssertionError("a refused action was taken")
