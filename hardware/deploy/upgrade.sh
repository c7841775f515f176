#!/usr/bin/env bash
# Upgrade an installed Trackside to THIS checkout, keeping the database and the config.
#
#   git pull   (or unpack the new version), then:   sudo hardware/deploy/upgrade.sh
#
# Steps: stop the service; copy the database with sqlite3 .backup (db/backups/); run
# install.sh (pip installs the new version, refreshes the unit, udev and logrotate files, keeps
# the config) which starts the service again; the store migrates its schema on that start;
# then wait until the unit is active. If the new version fails, the backup and the way back
# are printed. DESTDIR=… and --dry-run work as for install.sh.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
args=("$@")
parse_common_args "$@"
need_root

DB=$DESTDIR$DATA_DIR/db/trackside.sqlite3
run systemctl stop "$UNIT"
backup=""
if [ "$DRY_RUN" = 1 ]; then
  say "would back up $DB with sqlite3 .backup"
elif [ -f "$DB" ]; then
  backup=$("$HERE/backup.sh" "$DB" | tail -n 1)
  say "database copied to $backup"
else
  say "no database at $DB yet: nothing to back up"
fi

"$HERE/install.sh" "${args[@]}"

if ! staged; then
  for _ in $(seq 1 30); do
    if systemctl is-active --quiet "$UNIT"; then
      say "upgraded; the service is running"
      exit 0
    fi
    sleep 1
  done
  say "the service did not come up: see 'journalctl -u trackside -n 50'"
  if [ -n "$backup" ]; then
    say "to go back: sudo systemctl stop trackside; sudo -u trackside cp '$backup' '$DB';"
    say "then install the old version from its checkout with hardware/deploy/install.sh"
  fi
  exit 1
fi
