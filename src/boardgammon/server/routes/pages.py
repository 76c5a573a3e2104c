"""The pages players read, one address each, in ``?lang=en|de|ja`` (else by
``Accept-Language``), no account needed: ``GET /fair`` (provably fair dice, with the box that
opens a match's audit page), ``/rules``, ``/skill-levels``, ``/odds`` (the calculator, answered
on the page from :mod:`boardgammon.odds` and :mod:`boardgammon.stats`) and ``/glossary``. The
addresses people guess for the dice page (``/provably-fair``, ``/verify``, ``/dice``,
``/audit``) redirect to ``/fair`` with their query.

A page's text is its template ``pages/{page}.{lang}.html`` (or, where all its words are in
:mod:`boardgammon.server.i18n`, ``pages/{page}.html``); the header, footer and the few short
strings they share are in :mod:`boardgammon.server.i18n`.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from boardgammon.dice.ids import MATCH_PREFIX, is_match_id
from boardgammon.engine import Board
from boardgammon.engine.clock import PRESETS
from boardgammon.engine.match import OFFERED_LENGTHS
from boardgammon.odds import (
    MAX_DISTANCE,
    InvalidOddsQuery,
    RollCount,
    bear_off_count,
    enter_count,
    hit_count,
    split_shots,
)
from boardgammon.server.bodies import control_character
from boardgammon.server.db import get_session
from boardgammon.server.dice_record import RollNotFound
from boardgammon.server.dice_stats import Snapshot, report_cache, requested_refresh
from boardgammon.server.i18n import page_context, request_language, translator
from boardgammon.server.match_state import points
from boardgammon.server.numerals import NUMERALS, Numerals
from boardgammon.server.refusals import NotFound
from boardgammon.server.routes.audit import TEMPLATES, either_document
from boardgammon.server.routes.audit import pages as templates
from boardgammon.server.services import services
from boardgammon.stats import StatsError, doubles_odds, kniffel_odds
from boardgammon.stats.doubles import MAX_ROLLS, MAX_ROLLS_TIMES_GAMES

router = APIRouter(include_in_schema=False)

READ = ["GET", "HEAD"]
"""The methods of every page: HEAD too, as link checkers and previews ask it first."""

ALIASES = ("/provably-fair", "/verify", "/dice", "/audit")

QUERY_ON_PAGE = ("/fair", *ALIASES)
"""The pages that answer a control character in their query themselves (a pasted ID with a
tab), in their language: :class:`boardgammon.server.errors.ControlCharacters` leaves it to
them."""


def _render(request: Request, page: str, lang: str | None, **fields: object) -> HTMLResponse:
    language = request_language(request, lang)
    context = page_context(language, page) | fields
    # A page whose words are all in i18n has one template for every language.
    name = f"pages/{page}.{language}.html"
    if not (TEMPLATES / name).is_file():
        name = f"pages/{page}.html"
    return templates.TemplateResponse(request, name, context)


ERROR_TEXTS = frozenset({400, 404, 405, 413, 422, 503})
"""The statuses with a title and a text of their own (``error.title.{status}``,
``error.text.{status}``); any other is "Error {status}"."""


def error_page(request: Request, status: int, problem: str | None = None,
               links: tuple[tuple[str, str], ...] = (), **fields: object) -> HTMLResponse:
    """The site's page for a refusal of a page's address (``status``: 404 for an unknown
    address, …), in the language the request's other pages would have (``?lang=``, the cookie,
    ``Accept-Language``): the status's title, the text ``error.{problem}`` filled in with
    ``fields`` (else the status's own text), ``links`` (address, words) and a link home."""
    language = request_language(request, request.query_params.get("lang"))
    t = translator(language)
    own = status in ERROR_TEXTS
    title = t(f"error.title.{status}") if own else t("error.title", status=status)
    if problem is not None:
        text = t(f"error.{problem}", **fields)
    else:
        text = t(f"error.text.{status}") if own else t("error.text")
    page = _render(request, "error", language, title=title, text=text, links=links)
    page.status_code = status
    return page


ECHOED = 80
"""Characters of a refused ID shown back at most (a match ID has at most 68)."""

# A pasted audit address (https://host/audit/mat_…?lang=de) holds the ID as a path segment.
_ID_IN_ADDRESS = re.compile(r"/(mat_[A-Za-z0-9]{1,64})(?:[/?#]|$)", re.IGNORECASE)


def _typed_match_id(typed: str) -> str:
    """What the box's text means: surrounding whitespace (a pasted tab or newline) dropped,
    from a pasted audit address only its ``mat_…`` segment, and the prefix in lower case."""
    text = typed.strip()
    found = _ID_IN_ADDRESS.search(text) if "/" in text else None
    text = found.group(1) if found else text
    return MATCH_PREFIX + text[4:] if text[:4].lower() == MATCH_PREFIX else text


def echo(text: str) -> str:
    """``text`` as the page shows it back: control characters as U+FFFD, cut to
    :data:`ECHOED` characters."""
    shown = "".join("\ufffd" if control_character(c) else c for c in text)
    return shown if len(shown) <= ECHOED else shown[:ECHOED] + "…"


@router.api_route("/fair", methods=READ, response_class=HTMLResponse)
def fair(
    request: Request,
    lang: str | None = None,
    match: str | None = None,
    session: Session = Depends(get_session),
) -> Response:
    """The provably fair dice page. With ``?match=mat_…`` of a match that has a dice record
    (also typed in capitals where the record's ID is lower-case, or as a pasted audit address)
    it redirects (303) to ``/audit/{match}``; a malformed ID (``fair.malformed``, or
    ``fair.control`` for one with a control character) or an unknown one (``fair.unknown``) is
    answered on this page with the ID kept in the box, cut to :data:`ECHOED` characters. The
    page shows the public log's key (``docs/fair-dice.md`` §The public log)."""
    request.state.log_key = services(request.app).log_key.public_key.hex()
    if match is None or not match.strip():
        return _render(request, "fair", lang, match="", problem=None)
    match_id = _typed_match_id(match)
    shown = echo(match_id)
    if (found := control_character(match_id)) is not None:
        return _render(request, "fair", lang, match=shown, problem="fair.control", found=found)
    if not is_match_id(match_id):
        return _render(request, "fair", lang, match=shown, problem="fair.malformed")
    # The server's IDs are lower-case; a record may hold another (the test vectors'), so the ID
    # as typed comes first.
    for candidate in dict.fromkeys((match_id, match_id.lower())):
        try:
            either_document(session, candidate)
        except RollNotFound:
            continue
        language = request_language(request, lang)
        return RedirectResponse(f"/audit/{candidate}?lang={language}", status_code=303)
    return _render(request, "fair", lang, match=shown, problem="fair.unknown")


def _alias(request: Request) -> RedirectResponse:
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"/fair{query}", status_code=301)


