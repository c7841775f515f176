"""Zeroconf (mDNS/DNS-SD) advertisement of the table's pages, so phones, Home Assistant and
service browsers find "Trackside <table>" without anyone typing an IP address and port —
as Moonraker and OctoPrint do.

One ``_http._tcp`` service (what browsers and Home Assistant's zeroconf discovery list) named
``Trackside <table id>``, with TXT records ``path=/`` (the scoreboard), ``table=/table`` (the
table page), ``setup=/setup`` and ``version``. python-zeroconf (Debian's python3-zeroconf) runs
its own responder; it shares UDP port 5353 with avahi-daemon on Raspberry Pi OS. Failing to
advertise (no multicast, no network yet) is logged, never fatal: the table plays without it.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import ifaddr  # python-zeroconf's own dependency
from zeroconf import ServiceInfo, Zeroconf

log = logging.getLogger(__name__)

SERVICE_TYPE = "_http._tcp.local."
HTTPS_SERVICE_TYPE = "_https._tcp.local."
"""Behind the installer's HTTPS proxy (``install.sh --https``): the pages are advertised as what
they are there, HTTPS on the proxy's port, not as the loopback listener behind it."""
MAX_INSTANCE_CHARS = 63  # a DNS label


@dataclass(frozen=True, slots=True)
class Advertisement:
    name: str
    """The instance name people see, e.g. ``Trackside table-1``."""
    port: int
    addresses: tuple[str, ...]
    version: str
    host: str = ""
    """The mDNS host name (``<host>.local.``); default: this machine's."""
    service_type: str = SERVICE_TYPE

    @property
    def instance(self) -> str:
        return f"{self.name[:MAX_INSTANCE_CHARS]}.{self.service_type}"

    @property
    def server(self) -> str:
        host = self.host or socket.gethostname().split(".")[0] or "trackside"
        return f"{host}.local."

    @property
    def properties(self) -> dict[str, str]:
        return {"path": "/", "table": "/table", "setup": "/setup", "version": self.version}


def local_addresses() -> tuple[str, ...]:
    """This machine's IPv4 addresses other than loopback (what phones on the LAN can reach)."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127.") and ip.ip not in found:
                found.append(ip.ip)
    return tuple(found)


class Advertiser:
    """Registers the advertisement on ``start`` and withdraws it (a goodbye packet) on
    ``stop``. ``interfaces``: the addresses to answer on (default: all)."""

    def __init__(self, ad: Advertisement, interfaces: Sequence[str] | None = None) -> None:
        self.ad = ad
        self.interfaces = None if interfaces is None else list(interfaces)
        self._zeroconf: Zeroconf | None = None
        self._info: ServiceInfo | None = None
        self.error: str | None = None

    def start(self, timeout_s: float = 10.0) -> bool:
        """True when the service is registered; False (with ``error`` set) when it could not.

        python-zeroconf joins an asyncio loop already running in the calling thread (and then
        blocks it waiting for itself); registering from a thread of our own keeps its own."""
        worker = threading.Thread(target=self._register, name="mdns-register", daemon=True)
        worker.start()
        worker.join(timeout_s)
        if worker.is_alive():
            self.error = f"cannot advertise the pages over mDNS: no answer in {timeout_s:.0f} s"
            log.warning("%s", self.error)
            return False
        return self._zeroconf is not None

    def _register(self) -> None:
        try:
            info = ServiceInfo(
                self.ad.service_type,
                self.ad.instance,
                addresses=[socket.inet_aton(a) for a in self.ad.addresses],
                port=self.ad.port,
                properties=self.ad.properties,
                server=self.ad.server,
            )
            zc = Zeroconf() if self.interfaces is None else Zeroconf(interfaces=self.interfaces)
            try:
                zc.register_service(info, allow_name_change=True)
            except Exception:
                zc.close()
                raise
        except Exception as exc:  # no multicast, no network, a name clash we cannot fix…
            self.error = f"cannot advertise the pages over mDNS: {exc!r}"
            log.warning("%s", self.error)
            return
        self._zeroconf, self._info = zc, info
        log.info("advertising %s on port %s over mDNS", self.ad.instance, self.ad.port)

    def stop(self) -> None:
        zc, info = self._zeroconf, self._info
        self._zeroconf = self._info = None
        if zc is None or info is None:
            return
        try:
            zc.unregister_service(info)
        except Exception as exc:
            log.info("mDNS goodbye not sent: %s", exc)
        finally:
            zc.close()
