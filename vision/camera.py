"""The camera: one daemon thread turning frames into :class:`Observation` records.

Each frame (at most ``fps_max`` a second, so the camera never starves the engine thread):

- ArUco markers → ``tag_present`` / ``tag_removed`` with ``{"uid": "ARUCO-<id>"}``, once a marker
  has been seen for ``stable_frames`` frames, or missed for about a second;
- train cards → ``cards`` with ``{"colours": [...], "confidences": [...], "guesses": [...]}``
  (left to right) once the same reading holds for ``stable_frames`` frames; a card below
  ``unsure_below`` has the colour ``"unsure"`` (its nearest class in ``guesses``), so the table
  page can ask. The same cards lying there are reported once; clearing the area and turning new
  cards (even the same colours) reports again.

A still table is not read again: once both readings have held, a frame showing what the last
frame read showed changes nothing and is skipped (read all the same once a second;
:attr:`CameraStatus.still_frames` counts the skipped ones).

The detectors' frames (after warm-up) stay available: :meth:`Camera.latest_frame` and
:meth:`Camera.recent_frames` copy the last few on request (the thread only keeps references), for
the calibration step on the table page and its still; :meth:`Camera.times_lost` counts the
device losses (each drops those frames). :meth:`Camera.use_palette` swaps the colour palette while
the camera runs (a new calibration takes effect at the next frame).

The markers of a frame are read on a thread of their own while the camera's thread finds its
cards (each task's OpenCV on one thread).

The camera never dies: a bad frame is counted and skipped, a detector error is counted, a
lost device is reopened with back-off (state ``searching`` / ``error``), each distinct problem is
logged once.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, Literal

import cv2
import numpy as np
import numpy.typing as npt

from companion.core import ConfigError, Observation, ObservationKind, SnapshotError
from companion.core.ids import ReaderId
from vision.capture import BadFrameError, CaptureError, Frame, FrameSource, open_source
from vision.cards import carries_marker, read_train_cards
from vision.markers import Marker, MarkerDetector, marker_uid
from vision.palette import Palette, load_palette
from vision.vote import MarkerPresence, StableVote

log = logging.getLogger("trackside.vision")

CameraState = Literal["searching", "connected", "error"]
_BACKOFF_MIN_S: Final = 0.5
_BACKOFF_MAX_S: Final = 30.0
_MARKER_GONE_S: Final = 1.0  # a marker missed this long (and ≥ 3 votes' worth) is removed
RECENT_FRAMES: Final = 5  # frames kept (as references) for latest_frame / recent_frames
# A still table: a frame that shows what the last frame looked at showed, once that reading has
# held (the vote steady, every marker settled), is not looked at: reading it would change
# nothing. On a Pi the camera's thread then mostly sleeps between changes, and the engine and
# the web server, which share its process and its interpreter, get the time (a frame's card
# finding is mostly Python, holding the interpreter lock). Frames are compared on a thumbnail
# of their grey picture, _THUMB (at 1280 × 720 each of its pixels the mean of 8 × 8, so the
# sensor's noise is averaged away); more than _STILL_PIXELS of its pixels changed by more than
# _STILL_LEVEL grey levels is a change (the smallest card looked for covers 17 of them). A
# still table is looked at again after _STILL_LOOK_S all the same.
_THUMB: Final = (160, 90)
_STILL_LEVEL: Final = 6
_STILL_PIXELS: Final = 3
_STILL_LOOK_S: Final = 1.0


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """One camera, as the service's config file describes it."""

    name: str
    source: str  # "picamera2", "v4l2:/dev/video0" (or "v4l2:0"), "replay:<folder or video>"
    width: int = 1280
    height: int = 720
    fps_max: float = 10.0
    warmup_s: float = 2.0  # live cameras: auto-exposure settles, then it is locked
    calibration_path: str | None = None
    stable_frames: int = 3
    unsure_below: float = 0.75
    # Where the tunnel's cards are turned: (left, top, width, height) as fractions of the frame.
    # Cards elsewhere (the face-up market, players' hands) are not read. None: the whole frame.
    reveal_area: tuple[float, float, float, float] | None = None
    # A replay starts again at its end (the folder listed anew each pass): demos, and tests
    # that change what the camera sees by replacing an image. Only for replay: sources.
    loop: bool = False

    def __post_init__(self) -> None:
        def bad(option: str, reason: str) -> ConfigError:
            return ConfigError(f"camera.{option}", reason)

        if not self.name:
            raise bad("name", "a camera needs a name (it is the observations' source)")
        for option in ("width", "height"):
            value = getattr(self, option)
            if not isinstance(value, int) or isinstance(value, bool) or not 16 <= value <= 8192:
                raise bad(option, f"expected a number of pixels (16–8192), got {value!r}")
        if not (isinstance(self.fps_max, int | float) and 0 < self.fps_max <= 120):
            raise bad("fps_max", f"expected frames per second in (0, 120], got {self.fps_max!r}")
        if not (isinstance(self.warmup_s, int | float) and 0 <= self.warmup_s <= 60):
            raise bad("warmup_s", f"expected seconds in [0, 60], got {self.warmup_s!r}")
        if not isinstance(self.stable_frames, int) or not 1 <= self.stable_frames <= 100:
            raise bad("stable_frames", f"expected 1–100 frames, got {self.stable_frames!r}")
        if not (isinstance(self.unsure_below, int | float) and 0 <= self.unsure_below <= 1):
            raise bad("unsure_below", f"expected a confidence in [0, 1], got {self.unsure_below!r}")
        if not isinstance(self.loop, bool):
            raise bad("loop", f"expected true or false, got {self.loop!r}")
        if self.loop and not str(self.source).startswith("replay:"):
            raise bad("loop", f"only a replay: source can loop, not {self.source!r}")
        area = self.reveal_area
        if area is not None and not (
            isinstance(area, tuple)
            and len(area) == 4
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in area)
            and 0 <= area[0] < 1
            and 0 <= area[1] < 1
            and 0 < area[2] <= 1 - area[0]
            and 0 < area[3] <= 1 - area[1]
        ):
            raise bad(
                "reveal_area",
                f"expected (left, top, width, height) as fractions inside the frame, got {area!r}",
            )

    def reveal_pixels(self, width: int, height: int) -> tuple[slice, slice]:
        """The reveal area as (rows, columns) slices of a width × height frame."""
        if self.reveal_area is None:
            return slice(0, height), slice(0, width)
        left, top, w, h = self.reveal_area
        return (
            slice(round(top * height), round((top + h) * height)),
            slice(round(left * width), round((left + w) * width)),
        )


