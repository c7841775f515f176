"""The camera at the edge: capture back ends (V4L2, Picamera2, replay) and pure detectors.
Imports only companion.core and companion.games."""
