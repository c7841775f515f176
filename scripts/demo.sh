#!/usr/bin/env bash
# Start Trackside with no hardware: virtual readers replay a recorded game night and the live
# scoreboard is at http://127.0.0.1:8080/ (pass --port N, --speed X to change).
source "$(dirname "$0")/_venv.sh"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
exec .venv/bin/trackside demo "$@"
