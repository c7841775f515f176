"""The synthetic scene generator draws what it says it draws (tests rely on its ground truth)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.palette import CARD_CLASSES
from vision.synthetic import BACKGROUNDS, LIGHTS, SceneSpec, render_scene


def test_a_scene_is_a_bgr_frame_of_the_asked_size_with_its_ground_truth() -> None:
    scene = render_scene(
        SceneSpec(width=320, height=240, cards=("red", "locomotive"), markers=((5, 30.0),))
    )
    assert scene.image.shape == (240, 320, 3)
    assert scene.image.dtype == np.uint8
    assert [c.colour for c in scene.cards] == ["red", "locomotive"]
    assert [m.marker_id for m in scene.markers] == [5]
    for truth in (*scene.cards, *scene.markers):
        assert len(truth.corners) == 4
        for x, y in truth.corners:
            assert 0 <= x < 320 and 0 <= y < 240


def test_the_same_spec_draws_the_same_scene_and_another_seed_another() -> None:
    spec = SceneSpec(background="wood", light="glare", cards=("blue",), blur_sigma=1.0, seed=3)
    assert np.array_equal(render_scene(spec).image, render_scene(spec).image)
    other = SceneSpec(background="wood", light="glare", cards=("blue",), blur_sigma=1.0, seed=4)
    assert not np.array_equal(render_scene(spec).image, render_scene(other).image)


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_backgrounds_differ_as_a_dark_mat_wood_and_a_light_table_do(background: str) -> None:
    scene = render_scene(SceneSpec(width=160, height=120, background=background))
    mean = scene.image.reshape(-1, 3).mean(axis=0)  # B, G, R
    if background == "dark":
        assert mean.max() < 80
    elif background == "wood":
        assert mean[2] > mean[0] + 40  # brown: far more red than blue
    else:
        assert mean.min() > 180


def test_warm_light_turns_the_table_orange_and_dim_light_darkens_it() -> None:
    base = SceneSpec(width=160, height=120, background="light")
    neutral = render_scene(base).image.reshape(-1, 3).mean(axis=0)
    warm = render_scene(SceneSpec(width=160, height=120, background="light", light="warm"))
    dim = render_scene(SceneSpec(width=160, height=120, background="light", light="dim"))
    b, _g, r = warm.image.reshape(-1, 3).mean(axis=0)
    assert r - b > 60
    assert dim.image.mean() < 0.6 * neutral.mean()


def test_glare_saturates_a_spot_near_a_card() -> None:
    scene = render_scene(SceneSpec(background="dark", light="glare", cards=("black",)))
    assert (scene.image.min(axis=2) == 255).sum() > 50


def test_every_light_and_class_can_be_drawn() -> None:
    for light in LIGHTS:
        scene = render_scene(
            SceneSpec(width=480, height=360, light=light, cards=CARD_CLASSES[:5], seed=1)
        )
        assert len(scene.cards) == 5


def test_a_crowded_table_is_refused_rather_than_drawn_overlapping() -> None:
    with pytest.raises(ValueError, match="cannot place"):
        render_scene(SceneSpec(width=160, height=120, cards=CARD_CLASSES, card_width_px=60))
