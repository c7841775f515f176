"""The club broker as ``install.sh --hub`` ships it (hardware/deploy/mosquitto-club.conf and
mosquitto-club.acl), on a free loopback port, with a password file made by mosquitto_passwd:
for the forgery tests and the club night end to end."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from tests.firmware_bridge.conftest import Broker, _user, free_port

DEPLOY = Path(__file__).resolve().parents[2] / "hardware" / "deploy"


class ClubBroker(Broker):
    tls_port: int | None = None
    """The TLS listener's port, when there is one."""


def password(user: str) -> str:
    return f"pw-{user}"


def club_broker(
    directory: Path,
    users: Iterable[str],
    *,
    persistent: bool = False,
    tls: tuple[Path, Path] | None = None,
) -> ClubBroker:
    """A :class:`Broker` whose config is the shipped one (listener moved to a free loopback
    port, the files' paths into ``directory``); every user's password is ``pw-<user>``.
    ``tls``: (certificate, key) for the shipped TLS listener, uncommented, on ``tls_port``;
    the plain listener is then on loopback only, as the comment there says."""
    directory.mkdir(parents=True, exist_ok=True)
    broker = ClubBroker(directory)
    passwd = directory / "club.passwd"
    passwd.touch(mode=0o600)
    tool = shutil.which("mosquitto_passwd")
    assert tool, "mosquitto_passwd (Debian's mosquitto package) is needed"
    for user in users:
        subprocess.run([tool, "-b", str(passwd), user, password(user)], check=True, timeout=10)
    acl = directory / "club.acl"
    shutil.copy(DEPLOY / "mosquitto-club.acl", acl)
    acl.chmod(0o600)
    shipped = (DEPLOY / "mosquitto-club.conf").read_text()
    assert "listener 1883\n" in shipped
    conf = (
        shipped.replace("listener 1883\n", f"listener {broker.port} 127.0.0.1\n")
        .replace("/etc/mosquitto/club.passwd", str(passwd))
        .replace("/etc/mosquitto/club.acl", str(acl))
    )
    if tls is not None:
        broker.tls_port = free_port()
        assert "#listener 8883\n" in conf
        conf = (
            conf.replace("#listener 8883\n", f"listener {broker.tls_port} 127.0.0.1\n")
            .replace("#certfile /etc/mosquitto/certs/club.crt", f"certfile {tls[0]}")
            .replace("#keyfile /etc/mosquitto/certs/club.key", f"keyfile {tls[1]}")
        )
    if persistent:  # as Debian's own mosquitto.conf has it: a restart keeps the sessions
        conf += f"\npersistence true\npersistence_location {directory}/\nautosave_interval 1\n"
    else:
        conf += "\npersistence false\n"
    conf += f"log_dest stderr\nlog_type error\nlog_type warning\nuser {_user()}\n"
    broker.config.write_text(conf)
    return broker
