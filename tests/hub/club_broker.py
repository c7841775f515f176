"""The club broker as ``install.sh --hub`` ships it (hardware/deploy/mosquitto-club.conf and
mosquitto-club.acl), on a free loopback port, with a password file made by mosquitto_passwd:
for the forgery tests and the club night end to end."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from tests.firmware_bridge.conftest import Broker, _user

DEPLOY = Path(__file__).resolve().parents[2] / "hardware" / "deploy"


def password(user: str) -> str:
    return f"pw-{user}"


def club_broker(directory: Path, users: Iterable[str], *, persistent: bool = False) -> Broker:
    """A :class:`Broker` whose config is the shipped one (listener moved to a free loopback
    port, the files' paths into ``directory``); every user's password is ``pw-<user>``."""
    directory.mkdir(parents=True, exist_ok=True)
    broker = Broker(directory)
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
    if persistent:  # as Debian's own mosquitto.conf has it: a restart keeps the sessions
        conf += f"\npersistence true\npersistence_location {directory}/\nautosave_interval 1\n"
    else:
        conf += "\npersistence false\n"
    conf += f"log_dest stderr\nlog_type error\nlog_type warning\nuser {_user()}\n"
    broker.config.write_text(conf)
    return broker
