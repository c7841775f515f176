# Shared by scripts/demo.sh and scripts/test.sh: make sure .venv exists with Trackside in it.
# Needs only Python ≥ 3.11; installs Debian's python3-venv when the venv module is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {  # apt_install PACKAGE... — only what is missing, non-interactive
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "Trackside needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version 2>&1)" >&2; exit 2; }
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv
  "$PYTHON" -m venv .venv
fi
# PyICU (the lists' collation) has no wheels on PyPI: pip builds it once against Debian's ICU
# (then keeps the wheel). On the Pi the installer takes Debian's python3-icu instead.
.venv/bin/python -c 'import icu' 2>/dev/null || apt_install libicu-dev pkg-config g++ python3-dev
