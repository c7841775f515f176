#!/usr/bin/env bash
# Install everything the tests need (Debian: mosquitto, socat, chromium, gcc; Python: the [test]
# extra) and run the whole suite: lint, types, tests. Exits non-zero on any failure.
#
#   bash scripts/test.sh            everything, on every core (pytest-xdist)
#   bash scripts/test.sh --quick    the inner loop: core, games, i18n and the web without the
#                                   browser (no Chromium, no broker, no subprocess service)
#   bash scripts/test.sh ARGS…      pytest's own arguments are passed on (e.g. -k, a path)
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
source "$(dirname "$0")/_venv.sh"
apt_install mosquitto socat chromium gcc python3-dev shellcheck sqlite3 systemd logrotate python3-numpy python3-numexpr nginx-light openssl libxkbcommon0 xkb-data  # gcc, headers: evdev builds from source; numpy, numexpr: the camera install test; nginx-light, openssl: the HTTPS proxy test; libxkbcommon0, xkb-data: Slovak and Spanish scanner layouts; the rest: tests/deploy
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The tests' files (SQLite databases, brokers' folders, browser profiles) on tmpfs where the
# machine has one: every SQLite commit is synchronous=FULL, which costs 8 ms on this disk and
# 0.1 ms there. No test can prove durability through a power cut, and a killed process's writes
# survive in the page cache either way, so what the tests prove is the same.
if [ -z "${TRACKSIDE_TEST_TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  TRACKSIDE_TEST_TMPDIR=$(mktemp -d /dev/shm/trackside-tests.XXXXXX)
  trap 'rm -rf -- "$TRACKSIDE_TEST_TMPDIR"' EXIT
fi
export TMPDIR=${TRACKSIDE_TEST_TMPDIR:-${TMPDIR:-/tmp}}
echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
# Each worker has its own Chromium, brokers, services and temporary folders (free ports,
# tmp_path); --maxschedchunk 1 hands out tests one at a time, longest first (tests/conftest.py).
# Two workers per core: a test in a browser or against a broker mostly waits (here, from a fresh
# clone: 11 min 25 s with one worker per core, 10 min 10 s with two).
workers=$(( $(nproc) * 2 ))
[ "$workers" -le 8 ] || workers=8
parallel=(-n "$workers" --dist load --maxschedchunk 1)
status=0
if [ "$quick" -eq 1 ]; then
  .venv/bin/python -m pytest "${parallel[@]}" -m "not browser and not slow" \
    tests/core tests/games tests/web tests/i18n tests/test_dependency_rule.py "$@" || status=$?
else
  .venv/bin/python -m pytest "${parallel[@]}" "$@" || status=$?
fi
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
