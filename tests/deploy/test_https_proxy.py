"""Issue 18 row 9: HTTPS for tables on a shared Wi-Fi, through the shipped nginx config.

A real nginx (Debian's nginx-light) renders ``hardware/deploy/nginx-trackside.conf`` the way the
installer does, with a certificate made by openssl as the installer makes it, in front of the
real service (``trackside run`` with ``[web] trusted_proxy`` and ``tls_certificate``). Checked:
pages over HTTPS with the certificate's fingerprint on the sign-in page, plain HTTP redirected,
the session cookie ``Secure``, the PIN limits counting each guest's own address behind the proxy
(and a forged ``X-Forwarded-For`` from anyone else ignored), and the proxy's many connections not
refused by the per-address cap.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.core.errors import ConfigError
from companion.service.config import load_settings
from companion.service.tls import certificate_fingerprint

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl")
PIN = "471108"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """The installer's openssl command (install.sh, step 7b)."""
    assert OPENSSL, "openssl is needed"
    cert, key = folder / "trackside.crt", folder / "trackside.key"
    subprocess.run(
        [
            OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
            "-subj", "/CN=trackside.local",
            "-addext", "subjectAltName=DNS:trackside.local,DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@dataclass
class Table:
    https_port: int
    http_port: int
    service_port: int
    cert: Path
    context: ssl.SSLContext

    def https(self, source: str = "127.0.0.1") -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            "localhost", self.https_port, context=self.context, timeout=10,
            source_address=(source, 0),
        )  # fmt: skip

    def get(self, path: str, source: str = "127.0.0.1", **headers: str) -> tuple[int, str, dict]:
        conn = self.https(source)
        try:
            conn.request("GET", path, headers=headers)
            r = conn.getresponse()
            return r.status, r.read().decode("utf-8", "replace"), dict(r.getheaders())
        finally:
            conn.close()


class PortTakenError(Exception):
    """A port picked as free was taken before nginx or the service bound it (another test
    worker of a parallel run picked it too): the fixture starts again on new ports."""


def _wait(check, what: str, procs: dict[str, tuple[subprocess.Popen[bytes], Path]]) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60  # a bound: a loaded machine starts slowly
    while True:
        try:
            if check():
                return
        except OSError:
            pass
        for name, (proc, log) in procs.items():
            if proc.poll() is not None:
                text = log.read_text(errors="replace")
                if "ddress already in use" in text:
                    raise PortTakenError(f"{name}: {text}")
                raise AssertionError(f"{name} stopped:\n{text}")
        assert time.monotonic() < deadline, f"{what} did not start:\n" + "\n".join(
            log.read_text(errors="replace") for _, log in procs.values()
        )
        time.sleep(0.2)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    assert Path(NGINX).exists(), "nginx is needed (Debian: nginx-light; scripts/test.sh)"
    cert, key = make_certificate(tmp_path)
    for attempt in range(3):
        try:
            yield from _table(tmp_path / f"try-{attempt}", cert, key)
            return
        except PortTakenError:
            if attempt == 2:
                raise


def _table(tmp_path: Path, cert: Path, key: Path) -> Iterator[Table]:
    tmp_path.mkdir()
    https_port, http_port, service_port = free_port(), free_port(), free_port()
    site = (ROOT / "hardware/deploy/nginx-trackside.conf").read_text()
    for name, value in {
        "@PORT@": http_port, "@HTTPS_PORT@": https_port, "@UPSTREAM@": service_port,
        "@CERT@": cert, "@KEY@": key,
    }.items():  # fmt: skip
        site = site.replace(name, str(value))
    (tmp_path / "logs").mkdir()
    (tmp_path / "nginx.conf").write_text(
        f"daemon off;\nmaster_process off;\npid {tmp_path}/nginx.pid;\n"
        f"error_log {tmp_path}/logs/error.log warn;\nevents {{ worker_connections 512; }}\n"
        f"http {{\naccess_log off;\nclient_body_temp_path {tmp_path}/body;\n"
        f"proxy_temp_path {tmp_path}/proxy;\n{site}\n}}\n"
    )
    config = tmp_path / "trackside.toml"
    config.write_text(
        f'[web]\nhost = "127.0.0.1"\nport = {service_port}\npin = "{PIN}"\n'
        f'trusted_proxy = "127.0.0.1"\ntls_certificate = "{cert}"\n'
        f'[database]\npath = "{tmp_path / "db.sqlite3"}"\n'
    )
    service_log = tmp_path / "service.log"
    with open(service_log, "wb") as out:
        service = subprocess.Popen(
            [sys.executable, "-m", "companion.service.cli", "run", "--config", str(config)],
            env={**os.environ, "TRACKSIDE_DATA": str(tmp_path)},
            stdout=subprocess.DEVNULL,
            stderr=out,
        )
    nginx_log = tmp_path / "logs" / "error.log"
    nginx_log.touch()
    nginx = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    context = ssl.create_default_context(cafile=str(cert))
    t = Table(https_port, http_port, service_port, cert, context)
    try:
        procs = {"the service": (service, service_log), "nginx": (nginx, nginx_log)}
        _wait(lambda: t.get("/api/state")[0] == 200, "the table behind nginx", procs)
        yield t
    finally:
        for proc in (nginx, service):
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def test_pages_over_https_show_the_certificate_fingerprint(table: Table) -> None:
    fingerprint = certificate_fingerprint(str(table.cert))
    assert fingerprint and re.fullmatch(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", fingerprint)
    # the fingerprint players compare with their phone's certificate warning
    der = ssl.PEM_cert_to_DER_cert(table.cert.read_text())
    import hashlib

    assert fingerprint.replace(":", "") == hashlib.sha256(der).hexdigest().upper()
    status, body, headers = table.get("/table")
    assert status == 200
    assert fingerprint in body
    assert "max-age" in headers.get("Strict-Transport-Security", "")


def test_plain_http_is_sent_to_https(table: Table) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", table.http_port, timeout=10)
    try:
        conn.request("GET", "/table", headers={"Host": "localhost"})
        r = conn.getresponse()
        r.read()
    finally:
        conn.close()
    assert r.status == 301
    assert r.getheader("Location") == f"https://localhost:{table.https_port}/table"


def test_the_session_cookie_only_travels_over_https(table: Table) -> None:
    _, _, headers = table.get("/table")
    cookie = headers.get("Set-Cookie", "")
    assert "session=" in cookie and "Secure" in cookie, cookie


def test_pin_limits_count_each_guest_behind_the_proxy(table: Table) -> None:
    """Behind the proxy every request comes from 127.0.0.1; the service believes the proxy's
    X-Forwarded-For, so one guest's wrong PINs pause that guest, not the next one."""
    guest, other = "127.0.3.7", "127.0.3.8"
    answers = [
        table.get("/api/choices", guest, **{"X-Trackside-Pin": "000001"})[0] for _ in range(6)
    ]
    assert answers[:5] == [401] * 5
    assert answers[5] == 429  # this guest's five a minute are used up
    status, _, _ = table.get("/api/choices", other, **{"X-Trackside-Pin": PIN})
    assert status == 200  # the next guest is not paused by the first one's guesses


def test_a_forged_forwarded_address_is_not_believed(table: Table) -> None:
    """Straight to the service from another address (not the proxy): its X-Forwarded-For is
    thrown away, so changing it every time does not dodge the per-address limit."""
    answers = []
    for i in range(6):
        conn = http.client.HTTPConnection(
            "127.0.0.1", table.service_port, timeout=10, source_address=("127.0.4.9", 0)
        )
        try:
            conn.request(
                "GET",
                "/api/choices",
                headers={"X-Trackside-Pin": "000002", "X-Forwarded-For": f"10.9.8.{i}"},
            )
            r = conn.getresponse()
            r.read()
            answers.append(r.status)
        finally:
            conn.close()
    assert answers == [401] * 5 + [429]


def test_many_live_pages_through_the_proxy_are_not_capped_per_address(table: Table) -> None:
    """30 phones' live updates all reach the service from the proxy's one address, above the
    per-address cap of 24 sockets that a direct guest gets."""
    socks = []
    try:
        for i in range(30):
            raw = socket.create_connection(
                ("127.0.0.1", table.https_port), timeout=10, source_address=(f"127.0.5.{i + 1}", 0)
            )
            sock = table.context.wrap_socket(raw, server_hostname="localhost")
            sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            socks.append(sock)
        got = 0
        for sock in socks:
            data = b""
            deadline = time.monotonic() + 15
            while b"event: snapshot" not in data and time.monotonic() < deadline:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            got += b"event: snapshot" in data
        assert got == 30
    finally:
        for sock in socks:
            sock.close()


def test_proxy_options_are_checked_and_named(tmp_path: Path) -> None:
    bad_proxy = tmp_path / "a.toml"
    bad_proxy.write_text('[web]\ntrusted_proxy = "nginx"\n')
    with pytest.raises(ConfigError) as err:
        load_settings(bad_proxy)
    assert err.value.path == "web.trusted_proxy"
    missing = tmp_path / "b.toml"
    missing.write_text(f'[web]\ntls_certificate = "{tmp_path / "none.crt"}"\n')
    with pytest.raises(ConfigError) as err:
        load_settings(missing)
    assert err.value.path == "web.tls_certificate"
    assert "cannot read" in str(err.value)
    not_pem = tmp_path / "c.crt"
    not_pem.write_text("hello")
    wrong = tmp_path / "c.toml"
    wrong.write_text(f'[web]\ntls_certificate = "{not_pem}"\n')
    with pytest.raises(ConfigError, match="not a PEM certificate"):
        load_settings(wrong)
