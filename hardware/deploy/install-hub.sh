# `install.sh --hub`: the club machine (docs/hub.md) instead of a table: the club broker
# (Mosquitto with hardware/deploy/mosquitto-club.conf, its ACL and a password file) and the hub
# (`trackside hub` as trackside-hub.service). Sourced by install.sh after common.sh.
#
#   sudo hardware/deploy/install.sh --hub
#   sudo CLUB_TABLES="table-1 table-2 table-3" hardware/deploy/install.sh --hub
#       also gives each table a login on the club broker (its table id, a random password);
#       the logins made are listed in /var/lib/trackside/config/club-logins (root only) for
#       each table's [club] username/password. A login already there is kept.
#
# Running it again is safe: the hub's config, its database and the passwords are kept.
# shellcheck shell=bash

CLUB_PASSWD=/etc/mosquitto/club.passwd
HUB_CONFIG=$DATA_DIR/config/hub.toml
HUB_UNIT=trackside-hub.service

# new_secret: 24 random letters and digits.
new_secret() { tr -dc 'A-Za-z0-9' </dev/urandom | head -c 24 || true; }

# club_login NAME SECRET: NAME's password in the club broker's password file (never printed).
club_login() {
  if staged; then
    say "would run: mosquitto_passwd -b $CLUB_PASSWD $1 <a new password>"
  else
    mosquitto_passwd -b "$CLUB_PASSWD" "$1" "$2"
  fi
}

install_hub() {
  local secret name logins=$DATA_DIR/config/club-logins rendered

  # 1. Debian packages: the venv module, the broker and its mosquitto_passwd, sqlite3 for backups.
  run apt-get update -qq || say "warning: apt-get update failed (offline?); using the package lists there are"
  run apt-get install -y --no-install-recommends python3-venv mosquitto mosquitto-clients sqlite3

  # 2. The service user (no device groups: the hub reads no reader and no camera).
  if id "$SERVICE_USER" >/dev/null 2>&1 && ! staged; then
    say "user $SERVICE_USER exists"
  else
    run useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
      --shell /usr/sbin/nologin --comment "Trackside club hub" "$SERVICE_USER"
  fi
  mkdirs 0750 "$DATA_DIR" "$DATA_DIR/config" "$DATA_DIR/logs" "$DATA_DIR/db" "$DATA_DIR/db/backups"

  # 3. The program: the same package as a table's, without the reader extras.
  if [ -x "$DESTDIR$PREFIX/venv/bin/python" ]; then
    say "keeping the virtual environment $PREFIX/venv"
  else
    mkdirs 0755 "$PREFIX"
    run python3 -m venv "$PREFIX/venv"
  fi
  run "$PREFIX/venv/bin/python" -m pip install --disable-pip-version-check --upgrade "$SRC"
  if [ "$DRY_RUN" = 1 ]; then
    say "would link /usr/local/bin/trackside -> $PREFIX/venv/bin/trackside"
  else
    mkdir -p "$DESTDIR/usr/local/bin"
    ln -sfn "$PREFIX/venv/bin/trackside" "$DESTDIR/usr/local/bin/trackside"
  fi
  put "$SRC/docs/hub.md" "$PREFIX/docs/hub.md" 0644

  # 4. The club broker: a listener, nobody without a password, each table only its own topics.
  put "$HERE/mosquitto-club.conf" /etc/mosquitto/conf.d/trackside-club-broker.conf 0644
  put "$HERE/mosquitto-club.acl" /etc/mosquitto/club.acl 0644
  if [ "$DRY_RUN" = 1 ]; then
    say "would create $CLUB_PASSWD (the hub's login) and $HUB_CONFIG when they are not there"
  else
    if ! [ -e "$DESTDIR$CLUB_PASSWD" ]; then
      install -d -m 0755 "$DESTDIR/etc/mosquitto"
      (umask 027 && : >"$DESTDIR$CLUB_PASSWD")
      run chown root:mosquitto "$CLUB_PASSWD"
    fi
    # 5. The hub's config, written once, with the hub's own login on the club broker.
    if [ -e "$DESTDIR$HUB_CONFIG" ]; then
      say "keeping the existing hub config $HUB_CONFIG"
    else
      secret=$(new_secret)
      club_login hub "$secret"
      rendered=$(mktemp)
      sed -e "s|@PASSWORD@|$secret|" "$HERE/hub.toml" >"$rendered"
      put "$rendered" "$HUB_CONFIG" 0640
      rm -f "$rendered"
      say "the hub's login on the club broker is in $HUB_CONFIG"
    fi
    # Tables named in CLUB_TABLES get a login each (their table id); existing ones are kept.
    for name in ${CLUB_TABLES:-}; do
      if ! [[ $name =~ ^[A-Za-z0-9._-]{1,64}$ ]] || [ "$name" = hub ]; then
        die "CLUB_TABLES: '$name' cannot be a table id (letters, digits, . _ -; not hub)"
      fi
      if grep -q "^$name:" "$DESTDIR$CLUB_PASSWD" 2>/dev/null; then
        say "keeping the club login $name"
        continue
      fi
      secret=$(new_secret)
      club_login "$name" "$secret"
      (umask 077 && printf '%s %s\n' "$name" "$secret" >>"$DESTDIR$logins")
      say "club login $name made: its password is in $logins (for that table's [club])"
    done
  fi
  run chown -R "$SERVICE_USER:$SERVICE_USER" "$DATA_DIR"
  if [ -e "$DESTDIR$logins" ] || [ "$DRY_RUN" = 1 ]; then
    run chown root:root "$logins"
  fi
  run systemctl enable mosquitto
  run systemctl restart mosquitto

  # 6. The hub's unit (hardened: no devices, no capabilities; docs/hub.md), enabled and started.
  put "$HERE/$HUB_UNIT" "/etc/systemd/system/$HUB_UNIT" 0644
  run systemctl daemon-reload
  run systemctl enable "$HUB_UNIT"
  run systemctl restart "$HUB_UNIT"
  say "done: the wall screen is on port 8090; status with 'systemctl status trackside-hub'"
}
