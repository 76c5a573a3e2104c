"""``boardgammon witness URL``: watch a server's public dice log (``docs/fair-dice.md``
§Witnesses).

Each run fetches the server's newest signed tree head, checks its signature with the server's
key (pinned at the first run), checks that it extends the last head this witness saw (a
consistency proof, RFC 9162 §2.1.4), co-signs it with the witness's own Ed25519 key and stores
it in the state file (JSON, mode 0600, made at the first run: the witness's private key, and
for each server witnessed with it, under its normalised address (:func:`server_id`), the
pinned key and the last head). With ``--post`` it sends the co-signature to the server
(``POST /api/log/witness``), which shows it to everyone.

One state file witnesses any number of servers, each with its own key and history; a key
change is misbehaviour only for the same address. A state file from before 2026-12-05 kept one
server's state without its address: the first server witnessed with it that signs with the key
it pinned takes it over; one that signs with another key is refused (exit status 2, nothing
changed), since the file cannot tell another server from a changed key.

A head signed with the log's key that the server does not prove consistent with the last one
(the proof cannot be fetched) is kept in the state file as evidence (``unproven``): each later
run checks it against the head it co-signs, and reports two histories if it does not fit, so
a server cannot escape a witness by answering a fork's consistency request with an error.

Exit status 0: the head is consistent with everything this witness saw; 1: the server shows
two histories, a shrunk log, a bad signature or another key (the state is left as it was, so
every later run says so too); 2: the server or the state file cannot be read, the state file
cannot be written (checked before the server is asked), or an old state file's one server may
be another one. An exit status 2 says why in one line for people (:func:`_no_answer`,
:func:`_refusal`): "connection refused (is the server running, and is this its address?)",
not the library's ``<urlopen error [Errno 111] Connection refused>``.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import typer
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from boardgammon.dice.transparency import (
    ProofError,
    cosigned_bytes,
    signed_head_bytes,
    verify_consistency,
    verify_ed25519,
)

STATE_FORMAT = "boardgammon-witness-v2"
OLD_STATE_FORMAT = "boardgammon-witness-v1"  # one server's state, without its address
_SERVER_FIELDS = ("server_key", "last_head", "last_cosignature", "unproven")
TIMEOUT_S = 30.0
"""Seconds the witness waits for each answer of the server."""
_PUBLIC_KEY = "/api/log/public-key"


class Misbehaviour(Exception):
    """The server showed something no honest log shows; the message says what."""


class Unreadable(Exception):
    """The server or the state file could not be read (or the file written); ``state``: the
    state to keep all the same (a signed head kept as evidence), or ``None`` to leave the file
    as it was."""

    def __init__(self, message: str, state: dict | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.state = state
        # The HTTP status of an answer the witness cannot use (a refusal, or a 200 that is not
        # JSON), None for no answer.
        self.status = status


def check_address(url: str) -> None:
    """Refuse an address the witness cannot fetch from: not ``http://`` or ``https://``
    (``localhost:8000`` is read as the scheme ``localhost``; ``file://`` would read a local
    file), no host, a malformed host or port, a space or control character.

    Raises:
        Unreadable: saying what is wrong with the address (exit status 2, not 1: nothing was
            read, so nothing was caught misbehaving).
    """
    if not url.strip():
        raise Unreadable("no address given; give the server's address, e.g. https://play.example")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise Unreadable("the address holds a space or control character")
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 -- read for its ValueError on a port that is no port
    except ValueError as exc:
        raise Unreadable(f"the address is malformed: {exc}") from None
    if parts.scheme not in ("http", "https"):
        hint = f" (did you mean http://{url}?)" if "://" not in url else ""
        raise Unreadable(f"the address must start with http:// or https://{hint}")
    if not parts.hostname:
        raise Unreadable("the address names no host (e.g. https://play.example)")


def server_id(url: str) -> str:
    """The address a server's state is kept under: ``url`` (checked by :func:`check_address`)
    with the scheme and host in lower case, no default port, user, query, fragment or
    trailing ``/`` (none of which changes what the witness fetches): ``HTTPS://Play.Example:443/``
    and ``https://play.example`` are one server, ``https://play.example/bg`` another."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    port = parts.port
    if port is not None and port != {"http": 80, "https": 443}[parts.scheme]:
        host = f"{host}:{port}"
    return f"{parts.scheme}://{host}{parts.path.rstrip('/')}"


