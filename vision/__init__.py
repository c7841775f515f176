"""The camera at the edge: capture back ends, pure detectors, and the loop that turns frames
into :class:`companion.core.Observation` records.

- :mod:`vision.cards` finds train cards and reads their colour (pure, numpy + OpenCV).
- :mod:`vision.markers` reads ArUco 4×4 markers (pure).
- :mod:`vision.vote` holds results until they are stable over several frames (pure).
- :mod:`vision.capture` moves frames: ``replay:``, V4L2 through OpenCV, Picamera2 (lazily).
- :mod:`vision.camera` is the camera thread; :mod:`vision.see` and :mod:`vision.calibrate` back
  ``trackside see`` and ``trackside vision calibrate``; :mod:`vision.table_calibration` is the
  calibration step on the table page (a running camera's still, calibrate, back to default).
- :mod:`vision.synthetic` draws test scenes (validation so far is on synthetic data only: see
  ``docs/vision.md``).

This package imports ``companion.core`` and ``companion.games`` only (never the service, the web
app or the firmware bridge).
"""
