"""``trackside hub``: the store, the club broker client and the web server, together."""

from __future__ import annotations

import logging
import threading

from werkzeug.serving import BaseWSGIServer, make_server

from companion.hub.config import HubSettings
from companion.hub.mqtt import HubClient
from companion.hub.store import HubStore
from companion.hub.tables import Hub
from companion.hub.web import create_hub_app

log = logging.getLogger(__name__)


class HubService:
    def __init__(self, settings: HubSettings) -> None:
        self.settings = settings
        self.store = HubStore(settings.database)
        self.hub = Hub(
            self.store,
            tables=settings.tables,
            quiet_after_s=settings.quiet_after_s,
            resync_every_s=settings.resync_every_s,
        )
        self.client = HubClient(settings.broker, self.hub)
        self.app = create_hub_app(
            self.hub,
            night_hours=settings.night_hours,
            seasons=settings.seasons,
            language=settings.language,
        )
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.client.start()
        self._server = make_server(self.settings.host, self.settings.port, self.app, threaded=True)
        self._server.daemon_threads = True  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="hub-web", daemon=True
        )
        self._thread.start()

    @property
    def web_port(self) -> int | None:
        return None if self._server is None else int(self._server.server_port)

    def stop(self) -> None:
        self.client.stop()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self.store.close()
