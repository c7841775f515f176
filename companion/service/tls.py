"""The HTTPS certificate's fingerprint, for players to check on the pages.

The service speaks plain HTTP on loopback behind an HTTPS proxy (nginx on the Pi; waitress has
no TLS). The installer makes a self-signed certificate (``install.sh --https``); a phone warns
about it once, and the fingerprint on the scoreboard and the sign-in page lets a player check
that the certificate is the table's own before accepting it.
"""

from __future__ import annotations

import hashlib
import ssl
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=4)
def certificate_fingerprint(path: str) -> str | None:
    """``AB:CD:…`` (SHA-256 of the first certificate in the PEM file), or ``None`` when the
    file cannot be read (the pages then show none rather than fail)."""
    try:
        text = Path(path).read_text(encoding="ascii", errors="replace")[:65536]
        start = text.index("-----BEGIN CERTIFICATE-----")
        end = text.index("-----END CERTIFICATE-----", start) + len("-----END CERTIFICATE-----")
        der = ssl.PEM_cert_to_DER_cert(text[start:end])
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))
