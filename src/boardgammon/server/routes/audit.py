"""Public audit of the dice record: ``GET /audit/{match_id}`` (HTML page, ``?lang=en|de|ja``),
``GET /api/audit/{match_id}`` (the same as JSON, see
:func:`boardgammon.server.dice_record.audit_document`, or the v2 record's
:func:`boardgammon.server.dice_record_v2.audit_document`) and ``GET /audit/verify.py`` (the
stdlib-only verifier, :mod:`boardgammon.dice.verify`, as a download; ``GET
/audit/transparency.py`` the public log's checker, :mod:`boardgammon.dice.transparency`).

Verdicts are recomputed on every request. The page's "Verify it yourself" section is filled in
with the match's first revealed roll that can be read (not ``malformed``): a Python program
(``verify_roll.py.j2``; v2: ``verify_roll_v2.py.j2``, which also checks the opponent's link,
the entry hash and the roll's public log proofs) and, for v1, an ``openssl`` command line
(``verify_openssl.sh.j2``); every other revealed roll that can be read has its own filled-in
Python program in its row.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from fastapi import APIRouter, Depends, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from sqlalchemy.orm import Session

from boardgammon.dice import transparency, verify
from boardgammon.dice.ids import MATCH_ID_PATTERN
from boardgammon.server import dice_log, dice_record_v2
from boardgammon.server.db import get_session
from boardgammon.server.dice_record import RollNotFound, audit_document
from boardgammon.server.errors import responses
from boardgammon.server.i18n import page_context, request_language, translator
from boardgammon.server.match_repository import match_info
from boardgammon.server.match_state import MatchInfo
from boardgammon.server.services import services
from boardgammon.server.tables import DELETED_NAME

TEMPLATES = Path(__file__).parent.parent / "templates"
pages = Jinja2Templates(directory=TEMPLATES)
# Program text is not HTML: rendered unescaped here, escaped once when placed in the page.
programs = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=False,
    keep_trailing_newline=True,
    undefined=StrictUndefined,
)
programs.filters["py"] = repr  # a value as a Python literal (str, int, None, list of str)

router = APIRouter(tags=["audit"])
MatchId = PathParam(pattern=MATCH_ID_PATTERN, description="mat_… match ID")


def _octal(data: bytes) -> str:
    """``data`` as a POSIX ``printf`` format string: every byte as a ``\\ooo`` escape."""
    return "".join(f"\\{byte:03o}" for byte in data)


def roll_program(match_id: str, entry: dict) -> str:
    """The standard-library Python program that checks one revealed audit entry."""
    return programs.get_template("verify_roll.py.j2").render(match_id=match_id, roll=entry)


def roll_program_v2(match_id: str, entry: dict, head: dict) -> str:
    """The standard-library Python program that checks one revealed v2 audit entry: its
    commitment, the opponent's link, the dice, its entry hash and its log entries' inclusion
    proofs to the root of ``head`` (the document's signed tree head)."""
    return programs.get_template("verify_roll_v2.py.j2").render(match_id=match_id, roll=entry,
                                                                 head=head)


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
    return dice_log.with_log(session, services(request.app).log_key,
                             either_document(session, match_id))


def either_document(session: Session, match_id: str) -> dict:
    """The audit document of the match's record, v1 or v2.

    Raises:
        RollNotFound: the match has no record of either.
    """
    try:
        return audit_document(session, match_id)
    except RollNotFound:
        return dice_record_v2.audit_document(session, match_id)


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
            raise RollNotFound(f"no match {match_id!r}")
        document = dice_log.with_log(session, services(request.app).log_key,
                                     either_document(session, match_id))
    except RollNotFound:
        return pages.TemplateResponse(request, "audit_missing.html", context, status_code=404)
    # A revealed roll that cannot be read (verdict malformed) cannot fill in a program.
    readable = [r for r in document["rolls"]
                if r["server_seed"] is not None and r["verdict"] != verify.MALFORMED]
    if document["format"] == verify.AUDIT_FORMAT:
        first = verify_programs(match_id, readable[0]) if readable else None
        rows = {r["roll_id"]: roll_program(match_id, r) for r in readable[1:]}
    else:  # v2: one program per row, with its inputs, entry hash and log proofs
        head = document["log"]["head"]
        rows = {r["roll_id"]: roll_program_v2(match_id, r, head) for r in readable}
        first = {"python": rows.pop(readable[0]["roll_id"])} if readable else None
    context |= {
        "doc": document,
        "players": player_names(match_info(session, match_id), translator(language)),
        "programs": first,
        "row_programs": rows,
        "json_url": request.url_for("audit_json", match_id=match_id),
        "verifier_url": request.url_for("verifier_source"),
        "log_checker_url": request.url_for("log_checker_source"),
        "verifier_source": Path(verify.__file__).read_text(encoding="utf-8"),
    }
    return pages.TemplateResponse(request, "audit.html", context)
