"""The deployment of ``docs/deploy.md``, run: nginx (the Debian package, as the current user, in a
folder of the test's own) ends TLS in front of two ``boardgammon serve`` processes on one
PostgreSQL and Redis, rendered from the repository's own ``deploy/nginx/boardgammon.conf``. Two
players play a whole match through it over HTTPS and WSS, each request going to whichever
process nginx picks. The player connects from 127.0.0.3 and nginx reaches the processes from
127.0.0.2, the one trusted proxy, so each party's address is told apart on loopback: the
server sees the player's address and scheme as nginx saw them, never what the player claims in
``X-Forwarded-*``, and nobody but nginx is believed."""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import re
import secrets
import shutil
import socket
import ssl
import string
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from gameplay import REDIS, free_port, redis_or_skip

from tests.helpers.actions import next_action
from tests.helpers.processes import process_group
from tests.helpers.servers import serving
from tests.helpers.services import service_missing

pytestmark = pytest.mark.slow

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "boardgammon.conf"
PLAYER = "127.0.0.3"
"""The players' address (the client side of every connection to nginx)."""
NGINX = "127.0.0.2"
"""The address nginx connects to the server processes from: the only trusted proxy."""
PASSWORD = "long enough password"


def nginx_or_skip() -> str:
    """The nginx binary; skip (fail in CI, where ``make system-deps`` installs it) without."""
    # Debian puts it in /usr/sbin, which a user's PATH may lack.
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if found is None:
        service_missing("nginx (Debian package `nginx`) is not installed: `make system-deps`")
    assert found is not None
    return found


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for ``127.0.0.1`` and ``localhost`` signed by its own key: (cert, key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


def render(template: str, values: dict[str, str]) -> str:
    """The template with its ``${BG_…}`` placeholders filled, as ``envsubst`` with the list in
    its header would; every placeholder must have a value and every value a placeholder."""
    assert set(re.findall(r"\$\{(BG_\w+)\}", template)) == set(values)
    return string.Template(template).safe_substitute(values)


@contextmanager
def nginx(folder: Path, site: str, port: int) -> Iterator[None]:
    """nginx with ``site`` in its ``http`` block, every path under ``folder``, until the block
    is left (its process group ended)."""
    binary = nginx_or_skip()
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / temp).mkdir()
    (folder / "site.conf").write_text(site)
    # As root, nginx would hand its workers to `nobody`, who cannot enter the test's folder.
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(f"""{user}daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/site.conf;
}}
""")
    args = [binary, "-p", str(folder), "-c", str(folder / "nginx.conf"),
            "-e", str(folder / "error.log")]
    with process_group(args) as proc:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (folder / "error.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "nginx did not listen within 30 s"
                time.sleep(0.1)
        yield


class Listener:
    """Every frame a WebSocket receives, collected by a thread until the socket closes."""

    def __init__(self, ws) -> None:
        self.ws, self.frames = ws, []
        self._changed = threading.Condition()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        try:
            for text in self.ws:
                with self._changed:
                    self.frames.append(json.loads(text))
                    self._changed.notify_all()
        except Exception:  # noqa: BLE001 - the socket closed: the frames so far stay
            pass

    def wait_for(self, found: Callable[[dict], bool], what: str, timeout: float = 30) -> dict:
        with self._changed:
            deadline = time.monotonic() + timeout
            while True:
                frame = next((f for f in self.frames if found(f)), None)
                if frame is not None:
                    return frame
                left = deadline - time.monotonic()
                assert left > 0, f"no {what} in {[f['type'] for f in self.frames]}"
                self._changed.wait(left)


def _login_spray(client: httpx.Client, url: str, name: str, claimed: str) -> list[int]:
    """20 wrong passwords for ``name``, each claiming (X-Forwarded-For) another address."""
    return [client.post(url, json={"username": name, "password": "wrong password"},
                        headers={"X-Forwarded-For": claimed.format(i)}).status_code
            for i in range(20)]


def test_a_match_through_nginx_over_tls(postgres_url, tmp_path):
    nginx_or_skip()
    redis_or_skip()
    from websockets.sync.client import connect

    backends = [free_port(), free_port()]
    https, http = free_port(), free_port()
    cert, key = self_signed(tmp_path)
    site = render(TEMPLATE.read_text(), {
        "BG_SERVER_NAME": "localhost",
        "BG_HTTPS_LISTEN": f"127.0.0.1:{https} ssl",
        "BG_HTTP_LISTEN": f"127.0.0.1:{http}",
        "BG_CERT": str(cert), "BG_CERT_KEY": str(key),
        "BG_BACKENDS": " ".join(f"server 127.0.0.1:{p};" for p in backends),
        "BG_PROXY_BIND": NGINX,
        "BG_ACCESS_LOG": str(tmp_path / "access.log")})
    env = {**os.environ, "BOARDGAMMON_DATABASE_URL": postgres_url,
           "BOARDGAMMON_REDIS_URL": REDIS, "BOARDGAMMON_BOT_DELAY": "0",
           "BOARDGAMMON_DICE": "v1",  # players with no device to reveal v2 links
           "BOARDGAMMON_TRUSTED_PROXIES": NGINX}
    site_url = f"https://127.0.0.1:{https}"
    tls = ssl.create_default_context(cafile=str(cert))
    (tmp_path / "nginx").mkdir()
    with serving(backends, env, tmp_path) as servers, nginx(tmp_path / "nginx", site, https), \
            httpx.Client(base_url=site_url, timeout=30, transport=httpx.HTTPTransport(
                verify=tls, local_address=PLAYER)) as client:
        # Plain HTTP is sent to HTTPS.
        r = httpx.get(f"http://127.0.0.1:{http}/lobby", follow_redirects=False)
        assert r.status_code == 301 and r.headers["location"].startswith("https://")

        tokens, names = {}, {}
        for seat, who in enumerate(("ann", "bob")):
            names[seat] = f"{who}{secrets.token_hex(3)}"
            r = client.post("/api/auth/register",
                            json={"username": names[seat], "password": PASSWORD})
            assert r.status_code == 201, r.text
            tokens[seat] = r.json()["token"]
            # X-Forwarded-Proto from nginx arrived: the session cookie is Secure.
            assert "secure" in r.headers["set-cookie"].lower()
        bearer = {seat: {"Authorization": f"Bearer {tokens[seat]}"} for seat in (0, 1)}
        r = client.post("/api/seeks", json={"length": 1}, headers=bearer[0])
        assert r.status_code == 201, r.text
        r = client.post(f"/api/seeks/{r.json()['id']}/accept", headers=bearer[1])
        assert r.status_code == 201, r.text
        match_id = r.json()["match_id"]
        path = f"/api/matches/{match_id}"

        # The server checks a browser's Origin against its own origin, which it builds from
        # the forwarded scheme and Host: wss through nginx is https://127.0.0.1:<port>.
        def socket_of(seat: int) -> Any:
            # 30 s, as the HTTPS client's: the 10 s default once ran out in a CI run under load
            # (the run's only failure); if it runs out again, the logs say where it waited.
            try:
                return connect(f"wss://127.0.0.1:{https}/ws/matches/{match_id}", ssl=tls,
                               origin=site_url, additional_headers=bearer[seat], proxy=None,
                               source_address=(PLAYER, 0), legacy=True, open_timeout=30)
            except TimeoutError as exc:
                logs = [tmp_path / "nginx" / "error.log", *(s.log for s in servers)]
                raise AssertionError("no WebSocket handshake within 30 s; " + "; ".join(
                    f"{log.name}: {log.read_text()[-1500:]}" for log in logs)) from exc

        sockets = {seat: socket_of(seat) for seat in (0, 1)}
        try:
            heard = {seat: Listener(ws) for seat, ws in sockets.items()}
            # Seat 0 acts over its WebSocket, seat 1 over HTTPS.
            for n in range(1000):
                state = client.get(path, headers=bearer[0]).json()
                if state["phase"] == "match_over":
                    break
                seat = state["turn"]
                action = next_action(client.get(path, headers=bearer[seat]).json(), f"d{n}")
                if seat == 0:
                    sockets[0].send(json.dumps({"type": "action", "action": action}))
                    heard[0].wait_for(lambda f, n=n: f.get("action_id") == f"d{n}", f"ack d{n}")
                    assert {"type": "ack", "action_id": f"d{n}"} in heard[0].frames
                else:
                    r = client.post(f"{path}/actions", json=action, headers=bearer[1])
                    assert r.status_code == 200, r.text
            else:
                raise AssertionError("the match did not end")
            assert state["result"]["winner"] in (0, 1)
            for seat in (0, 1):  # each socket heard the end, whichever process it is on
                heard[seat].wait_for(lambda f: f["type"] == "match_end", "match_end")
        finally:
            for ws in sockets.values():
                ws.close()

        # Sticky-free: nginx sent the match's requests to both processes.
        upstreams = re.findall(r"upstream=127\.0\.0\.1:(\d+)",
                               (tmp_path / "access.log").read_text())
        assert {int(p) for p in upstreams} == set(backends)

        # Through nginx, a claimed X-Forwarded-For is replaced by the player's own address:
        # 20 wrong passwords from 20 "addresses" are one address's, and throttled.
        spray = _login_spray(client, "/api/auth/login", names[0], "10.9.{}.1")
        assert 429 in spray, spray

        # Straight to a process from nginx's own address, the header is believed (the control:
        # 20 claimed addresses, 20 buckets, no throttle)...
        with httpx.Client(transport=httpx.HTTPTransport(local_address=NGINX),
                          timeout=30) as proxy_side:
            spray = _login_spray(proxy_side, f"http://127.0.0.1:{backends[0]}/api/auth/login",
                                 names[1], "10.8.{}.1")
            assert 429 not in spray, spray
        # ...and from any other address it is not: neither the claimed address nor the scheme.
        direct = f"http://127.0.0.1:{backends[1]}/api/auth/login"
        with httpx.Client(timeout=30) as elsewhere:
            r = elsewhere.post(direct, json={"username": names[1], "password": PASSWORD},
                               headers={"X-Forwarded-For": "10.7.0.1",
                                        "X-Forwarded-Proto": "https"})
            assert r.status_code == 200, r.text
            assert "secure" not in r.headers["set-cookie"].lower()
            spray = _login_spray(elsewhere, direct, names[1], "10.7.{}.1")
            assert 429 in spray, spray

    # What each process logged as the client: the player's address as nginx saw it (uvicorn's
    # access log prints the address the app believed), never a claimed one, never nginx's.
    seen = {s.log: set(re.findall(r"(\d+\.\d+\.\d+\.\d+):\d+ - \"", s.log.read_text()))
            for s in servers}
    assert all(PLAYER in addresses for addresses in seen.values()), seen
    assert not any(a.startswith("10.9.") for addresses in seen.values() for a in addresses)
    assert not any(a.startswith("10.7.") for addresses in seen.values() for a in addresses)