def _address(url: str, path: str) -> str:
    """The address of the API's ``path`` on the server at ``url`` (which may have a path)."""
    return urllib.parse.urljoin(url.rstrip("/") + "/", path.lstrip("/"))


def _fetch(url: str, path: str, body: dict | None = None) -> dict:
    """The JSON the server at ``url`` answers to ``GET path`` (``POST`` with ``body``).

    Raises:
        Unreadable: no answer, an HTTP error status or an answer that is not JSON, said in
            words for people; ``status`` is the answer's HTTP status (None for no answer).
    """
    full = _address(url, path)
    method = "GET" if body is None else "POST"
    request = urllib.request.Request(
        full,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310
            content_type = answer.headers.get_content_type()
            data = answer.read()
    except urllib.error.HTTPError as exc:
        raise Unreadable(f"{method} {full}: {_refusal(exc)}", status=exc.code) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        why = _no_answer(url, reason) if isinstance(reason, OSError) else str(reason)
        raise Unreadable(why) from None
    except (OSError, http.client.HTTPException) as exc:
        raise Unreadable(_no_answer(url, exc)) from None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise Unreadable(f"{method} {full}: an answer in {content_type}, not JSON",
                         status=200) from None


def _refusal(exc: urllib.error.HTTPError) -> str:
    """An HTTP error answer in words: its status, and the API's error code and message
    (``docs/api.md`` §Errors) where it has them, not the raw body."""
    said = f"HTTP {exc.code} {exc.reason}".rstrip()
    try:
        error = json.loads(exc.read(4096))["error"]
        said += f": {error['code']}: {error['message']}"
    except (OSError, http.client.HTTPException, ValueError, RecursionError, KeyError,
            TypeError):
        pass
    return said


_CERTIFICATE_PROBLEMS = {
    10: "it has expired",
    18: "it is self-signed",
    19: "it is signed by an authority this machine does not trust",
    20: "it is signed by an authority this machine does not trust",
    62: "it is for another host name",
}
"""OpenSSL's verify codes (``X509_V_ERR_…``) most often met, in words."""


def _no_answer(url: str, exc: OSError | http.client.HTTPException) -> str:
    """Why the server at ``url`` gave no answer, in words and with what to check."""
    host = urllib.parse.urlsplit(url).hostname
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the server running, and is this its address?)"
    if isinstance(exc, TimeoutError):
        return (f"no answer within {TIMEOUT_S:g} s (is the server up, and can this machine "
                "reach it?)")
    if isinstance(exc, socket.gaierror):
        if exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)):
            return f"the host name {host} was not found (is it spelt right?)"
        if exc.errno == socket.EAI_AGAIN:
            return f"the host name {host} could not be looked up (is this machine online?)"
        return f"the host name {host} could not be looked up: {exc.strerror}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = _CERTIFICATE_PROBLEMS.get(exc.verify_code) or exc.verify_message
        return f"the server's TLS certificate is not accepted: {why}"
    if isinstance(exc, ssl.SSLError):
        if exc.reason == "WRONG_VERSION_NUMBER":
            return ("the server does not speak TLS (https) at this address: "
                    "try http:// instead of https://")
        return f"the TLS handshake failed: {exc.reason or exc}"
    if isinstance(exc, (ConnectionResetError, http.client.RemoteDisconnected)):
        return "the server closed the connection without an answer"
    if isinstance(exc, http.client.HTTPException):
        return f"the answer is not HTTP ({type(exc).__name__})"
    why = exc.strerror or str(exc) or type(exc).__name__
    return f"cannot connect: {why[:1].lower()}{why[1:]}"


