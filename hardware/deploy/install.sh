#!/usr/bin/env bash
# Install Trackside on Raspberry Pi OS Bookworm or Trixie, 64-bit (or Debian 12/13) from this
# checkout. Any other release, or a 32-bit system, is refused before anything changes.
#
#   sudo hardware/deploy/install.sh             install (again) and (re)start the service
#   hardware/deploy/install.sh --dry-run        print what it would do, change nothing
#   sudo hardware/deploy/install.sh --https     also serve the pages over HTTPS (nginx with a
#                                               self-signed certificate; docs/security.md)
#   sudo hardware/deploy/install.sh --hub       the club machine instead: the club broker and
#                                               the hub (docs/hub.md; install-hub.sh)
#   DESTDIR=/tmp/stage hardware/deploy/install.sh
#                                               write the files under /tmp/stage, print the
#                                               system commands instead of running them
#
# It creates the user `trackside` (groups dialout video), a virtual environment in
# /opt/trackside/venv made with --system-site-packages (so apt's python3-picamera2 is visible),
# pip-installs this checkout with the [hid] extra, creates /var/lib/trackside/{config,logs,db},
# writes a commented config/trackside.toml only when there is none, and installs and enables
# the systemd unit, the udev rules (hardware/udev/) and the logrotate config. Running it again
# is safe: the config and the database are kept. See docs/deploy.md.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
parse_common_args "$@"
check_release "$OS_RELEASE" "$(dpkg --print-architecture 2>/dev/null || uname -m)"
need_root

# --hub: the club machine (docs/hub.md), not a table: its own section (install-hub.sh).
if [ "$HUB" = 1 ]; then
  # shellcheck source-path=SCRIPTDIR source=install-hub.sh
  source "$HERE/install-hub.sh"
  install_hub
  exit 0
fi

CONFIG=$DATA_DIR/config/trackside.toml
FRESH_CONFIG=0

# 1. Debian packages: the venv module, a compiler and headers for evdev ([hid]), libxkbcommon and
#    xkb-data for scanners set to Slovak, Spanish or other layouts, sqlite3 for
#    backups, logrotate; Picamera2 from apt where the archive has it (Raspberry Pi OS does).
#    numpy and Pillow from apt too: Picamera2's extensions are built against apt's numpy, and
#    the venv must not hide either behind a pip copy (step 4 pins pip to apt's versions);
#    PyICU (the lists' collation) from apt: PyPI has no wheels of it.
packages=(python3-venv python3-dev gcc sqlite3 logrotate libxkbcommon0 xkb-data python3-numpy python3-pil python3-icu)
if apt-cache show python3-picamera2 >/dev/null 2>&1; then
  packages+=(python3-picamera2)
else
  say "python3-picamera2 is not in this system's archive: the camera can still use v4l2"
fi
run apt-get update -qq || say "warning: apt-get update failed (offline?); using the package lists there are"
run apt-get install -y --no-install-recommends "${packages[@]}"

# 2. The service user, in the groups that own the readers, the camera and the scanners.
if id "$SERVICE_USER" >/dev/null 2>&1 && ! staged; then
  say "user $SERVICE_USER exists"
else
  run useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
    --shell /usr/sbin/nologin --comment "Trackside table companion" "$SERVICE_USER"
fi
run usermod --append --groups dialout,video "$SERVICE_USER"  # no input: udev hands it the scanner
if ! staged && id -nG "$SERVICE_USER" 2>/dev/null | grep -qw input; then
  run gpasswd --delete "$SERVICE_USER" input  # older installs: input read every keyboard
fi

# 3. The data dir.
mkdirs 0750 "$DATA_DIR" "$DATA_DIR/config" "$DATA_DIR/logs" "$DATA_DIR/db" "$DATA_DIR/db/backups"

# 4. The program: a venv that also sees apt's packages (Picamera2, libcamera).
if [ -x "$DESTDIR$PREFIX/venv/bin/python" ]; then
  say "keeping the virtual environment $PREFIX/venv"
else
  mkdirs 0755 "$PREFIX"
  run python3 -m venv --system-site-packages "$PREFIX/venv"
fi
# apt's numpy and Pillow stay in charge: pip is held to the versions apt installed (numpy 1.24
# and Pillow 9.4 on bookworm, numpy 2.2 and Pillow 11.1 on trixie), so it never puts its own in
# front of them (tests/deploy/test_dependencies.py resolves both releases).
CONSTRAINTS=$PREFIX/deploy/apt-constraints.txt
pins=$(mktemp)
apt_pins >"$pins"
put "$pins" "$CONSTRAINTS" 0644
rm -f "$pins"
run "$PREFIX/venv/bin/python" -m pip install --disable-pip-version-check --upgrade \
  --constraint "$CONSTRAINTS" "${SRC}[hid]"
