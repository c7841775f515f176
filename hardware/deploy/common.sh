# Shared by install.sh, upgrade.sh and backup.sh (sourced, not run).
#
# DESTDIR=/some/dir  stage every file under that directory and only PRINT the system commands
#                    (useradd, apt-get, pip, systemctl, udevadm): for tests and packaging.
# --dry-run          print everything, change nothing.
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this

PREFIX=/opt/trackside
DATA_DIR=/var/lib/trackside
SERVICE_USER=trackside
UNIT=trackside.service
DESTDIR=${DESTDIR:-}
DRY_RUN=${DRY_RUN:-0}
HTTPS=${HTTPS:-0}
HUB=${HUB:-0}

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

parse_common_args() {
  local arg
  for arg in "$@"; do
    case $arg in
      --dry-run) DRY_RUN=1 ;;
      --https) HTTPS=1 ;;
      --hub) HUB=1 ;;
      -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
      *) die "unknown option $arg (try --help)" ;;
    esac
  done
}
