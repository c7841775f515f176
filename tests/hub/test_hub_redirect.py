"""Issue 52, point 8: the table asks its club hub's ``hub_url`` and nothing else: a redirect
from there is refused, not followed (a real table service, a redirecting server on loopback in
front of a real hub app)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from companion.hub.store import HubStore
from companion.hub.web import create_hub_app
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from tests.hub.scenes import club_night
from tests.web.conftest import PIN


@pytest.fixture
def hub_url(tmp_path: Path) -> Iterator[str]:
    """A real hub app with a club night's players, on loopback."""
    store = HubStore(tmp_path / "hub.sqlite3")
    server = make_server("127.0.0.1", 0, create_hub_app(club_night(store, now=time.time())))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        store.close()


def test_a_redirect_from_the_hub_url_is_not_followed(
    tmp_path: Path, hub_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 52, point 8: ``hub_url`` followed redirects, so whatever answered there could send
    the table to any address (another machine, a port of its own) and have the answer shown
    on the table page. A redirect is refused now, and the log says why."""
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", hub_url + "/api/players")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        settings = parse_settings(
            {
                "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
                "mqtt": {"host": "127.0.0.1", "port": 1},
                "club": {"host": "club.local", "hub_url": f"http://127.0.0.1:{server.server_port}"},
            },
            data_dir=tmp_path,
        )
        service = Trackside(settings)
        try:
            assert service.known_players is not None
            service.known_players.refresh()
            assert service.known_player_names() == [] and service.known_players.failures == 1
            said = " ".join(r.getMessage() for r in caplog.records)
            assert "answered 302 with a redirect to" in said and "not followed" in said
        finally:
            service.stop()
    finally:
        server.shutdown()
        server.server_close()
