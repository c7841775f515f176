#!/usr/bin/env bash
# Copy the Trackside database with sqlite3's online .backup (safe while the service runs).
#
#   sudo hardware/deploy/backup.sh [DATABASE]
#
# DATABASE defaults to /var/lib/trackside/db/trackside.sqlite3 (under DESTDIR when set). The
# copy goes to db/backups/trackside-<UTC time>.sqlite3 beside it, is checked with
# PRAGMA integrity_check, and its path is printed last.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
db=${1:-$DESTDIR$DATA_DIR/db/trackside.sqlite3}
[ -f "$db" ] || die "no database at $db"
command -v sqlite3 >/dev/null || die "sqlite3 is missing (apt-get install sqlite3)"
backups=$(dirname "$db")/backups
mkdir -p "$backups"
out=$backups/trackside-$(date -u +%Y%m%dT%H%M%SZ).sqlite3
[ ! -e "$out" ] || out=${out%.sqlite3}-$$.sqlite3
sqlite3 "$db" ".timeout 10000" ".backup '$out'"
check=$(sqlite3 "$out" "PRAGMA integrity_check")
[ "$check" = ok ] || die "the backup $out failed its integrity check: $check"
chmod 0640 "$out"
if [ "$(id -u)" -eq 0 ] && [ -z "$DESTDIR" ] && id "$SERVICE_USER" >/dev/null 2>&1; then
  chown "$SERVICE_USER:$SERVICE_USER" "$out"
fi
say "backup written and checked"
printf '%s\n' "$out"
