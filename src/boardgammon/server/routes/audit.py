"""Public audit of the dice record: ``GET /audit/{match_id}`` (HTML page, ``?lang=en|de|ja``),
``GET /api/audit/{match_id}`` (the same as JSON, see
:func:`boardgammon.server.dice_record.audit_document`, or the v2 record's
:func:`boardgammon.server.dice_record_v2.audit_document`) and ``GET /audit/verify.py`` (the
stdlib-only verifier, :mod:`boardgammon.dice.verify`, as a download; ``GET
/audit/transparency.py`` the public log's checker, :mod:`boardgammon.dice.transparency`).

Per roll: ``GET /api/audit/{match_id}/rolls/{roll_id}/proof`` (the roll's entry and its log
entries proven against a signed head, :func:`boardgammon.server.dice_log.roll_proof`: what a
player's device fetches after each roll) and ``GET
/api/audit/{match_id}/rolls/{roll_id}/verify.py`` (the roll's filled-in program). Per match
(v2): ``GET /api/audit/{match_id}/anchors`` (the leaves of its accepted chain anchors, proven:
what a device checks after registering its anchor).

Verdicts are recomputed on every request (a roll's proof: whenever the match's record changed,
:func:`boardgammon.server.dice_log.cached_roll_proof`). The page's "Verify it yourself" section
is filled in with the match's first revealed roll that can be read (not ``malformed``): a
Python program (``verify_roll.py.j2``; v2: ``verify_roll_v2.py.j2``, which also checks the
opponent's link, the entry hash and the roll's public log proofs) and, for v1, an ``openssl``
command line (``verify_openssl.sh.j2``); every revealed roll that can be read links to its own
filled-in Python program from its row, and every row to its proof, whose values
``web/audit.js`` shows in the row when it is opened (served by the addresses above, so that the
page stays small: a 60-roll page is 58 KB where it was 870 KB with the programs, 160 KB with
the values, in it).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import cast
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from boardgammon.dice import transparency, verify
from boardgammon.dice.ids import MATCH_ID_PATTERN
from boardgammon.server import dice_log, dice_record_v2
from boardgammon.server.bodies import MatchId, RollId
from boardgammon.server.db import get_session
from boardgammon.server.dice_record import RollNotFound, audit_document
from boardgammon.server.errors import responses
from boardgammon.server.i18n import page_context, request_language, translator
from boardgammon.server.match_repository import match_info
from boardgammon.server.match_state import MatchInfo
from boardgammon.server.services import services
from boardgammon.server.tables import DELETED_NAME, MatchRow

TEMPLATES = Path(__file__).parent.parent / "templates"
pages = Jinja2Templates(directory=TEMPLATES)
pages.env.filters["fromjson"] = json.loads  # a log leaf's fields (the page shows an anchor's)


def raw_path(request: Request) -> str:
    """The request's path as the client sent it, %-escapes kept (``request.url.path`` is decoded:
    a link built from it for ``/match/..%2Fetc`` leads to ``/etc``); the decoded path, escaped
    again, where the server gives no ``raw_path``."""
    raw = request.scope.get("raw_path")
    if raw:
        return raw.split(b"?", 1)[0].decode("latin-1")
    return quote(request.url.path)


pages.env.globals["raw_path"] = raw_path  # the language links keep the address as it was


class NoSuchMatch(RollNotFound):
    """Neither a match nor a dice record has this ID."""


def utc_from_ms(stamp: int) -> str:
    """A head's ``timestamp`` (ms since 1970 UTC) as people read it: ``2026-12-03 15:24:47.123
    UTC`` (ISO 8601's order in every language)."""
    moment = datetime.fromtimestamp(stamp / 1000, UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{stamp % 1000:03d} UTC"


pages.env.filters["utc_ms"] = utc_from_ms


def with_commands(text: str, *commands: str) -> Markup:
    """``text`` as HTML, each of ``commands`` in it (a command line quoted in a sentence, such
    as ``verify.py --log``) in a ``<code class="command">`` that pages.css keeps on one line:
    on a phone, German and Japanese lines broke it after ``--``."""
    html = escape(text)
    for command in commands:
        html = html.replace(escape(command),
                            Markup('<code class="command">{}</code>').format(command))
    return html


pages.env.filters["commands"] = with_commands
# Program text is not HTML: rendered unescaped here, escaped once when placed in the page.
programs = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=False,
    keep_trailing_newline=True,
    undefined=StrictUndefined,
)
programs.filters["py"] = repr  # a value as a Python literal (str, int, None, list of str)

router = APIRouter(tags=["audit"])


def _octal(data: bytes) -> str:
    """``data`` as a POSIX ``printf`` format string: every byte as a ``\\ooo`` escape."""
    return "".join(f"\\{byte:03o}" for byte in data)


def roll_program(match_id: str, entry: dict) -> str:
    """The standard-library Python program that checks one revealed audit entry."""
    return programs.get_template("verify_roll.py.j2").render(match_id=match_id, roll=entry)


# The fields of a v2 audit entry that its entry hash covers, and its seq: what a program needs
# of the entries before its roll.
_RECORD_KEYS = ("seq", "roll_id", "nonce", "seat", "kind", "state", "commitment", "server_seed",
                "roller_entropy", "roller_source", "opponent_prev_link", "opponent_entropy",
                "opponent_source", "dice", "prev_hash", *verify.TIME_FIELDS, "entry_hash")


def roll_program_v2(match_id: str, entry: dict, preceding: list[dict], head: dict,
                    anchors: list[dict], match_leaf: dict | None = None) -> str:
    """The standard-library Python program that checks one revealed v2 audit entry: its
    commitment, the opponent's link in the k steps it counts itself from ``preceding`` (the
    entries before the roll back to the one that last revealed the same opponent's link, or
    the first: :func:`.dice_record_v2.preceding_start`, each hashed and chained into the
    roll), the dice, its entry hash and its log entries' inclusion proofs to the root of
    ``head`` (a signed tree head that covers them), the match's chain anchors' inclusion
    proofs (``anchors``, the leaves with their proofs) to the same root, that a roll
    requested after its opponent's anchor was accepted took a link of it, and, given the
    match's leaf (``match_leaf``, with its proof to the same root; ``None`` where the log has
    none), that a roll revealed without the opponent's link waited the wait it states."""
    before = [{key: e[key] for key in _RECORD_KEYS} for e in preceding]
    return programs.get_template("verify_roll_v2.py.j2").render(match_id=match_id, roll=entry,
                                                                 before=before, head=head,
                                                                 anchors=anchors,
                                                                 match_leaf=match_leaf)


def verify_programs(match_id: str, entry: dict) -> dict[str, str]:
    """The "Verify it yourself" programs for a revealed audit entry: ``python``, ``openssl``."""
    seed = bytes.fromhex(entry["server_seed"])
    entropy = bytes.fromhex(entry["client_entropy"])
    prefix = verify.dice_prefix(match_id, entry["roll_id"], entry["nonce"], entropy)
    fields = {
        "match_id": match_id,
        "roll": entry,
        "seed_octal": _octal(seed),
        "block0_octal": _octal(prefix + (0).to_bytes(4, "big")),
    }
    return {
        "python": roll_program(match_id, entry),
        "openssl": programs.get_template("verify_openssl.sh.j2").render(fields),
    }


def player_names(info: MatchInfo | None, t: Callable[..., str]) -> tuple[str, str] | None:
    """The names of seats 0 and 1 as the page shows them (the computer by its level), ``None``
    for a record without a match (the test vectors')."""
    if info is None:
        return None
    first, second = (t("audit.computer", level=t(f"level.{who.bot}")) if who.bot
                     else t("player.deleted") if who.username == DELETED_NAME else who.username
                     for who in info.seats)
    return first, second


@router.get("/audit/verify.py", response_class=PlainTextResponse)
def verifier_source() -> PlainTextResponse:
    """The verifier module's source, to run alone: ``python3 verify.py FILE_OR_URL``."""
    source = Path(verify.__file__).read_text(encoding="utf-8")
    return PlainTextResponse(source, media_type="text/x-python; charset=utf-8")


@router.get("/audit/transparency.py", response_class=PlainTextResponse)
def log_checker_source() -> PlainTextResponse:
    """The public log's checker, to run alone: ``python3 transparency.py FILE_OR_URL``."""
    source = Path(transparency.__file__).read_text(encoding="utf-8")
    return PlainTextResponse(source, media_type="text/x-python; charset=utf-8")


@router.get("/api/audit/{match_id}", responses=responses(404))
def audit_json(request: Request, match_id: str = MatchId,
               session: Session = Depends(get_session)) -> dict:
    """The match's dice record as JSON, with its public log entries and their inclusion
    proofs: ``boardgammon-audit-v1``, or ``boardgammon-audit-v2`` for a match rolled with v2
    dice (404 ``not_found`` if it has neither)."""
    parts = services(request.app)
    return dice_log.with_log(session, parts.log_key, either_document(session, match_id),
                             writing=parts.db.writing)


@router.get("/api/audit/{match_id}/head", responses=responses(404))
def match_log_head(request: Request, match_id: str = MatchId,
                   session: Session = Depends(get_session)) -> dict:
    """``{"head": …}``: the public log's first signed head that includes every entry of the
    match (:func:`boardgammon.server.dice_log.match_head`), the one its result dialog shows
    (also after a reload, when the ``match_end`` event that carried it is long gone). 404
    ``not_found``: no such match, or none of its rolls is in the log (played before it)."""
    parts = services(request.app)
    head = dice_log.match_head(session, parts.log_key, match_id, writing=parts.db.writing)
    if head is None and match_info(session, match_id) is None:
        raise NoSuchMatch(f"no match {match_id!r}")
    if head is None:
        raise RollNotFound(f"match {match_id} has no entries in the public log")
    return {"head": head}


def roll_entries(session: Session, match_id: str, roll_id: str,
                 after: int | None = None) -> tuple[str, dict, list[dict]]:
    """The record's format, the roll's audit entry and the entries its proof carries before it
    (v2: :func:`.dice_record_v2.roll_window`, built without the whole document; v1: none).

    Raises:
        RollNotFound: the match has no record of either version.
        dice_log.NoSuchEntry: it has, but no roll ``roll_id``.
    """
    missing = dice_log.NoSuchEntry(f"match {match_id} has no roll {roll_id}")
    try:
        window = dice_record_v2.roll_window(session, match_id, roll_id, after)
    except RollNotFound:
        try:
            document = audit_document(session, match_id)
        except RollNotFound:
            raise no_record(session, match_id) from None
        entry = next((r for r in document["rolls"] if r["roll_id"] == roll_id), None)
        if entry is None:
            raise missing from None
        return verify.AUDIT_FORMAT, entry, []
    if window is None:
        raise missing
    return verify.AUDIT_FORMAT_V2, *window


@router.get("/api/audit/{match_id}/anchors", responses=responses(404, 422))
def anchor_proofs(request: Request, match_id: str = MatchId,
                  session: Session = Depends(get_session)) -> dict:
    """The public log's leaves of the match's accepted chain anchors (v2 dice) with their
    inclusion proofs against a signed head that covers them, and the log's key
    (:func:`boardgammon.server.dice_log.anchor_proofs`): what a device checks after it
    registered its anchor. ``anchors`` is empty for a match without any; 404 ``not_found``: no
    such match; 422 ``invalid_request``: an ID that is not one."""
    parts = services(request.app)
    return dice_log.anchor_proofs(session, parts.log_key, match_id, writing=parts.db.writing)


PROOF_HOLD_S = 2.0
"""The longest a roll's proof request waits for the head that will cover the roll, instead of
answering ``covered: false`` (and being asked again after ``Retry-After``)."""


@router.get("/api/audit/{match_id}/rolls/{roll_id}/proof", responses=responses(404))
async def roll_proof(request: Request, response: Response, match_id: str = MatchId,
                     roll_id: str = RollId,
                     after: int | None = Query(None, ge=-1, description=(
                         "seq of the newest entry the device has checked (-1: none): "
                         "`preceding` holds the entries after it"))) -> dict:
    """One roll's audit entry and its public log entries with inclusion proofs against a
    signed head, and the log's key (:func:`boardgammon.server.dice_log.roll_proof`): what a
    player's device checks after a roll, instead of the whole audit document. A new head is
    signed only if the newest is older than ``BOARDGAMMON_LOG_HEAD_INTERVAL``; a roll whose
    newest entry it does not cover yet waits for the next head if that is due within
    :data:`PROOF_HOLD_S`, and otherwise answers ``"covered": false`` with ``Retry-After``.
    ``preceding``: the entries before a v2 roll that its link's k counts (back to the one that
    last revealed the same opponent's link), or with ``after`` every entry after that seq,
    so that a device that keeps its own count fetches each entry once. Built once per roll,
    ``after``, state of the match's record and head, and served from memory to both players
    and to their retries (:func:`boardgammon.server.dice_log.cached_roll_proof`). 404
    ``not_found``: no such match, or no such roll in it; 422 ``invalid_request``: an ID that
    is not one, an ``after`` below -1."""
    parts = services(request.app)

    def answer(hold_s: float) -> dict | float:
        with parts.db.read_sessions() as session:
            return dice_log.cached_roll_proof(
                session, parts.log_key, parts.proofs, match_id, roll_id, after,
                lambda: roll_entries(session, match_id, roll_id, after),
                parts.settings.log_head_interval_s, hold_s=hold_s, writing=parts.db.writing)

    # The database's work in one worker thread's turn, its session opened and closed there
    # (a session dependency took two turns more); the wait in none.
    proof = await run_in_threadpool(answer, PROOF_HOLD_S)
    if isinstance(proof, float):
        await asyncio.sleep(proof)
        proof = cast(dict, await run_in_threadpool(answer, 0.0))  # no hold: a proof
    if not proof["covered"]:
        response.headers["Retry-After"] = str(proof["retry_after"])
    return proof


@router.get("/api/audit/{match_id}/rolls/{roll_id}/verify.py", response_class=PlainTextResponse,
            responses=responses(404))
def roll_program_source(request: Request, match_id: str = MatchId, roll_id: str = RollId,
                        session: Session = Depends(get_session)) -> PlainTextResponse:
    """The standard-library Python program that checks one revealed roll, filled in with its
    values (v2: and its log entries' proofs to a signed head that covers them), as a file
    ``verify-{roll_id}.py``; run alone with ``python3``. 404 ``not_found``: no such match or
    roll, or a roll that is not revealed or cannot be read (it has no program); 422
    ``invalid_request``: an ID that is not one.

    A refusal's body is the API's JSON error where the request accepts JSON by name, else a
    Python program that says why and exits with status 1 (:func:`errors.runs_as_program`):
    the address is run as ``curl … | python3``, and the JSON error would exit 0."""
    record_format, entry, preceding = roll_entries(session, match_id, roll_id)
    if entry["server_seed"] is None or entry["verdict"] == verify.MALFORMED:
        raise RollNotFound(
            f"roll {roll_id} of match {match_id} has no program: it is "
            + ("not revealed" if entry["server_seed"] is None else "malformed")
        )
    if record_format == verify.AUDIT_FORMAT:
        program = roll_program(match_id, entry)
    else:
        parts = services(request.app)
        proof = dice_log.roll_proof(session, parts.log_key, record_format, match_id, entry,
                                    preceding, 0.0, cover=True, writing=parts.db.writing)
        head = proof["log"]["head"]
        program = roll_program_v2(match_id, proof["roll"], preceding, head,
                                  dice_log.proven_anchors(session, match_id, head["tree_size"]),
                                  dice_log.proven_match_leaf(session, match_id,
                                                             head["tree_size"]))
    return PlainTextResponse(
        program,
        media_type="text/x-python; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="verify-{roll_id}.py"'},
    )


def match_finished(session: Session, match_id: str) -> bool:
    """Whether the match is over, so that its chain head is the one its result dialog
    published; a record kept without its match row counts as over."""
    row = session.get(MatchRow, match_id)
    return row is None or row.status == "finished"


def no_record(session: Session, match_id: str) -> RollNotFound:
    """The refusal for a match ID without a dice record of either version: "no match" where
    there is no such match either, else that the match has not rolled yet (a v2 match waiting
    for its players' chain anchors). A record may outlive or predate its match row, so the
    record is looked up first."""
    if match_info(session, match_id) is None:
        return NoSuchMatch(f"no match {match_id!r}")
    return RollNotFound(f"match {match_id!r} has no rolls yet")


def either_document(session: Session, match_id: str) -> dict:
    """The audit document of the match's record, v1 or v2.

    Raises:
        RollNotFound: the match has no record of either (:func:`no_record`).
    """
    try:
        return audit_document(session, match_id)
    except RollNotFound:
        pass
    try:
        return dice_record_v2.audit_document(session, match_id)
    except RollNotFound:
        raise no_record(session, match_id) from None


@router.get("/audit/{match_id}", response_class=HTMLResponse)
def audit_page(
    request: Request,
    match_id: str,
    lang: str | None = None,
    session: Session = Depends(get_session),
) -> HTMLResponse:
    """The match's dice record for people, in ``lang`` (else the app's language, else by
    ``Accept-Language``), its players by name and a link back to the match; each roll's row
    has the roll ID as its anchor (``/audit/{match_id}#rol_…``). A match ID that is malformed
    or has no record gets the "no such match" page (404), as people follow and type these
    addresses."""
    language = request_language(request, lang)
    context = page_context(language) | {"match_id": match_id}
    try:
        if not re.fullmatch(MATCH_ID_PATTERN, match_id):
            raise NoSuchMatch(f"no match {match_id!r}")
        parts = services(request.app)
        document = dice_log.with_log(session, parts.log_key, either_document(session, match_id),
                                     writing=parts.db.writing)
    except RollNotFound as missing:
        context["missing"] = ("audit.no_match" if isinstance(missing, NoSuchMatch)
                              else "audit.not_found")
        return pages.TemplateResponse(request, "audit_missing.html", context, status_code=404)
    # A revealed roll that cannot be read (verdict malformed) cannot fill in a program.
    readable = [r for r in document["rolls"]
                if r["server_seed"] is not None and r["verdict"] != verify.MALFORMED]
    first = None
    if readable and document["format"] == verify.AUDIT_FORMAT:
        first = verify_programs(match_id, readable[0])
    elif readable:  # v2: with its inputs, entry hash and log proofs
        rolls = document["rolls"]
        seq = readable[0]["seq"]
        before = rolls[dice_record_v2.preceding_start(rolls[: seq + 1], None) : seq]
        first = {"python": roll_program_v2(match_id, readable[0], before,
                                           document["log"]["head"],
                                           document["log"]["anchors"],
                                           document["log"].get("match"))}
    # Every row links to its program: embedded, 60 rolls made a page of 870 KB.
    rows = {r["roll_id"]: f"/api/audit/{match_id}/rolls/{r['roll_id']}/verify.py"
            for r in readable}
    context |= {
        "doc": document,
        "players": player_names(match_info(session, match_id), translator(language)),
        "finished": match_finished(session, match_id),
        "programs": first,
        "row_programs": rows,
        "json_url": request.url_for("audit_json", match_id=match_id),
        "verifier_url": request.url_for("verifier_source"),
        "log_checker_url": request.url_for("log_checker_source"),
    }
    return pages.TemplateResponse(request, "audit.html", context)