if [ "$DRY_RUN" = 1 ]; then
  say "would link /usr/local/bin/trackside -> $PREFIX/venv/bin/trackside"
else
  mkdir -p "$DESTDIR/usr/local/bin"
  ln -sfn "$PREFIX/venv/bin/trackside" "$DESTDIR/usr/local/bin/trackside"
fi
put "$SRC/docs/deploy.md" "$PREFIX/docs/deploy.md" 0644
put "$HERE/backup.sh" "$PREFIX/deploy/backup.sh" 0755
put "$HERE/uninstall.sh" "$PREFIX/deploy/uninstall.sh" 0755
put "$HERE/common.sh" "$PREFIX/deploy/common.sh" 0644

# 5. The config: written once, never overwritten.
if [ -e "$DESTDIR$CONFIG" ]; then
  say "keeping the existing config $CONFIG"
else
  put "$HERE/trackside.toml" "$CONFIG" 0640
  FRESH_CONFIG=1
fi
run chown -R "$SERVICE_USER:$SERVICE_USER" "$DATA_DIR"

# 6. udev rules (stable /dev/trackside/… names, permissions) and log rotation.
put "$SRC/hardware/udev/99-trackside-readers.rules" /etc/udev/rules.d/99-trackside-readers.rules 0644
run udevadm control --reload
run udevadm trigger
put "$HERE/trackside.logrotate" /etc/logrotate.d/trackside 0644

# 7. The table's broker (Mosquitto): a listener on the table's network, a password file and an
#    ACL (docs/mqtt.md, "The broker"). The service's own name `trackside` gets a random password,
#    kept in $DATA_DIR/config/mqtt-password for [mqtt] password; pads, WLED and Home Assistant
#    get theirs with mosquitto_passwd. An existing password file is kept.
MOSQ_PASSWD=/etc/mosquitto/trackside.passwd
# The ACL, with the rules for the config's WLED group topic ([mqtt] wled_group) written in:
# every strip reads the group, the service writes it. Staged, with $TRACKSIDE_PYTHON as for the
# club bridge (step 9); without a Python the shipped ACL goes in as it is.
broker_acl() {
  local python=$PREFIX/venv/bin/python rendered
  if staged; then
    python=${TRACKSIDE_PYTHON:-$DESTDIR$PREFIX/venv/bin/python}
  fi
  if [ "$DRY_RUN" = 1 ] || ! [ -x "$python" ]; then
    say "the broker's ACL is the shipped one (no Python here to add [mqtt] wled_group's rules)"
    put "$HERE/mosquitto-trackside.acl" /etc/mosquitto/trackside.acl 0644
    return 0
  fi
  rendered=$(mktemp)
  if ! PYTHONPATH=$SRC "$python" -m companion.service.broker acl "$DESTDIR$CONFIG" \
      "$HERE/mosquitto-trackside.acl" >"$rendered"; then
    rm -f "$rendered"
    die "the broker's ACL could not be written (above: the config's error names the option); fix it in $CONFIG and install again"
  fi
  put "$rendered" /etc/mosquitto/trackside.acl 0644
  rm -f "$rendered"
}
run apt-get install -y --no-install-recommends mosquitto
put "$HERE/mosquitto-trackside.conf" /etc/mosquitto/conf.d/trackside.conf 0644
broker_acl
if [ -e "$DESTDIR$MOSQ_PASSWD" ]; then
  say "keeping the broker's password file $MOSQ_PASSWD"
elif [ "$DRY_RUN" = 1 ]; then
  say "would create $MOSQ_PASSWD with the user trackside and a random password"
else
  secret=$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c 24 || true)
  install -d -m 0755 "$DESTDIR/etc/mosquitto"
  : >"$DESTDIR$MOSQ_PASSWD"
  chmod 0640 "$DESTDIR$MOSQ_PASSWD"
  if staged; then  # (the password is never printed)
    say "would run: mosquitto_passwd -b $MOSQ_PASSWD trackside <the new password>"
  else
    mosquitto_passwd -b "$MOSQ_PASSWD" trackside "$secret"
  fi
  run chown root:mosquitto "$MOSQ_PASSWD"
  umask 027
  printf '%s\n' "$secret" >"$DESTDIR$DATA_DIR/config/mqtt-password"
  run chown "$SERVICE_USER:$SERVICE_USER" "$DATA_DIR/config/mqtt-password"
  say "broker user trackside created; its password is in $DATA_DIR/config/mqtt-password"
fi
run systemctl enable mosquitto
run systemctl restart mosquitto