def _public_key(url: str) -> str:
    """The log's public key (hex) that the server at ``url`` publishes.

    Raises:
        Unreadable: none read; an address that answers 404 or something other than a key
            is said not to look like a Boardgammon server's, with its root address to try.
    """
    full = _address(url, _PUBLIC_KEY)
    try:
        answer = _fetch(url, _PUBLIC_KEY)
    except Unreadable as exc:
        if exc.status == 404:
            raise _not_a_server(url, f"GET {full}: 404") from None
        if exc.status == 200:
            raise _not_a_server(url, str(exc)) from None
        raise
    key = answer.get("public_key") if isinstance(answer, dict) else None
    if not isinstance(key, str) or not re.fullmatch("[0-9a-fA-F]{64}", key):
        raise _not_a_server(url, f"GET {full}: no public_key of 64 hex digits in the answer")
    return key


def _not_a_server(url: str, evidence: str) -> Unreadable:
    """The refusal of an address that is not a Boardgammon server's (``evidence``: what it
    answered), with the site's root address to try where ``url`` has a path (``…/api``)."""
    parts = urllib.parse.urlsplit(url)
    root = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    said = f"the address does not look like a Boardgammon server's ({evidence})"
    if server_id(url) != server_id(root):
        said += f"; give the site's root address, e.g. {root}"
    return Unreadable(said)


