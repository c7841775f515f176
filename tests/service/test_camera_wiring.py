"""The camera in the running service: a replayed overhead camera sees the five cards turned
face up at the start of a Ticket to Ride game, and the engine fills the face-up row."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import pytest

from companion.core import ConfigError
from companion.service.config import Settings, load_settings, parse_settings
from companion.service.runtime import Trackside
from vision.synthetic import SceneSpec, render_scene

from .conftest import command

ROW = ("red", "blue", "green", "white", "black")


def frames(folder: Path) -> None:
    folder.mkdir(parents=True)
    plan = [(2, SceneSpec(seed=1)), (6, SceneSpec(cards=ROW, layout="row", rotation_deg=5, seed=4))]
    index = 0
    for count, spec in plan:
        image = render_scene(spec).image
        for _ in range(count):
            cv2.imwrite(str(folder / f"frame{index:04d}.png"), image)
            index += 1


@pytest.mark.slow
def test_camera_fills_the_face_up_row(tmp_path: Path) -> None:
    frames(tmp_path / "overhead")
    settings = parse_settings(
        {
            "web": {"enabled": False},
            "camera": {
                "name": "overhead",
                "source": f"replay:{tmp_path / 'overhead'}",
                "fps_max": 50,
                "stable_frames": 3,
            },
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
    ]
    service.engine.handle(
        command({"command": "start_game", "game": "ticket-to-ride-europe", "players": players})
    )
    service.start()
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            session = service.engine.session()
            if session is not None and session.state.face_up_due == 0:
                break
            time.sleep(0.05)
        assert service.engine.session().state.face_up == ROW  # type: ignore[union-attr]
        service.wait_idle()
        assert "overhead" in service.latest()[1]["status"]["devices"]
    finally:
        service.stop()


def test_camera_options_are_checked_at_start_up(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text('[camera]\nsource = "v4l2:0"\nfps_max = 0\n')
    with pytest.raises(ConfigError, match=r"camera\.fps_max"):
        load_settings(config)
    config.write_text("[camera]\nwidth = 640\n")
    with pytest.raises(ConfigError, match=r"camera\.source: missing"):
        load_settings(config)
    config.write_text('[camera]\nsource = "v4l2:0"\nzoom = 2\n')
    with pytest.raises(ConfigError, match=r"camera\.zoom: unknown option"):
        load_settings(config)


def test_the_calibration_lives_in_the_data_dir_unless_configured(tmp_path: Path) -> None:
    def settings(camera: dict[str, object] | None) -> Settings:
        data = {"web": {"enabled": False}} | ({"camera": camera} if camera else {})
        return parse_settings(data, data_dir=tmp_path)

    plain = settings({"name": "overhead", "source": "v4l2:0"})
    assert plain.calibration_path() == tmp_path / "calibration" / "overhead.json"
    odd = settings({"name": "../Table 1/cam", "source": "v4l2:0"})
    assert odd.calibration_path() == tmp_path / "calibration" / ".._Table_1_cam.json"
    mine = settings({"source": "v4l2:0", "calibration_path": str(tmp_path / "mine.json")})
    assert mine.calibration_path() == tmp_path / "mine.json"
    assert settings(None).calibration_path() == tmp_path / "calibration" / "camera.json"


def test_calibrating_without_a_camera_says_there_is_none(tmp_path: Path) -> None:
    service = Trackside(parse_settings({"web": {"enabled": False}}, data_dir=tmp_path))
    try:
        assert service.camera_calibration is None
        with pytest.raises(ConfigError, match=r"camera: no camera is configured"):
            service.take_camera_shot()
        assert service.camera_calibration_path() == str(tmp_path / "calibration" / "camera.json")
    finally:
        service.stop()