# 7b. HTTPS (--https; docs/security.md): nginx in front with a certificate made here, for tables
#     on a shared Wi-Fi where the PIN and the session cookie must not cross the air in clear.
#     The service then listens on loopback only, believes the proxy's forwarded addresses, and
#     shows the certificate's fingerprint on its pages. An existing certificate is kept.
https_proxy() {
  local tls=/etc/trackside/tls cert key host rendered
  cert=$tls/trackside.crt
  key=$tls/trackside.key
  host=$(hostname)
  run apt-get install -y --no-install-recommends nginx-light openssl
  if [ -e "$DESTDIR$cert" ]; then
    say "keeping the certificate $cert"
  elif [ "$DRY_RUN" = 1 ]; then
    say "would make a self-signed certificate $cert for $host and $host.local"
  else
    install -d -m 0755 "$DESTDIR$tls"
    (umask 077 && openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=$host.local" \
      -addext "subjectAltName=DNS:$host.local,DNS:$host,DNS:localhost,IP:127.0.0.1" \
      -keyout "$DESTDIR$key" -out "$DESTDIR$cert" 2>/dev/null)
    chmod 0644 "$DESTDIR$cert"
    say "made the certificate $cert"
  fi
  rendered=$(mktemp)
  sed -e "s|@PORT@|80|g; s|@HTTPS_PORT@|443|g; s|@UPSTREAM@|8080|g" \
      -e "s|@CERT@|$cert|g; s|@KEY@|$key|g" "$HERE/nginx-trackside.conf" >"$rendered"
  put "$rendered" /etc/nginx/sites-available/trackside 0644
  rm -f "$rendered"
  run ln -sf /etc/nginx/sites-available/trackside /etc/nginx/sites-enabled/trackside
  run rm -f /etc/nginx/sites-enabled/default
  if [ "$FRESH_CONFIG" = 1 ] && [ "$DRY_RUN" != 1 ]; then  # a config written by this run
    sed -i -e 's|^host = "0.0.0.0"$|host = "127.0.0.1"\
trusted_proxy = "127.0.0.1"\
tls_certificate = "'"$cert"'"|' "$DESTDIR$CONFIG"
    say "the new config serves the pages through HTTPS only"
  else
    say "set in $CONFIG under [web]: host = \"127.0.0.1\", trusted_proxy = \"127.0.0.1\", tls_certificate = \"$cert\""
  fi
  run systemctl enable nginx
  run systemctl restart nginx
}
if [ "$HTTPS" = 1 ]; then
  https_proxy
fi

# 8. The unit: enabled at boot and (re)started now.
put "$HERE/$UNIT" "/etc/systemd/system/$UNIT" 0644
run systemctl daemon-reload
run systemctl enable "$UNIT"
run systemctl restart "$UNIT"
# 9. The club bridge (docs/hub.md): with a [club] section in the config, this table's Mosquitto
#    carries its topics to the club broker. Its own step, so the broker's listener set-up stays
#    apart from it. Staged, it uses $TRACKSIDE_PYTHON (a Python with this checkout's
#    dependencies) when given, as the staged tree has no virtual environment.
club_bridge() {
  local python=$PREFIX/venv/bin/python target=/etc/mosquitto/conf.d/trackside-club.conf
  local rendered status=0
  if staged; then
    python=${TRACKSIDE_PYTHON:-$DESTDIR$PREFIX/venv/bin/python}
  fi
  if ! [ -x "$python" ]; then
    say "warning: no $python here; the club bridge is written when installing on the Pi"
    return 0
  fi
  rendered=$(mktemp)
  PYTHONPATH=$SRC "$python" -m companion.service.club bridge-config \
    "$DESTDIR$CONFIG" "$HERE/mosquitto-club-bridge.conf" >"$rendered" || status=$?
  if [ "$status" = 3 ]; then
    say "no [club] section in $CONFIG: no club bridge"
  elif [ "$status" != 0 ]; then
    rm -f "$rendered"
    die "the club bridge could not be written (above); fix [club] in $CONFIG and install again"
  elif ! staged && ! [ -d /etc/mosquitto/conf.d ]; then
    rm -f "$rendered"
    die "[club] needs Mosquitto on this table: apt-get install mosquitto, then install again"
  else
    put "$rendered" "$target" 0640
    run systemctl restart mosquitto
  fi
  rm -f "$rendered"
}
if [ "$DRY_RUN" = 1 ]; then
  say "would write the club bridge /etc/mosquitto/conf.d/trackside-club.conf when $CONFIG has [club]"
else
  club_bridge
fi

say "done: status with 'systemctl status trackside', logs with 'journalctl -u trackside'"
