"""The pages advertised over mDNS, seen by a real zeroconf ServiceBrowser on the loopback."""

from __future__ import annotations

import threading

import pytest
from zeroconf import ServiceBrowser, ServiceListener, Zeroconf

from companion.service.advertise import SERVICE_TYPE, Advertisement, Advertiser

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
def test_a_browser_on_the_loopback_finds_the_table_with_its_port_and_pages() -> None:
    ad = Advertisement(
        name="Trackside test-table", port=8123, addresses=("127.0.0.1",), version="9.9", host="t1"
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
    browser = ServiceBrowser(browser_zc, SERVICE_TYPE, seen)
    try:
        assert seen.changed.wait(WAIT_S), "no service seen on the loopback"
        assert ad.instance in seen.added
        info = browser_zc.get_service_info(SERVICE_TYPE, ad.instance, timeout=int(WAIT_S * 1000))
        assert info is not None
        assert info.port == 8123
        assert info.parsed_addresses() == ["127.0.0.1"]
        assert info.server == "t1.local."
        props = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
        assert props == {"path": "/", "table": "/table", "setup": "/setup", "version": "9.9"}
        seen.changed.clear()
        advertiser.stop()  # the goodbye: browsers drop it at once
        assert seen.changed.wait(WAIT_S) and ad.instance in seen.removed
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