def _load_state(path: Path) -> dict:
    if not path.exists():
        private = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return {"format": STATE_FORMAT, "witness_private_key": private.hex(), "servers": {}}
    if path.is_dir():
        raise Unreadable(f"the state file {path} is a folder, not a file")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except PermissionError:
        raise Unreadable(f"the state file {path} is not readable (permission denied)") from None
    except OSError as exc:
        raise Unreadable(f"cannot read the state file {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise Unreadable(f"the state file {path} is not a {STATE_FORMAT} file (not JSON: "
                         f"{exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError):
        raise Unreadable(f"the state file {path} is not a {STATE_FORMAT} file (not JSON "
                         "text in UTF-8)") from None
    if not isinstance(state, dict) or state.get("format") not in (STATE_FORMAT,
                                                                  OLD_STATE_FORMAT):
        raise Unreadable(f"the state file {path} is not a {STATE_FORMAT} file")
    if "witness_key" in state:  # the private key's name before 2026-12-04
        state["witness_private_key"] = state.pop("witness_key")
    if state["format"] == OLD_STATE_FORMAT:
        # Kept aside ("unclaimed") for the first server that signs with the key it pinned.
        old = {field: state.pop(field) for field in _SERVER_FIELDS if field in state}
        state = {**state, "format": STATE_FORMAT, "servers": {}}
        if old.get("server_key") is not None:
            state["unclaimed"] = {"unproven": [], **old}
    if not isinstance(state.get("servers"), dict):
        raise Unreadable(f"the state file {path} is not a {STATE_FORMAT} file")
    return state


def _draft(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp")


def _check_writable(path: Path) -> None:
    """Refuse a state file that cannot be written (no such folder, one not writable), before
    the server is asked anything: the draft :func:`_save_state` writes is made and removed.

    Raises:
        Unreadable: saying why (exit status 2).
    """
    try:
        os.close(os.open(_draft(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        os.unlink(_draft(path))
    except OSError as exc:
        raise Unreadable(_unwritable(path, exc)) from None


def _unwritable(path: Path, exc: OSError) -> str:
    folder = path.parent
    if isinstance(exc, FileNotFoundError):
        why = f"the folder {folder} does not exist"
    elif isinstance(exc, NotADirectoryError):
        why = f"{folder} is not a folder"
    elif isinstance(exc, PermissionError):
        why = f"the folder {folder} is not writable"
    else:
        why = exc.strerror or str(exc)
    return f"cannot write the state file {path}: {why}"


def _save_state(path: Path, state: dict) -> None:
    # Written whole under another name, then renamed over: a crash leaves the old state.
    draft = _draft(path)
    try:
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(state, file, indent=1)
        os.replace(draft, path)
    except OSError as exc:
        raise Unreadable(_unwritable(path, exc)) from None


def check(url: str, state: dict) -> tuple[dict, list[str]]:
    """One witness run against ``url`` from the state file's ``state`` (that server's part of
    it, under :func:`server_id`): the new state and the lines to say.

    Raises:
        Misbehaviour: another key than this server's, a bad signature, a shrunk log or two
            histories.
        Unreadable: the server could not be read, or a state from before 2026-12-05 (no
            address) pins another key, which may be another server's.
    """
    address = server_id(url)
    server = state["servers"].get(address)
    adopting = server is None and "unclaimed" in state
    if server is None:
        server = state.get("unclaimed") or {"server_key": None, "last_head": None,
                                           "unproven": []}

    def keeping(kept: dict) -> dict:
        """The whole state with ``kept`` as this server's."""
        whole = {**state, "servers": {**state["servers"], address: kept}}
        whole.pop("unclaimed", None)
        return whole

    published = _public_key(url)
    lines = []
    if server["server_key"] is None:
        lines.append(f"pinned the log's key {published} (first run for {address})")
    elif published != server["server_key"] and adopting:
        raise Unreadable(
            f"the state file is from a witness before 2026-12-05, which kept one server's "
            f"state without its address, pinned to the log's key {server['server_key']}; "
            f"{address} signs with {published}. If that state is {address}'s, its key changed "
            f"(misbehaviour); if it is another server's, witness that server first with this "
            f"file (its state is then kept under its address, beside others), or witness "
            f"{address} with another --state file")
    elif published != server["server_key"]:
        raise Misbehaviour(f"the log's key changed from {server['server_key']} to {published}")
    elif adopting:
        lines.append(f"took the state file's state from before 2026-12-05 (no address, the "
                     f"same log key) as {address}'s")
    server_key = bytes.fromhex(published)
    head = _fetch(url, "/api/log/head")
    try:
        signed = signed_head_bytes(head)
        signature = bytes.fromhex(head["signature"])
    except (ProofError, KeyError, ValueError) as exc:
        raise Misbehaviour(f"a malformed tree head: {exc}") from exc
    # The signed bytes take int(tree_size): "600" or 600.0 would verify and then be compared
    # and stored as they were served.
    for field in ("tree_size", "timestamp"):
        if type(head[field]) is not int:
            raise Misbehaviour(f"a malformed tree head: its {field} {head[field]!r} is no integer")
    if not verify_ed25519(server_key, signature, signed):
        raise Misbehaviour(f"the head of size {head['tree_size']} is not signed by the log's key")
    last = server["last_head"]
    size = head["tree_size"]
    if last is not None:
        if size < last["tree_size"]:
            raise Misbehaviour(
                f"the log shrank: it showed {last['tree_size']} entries "
                f"(root {last['root_hash']}), now {size}"
            )
        try:
            _check_extends(url, last, head)
        except Unreadable as exc:
            # A signed head nobody can reconcile with the last one is what a fork looks like
            # to a witness the server will not answer: kept, and checked on every later run.
            known = {(k["head"]["tree_size"], k["head"]["root_hash"]) for k in server["unproven"]}
            if (size, head["root_hash"]) not in known:
                server = {**server, "unproven": [*server["unproven"],
                                                 {"head": head, "after": last, "reason": str(exc)}]}
            raise Unreadable(
                f"the server signed a head of size {size} (root {head['root_hash']}) but gave "
                f"no proof that it extends the head of size {last['tree_size']} seen before "
                f"({exc}); the signed head is kept in the state file as evidence",
                keeping(server),
            ) from exc
        lines.append(f"consistent with the head of size {last['tree_size']} seen before")
    unproven = []
    for kept in server["unproven"]:
        earlier = kept["head"]
        if earlier["tree_size"] > size:
            unproven.append(kept)
            lines.append(f"a head of size {earlier['tree_size']} signed before is still "
                         "unproven (the log has not grown to it yet)")
            continue
        try:
            _check_extends(url, earlier, head)
        except Unreadable as exc:
            # Not co-signed while evidence the log has grown past stays unreconciled.
            raise Unreadable(
                f"the head of size {earlier['tree_size']} (root {earlier['root_hash']}) kept "
                f"as evidence is still unproven against the head of size {size} ({exc}); "
                "not co-signed", keeping(server)) from exc
        lines.append(f"the head of size {earlier['tree_size']} signed before, unproven then, "
                     "is consistent")
    witness = Ed25519PrivateKey.from_private_bytes(
        bytes.fromhex(state["witness_private_key"]))
    cosignature = witness.sign(cosigned_bytes(head)).hex()
    public = (
        witness.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )
    lines.append(
        f"co-signed the head of size {size}, root {head['root_hash']} (witness key {public})"
    )
    new_state = keeping({
        "server_key": published,
        "last_head": head,
        "last_cosignature": cosignature,
        "unproven": unproven,
    })
    return {**new_state, "witness_public_key": public}, lines


def _check_extends(url: str, earlier: dict, head: dict) -> None:
    """Check that the signed ``head`` extends the ``earlier`` one (a consistency proof from
    the server; none is needed between heads of the same size, whose roots must be equal).

    Raises:
        Misbehaviour: two histories; Unreadable: the proof could not be fetched.
    """
    first, second = earlier["tree_size"], head["tree_size"]
    if first == second or first == 0:
        if first == second and earlier["root_hash"] != head["root_hash"]:
            raise Misbehaviour(
                f"two histories: two heads of size {first} with different roots, "
                f"{earlier['root_hash']} and {head['root_hash']}")
        return
    try:
        proof = _fetch(url, f"/api/log/proof/consistency?first={first}&second={second}")
    except Unreadable as exc:
        if exc.status is not None and 400 <= exc.status < 500:
            # Both sizes are of heads the log's key signed: a log that signed them has both
            # trees, and refusing the proof between them is refusing to show its history.
            raise Misbehaviour(
                f"the server refuses the consistency proof between two heads it signed, of "
                f"sizes {first} (root {earlier['root_hash']}) and {second} (root "
                f"{head['root_hash']}): {exc}") from exc
        raise
    try:
        verify_consistency(
            first,
            second,
            bytes.fromhex(earlier["root_hash"]),
            bytes.fromhex(head["root_hash"]),
            [bytes.fromhex(p) for p in proof["consistency_path"]],
        )
    except (ProofError, KeyError, ValueError, TypeError, AttributeError) as exc:
        raise Misbehaviour(
            f"two histories: the head of size {second} (root {head['root_hash']}) does "
            f"not extend the head of size {first} (root {earlier['root_hash']}) seen "
            f"before: {exc}"
        ) from exc


def run(url: str, state_path: Path, post: bool = False, out: Callable[[str], None] = print) -> int:
    """One witness run; the exit status (see the module docstring)."""
    try:
        check_address(url)
        state = _load_state(state_path)
        _check_writable(state_path)
        try:
            new_state, lines = check(url, state)
        except Unreadable as exc:
            if exc.state is not None:  # a signed head kept as evidence
                _save_state(state_path, exc.state)
            raise
        _save_state(state_path, new_state)
    except Misbehaviour as exc:
        out(f"MISBEHAVIOUR: {exc}")
        return 1
    except Unreadable as exc:
        out(f"cannot witness{_shown(url)}: {exc}")
        return 2
    for line in lines:
        out(line)
    if post:
        witnessed = new_state["servers"][server_id(url)]
        try:
            _fetch(
                url,
                "/api/log/witness",
                {
                    "tree_size": witnessed["last_head"]["tree_size"],
                    "witness_key": new_state["witness_public_key"],
                    "signature": witnessed["last_cosignature"],
                },
            )
        except Unreadable as exc:
            out(f"the server did not take the co-signature: {exc}")
            return 2
        out("sent the co-signature to the server")
    return 0


def _shown(url: str) -> str:
    """``url`` as the first words of a line say it: none for no address, quoted where it
    holds a space or control character (which would break the line)."""
    if not url.strip():
        return ""
    if any(c.isspace() or not c.isprintable() for c in url):
        return f" {url!r}"
    return f" {url}"


def witness(
    url: str = typer.Argument(..., help="The server's address, e.g. https://play.example"),
    state: Path = typer.Option(
        Path("boardgammon-witness.json"),
        "--state",
        help="The witness's state file (made at the first run, 0600); one file keeps the "
        "state of every server witnessed with it.",
    ),
    post: bool = typer.Option(False, "--post", help="Send the co-signature to the server."),
) -> None:
    """Check that a server's public dice log only grows, and co-sign its newest head.

    Exit status 0: consistent with every head seen before.

    Exit status 1: the server shows two histories, a shrunk log, another key or a bad signature.

    Exit status 2: the server or the state file cannot be read, or the file cannot be written.
    """
    raise typer.Exit(run(url, state, post, out=typer.echo))
