"""The pages advertised over mDNS, seen by a real zeroconf ServiceBrowser on the loopback."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from zeroconf import ServiceBrowser, ServiceListener, Zeroconf

from companion.service.advertise import (
    HTTPS_SERVICE_TYPE,
    SERVICE_TYPE,
    Advertisement,
    Advertiser,
    local_addresses,
)
from companion.service.config import parse_settings
from companion.service.runtime import HTTPS_PORT, Trackside, page_url
from tests.deploy.test_https_proxy import make_certificate

WAIT_S = 20.0


class Seen(ServiceListener):
    def __init__(self) -> None:
        self.added: list[str] = []
        self.removed: list[str] = []
        self.changed = threading.Event()

    def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.added.append(name)
        self.changed.set()

    def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.removed.append(name)
        self.changed.set()

    def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.changed.set()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("service_type", "port"), [(SERVICE_TYPE, 8123), (HTTPS_SERVICE_TYPE, HTTPS_PORT)]
)
def test_a_browser_on_the_loopback_finds_the_table_with_its_port_and_pages(
    service_type: str, port: int
) -> None:
    ad = Advertisement(
        name="Trackside test-table",
        port=port,
        addresses=("127.0.0.1",),
        version="9.9",
        host="t1",
        service_type=service_type,
    )
    advertiser = Advertiser(ad, interfaces=["127.0.0.1"])
    assert advertiser.start(), advertiser.error
    # made in a thread of its own: python-zeroconf would join an asyncio loop running in this
    # one (Playwright's, when the browser tests ran first) and wait on it forever
    made: list[Zeroconf] = []
    maker = threading.Thread(target=lambda: made.append(Zeroconf(interfaces=["127.0.0.1"])))
    maker.start()
    maker.join(WAIT_S)
    browser_zc = made[0]
    seen = Seen()
    browser = ServiceBrowser(browser_zc, service_type, seen)
    try:
        # other tables on this machine (another test's service, a demo) may be seen first
        deadline = time.monotonic() + WAIT_S
        while ad.instance not in seen.added and time.monotonic() < deadline:
            seen.changed.wait(0.2)
            seen.changed.clear()
        assert ad.instance in seen.added, f"not seen on the loopback: {sorted(seen.added)}"
        info = browser_zc.get_service_info(service_type, ad.instance, timeout=int(WAIT_S * 1000))
        assert info is not None
        assert info.port == port
        assert info.parsed_addresses() == ["127.0.0.1"]
        assert info.server == "t1.local."
        props = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
        assert props == {"path": "/", "table": "/table", "setup": "/setup", "version": "9.9"}
        advertiser.stop()  # the goodbye: browsers drop it at once
        deadline = time.monotonic() + WAIT_S
        while ad.instance not in seen.removed and time.monotonic() < deadline:
            seen.changed.wait(0.2)
            seen.changed.clear()
        assert ad.instance in seen.removed
    finally:
        browser.cancel()
        browser_zc.close()
        advertiser.stop()


def test_no_network_for_mdns_is_reported_not_raised() -> None:
    ad = Advertisement(name="Trackside x", port=8080, addresses=("not-an-ip",), version="1")
    advertiser = Advertiser(ad, interfaces=["127.0.0.1"])
    assert not advertiser.start()
    assert advertiser.error is not None and "cannot advertise" in advertiser.error
    advertiser.stop()


@pytest.mark.slow
def test_behind_the_https_proxy_the_pages_are_advertised_and_linked_as_https(
    tmp_path: Path,
) -> None:
    """``install.sh --https``: the service listens on the loopback behind nginx. It is still
    advertised (as ``_https._tcp`` on the proxy's port 443, on the LAN addresses), and Home
    Assistant's device link and the join QR code are the proxy's ``https://<host>.local/``
    (the name the certificate carries), never ``http://127.0.0.1:<port>/``."""
    cert, _ = make_certificate(tmp_path)
    host = f"{socket.gethostname().split('.')[0]}.local"
    web = {
        "host": "127.0.0.1",
        "port": 0,
        "trusted_proxy": "127.0.0.1",
        "tls_certificate": str(cert),
    }
    mqtt = {"host": "127.0.0.1", "port": 1, "ha_discovery": True}
    settings = parse_settings({"web": web, "mqtt": mqtt}, data_dir=tmp_path)
    assert page_url(settings) == f"https://{host}/"
    service = Trackside(settings)
    service.start()
    try:
        assert service.mqtt is not None
        assert service.mqtt.configuration_url == f"https://{host}/"  # HA's "Visit"
        assert service.join_url == f"https://{host}/table"
        advertised = service.advertiser
        if local_addresses():  # a machine with a LAN address (every Pi, this container)
            assert advertised is not None
            assert advertised.ad.service_type == HTTPS_SERVICE_TYPE
            assert advertised.ad.port == HTTPS_PORT
            assert "127.0.0.1" not in advertised.ad.addresses
    finally:
        service.stop()
    plain = parse_settings({"web": {"host": "127.0.0.1", "port": 0}}, data_dir=tmp_path)
    assert page_url(plain).startswith("http://127.0.0.1:")
