#!/usr/bin/env bash
# Install everything the tests need (Debian: mosquitto, socat, chromium, gcc; Python: the [test]
# extra) and run the whole suite: lint, types, tests. Exits non-zero on any failure.
source "$(dirname "$0")/_venv.sh"
apt_install mosquitto socat chromium gcc python3-dev shellcheck sqlite3 systemd logrotate python3-numpy python3-numexpr nginx-light openssl libxkbcommon0 xkb-data  # gcc, headers: evdev builds from source; numpy, numexpr: the camera install test; nginx-light, openssl: the HTTPS proxy test; libxkbcommon0, xkb-data: Slovak and Spanish scanner layouts; the rest: tests/deploy
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
