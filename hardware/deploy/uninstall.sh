#!/usr/bin/env bash
# Remove Trackside from this machine, keeping the table's data unless told otherwise.
#
#   sudo hardware/deploy/uninstall.sh           (or /opt/trackside/deploy/uninstall.sh)
#   sudo hardware/deploy/uninstall.sh --purge   also delete /var/lib/trackside (config,
#                                               database, backups, logs) and the user trackside
#   hardware/deploy/uninstall.sh --dry-run      print what it would do, change nothing
#
# Steps: stop and disable the service; take the table's device out of Home Assistant
# (`trackside ha-remove`: the retained discovery configs are cleared, or Home Assistant keeps a
# ghost device); remove the unit, the udev rules, the logrotate config, the broker's Trackside
# files (listener, ACL, password file, club bridge) and the HTTPS proxy's site and certificate;
# remove /opt/trackside and /usr/local/bin/trackside. The Debian packages the installer added
# (mosquitto, nginx-light, python3-*) stay: other things may use them (apt-get remove them
# yourself). Without --purge, /var/lib/trackside stays as it is: installing again picks it up.
# DESTDIR=… works as for install.sh.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
parse_common_args "$@"
need_root

CONFIG=$DATA_DIR/config/trackside.toml

# remove PATH...: files or folders (under DESTDIR when staging); printed on a dry run.
remove() {
  local path
  for path in "$@"; do
    if [ "$DRY_RUN" = 1 ]; then
      say "would remove $path"
    elif [ -e "$DESTDIR$path" ] || [ -L "$DESTDIR$path" ]; then
      rm -rf -- "$DESTDIR$path"
      say "removed $path"
    fi
  done
}

# 1. The service, stopped first: the broker allows one connection per name, and a running
#    service would announce the table to Home Assistant again.
run systemctl disable --now "$UNIT" || say "warning: the unit could not be stopped (not installed?)"

# 2. Home Assistant: clear the table's retained discovery configs (docs/mqtt.md).
if staged; then
  say "would run: $PREFIX/venv/bin/trackside ha-remove --config $CONFIG (when $CONFIG has [mqtt])"
elif [ -x "$PREFIX/venv/bin/trackside" ] && [ -f "$CONFIG" ] && grep -q '^\[mqtt\]' "$CONFIG"; then
  runuser -u "$SERVICE_USER" -- "$PREFIX/venv/bin/trackside" ha-remove --config "$CONFIG" ||
    say "warning: Home Assistant's device could not be removed (above); delete it there by hand"
fi

# 3. The system's files.
remove "/etc/systemd/system/$UNIT"
run systemctl daemon-reload
remove /etc/udev/rules.d/99-trackside-readers.rules
run udevadm control --reload
remove /etc/logrotate.d/trackside
remove /etc/mosquitto/conf.d/trackside.conf /etc/mosquitto/conf.d/trackside-club.conf \
  /etc/mosquitto/trackside.acl /etc/mosquitto/trackside.passwd
if staged || systemctl is-enabled --quiet mosquitto 2>/dev/null; then
  run systemctl restart mosquitto
fi
remove /etc/nginx/sites-enabled/trackside /etc/nginx/sites-available/trackside /etc/trackside
if staged || systemctl is-active --quiet nginx 2>/dev/null; then
  run systemctl reload nginx
fi

# 4. The program.
remove /usr/local/bin/trackside "$PREFIX"

# 5. The table's data: only with --purge.
if [ "$PURGE" = 1 ]; then
  remove "$DATA_DIR"
  run userdel "$SERVICE_USER" || say "warning: the user $SERVICE_USER could not be removed"
  say "done: Trackside and its data are gone"
else
  say "done: Trackside is removed; the config, database and backups are kept in $DATA_DIR"
  say "(install again to use them, or run this with --purge to delete them)"
fi