@dataclass(frozen=True, slots=True)
class CameraStatus:
    state: CameraState
    last_error: str | None
    frames: int  # frames read (warm-up included)
    bad_frames: int  # frames skipped: unreadable, or a detector failed on them
    finished: bool = False  # a replay played to its end (the thread has stopped)
    exposure_locked: bool = False
    palette: str = "default"  # the palette in use: "default" or the calibration's camera name
    still_frames: int = 0  # frames not looked at: the table was still (see _THUMB)


Sink = Callable[[Observation], None]
SourceFactory = Callable[[CameraConfig], FrameSource]


def _default_source(config: CameraConfig) -> FrameSource:
    return open_source(config.source, config.width, config.height, config.fps_max, loop=config.loop)


class Camera:
    """Runs one camera on its own daemon thread; see the module's documentation."""

    def __init__(
        self,
        config: CameraConfig,
        sink: Sink,
        palette: Palette,
        source_factory: SourceFactory = _default_source,
    ) -> None:
        self.config = config
        self._sink = sink
        self._palette = palette
        self._source_factory = source_factory
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._state: CameraState = "searching"
        self._last_error: str | None = None
        self._frames = 0
        self._bad_frames = 0
        self._finished = False
        self._locked = False
        self._lost = 0  # times the device was lost while running
        self._still_frames = 0
        self._logged: set[str] = set()
        # References only: every back end hands out a new array per read, nothing writes to a
        # frame after it was read, so keeping one costs nothing; copies are made on request.
        self._recent: deque[Frame] = deque(maxlen=RECENT_FRAMES)

    # -- the public surface -------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"camera {self.config.name!r} already started")
        self._thread = threading.Thread(
            target=self._run, name=f"camera-{self.config.name}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Ask the thread to end and wait up to ``timeout_s``; True if it has ended."""
        self._stop.set()
        if self._thread is None:
            return True
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def status(self) -> CameraStatus:
        with self._lock:
            return CameraStatus(
                self._state,
                self._last_error,
                self._frames,
                self._bad_frames,
                self._finished,
                self._locked,
                self._palette.source,
                self._still_frames,
            )

    @property
    def palette(self) -> Palette:
        with self._lock:
            return self._palette

    def use_palette(self, palette: Palette) -> None:
        """Read card colours with ``palette`` from the next frame on (thread-safe)."""
        with self._lock:
            self._palette = palette

    def has_frame(self) -> bool:
        """A frame is kept (see :meth:`latest_frame`), without copying it."""
        with self._lock:
            return bool(self._recent)

    def latest_frame(self) -> Frame | None:
        """A copy of the newest frame the detectors saw (after warm-up), None before the first
        one or after the device was lost. A replay's last frame stays after it finished."""
        with self._lock:
            newest = self._recent[-1] if self._recent else None
        return None if newest is None else newest.copy()

    def times_lost(self) -> int:
        """How often the device was lost while running (each loss drops the kept frames): a
        change means the view may have moved since (the calibration step drops its shots)."""
        with self._lock:
            return self._lost

    def recent_frames(self, count: int) -> list[Frame]:
        """Copies of up to ``count`` (at most ``RECENT_FRAMES``) newest frames, oldest first."""
        if count < 1:
            raise ValueError(f"count: expected at least 1 frame, got {count!r}")
        with self._lock:
            kept = list(self._recent)[-count:]
        return [frame.copy() for frame in kept]

    # -- the thread ---------------------------------------------------------------------

    def _problem(
        self, message: str, *, bad_frame: bool = False, state: CameraState | None = None
    ) -> None:
        with self._lock:
            self._last_error = message
            if bad_frame:
                self._bad_frames += 1
            if state is not None:
                self._state = state
        if message not in self._logged and len(self._logged) < 100:
            self._logged.add(message)
            log.warning("camera %s: %s", self.config.name, message)

    def _set(self, state: CameraState) -> None:
        with self._lock:
            self._state = state

    def _emit(self, kind: ObservationKind, payload: dict[str, object]) -> None:
        try:
            self._sink(Observation(ReaderId(self.config.name), kind, payload))
        except Exception as exc:  # the camera outlives a failing consumer
            self._problem(f"the observation sink failed: {exc!r}")

    def _run(self) -> None:
        # OpenCV on one thread per task: the markers are read on a thread of their own while
        # this one finds the cards, which make some of their masks on one helper thread beside
        # it (vision.cards._Helper). Markers are OpenCV's work, which runs outside Python's lock,
        # and the card finder's time is mostly its Python: side by side, a real photo's frame
        # took 13.9 / 26.3 ms (median / p95) on a machine of two cores, against 17.6 / 34.0 one
        # after the other. The Pi 4's other cores stay with the engine and the web server.
        cv2.setNumThreads(1)
        markers = _MarkerThread()
        interval_s = 1.0 / self.config.fps_max
        absent = max(3 * self.config.stable_frames, math.ceil(_MARKER_GONE_S * self.config.fps_max))
        presence = MarkerPresence(self.config.stable_frames, absent)
        vote: StableVote[tuple[str, ...]] = StableVote(self.config.stable_frames)
        still = _StillView()
        backoff_s = _BACKOFF_MIN_S
        source: FrameSource | None = None
        warm_until = 0.0
        next_frame = time.monotonic()
        try:
            while not self._stop.is_set():
                if source is None:
                    self._set("searching")
                    candidate = self._source_factory(self.config)
                    try:
                        candidate.open()
                    except Exception as exc:  # CaptureError, or a driver's own error
                        self._problem(str(exc) or repr(exc), state="error")
                        self._stop.wait(backoff_s)
                        backoff_s = min(_BACKOFF_MAX_S, backoff_s * 2)
                        continue
                    source = candidate
                    backoff_s = _BACKOFF_MIN_S
                    warm_until = time.monotonic() + (self.config.warmup_s if source.is_live else 0)
                    with self._lock:
                        self._locked = False
                    self._set("connected")
                now = time.monotonic()
                if now < next_frame:
                    self._stop.wait(next_frame - now)
                    continue
                next_frame = max(next_frame + interval_s, now)
                try:
                    frame = source.read()
                except BadFrameError as exc:
                    self._problem(str(exc), bad_frame=True)
                    continue
                except CaptureError as exc:
                    self._problem(str(exc), state="searching")
                    with self._lock:
                        self._recent.clear()  # what a lost camera last saw is no view to use
                        self._lost += 1
                    source.close()
                    source = None
                    still.forget()  # the view may have moved
                    continue
                except Exception as exc:  # a driver's surprise: one bad frame, not the end
                    self._problem(f"{source.description}: {exc!r}", bad_frame=True)
                    continue
                if frame is None:
                    with self._lock:
                        self._finished = True
                    break
                with self._lock:
                    self._frames += 1
                if source.is_live and time.monotonic() < warm_until:
                    continue
                if source.is_live and not self._locked:
                    locked = source.lock_exposure()
                    with self._lock:
                        self._locked = locked
                    if not locked:
                        self._problem(f"{source.description}: cannot lock exposure/white balance")
                with self._lock:
                    self._recent.append(frame)
                    palette = self._palette
                settled = vote.steady and presence.steady
                if still.same(frame, palette, time.monotonic(), settled):
                    with self._lock:
                        self._still_frames += 1
                    continue
                self._process(frame, palette, markers, presence, vote)
        finally:
            markers.close()
            if source is not None:
                source.close()

    def _process(
        self,
        frame: Frame,
        palette: Palette,
        marker_thread: _MarkerThread,
        presence: MarkerPresence,
        vote: StableVote[tuple[str, ...]],
    ) -> None:
        try:
            reading_markers = marker_thread.read(frame)  # while the cards are found here
            rows, columns = self.config.reveal_pixels(frame.shape[1], frame.shape[0])
            try:
                cards = read_train_cards(frame[rows, columns], palette, self.config.unsure_below)
            finally:
                markers = reading_markers.result()  # (done before the next frame is read)
            # a ticket with its sticker in the reveal area is a component, not a train card
            centres = [(x - columns.start, y - rows.start) for x, y in (m.centre for m in markers)]
            cards = [c for c in cards if not carries_marker(c.corners, centres)]
        except Exception as exc:  # a detector failing on one frame must not end the camera
            self._problem(f"a frame could not be read: {exc!r}", bad_frame=True)
            return
        for kind, marker_id in presence.update(m.marker_id for m in markers):
            self._emit(ObservationKind(kind), {"uid": marker_uid(marker_id)})
        reading = tuple(card.colour for card in cards)
        settled = vote.update(reading)
        if settled:  # a new non-empty reading (an empty table is never reported)
            self._emit(
                ObservationKind.CARDS,
                {
                    "colours": list(reading),
                    "confidences": [round(card.confidence, 3) for card in cards],
                    "guesses": [card.guess for card in cards],
                },
            )


class _MarkerThread:
    """The camera's markers, read on a thread of their own with its own detector (one per
    thread), one frame at a time, while the camera's thread finds the cards."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="camera-markers")
        self._detector = self._pool.submit(MarkerDetector).result()

    def read(self, frame: Frame) -> Future[list[Marker]]:
        return self._pool.submit(self._detector.detect, frame)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


class _StillView:
    """Whether a frame shows what the last frame looked at showed (see _THUMB)."""

    def __init__(self) -> None:
        self._thumb: npt.NDArray[np.uint8] | None = None
        self._palette: Palette | None = None
        self._looked_at = 0.0

    def forget(self) -> None:
        self._thumb = None

    def same(self, frame: Frame, palette: Palette, now: float, settled: bool) -> bool:
        """True: ``frame`` need not be looked at (the reading it would give has ``settled``,
        it shows what the last frame looked at showed, read with the same ``palette``, less
        than _STILL_LOOK_S ago). False: it is to be looked at, and is the one compared with
        from now on."""
        thumb = np.asarray(cv2.resize(frame, _THUMB, interpolation=cv2.INTER_AREA), np.uint8)
        if thumb.ndim == 3:
            thumb = np.asarray(cv2.cvtColor(thumb, cv2.COLOR_BGR2GRAY), np.uint8)
        last = self._thumb
        if (
            settled
            and last is not None
            and palette is self._palette
            and now - self._looked_at < _STILL_LOOK_S
        ):
            _, changed = cv2.threshold(
                cv2.absdiff(thumb, last), _STILL_LEVEL, 255, cv2.THRESH_BINARY
            )
            if cv2.countNonZero(changed) <= _STILL_PIXELS:
                return True
        self._thumb, self._palette, self._looked_at = thumb, palette, now
        return False


def open_camera(
    config: CameraConfig,
    sink: Sink,
    *,
    source_factory: SourceFactory = _default_source,
    default_calibration_path: str | None = None,
) -> Camera:
    """A camera ready to :meth:`Camera.start`. A bad source name or calibration file is a
    ConfigError now (naming the option), not a silent default later.

    The palette: the configured ``calibration_path``; without one, the file at
    ``default_calibration_path`` (the service's per-camera default) when it exists; else the
    default palette. A malformed file is an error in both cases."""
    if source_factory is _default_source:
        open_source(config.source, config.width, config.height, config.fps_max)  # validates
    path = config.calibration_path
    if path is None and default_calibration_path and os.path.exists(default_calibration_path):
        path = default_calibration_path
    try:
        palette = load_palette(path)
    except SnapshotError as exc:
        where = "" if path == config.calibration_path else " (the default calibration file)"
        raise ConfigError("camera.calibration_path", f"{exc}{where}") from None
    return Camera(config, sink, palette, source_factory)


__all__ = [
    "Camera",
    "CameraConfig",
    "CameraState",
    "CameraStatus",
    "open_camera",
]
