"""``boardgammon witness`` with an address it cannot use or reach, or a state file it cannot
read or write, exits 2 (nothing read) with one line saying what is wrong in words, never 1
("the server shows two histories") with a traceback, nor a raw Python error (a new user's
reports: ``not-a-url``, ``localhost:8000``, ``http://[::1``; ``--state /nonexistent/dir/x.json``;
``<urlopen error [Errno 111] Connection refused>``, ``[Errno 21] Is a directory``, ``did you
mean http://?`` for no address, the server's raw JSON 404 for ``http://127.0.0.1:8766/api``)."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import os
import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from typer.testing import CliRunner

from boardgammon.cli import app as cli
from boardgammon.commands import witness as witness_command
from boardgammon.commands.witness import run, server_id


@pytest.mark.parametrize(("address", "said"), [
    ("not-a-url", "must start with http:// or https://"),
    ("localhost:8000", "http://localhost:8000"),
    ("127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("http://[::1", "Invalid IPv6 URL"),
    ("http://", "names no host"),
    ("http://:8000", "names no host"),
    ("http://example.org:99999", "Port out of range"),
    ("ftp://example.org", "must start with http:// or https://"),
    ("file:///etc/passwd", "must start with http:// or https://"),
    ("https://exa mple.org", "space or control character"),
    ("https://example.org/\x00", "space or control character"),
])
def test_an_unusable_address_exits_2_with_one_line_saying_why(tmp_path, address, said):
    state = tmp_path / "witness.json"
    result = CliRunner().invoke(cli, ["witness", address, "--state", str(state)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("cannot witness"), lines
    assert said in lines[0], lines
    assert not state.exists()


@pytest.mark.parametrize("address", ["", "  "])
def test_no_address_says_to_give_one(tmp_path, address):
    # It said "the address must start with http:// or https:// (did you mean http://?)".
    state = tmp_path / "witness.json"
    result = CliRunner().invoke(cli, ["witness", address, "--state", str(state)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.output.splitlines() == [
        "cannot witness: no address given; give the server's address, e.g. https://play.example"]
    assert not state.exists()


def test_an_address_with_a_line_break_is_shown_quoted_on_one_line(tmp_path):
    said: list[str] = []
    assert run("https://play.example/\nx", tmp_path / "w.json", out=said.append) == 2
    assert said == ["cannot witness 'https://play.example/\\nx': the address holds a space or "
                    "control character"]


def _no_server(*args, **kwargs):
    raise AssertionError("the server was asked before the state file was checked")


@pytest.mark.parametrize("where", ["no folder", "a file as folder", "read-only folder"])
def test_a_state_file_it_cannot_write_exits_2_before_asking_the_server(
        tmp_path, monkeypatch, where):
    # It ended in a traceback from _save_state (FileNotFoundError for '.x.json.tmp'), exit
    # status 1, after the server had been asked and the head co-signed.
    monkeypatch.setattr(witness_command, "_fetch", _no_server)
    if where == "no folder":
        folder = tmp_path / "nonexistent" / "dir"
        why = f"the folder {folder} does not exist"
    elif where == "a file as folder":
        folder = tmp_path / "file"
        folder.write_text("")
        why = f"{folder} is not a folder"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes to a read-only folder")
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o500)
        why = f"the folder {folder} is not writable"
    state = folder / "x.json"
    result = CliRunner().invoke(cli, ["witness", "https://play.example", "--state", str(state)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.splitlines() == [
        f"cannot witness https://play.example: cannot write the state file {state}: {why}"]


@pytest.mark.parametrize(("address", "key"), [
    ("https://play.example", "https://play.example"),
    ("HTTPS://Play.Example:443/", "https://play.example"),
    ("https://user@play.example/?q=1#top", "https://play.example"),
    ("http://play.example:80", "http://play.example"),
    ("http://play.example:8000/bg/", "http://play.example:8000/bg"),
    ("https://play.example:80", "https://play.example:80"),
    ("http://[::1]:8000", "http://[::1]:8000"),
])
def test_a_servers_state_is_kept_under_its_normalised_address(address, key):
    assert server_id(address) == key


@pytest.mark.parametrize(("content", "why"), [
    (None, "is a folder, not a file"),
    ("", "is not a boardgammon-witness-v2 file (not JSON: Expecting value at line 1, column 1)"),
    (b"\xff", "is not a boardgammon-witness-v2 file (not JSON text in UTF-8)"),
    ("[]", "is not a boardgammon-witness-v2 file"),
])
def test_a_state_file_it_cannot_read_says_why_in_words(tmp_path, monkeypatch, content, why):
    # A folder said "[Errno 21] Is a directory: '…'".
    monkeypatch.setattr(witness_command, "_fetch", _no_server)
    state = tmp_path / "witness.json"
    if content is None:
        state.mkdir()
    elif isinstance(content, bytes):
        state.write_bytes(content)
    else:
        state.write_text(content)
    said: list[str] = []
    assert run("https://play.example", state, out=said.append) == 2
    assert said == [f"cannot witness https://play.example: the state file {state} {why}"]


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _witness(url: str, tmp_path) -> list[str]:
    """What one witness run against ``url`` says; it must exit 2 and write no state."""
    state = tmp_path / "witness.json"
    said: list[str] = []
    assert run(url, state, out=said.append) == 2, said
    assert not state.exists()
    return said


def test_a_server_that_is_not_running_is_said_so_in_words(tmp_path):
    # It said "<urlopen error [Errno 111] Connection refused>".
    url = f"http://127.0.0.1:{_unused_port()}"
    result = CliRunner().invoke(cli, ["witness", url, "--state", str(tmp_path / "w.json")])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.output.splitlines() == [
        f"cannot witness {url}: connection refused (is the server running, and is this its "
        "address?)"]


def test_a_server_that_does_not_answer_is_said_so_in_words(tmp_path, monkeypatch):
    monkeypatch.setattr(witness_command, "TIMEOUT_S", 0.2)
    with socket.socket() as silent:  # connections are taken (the backlog), never answered
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        assert _witness(url, tmp_path) == [
            f"cannot witness {url}: no answer within 0.2 s (is the server up, and can this "
            "machine reach it?)"]


@pytest.mark.parametrize(("code", "why"), [
    (socket.EAI_NONAME, "was not found (is it spelt right?)"),
    (socket.EAI_AGAIN, "could not be looked up (is this machine online?)"),
])
def test_a_host_name_that_is_not_found_is_said_so_in_words(tmp_path, monkeypatch, code, why):
    def lookup(*args, **kwargs):
        raise socket.gaierror(code, "from the test")

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    assert _witness("https://play.invalid", tmp_path) == [
        f"cannot witness https://play.invalid: the host name play.invalid {why}"]


@contextlib.contextmanager
def _serving(answers: dict[str, tuple[int, str, bytes] | None]) -> Iterator[str]:
    """A tiny HTTP server on a free loopback port that answers each path in ``answers`` with
    ``(status, content type, body)`` or, for ``None``, closes the connection without an
    answer; every other path is a 404 in the API's shape. Yields its address."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 -- the name http.server calls
            not_found = json.dumps({"error": {"code": "not_found",
                                              "message": f"GET {self.path}"}}).encode()
            answer = answers.get(self.path, (404, "application/json", not_found))
            if answer is None:
                self.close_connection = True
                return
            status, content_type, body = answer
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