for _path in ALIASES:
    router.add_api_route(_path, _alias, methods=READ)


def board_view(board: Board, dice: tuple[int, ...] = (), cube: int = 1,
               cube_side: str = "centre") -> dict[str, object]:
    """What ``web/board.js``'s ``renderBoard`` draws, for ``board`` seen by the player on roll
    (``mine`` and ``theirs`` as 26 counts in that player's numbering, ``[0]`` off, ``[25]``
    bar), with ``dice`` shown on the viewer's side and the cube at ``cube_side``."""
    theirs = points(board.swapped())
    return {
        "mine": points(board),
        "theirs": [theirs[0], *reversed(theirs[1:25]), theirs[25]],
        "dice": {"values": list(dice), "used": [False] * len(dice), "side": "me"} if dice else None,
        "cube": {"value": cube, "side": cube_side},
    }


# The rules page's diagrams, drawn in the browser by /static/rules.js with the match page's own
# board code; positions come from the engine's setups, so the page shows what is played.
RULES_DIAGRAMS = {
    "standard": board_view(Board.initial("standard")),
    "nackgammon": board_view(Board.initial("nackgammon")),
    "hypergammon": board_view(Board.initial("hypergammon")),
    # A hit checker on the bar against four closed points of the opponent's home board: only a 3
    # or a 1 enters, and 6-6 dances.
    "bar": board_view(Board.from_points({25: 1, 13: 5, 8: 3, 6: 4, 5: 2},
                                        {6: 3, 5: 2, 4: 2, 2: 2, 13: 4, 24: 2}), dice=(6, 6)),
    # Bearing off with 6-2: no checker on the 6-point or higher, so the 6 bears off from the 5.
    "bearoff": board_view(Board.from_points({5: 2, 3: 1, 2: 2}, {1: 2, 2: 3}), dice=(6, 2)),
    # After a double taken: the cube at 2 on the taker's side.
    "cube": board_view(Board.initial("standard"), cube=2, cube_side="them"),
}


@router.api_route("/rules", methods=READ, response_class=HTMLResponse)
def rules(request: Request, lang: str | None = None) -> HTMLResponse:
    """The rules of international backgammon (the clock presets and match lengths from the
    engine), with diagrams drawn by ``/static/rules.js``."""
    return _render(request, "rules", lang, diagrams=RULES_DIAGRAMS, presets=PRESETS.values(),
                   lengths=OFFERED_LENGTHS)


