"""The lobby (``docs/api.md`` §Lobby): options, seeks and invitations, join links, games
against the computer, and a player's list of matches (where it is their turn first)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal, cast

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from boardgammon.bots import levels
from boardgammon.engine.board import Variant
from boardgammon.engine.clock import PRESETS
from boardgammon.engine.match import DEFAULT_LENGTH, OFFERED_LENGTHS
from boardgammon.server import ratings
from boardgammon.server.auth import current_user, optional_user
from boardgammon.server.blocks import kept_apart, refuse_if_blocked
from boardgammon.server.bodies import Flag, Number, RequestBody, Text, Username, one_of
from boardgammon.server.db import get_session, rowcount
from boardgammon.server.errors import responses
from boardgammon.server.match_repository import matches_of
from boardgammon.server.match_state import Seat, iso
from boardgammon.server.notifications import notify_from_thread
from boardgammon.server.refusals import ErrorCode, Invalid, NotAllowed, NotFound, StateConflict
from boardgammon.server.services import services
from boardgammon.server.tables import Seek, User

router = APIRouter(tags=["lobby"])

CORRESPONDENCE_DAYS = (1, 3, 7)
DEFAULT_DAYS = 3
if TYPE_CHECKING:
    # one_of builds its type at run time, which mypy cannot follow: statically a choice is
    # the whole number it holds.
    Length = int
    CorrespondenceDays = int
else:
    Length = one_of(1, 3, 5, 7, 11)
    CorrespondenceDays = one_of(*CORRESPONDENCE_DAYS)
VariantName = Literal["standard", "nackgammon", "hypergammon"]


class SeekIn(RequestBody):
    length: Length = DEFAULT_LENGTH
    variant: VariantName = "standard"
    mode: Literal["live", "correspondence"] = "live"
    clock: Text | None = Field(None, description="live: a clock preset name (see /api/options);"
                                                " null for no clock")
    days: CorrespondenceDays | None = Field(None, description="correspondence: days per move")
    invite: Username | None = Field(None, description="invite this player only")
    rated: Flag = Field(False, description="a rated match (full accounts only)")
    min_rating: Number | None = Field(None, ge=0, le=5000, description="rated: the lowest "
                                     "rating in this variant that may accept")
    max_rating: Number | None = Field(None, ge=0, le=5000, description="rated: the highest "
                                     "rating in this variant that may accept")


SeekState = Literal["open", "accepted", "cancelled"]
"""A seek's state (``seeks.state``, checked by the table's constraint)."""
Refusal = Literal["blocked", "guest_unrated", "outside_rating_range"] | None
"""Why a reader may not accept an open seek (``SeekOut.refusal``)."""


class SeekOut(BaseModel):
    id: str
    owner: str
    length: int
    variant: str
    mode: str
    clock: str | None
    days: int | None
    invite: str | None
    join_url: str
    rated: bool
    min_rating: float | None
    max_rating: float | None
    owner_rating: float | None = Field(description="the owner's rating in the seek's "
                                                   "variant; null for a guest")
    state: SeekState = Field(
        description="open; accepted (the match started, match_id); cancelled (withdrawn)")
    match_id: str | None = Field(default=None, description="the match an accepted seek "
                                                           "started; null otherwise")
    refusal: Refusal = Field(
        default=None, description="why you may not accept this open seek (the error code "
                                  "accepting it would get): one of you blocked the other, or "
                                  "it is rated and you play as a guest or your rating is "
                                  "outside its range; null when you may, for your own seek, "
                                  "and when signed out")


class ComputerIn(RequestBody):
    level: Text = Field(description="a level from /api/options bot_levels")
    length: Length = DEFAULT_LENGTH
    variant: VariantName = "standard"


class MatchCreated(BaseModel):
    match_id: str


class SummaryClocks(BaseModel):
    delay: float = Field(description="seconds free per move")
    reserve: list[float] = Field(description="each seat's remaining reserve in seconds "
                                             "(index = seat) as of `as_of`")
    running: int | None = Field(description="the seat whose clock runs")
    delay_left: float = Field(description="free seconds left to the running seat")
    first_move_left: float | None = Field(
        default=None, description="seconds left for the running seat's first move of the match "
                                  "before the match is aborted; null once it has moved")
    as_of: float = Field(description="wall-clock Unix seconds the figures are for")


class MatchSummary(BaseModel):
    match_id: str
    opponent: str
    you: int = Field(description="your seat (index into score and clocks.reserve)")
    length: int
    variant: str
    mode: str
    score: list[int]
    your_turn: bool
    deadline: str | None
    clock: str | None = Field(description="the clock preset's name (live)")
    clocks: SummaryClocks | None = Field(
        description="an active live match's clock as state.clocks shows it; null otherwise")
    status: str
    winner: int | None = Field(
        default=None, description="a finished match's winning seat (its score is the final "
                                  "score, state.result.score); null while it runs")


class Lobby(BaseModel):
    seeks: list[SeekOut] = Field(description="everyone's open seeks (yours too), no invitations")
    invitations: list[SeekOut] = Field(description="open invitations to you")
    mine: list[SeekOut] = Field(description="your own open seeks and invitations (to list, "
                                            "share and withdraw them)")
    matches: list[MatchSummary]


def options_json() -> dict:
    return {
        "lengths": list(OFFERED_LENGTHS),
        "default_length": DEFAULT_LENGTH,
        "variants": [v.value for v in Variant],
        "clock_presets": [{"name": tc.name, "delay": tc.delay,
                           "reserve_per_point": tc.reserve_per_point}
                          for tc in PRESETS.values()],
        "correspondence_days": list(CORRESPONDENCE_DAYS),
        "bot_levels": levels(),
    }


@router.get("/api/options")
def options() -> dict:
    """What a match can be: lengths, variants, clock presets, correspondence days, bot levels."""
    return options_json()


def _names(session: Session, some_ids: Iterable[int | None]) -> dict[int, str]:
    ids = {i for i in some_ids if i is not None}
    if not ids:
        return {}
    return dict(session.execute(select(User.id, User.username).where(User.id.in_(ids))).all())


def _seeks_out(session: Session, seeks: list[Seek], reader: User | None = None,
               apart: Iterable[int] = ()) -> list[SeekOut]:
    """The seeks as the API shows them to ``reader`` (``refusal``: why they may not accept an
    open one; ``None`` for no reader), who is kept apart from the players ``apart`` (blocks)."""
    apart = set(apart)
    names = _names(session, [i for s in seeks for i in (s.owner_id, s.invite_id)])
    players = [s.owner_id for s in seeks] + ([reader.id] if reader is not None else [])
    rated = {variant: ratings.ratings_of(session, players, variant)
             for variant in {s.variant for s in seeks}}

    def refusal(s: Seek) -> str | None:
        if reader is None or s.state != "open" or s.owner_id == reader.id:
            return None
        if s.owner_id in apart:
            return ErrorCode.BLOCKED.value
        refused = ratings.seek_refusal(s, rated[s.variant].get(reader.id))
        return None if refused is None else refused[0].value

    return [SeekOut(id=s.id, owner=names.get(s.owner_id, "?"), length=s.length,
                    variant=s.variant, mode=s.mode, clock=s.clock, days=s.days,
                    invite=names.get(s.invite_id) if s.invite_id else None,
                    join_url=f"/join/{s.id}", rated=s.rated, min_rating=s.min_rating,
                    max_rating=s.max_rating, owner_rating=rated[s.variant].get(s.owner_id),
                    state=cast(SeekState, s.state), match_id=s.match_id,
                    refusal=cast(Refusal, refusal(s)))
            for s in seeks]


def summaries(session: Session, user: User, request: Request) -> list[MatchSummary]:
    """The user's matches, active ones where it is their turn first, then newest first; an
    active live match with a clock carries its clock now (replayed from this process's match
    cache)."""
    rows = matches_of(session, user.id)
    names = _names(session, [i for r in rows for i in (r.seat0_id, r.seat1_id)])
    to_wall = services(request.app).game.clock.to_wall
    service = services(request.app).game.service
    out = []
    for r in rows:
        seat = 0 if r.seat0_id == user.id else 1
        other = r.seat1_id if seat == 0 else r.seat0_id
        if r.bot_seat is not None:
            opponent = f"Computer ({r.bot_level})"
        else:
            opponent = "?" if other is None else names.get(other, "?")
        live = (service.clocks(r.id) if r.status == "active" and r.mode == "live" and r.clock
                else None)
        clocks = None if live is None else SummaryClocks(**live)
        out.append(MatchSummary(
            match_id=r.id, opponent=opponent, you=seat, length=r.length, variant=r.variant,
            mode=r.mode, score=[r.score0, r.score1],
            # A live v2 match whose first roll waits for the devices' anchors waits for no
            # one's move (the state's turn is null then too).
            your_turn=(r.status == "active" and r.turn_seat == seat
                       and r.awaiting_first_roll_since is None),
            deadline=iso(to_wall(r.deadline_t)) if r.mode == "correspondence" and r.deadline_t
            else None, clock=r.clock, clocks=clocks, status=r.status, winner=r.winner))
    out.sort(key=lambda m: (not m.your_turn, m.status != "active"))
    return out


@router.get("/api/lobby", response_model=Lobby, responses=responses(401))
def lobby(request: Request, user: User = Depends(current_user),
          session: Session = Depends(get_session)) -> Lobby:
    """Open seeks (everyone's, invitations excluded), invitations to you, your own open seeks
    and invitations (``mine``, oldest first), your matches. Seeks and invitations of players
    you blocked, or who blocked you, are left out."""
    apart = kept_apart(session, user.id)
    open_seeks = session.execute(
        select(Seek).where(Seek.state == "open", Seek.invite_id.is_(None))
        .order_by(Seek.created_at)).scalars().all()
    invitations = session.execute(
        select(Seek).where(Seek.state == "open", Seek.invite_id == user.id)
        .order_by(Seek.created_at)).scalars().all()
    mine = session.execute(
        select(Seek).where(Seek.state == "open", Seek.owner_id == user.id)
        .order_by(Seek.created_at)).scalars().all()
    return Lobby(seeks=_seeks_out(session, [s for s in open_seeks if s.owner_id not in apart],
                                  user),
                 invitations=_seeks_out(session, [s for s in invitations
                                                  if s.owner_id not in apart], user),
                 mine=_seeks_out(session, list(mine)),
                 matches=summaries(session, user, request))


@router.post("/api/seeks", status_code=201, response_model=SeekOut,
             responses=responses(401, 403, 404, 409))
def create_seek(body: SeekIn, request: Request, user: User = Depends(current_user),
                session: Session = Depends(get_session)) -> SeekOut:
    """Post an open seek, or invite one player (``invite``; refused with 403 ``blocked`` if
    either of you blocked the other); share ``join_url`` as a link. The invited player's
    pages hear ``invitation``. A rated seek (``rated``) may ask for a range of the opponent's
    rating. A live seek or an invitation the same as one of yours still open is refused with
    409 ``duplicate_seek`` (open correspondence seeks may be several)."""
    if body.rated and user.guest:
        raise NotAllowed("guests play unrated: sign up (keeping your matches) to post a rated "
                         "seek", ErrorCode.GUEST_UNRATED)
    if not body.rated and (body.min_rating is not None or body.max_rating is not None):
        raise Invalid("a rating range is for rated seeks only")
    if body.min_rating is not None and body.max_rating is not None \
            and body.min_rating > body.max_rating:
        raise Invalid(f"min_rating {body.min_rating:g} is above max_rating {body.max_rating:g}")
    if body.mode == "live":
        if body.days is not None:
            raise Invalid("days are for correspondence matches")
        if body.clock is not None and body.clock not in PRESETS:
            raise Invalid(f"unknown clock preset {body.clock!r}; presets: "
                          f"{', '.join(PRESETS)}")
    elif body.clock is not None:
        raise Invalid("a correspondence match has no clock preset")
    invitee = None
    if body.invite is not None:
        invitee = session.execute(select(User).where(User.username_key == body.invite.lower(),
                                                     User.deleted_at.is_(None))
                                  ).scalar_one_or_none()
        if invitee is None:
            raise NotFound(f"no player named {body.invite!r}")
        if invitee.id == user.id:
            raise Invalid("you cannot invite yourself")
        refuse_if_blocked(session, user.id, invitee.id, f"you cannot invite {invitee.username}")
    days = (body.days or DEFAULT_DAYS) if body.mode == "correspondence" else None
    if body.mode == "live" or invitee is not None:
        # One plays one live match at a time, and invites a player once: a second click on
        # "Post seek" posted the same seek twice. Open correspondence seeks may be several.
        # The poster's row is locked first, so that two posts at once cannot both find none
        # (PostgreSQL; SQLite's BEGIN IMMEDIATE lets one write transaction in at a time).
        session.execute(select(User.id).where(User.id == user.id).with_for_update())
        same = session.execute(select(Seek.id).where(
            Seek.owner_id == user.id, Seek.state == "open", Seek.length == body.length,
            Seek.variant == body.variant, Seek.mode == body.mode,
            Seek.clock.is_not_distinct_from(body.clock), Seek.days.is_not_distinct_from(days),
            Seek.invite_id.is_not_distinct_from(invitee.id if invitee else None),
            Seek.rated == body.rated, Seek.min_rating.is_not_distinct_from(body.min_rating),
            Seek.max_rating.is_not_distinct_from(body.max_rating))).scalars().first()
        if same is not None:
            raise StateConflict(f"you already have this seek open: /join/{same}",
                                ErrorCode.DUPLICATE_SEEK)
    seek = Seek(id=f"sek_{secrets.token_hex(10)}", owner_id=user.id, length=body.length,
                variant=body.variant, mode=body.mode, clock=body.clock, days=days,
                invite_id=invitee.id if invitee else None, state="open",
                created_at=datetime.now(UTC), rated=body.rated, min_rating=body.min_rating,
                max_rating=body.max_rating)
    session.add(seek)
    session.commit()
    out = _seeks_out(session, [seek])[0]
    if invitee is not None:
        notify_from_thread(request.app, invitee.id, {"type": "invitation", "seek_id": seek.id,
                                                     "from": user.username})
    return out


@router.get("/api/seeks/{seek_id}", response_model=SeekOut, responses=responses(404))
def seek_details(seek_id: str, reader: User | None = Depends(optional_user),
                 session: Session = Depends(get_session)) -> SeekOut:
    """A seek or invitation, as its join page shows it: who, length, variant, mode and clock,
    rated or not and the rating range, and its ``state``: open; accepted, with the
    ``match_id`` it started (its players go on to their match, anyone else may watch it, as
    any match); or cancelled. Its join link is what people share, so whoever has it may read
    it, signed in or not (the join page shows a visitor the terms beside the sign-in form; an
    open invitation names its invitee; a closed seek names no invitee and no rating). Signed
    in, ``refusal`` says why you may not accept it, if so.

    Raises:
        NotFound: no seek ever had this ID.
    """
    seek = session.get(Seek, seek_id)
    if seek is None:
        raise NotFound(f"no seek {seek_id!r}")
    apart = kept_apart(session, reader.id) if reader is not None else ()
    out = _seeks_out(session, [seek], reader, apart)[0]
    if seek.state != "open":
        # Closed: what the join page says of it, not whom an invitation was for nor the owner's
        # rating of today (withdrawing an invitation used to make its link 404).
        out = out.model_copy(update={"invite": None, "owner_rating": None})
    return out


def _open_seek(session: Session, seek_id: str) -> Seek:
    """The seek ``seek_id``, still open.

    Raises:
        NotFound: no seek ever had this ID.
        StateConflict: ``seek_closed``, it was taken or withdrawn.
    """
    seek = session.get(Seek, seek_id)
    if seek is None:
        raise NotFound(f"no seek {seek_id!r}")
    if seek.state != "open":
        taken = "taken" if seek.state == "accepted" else "withdrawn"
        raise StateConflict(f"seek {seek_id!r} was {taken}", ErrorCode.SEEK_CLOSED)
    return seek


@router.post("/api/seeks/{seek_id}/accept", status_code=201, response_model=MatchCreated,
             responses=responses(401, 403, 404, 409))
def accept_seek(seek_id: str, request: Request, user: User = Depends(current_user),
                session: Session = Depends(get_session)) -> MatchCreated:
    """Accept a seek or an invitation: the match starts (the seek's owner is seat 0). Refused
    with 403 ``blocked`` if the owner and you blocked one another, 409 ``seek_closed`` if it
    was taken (also a moment before, by someone else) or withdrawn, 404 if no seek had this
    ID."""
    seek = _open_seek(session, seek_id)
    if seek.owner_id == user.id:
        raise StateConflict("you cannot accept your own seek", ErrorCode.OWN_SEEK)
    if seek.invite_id is not None and seek.invite_id != user.id:
        raise NotAllowed("this invitation is for another player", ErrorCode.NOT_INVITED)
    refuse_if_blocked(session, seek.owner_id, user.id, "you cannot take this seek")
    ratings.check_seek(session, seek, user)
    taken = rowcount(session.execute(update(Seek).where(Seek.id == seek_id, Seek.state == "open")
                                     .values(state="accepted")))
    if taken != 1:
        raise StateConflict(f"seek {seek_id!r} was just taken by someone else",
                            ErrorCode.SEEK_CLOSED)
    owner = session.get(User, seek.owner_id)
    if owner is None:
        raise RuntimeError(f"seek {seek_id!r}: its owner (user {seek.owner_id}) is not found")
    service = services(request.app).game.service
    match_id = service.create(
        session, (Seat(owner.id, owner.username), Seat(user.id, user.username)), seek.length,
        seek.variant, seek.mode, seek.clock, seek.days)
    session.execute(update(Seek).where(Seek.id == seek_id).values(match_id=match_id))
    if seek.rated:
        ratings.mark_rated(session, match_id)
    session.commit()
    return MatchCreated(match_id=match_id)


@router.delete("/api/seeks/{seek_id}", status_code=204,
               responses=responses(401, 403, 404, 409))
def cancel_seek(seek_id: str, user: User = Depends(current_user),
                session: Session = Depends(get_session)) -> Response:
    """Withdraw your own open seek or invitation (409 ``seek_closed`` once it was taken or
    withdrawn, 404 if no seek had this ID)."""
    seek = _open_seek(session, seek_id)
    if seek.owner_id != user.id:
        raise NotAllowed("only its owner can withdraw a seek", ErrorCode.NOT_YOUR_SEEK)
    seek.state = "cancelled"
    session.commit()
    return Response(status_code=204)


@router.post("/api/matches/computer", status_code=201, response_model=MatchCreated,
             responses=responses(401))
def play_computer(body: ComputerIn, request: Request, user: User = Depends(current_user),
                  session: Session = Depends(get_session)) -> MatchCreated:
    """A live match against the computer at ``level`` (you are seat 0; no clock)."""
    if body.level not in levels():
        raise Invalid(f"unknown bot level {body.level!r}; levels: {', '.join(levels())}")
    service = services(request.app).game.service
    match_id = service.create(session, (Seat(user.id, user.username),
                                        Seat(None, f"Computer ({body.level})", body.level)),
                              body.length, body.variant, "live", None, None,
                              bot_seed=secrets.randbelow(2**31))
    return MatchCreated(match_id=match_id)


@router.get("/api/matches", response_model=list[MatchSummary], responses=responses(401))
def my_matches(request: Request, user: User = Depends(current_user),
               session: Session = Depends(get_session)) -> list[MatchSummary]:
    """Your matches, those where it is your turn first."""
    return summaries(session, user, request)
