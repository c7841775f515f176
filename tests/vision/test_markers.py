"""ArUco 4×4 markers on synthetic scenes: ids, corners, sizes, blur (synthetic data only)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.markers import MarkerDetector, marker_uid
from vision.synthetic import SceneSpec, render_scene


@pytest.mark.parametrize("background", ["dark", "wood", "light"])
@pytest.mark.parametrize(("size_px", "blur_sigma"), [(24.0, 0.0), (32.0, 0.8), (48.0, 1.5)])
def test_markers_at_their_readable_size_are_read_with_their_corners(
    background: str, size_px: float, blur_sigma: float
) -> None:
    detector = MarkerDetector()
    for seed in range(3):
        ids = (seed * 7 + 1, seed * 7 + 2, 90 + seed)
        scene = render_scene(
            SceneSpec(
                background=background,
                markers=tuple((i, size_px) for i in ids),
                blur_sigma=blur_sigma,
                tilt=0.1,
                seed=seed,
            )
        )
        found = detector.detect(scene.image)
        assert [m.marker_id for m in found] == sorted(ids)
        for truth in scene.markers:
            (marker,) = [m for m in found if m.marker_id == truth.marker_id]
            # The same four corners, up to where the marker's own order starts.
            got = np.asarray(marker.corners)
            want = np.asarray(truth.corners)
            error = min(float(np.abs(np.roll(got, k, axis=0) - want).max()) for k in range(4))
            assert error < 3.0
            assert abs(marker.side_px - size_px) < 0.2 * size_px


def test_too_small_or_too_blurred_markers_are_missed_not_misread() -> None:
    detector = MarkerDetector()
    for seed in range(4):
        ids = (10 + seed, 20 + seed, 30 + seed)
        for size_px, blur in ((12.0, 0.0), (16.0, 0.8), (24.0, 1.5)):
            scene = render_scene(
                SceneSpec(markers=tuple((i, size_px) for i in ids), blur_sigma=blur, seed=seed)
            )
            assert {m.marker_id for m in detector.detect(scene.image)} <= set(ids)


def test_cards_and_an_empty_table_hold_no_markers() -> None:
    detector = MarkerDetector()
    for background in ("dark", "wood", "light"):
        scene = render_scene(
            SceneSpec(background=background, cards=("black", "white", "locomotive"), seed=4)
        )
        assert detector.detect(scene.image) == []


def test_a_marker_id_becomes_a_reader_style_uid() -> None:
    assert marker_uid(17) == "ARUCO-17"


def test_a_grey_frame_is_accepted() -> None:
    scene = render_scene(SceneSpec(markers=((42, 40.0),)))
    grey = scene.image.mean(axis=2).astype(np.uint8)
    assert [m.uid for m in MarkerDetector().detect(grey)] == ["ARUCO-42"]


@pytest.mark.parametrize(
    "other", ["DICT_6X6_250", "DICT_5X5_100", "DICT_ARUCO_ORIGINAL", "DICT_APRILTAG_36h11"]
)
def test_a_sheet_of_another_dictionarys_markers_gives_no_id(other: str) -> None:
    """A wrong component is worse than a missed one: markers of other dictionaries (a real
    sheet of them once read as id 44) must read as nothing, sharp or blurred."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, other))
    rng = np.random.default_rng(7)
    detector = MarkerDetector()
    for _sheet in range(3):
        sheet = np.full((720, 1280), 235, np.uint8)
        for _ in range(12):
            side = int(rng.integers(40, 140))
            marker = cv2.aruco.generateImageMarker(dictionary, int(rng.integers(0, 50)), side)
            x, y = int(rng.integers(0, 1280 - side)), int(rng.integers(0, 720 - side))
            sheet[y : y + side, x : x + side] = marker
        for sigma in (0.0, 1.0, 1.8):
            image = sheet if sigma == 0.0 else cv2.GaussianBlur(sheet, (0, 0), sigma)
            assert detector.detect(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)) == []