@router.api_route("/skill-levels", methods=READ, response_class=HTMLResponse)
def skill_levels(request: Request, lang: str | None = None) -> HTMLResponse:
    """What PR measures, the usual bands, luck, and how our analysis compares with gnubg."""
    return _render(request, "skill", lang)


@cache
def odds_tables() -> dict[str, object]:
    """The calculator's fixed tables: the shots at every distance with nothing in between (all,
    direct, indirect), and entering one and two checkers against 0–6 closed points."""
    return {
        "shots": [(d, hit_count(d), *split_shots(d, hit_count(d)))
                  for d in range(1, MAX_DISTANCE + 1)],
        "entering": [(k, enter_count(k, 1), enter_count(k, 2)) for k in range(7)],
    }


def _half_width(text: str) -> str:
    """``text`` with full-width forms (``３，５``, the ideographic space) as their ASCII
    originals, and the ideographic comma ``、`` as a comma: what a Japanese keyboard types.
    Only ``<wide>`` forms are normalised (NFKC), so ``²`` and ``①`` stay refused."""
    return "".join(
        unicodedata.normalize("NFKC", c) if unicodedata.decomposition(c).startswith("<wide>")
        else "," if c == "、" else c
        for c in text
    )


def _numbers(text: str) -> list[int]:
    """The whole numbers in ``text`` ("3, 5" or "3 5", full-width too); anything else is a bad
    question."""
    words = [w for w in re.split(r"[\s,;]+", _half_width(text).strip()) if w]
    # ASCII digits only, at most three a number: str.isdigit also takes '²' and '①', which
    # int() refuses, and int() refuses numbers of thousands of digits (both were 500s).
    if not all(re.fullmatch(r"[0-9]{1,3}", w) for w in words):
        raise InvalidOddsQuery(f"whole numbers separated by commas or spaces, got {text[:40]!r}",
                               "numbers", got=text[:40])
    return [int(w) for w in words]


NUMBER_RANGES = {"distance": (1, MAX_DISTANCE), "rolls": (1, MAX_ROLLS),
                 "margin": (0, MAX_ROLLS), "games": (1, MAX_ROLLS_TIMES_GAMES)}
"""The whole numbers each one-number field of the calculator takes (the bounds of
:func:`~boardgammon.odds.hit_count` and :func:`~boardgammon.stats.doubles_odds`; a margin
above the rolls has chance 0, so none above :data:`MAX_ROLLS` asks anything)."""


def _number(text: str, name: str) -> int:
    """The one whole number in ``text``, the field ``name`` (its label's key ``odds.{name}``),
    within its :data:`NUMBER_RANGES`; a whole number outside them is refused giving the range,
    anything else as not a whole number."""
    number = _half_width(text).strip().replace("\u2212", "-")  # a typeset minus
    # ASCII digits only: str.isdigit also takes '²' and '①', which int() refuses.
    if not re.fullmatch(r"[-+]?[0-9]+", number):
        raise InvalidOddsQuery(f"{name} takes one whole number, got {text[:40]!r}", "number",
                               name=name, got=text[:40])
    low, high = NUMBER_RANGES[name]
    # The length first: int() refuses numbers of thousands of digits (a 500).
    if (len(number.lstrip("+-").lstrip("0")) <= len(str(high))
            and low <= (value := int(number)) <= high):
        return value
    got = number[:40]
    if name == "distance":
        raise InvalidOddsQuery(f"a blot can be 1 to {high} pips away, got {got}", "distance",
                               high=high, got=got)
    raise InvalidOddsQuery(f"{name} takes a whole number from {low} to {high}, got {got}",
                           "range", name=name, low=low, high=high, got=got)


def _problem(t: Callable[..., str], num: Numerals,
             error: InvalidOddsQuery | StatsError) -> str:
    """``error`` said in the page's language (``odds.error.{code}``), its whole numbers (a
    range's bounds) written as the language writes them (``num``) and what was typed as typed;
    one without a code, which no form of the page can cause, in English."""
    code = getattr(error, "code", "")
    if not code:
        return str(error)
    fields = {key: num.integer(value) if isinstance(value, int) else value
              for key, value in getattr(error, "fields", {}).items()}
    if "name" in fields:
        fields["name"] = t(f"odds.{fields['name']}")
    return t(f"odds.error.{code}", **fields)


