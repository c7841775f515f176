"""Stopping the web server: it always lets go of its port, even when its loop cannot be woken."""

from __future__ import annotations

import logging
import os
import socket
import threading
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from web.server import TableServer


def _hello(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]


def test_a_server_whose_wake_up_pipe_is_gone_still_closes_and_frees_its_port(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """CI once stopped a service whose server loop's wake-up pipe was already closed: the stop
    raised "Bad file descriptor" and the rest of the stop (engine, database) never ran."""
    server = TableServer("127.0.0.1", 0, _hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
        assert reply.read() == b"ok"
    os.close(server.server.trigger.trigger)  # the pipe's write end, gone
    with caplog.at_level(logging.WARNING):
        server.close(timeout_s=2.0)
    assert "could not be woken" in caplog.text
    thread.join(5)
    assert not thread.is_alive()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
