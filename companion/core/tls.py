"""TLS to an MQTT broker (the table's bridge, the club hub): one context for both."""

from __future__ import annotations

import ssl


class _ClosingSSLSocket(ssl.SSLSocket):
    """paho leaves the socket of a failed TLS handshake (a certificate the CA did not sign)
    for the garbage collector; with a retry every few seconds that is a ResourceWarning each
    time. This closes it where it fails."""

    def do_handshake(self, block: bool = False) -> None:
        try:
            super().do_handshake(block)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise
        except OSError:
            self.close()
            raise


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """Verify the broker's certificate and host name: against ``ca_file`` when given (the
    table's or the club's own CA), else the system's CAs."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca_file)
    context.sslsocket_class = _ClosingSSLSocket
    return context