_KEY = (200, "application/json", json.dumps({"public_key": "11" * 32}).encode())


@pytest.mark.parametrize(("path", "answers", "why"), [
    # It repeated the server's raw JSON 404 for GET /api/api/log/public-key.
    ("/api", {}, "the address does not look like a Boardgammon server's (GET {url}/api/api/log/"
     "public-key: 404); give the site's root address, e.g. {url}"),
    ("", {}, "the address does not look like a Boardgammon server's (GET {url}/api/log/"
     "public-key: 404)"),
    ("/", {"/api/log/public-key": (200, "text/html", b"<!doctype html><p>Welcome")},
     "the address does not look like a Boardgammon server's (GET {url}/api/log/public-key: an "
     "answer in text/html, not JSON)"),
    ("", {"/api/log/public-key": (200, "application/json", b'{"key": "x"}')},
     "the address does not look like a Boardgammon server's (GET {url}/api/log/public-key: no "
     "public_key of 64 hex digits in the answer)"),
    ("", {"/api/log/public-key": _KEY, "/api/log/head": (200, "text/plain", b"ok")},
     "GET {url}/api/log/head: an answer in text/plain, not JSON"),
    ("", {"/api/log/public-key": _KEY, "/api/log/head": (
        503, "application/json", b'{"error": {"code": "database_unavailable", "message": '
        b'"the database is unavailable"}}')},
     "GET {url}/api/log/head: HTTP 503 Service Unavailable: database_unavailable: the "
     "database is unavailable"),
    ("", {"/api/log/public-key": _KEY, "/api/log/head": (500, "text/plain", b"Internal")},
     "GET {url}/api/log/head: HTTP 500 Internal Server Error"),
    ("", {"/api/log/public-key": None}, "the server closed the connection without an answer"),
])
def test_an_answer_the_witness_cannot_use_is_said_in_words(tmp_path, path, answers, why):
    with _serving(answers) as url:
        assert _witness(url + path, tmp_path) == [
            f"cannot witness {url}{path}: {why.format(url=url)}"]


def test_https_to_a_server_without_tls_says_to_try_http(tmp_path):
    with _serving({}) as url:
        address = url.replace("http://", "https://")
        assert _witness(address, tmp_path) == [
            f"cannot witness {address}: the server does not speak TLS (https) at this address: "
            "try http:// instead of https://"]


def test_a_self_signed_certificate_is_said_so_in_words(tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(1)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, hashes.SHA256()))
    pem = tmp_path / "server.pem"
    pem.write_bytes(certificate.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pem)
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()

        def handshake() -> None:
            connection, _ = listening.accept()
            with contextlib.suppress(OSError), context.wrap_socket(connection, server_side=True):
                pass

        thread = threading.Thread(target=handshake, daemon=True)
        thread.start()
        url = f"https://127.0.0.1:{listening.getsockname()[1]}"
        assert _witness(url, tmp_path) == [
            f"cannot witness {url}: the server's TLS certificate is not accepted: it is "
            "self-signed"]
        thread.join(timeout=10)
