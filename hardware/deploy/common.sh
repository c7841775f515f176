# Shared by install.sh, upgrade.sh and backup.sh (sourced, not run).
#
# DESTDIR=/some/dir  stage every file under that directory and only PRINT the system commands
#                    (useradd, apt-get, pip, systemctl, udevadm): for tests and packaging.
# --dry-run          print everything, change nothing.
# --purge            (uninstall.sh) also delete the table's data and the service user.
# OS_RELEASE=FILE    read the release from FILE, not /etc/os-release (tests: other releases).
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this

PREFIX=/opt/trackside
DATA_DIR=/var/lib/trackside
SERVICE_USER=trackside
UNIT=trackside.service
DESTDIR=${DESTDIR:-}
DRY_RUN=${DRY_RUN:-0}
HTTPS=${HTTPS:-0}
HUB=${HUB:-0}
PURGE=${PURGE:-0}
OS_RELEASE=${OS_RELEASE:-/etc/os-release}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)

say() { printf '%s\n' "trackside: $*"; }
die() { printf '%s\n' "trackside: error: $*" >&2; exit 1; }

staged() { [ -n "$DESTDIR" ] || [ "$DRY_RUN" = 1 ]; }

# run CMD...: a command that changes the system; printed instead when staged or dry.
run() {
  if staged; then
    printf 'would run:'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}

# put SOURCE TARGET MODE: a file into place (under DESTDIR when staging).
put() {
  if [ "$DRY_RUN" = 1 ]; then
    say "would install $1 -> $2 (mode $3)"
  else
    install -D -m "$3" "$1" "$DESTDIR$2"
    say "installed $2"
  fi
}

# mkdirs MODE DIR...: directories (under DESTDIR when staging).
mkdirs() {
  local mode=$1; shift
  local dir
  for dir in "$@"; do
    if [ "$DRY_RUN" = 1 ]; then
      say "would create $dir (mode $mode)"
    else
      install -d -m "$mode" "$DESTDIR$dir"
    fi
  done
}

need_root() {
  if ! staged && [ "$(id -u)" -ne 0 ]; then
    die "run as root (sudo $0), or with DESTDIR=… / --dry-run to see what it would do"
  fi
}

# check_release OS_RELEASE DPKG_ARCH: stop before anything changes on a system the installer
# does not know. Known: Debian 12 "bookworm" (Python 3.11, apt numpy 1.24) and Debian 13
# "trixie" (Python 3.13, apt numpy 2.2), Raspberry Pi OS of either, 64-bit (arm64, or amd64 for
# a PC). Prints the release on success.
check_release() {
  local file=$1 arch=$2 id like codename
  [ -r "$file" ] || die "cannot read $file: which system is this? The installer knows Debian 12 (bookworm) and 13 (trixie), 64-bit"
  # shellcheck disable=SC1090  # os-release is a shell fragment by definition
  id=$(. "$file" && printf '%s' "${ID:-}")
  # shellcheck disable=SC1090
  like=$(. "$file" && printf '%s' "${ID_LIKE:-}")
  # shellcheck disable=SC1090
  codename=$(. "$file" && printf '%s' "${VERSION_CODENAME:-}")
  case $arch in
    arm64|amd64) ;;
    armhf|armel|i386)
      die "this is a 32-bit system ($arch); Trackside needs a 64-bit one (its OpenCV and numpy come as 64-bit builds). Write Raspberry Pi OS (64-bit), Bookworm or Trixie, to the card with Raspberry Pi Imager (a Pi 3, 4, 5, 400, 500 or Zero 2 W runs it; a Pi 1 or Zero cannot), then run this installer again" ;;
    *) die "unknown architecture '$arch': the installer knows 64-bit ARM (arm64) and PCs (amd64)" ;;
  esac
  case " $id $like " in
    *" debian "*|*" raspbian "*) ;;
    *) die "this is '${id:-an unknown system}', not Debian or Raspberry Pi OS: the installer knows Debian 12 (bookworm) and 13 (trixie)" ;;
  esac
  case $codename in
    bookworm|trixie) say "release: $codename ($arch)" ;;
    *) die "this is Debian '${codename:-unknown}': the installer knows bookworm (Debian 12) and trixie (Debian 13), whose Python, numpy and Picamera2 it was checked against; install one of those (Raspberry Pi OS 64-bit is either)" ;;
  esac
}

# apt_pins: a pip constraints file holding numpy and Pillow to the versions apt installed for the
# system Python (what Picamera2 was built against); a package apt does not have is not pinned.
apt_pins() {
  /usr/bin/python3 - <<'PY'
import importlib.metadata as metadata

for name in ("numpy", "pillow"):
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        continue
    if str(dist.locate_file("")).startswith("/usr/lib/python3/"):
        print(f"{name}=={dist.version}")
PY
}

parse_common_args() {
  local arg
  for arg in "$@"; do
    case $arg in
      --dry-run) DRY_RUN=1 ;;
      --https) HTTPS=1 ;;
      --hub) HUB=1 ;;
      --purge) PURGE=1 ;;
      -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
      *) die "unknown option $arg (try --help)" ;;
    esac
  done
}