@router.api_route("/odds", methods=READ, response_class=HTMLResponse)
def odds(
    request: Request,
    lang: str | None = None,
    distance: str = "6",
    blocked: str = "",
    bearoff: str = "",
    rolls: str = "25",
    margin: str = "2",
    games: str = "20",
) -> HTMLResponse:
    """The odds calculator: the chance to hit a blot ``distance`` pips away past the
    ``blocked`` distances, to bear off the checkers on ``bearoff`` (six counts, points 1–6) in
    one roll, and the doubles figures for ``rolls`` rolls a side (``margin``, ``games`` as in
    ``boardgammon odds doubles``) and Kniffel (``boardgammon odds kniffel``). The fields are
    text (full-width digits and commas taken): a question that is not whole numbers, or out of
    range, gets its message beside its form in the page's language."""
    language = request_language(request, lang)
    t, num = translator(language), NUMERALS[language]
    problems: dict[str, str] = {}
    hit: RollCount | None = None
    bear: RollCount | None = None
    doubles = None
    shots: tuple[RollCount, RollCount] | None = None
    try:
        at = _number(distance, "distance")
        hit = hit_count(at, _numbers(blocked))
        shots = split_shots(at, hit)
    except InvalidOddsQuery as error:
        problems["hit"] = _problem(t, num, error)
    if bearoff.strip():
        try:
            counts = _numbers(bearoff)
            if len(counts) != 6:
                raise InvalidOddsQuery(f"six counts, for points 1-6, got {len(counts)}",
                                       "bearoff_six", got=len(counts))
            bear = bear_off_count(dict(enumerate(counts, start=1)))
        except InvalidOddsQuery as error:
            problems["bearoff"] = _problem(t, num, error)
    # Every bad field of the form is said at once, in the form's order.
    numbers: dict[str, int] = {}
    refused: list[str] = []
    for name, text in (("rolls", rolls), ("margin", margin), ("games", games)):
        try:
            numbers[name] = _number(text, name)
        except InvalidOddsQuery as error:
            refused.append(_problem(t, num, error))
    if not refused:
        try:
            doubles = doubles_odds(**numbers)
        except StatsError as error:
            refused.append(_problem(t, num, error))
    if refused:
        problems["doubles"] = " ".join(refused)
    return _render(
        request, "odds", lang, distance=distance, blocked=blocked, bearoff=bearoff,
        rolls=rolls, margin=margin, games=games, hit=hit, hit_shots=shots, bear=bear,
        doubles=doubles, kniffel=kniffel_odds(), problems=problems, **odds_tables(),
    )


def _dice_report(request: Request) -> Snapshot | None:
    state = services(request.app)
    # One small read per request: an operator's refresh reaches every server process.
    with state.db.read_sessions() as session:
        requested = requested_refresh(session)
    return report_cache(state.settings.database_url).get(datetime.now(UTC), requested)


def _dice_report_or_404(request: Request) -> Snapshot:
    snapshot = _dice_report(request)
    if snapshot is None:
        raise NotFound("the dice record has no revealed roll yet")
    return snapshot


@router.api_route("/dice-record", methods=READ, response_class=HTMLResponse)
def dice_record(request: Request, lang: str | None = None) -> HTMLResponse:
    """The statistics of every revealed roll on record, as ``boardgammon stats dice-report``
    makes them, made again at most daily; with the plot and the counts as CSV and JSON."""
    from boardgammon.stats.report import verdict_level

    return _render(request, "record", lang, snapshot=_dice_report(request),
                   verdict=verdict_level)


@router.api_route("/dice-record.json", methods=READ)
def dice_record_json(request: Request) -> JSONResponse:
    """The report as ``boardgammon stats dice-report --json`` prints it (404 while no roll is
    revealed)."""
    return JSONResponse(_dice_report_or_404(request).report)


@router.api_route("/dice-record.csv", methods=READ)
def dice_record_csv(request: Request) -> Response:
    """The 36 ordered outcomes: ``die1,die2,count,expected`` (404 while no roll is revealed)."""
    report = _dice_report_or_404(request).report
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["die1", "die2", "count", "expected"])
    for first, row in enumerate(report["table"], start=1):
        for second, count in enumerate(row, start=1):
            writer.writerow([first, second, count, report["expected_per_outcome"]])
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": 'attachment; filename="dice-record.csv"'})


@router.api_route("/dice-record.png", methods=READ)
def dice_record_plot(request: Request, lang: str | None = None) -> Response:
    """The report's plot, labelled in ``lang`` (else the request's language, as a page's; 404
    while no roll is revealed)."""
    language = request_language(request, lang)
    return Response(_dice_report_or_404(request).plots[language], media_type="image/png")


@router.api_route("/glossary", methods=READ, response_class=HTMLResponse)
def glossary(request: Request, lang: str | None = None) -> HTMLResponse:
    """Every term the interface uses, one anchor each (``/glossary#blot``)."""
    return _render(request, "glossary", lang)
