"""Players as others see them (``docs/api.md`` §Players): a profile with the rating per
variant and its history, the matches played (paged, with PR and luck from the analysis), and
a leaderboard per variant. Reading only; the ratings themselves are kept by
:mod:`boardgammon.server.ratings`."""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from boardgammon.engine.board import Variant
from boardgammon.server.dice_stats import revealed
from boardgammon.server.refusals import Invalid, NotFound
from boardgammon.server.tables import (
    DiceRoll,
    DiceRollV2,
    MatchAnalysisRow,
    MatchLogEntry,
    MatchRow,
    PlayerRating,
    RatedMatch,
    RatingChange,
    User,
)

PAGE_SIZE = 20
"""Matches per page of a player's history."""
LEADERBOARD_MIN_MATCHES = 5
"""Rated matches a player needs in a variant to appear on its leaderboard."""
LEADERBOARD_SIZE = 100


class RatingPoint(BaseModel):
    match_id: str
    at: str = Field(description="when the match ended (ISO 8601, UTC)")
    before: float
    after: float


class VariantRating(BaseModel):
    variant: str
    rating: float = Field(description="Glicko-2 on the FIBS scale (docs/ratings.md)")
    deviation: float = Field(description="rating deviation (RD), rating points")
    matches: int = Field(description="rated matches finished")
    experience: int = Field(description="the sum of their lengths (FIBS's experience)")
    history: list[RatingPoint] = Field(description="oldest first")


class Profile(BaseModel):
    name: str
    guest: bool
    joined: str
    ratings: list[VariantRating] = Field(description="variants with at least one rated match")


class PlayedMatch(BaseModel):
    match_id: str
    opponent: str
    length: int
    variant: str
    mode: str
    rated: bool
    status: str = Field(description="active or finished")
    result: str | None = Field(description="won, lost, or aborted (a first move was not made "
                                           "in time: nobody won); null while active")
    score: list[int] = Field(description="the player's score first")
    date: str = Field(description="when the match started (ISO 8601, UTC)")
    rating_change: float | None = Field(description="rated and finished: after − before")
    pr: float | None = Field(description="the player's PR from the analysis, null until done")
    luck: float | None = Field(
        description="the player's luck from the analysis (MWC), null until done"
    )
    links: dict[str, str] = Field(description="match, audit and analysis addresses (no "
                                              "analysis for an aborted match)")


class MatchPage(BaseModel):
    page: int
    pages: int
    total: int
    matches: list[PlayedMatch] = Field(description="newest first")


class LeaderboardEntry(BaseModel):
    rank: int
    name: str
    rating: float
    deviation: float
    matches: int


class Leaderboard(BaseModel):
    variant: str
    min_matches: int
    players: list[LeaderboardEntry] = Field(
        description="highest rating first (ties: more matches, then name)"
    )


def iso(when: datetime) -> str:
    """An aware datetime as ISO 8601 in UTC with ``Z``."""
    return when.isoformat().replace("+00:00", "Z")


def find_player(session: Session, name: str) -> User:
    """The account named ``name`` (any case).

    Raises:
        NotFound: ``not_found``.
    """
    user = session.scalar(select(User).where(User.username_key == name.lower(),
                                             User.deleted_at.is_(None)))
    if user is None:
        raise NotFound(f"no player named {name!r}")
    return user


def check_variant(variant: str) -> str:
    """``variant`` if it is one; else :class:`Invalid` naming the variants."""
    names = [v.value for v in Variant]
    if variant not in names:
        raise Invalid(f"unknown variant {variant!r}; variants: {', '.join(names)}")
    return variant


def profile(session: Session, user: User) -> Profile:
    """``user``'s profile: ratings per variant (in the order of :class:`Variant`) with their
    history."""
    rows = {
        r.variant: r
        for r in session.scalars(select(PlayerRating).where(PlayerRating.user_id == user.id))
    }
    changes = session.scalars(
        select(RatingChange)
        .where(RatingChange.user_id == user.id)
        .order_by(RatingChange.created_at, RatingChange.match_id)
    ).all()
    out = []
    for variant in (v.value for v in Variant):
        row = rows.get(variant)
        if row is None:
            continue
        out.append(
            VariantRating(
                variant=variant,
                rating=round(row.rating, 1),
                deviation=round(row.deviation, 1),
                matches=row.matches,
                experience=row.experience,
                history=[
                    RatingPoint(
                        match_id=c.match_id,
                        at=iso(c.created_at),
                        before=round(c.before, 1),
                        after=round(c.after, 1),
                    )
                    for c in changes
                    if c.variant == variant
                ],
            )
        )
    return Profile(name=user.username, guest=user.guest, joined=iso(user.created_at), ratings=out)


def _player_figures(result: str | None, seat: int) -> tuple[float | None, float | None]:
    if result is None:
        return None, None
    players = json.loads(result).get("players", [])
    mine = next((p for p in players if p.get("seat") == seat), None)
    return (None, None) if mine is None else (mine.get("pr"), mine.get("luck_mwc"))


class PastLastPage(NotFound):
    """A page of a player's matches past the last (404 ``not_found``); ``pages`` is the
    last."""

    def __init__(self, message: str, pages: int) -> None:
        super().__init__(message)
        self.pages = pages


def matches_page(session: Session, user: User, page: int) -> MatchPage:
    """``user``'s matches, newest first, :data:`PAGE_SIZE` a page (``page`` from 1).

    Raises:
        Invalid: ``page`` below 1.
        PastLastPage: ``page`` past the last (page 1 always exists, empty for a player
            without matches); the message names the last, not the page asked for, which a
            query string may make any length.
    """
    if page < 1:
        raise Invalid(f"page {page} does not exist; pages start at 1")
    mine = or_(MatchRow.seat0_id == user.id, MatchRow.seat1_id == user.id)
    total = session.scalar(select(func.count()).select_from(MatchRow).where(mine)) or 0
    pages = max(1, math.ceil(total / PAGE_SIZE))
    # Refused before the database is asked: its integers could not hold the offset of a page
    # number as large as a query string may carry.
    if page > pages:
        raise PastLastPage(f"no such page: the matches of {user.username} end at page {pages}",
                           pages)
    rows = session.execute(
        select(MatchRow, RatedMatch.match_id, MatchAnalysisRow.status, MatchAnalysisRow.result)
        .outerjoin(RatedMatch, RatedMatch.match_id == MatchRow.id)
        .outerjoin(MatchAnalysisRow, MatchAnalysisRow.match_id == MatchRow.id)
        .where(mine)
        .order_by(MatchRow.created_at.desc(), MatchRow.id)
        .offset((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
    ).all()
    ids = {r.seat0_id for r, *_ in rows} | {r.seat1_id for r, *_ in rows}
    names = dict(
        session.execute(
            select(User.id, User.username).where(User.id.in_({i for i in ids if i is not None}))
        ).all()
    )
    deltas = dict(
        session.execute(
            select(RatingChange.match_id, RatingChange.after - RatingChange.before).where(
                RatingChange.user_id == user.id, RatingChange.match_id.in_([r.id for r, *_ in rows])
            )
        ).all()
    )
    out = []
    for row, rated, analysis_status, analysis in rows:
        seat = 0 if row.seat0_id == user.id else 1
        other = row.seat1_id if seat == 0 else row.seat0_id
        opponent = (
            f"Computer ({row.bot_level})"
            if row.bot_seat is not None
            else names.get(other, "?")
            if other is not None
            else "?"
        )
        aborted = row.status == "finished" and row.winner is None
        # An aborted match had no first moves worth a figure (its analysis reads all zeros).
        pr, luck = _player_figures(analysis if analysis_status == "done" and not aborted
                                   else None, seat)
        score = [row.score0, row.score1]
        delta = deltas.get(row.id)
        out.append(
            PlayedMatch(
                match_id=row.id,
                opponent=opponent,
                length=row.length,
                variant=row.variant,
                mode=row.mode,
                # An aborted match counts for no rating, whatever its seek said.
                rated=rated is not None and not aborted,
                status=row.status,
                result=None
                if row.status != "finished"
                else "aborted"
                if aborted
                else "won"
                if row.winner == seat
                else "lost",
                score=[score[seat], score[1 - seat]],
                date=iso(row.created_at),
                rating_change=None if delta is None else round(delta, 1),
                pr=pr,
                luck=luck,
                links={
                    "match": f"/match/{row.id}",
                    "audit": f"/audit/{row.id}",
                    # An aborted match (no winner) had no play worth analysing.
                    **({} if aborted else {"analysis": f"/match/{row.id}/analysis"}),
                },
            )
        )
    return MatchPage(page=page, pages=pages, total=total, matches=out)


def leaderboard(
    session: Session, variant: str, min_matches: int = LEADERBOARD_MIN_MATCHES
) -> Leaderboard:
    """The :data:`LEADERBOARD_SIZE` highest-rated full accounts in ``variant`` with at least
    ``min_matches`` rated matches there (guests never: they play unrated).

    Raises:
        Invalid: an unknown variant.
    """
    check_variant(variant)
    rows = session.execute(
        select(User.username, PlayerRating.rating, PlayerRating.deviation, PlayerRating.matches)
        .join(User, User.id == PlayerRating.user_id)
        .where(
            PlayerRating.variant == variant,
            PlayerRating.matches >= min_matches,
            User.guest.is_(False),
        )
        .order_by(PlayerRating.rating.desc(), PlayerRating.matches.desc(), User.username_key)
        .limit(LEADERBOARD_SIZE)
    ).all()
    return Leaderboard(
        variant=variant,
        min_matches=min_matches,
        players=[
            LeaderboardEntry(
                rank=k + 1,
                name=name,
                rating=round(rating, 1),
                deviation=round(deviation, 1),
                matches=matches,
            )
            for k, (name, rating, deviation, matches) in enumerate(rows)
        ],
    )


def svg_points(
    values: list[float], width: int = 600, height: int = 160
) -> tuple[str, float, float]:
    """``values`` in order as an SVG polyline's ``points`` in a ``width`` × ``height`` box
    (the lowest at the bottom), with the lowest and highest value; ``("", 0, 0)`` for none.
    Values all equal are drawn across the middle, and a single value in the box's centre (a
    line through one point draws nothing, so the page marks each point too)."""
    if not values:
        return "", 0.0, 0.0
    low, high = min(values), max(values)
    span = high - low

    def y(v: float) -> float:
        return height - (v - low) / span * height if span else height / 2

    if len(values) == 1:
        return f"{width / 2:.1f},{y(values[0]):.1f}", low, high
    step = width / (len(values) - 1)
    points = " ".join(f"{k * step:.1f},{y(v):.1f}" for k, v in enumerate(values))
    return points, low, high


def rating_values(history: list[RatingPoint]) -> list[float]:
    """The rating before the first match, then after each: what the history plot draws."""
    return [history[0].before, *(p.after for p in history)] if history else []


def pr_history(session: Session, user: User) -> list[tuple[str, float]]:
    """``[(match_id, PR)]`` of ``user``'s analysed matches, oldest first (PR from the
    analysis, :mod:`boardgammon.analysis.report`; matches without a decision are left out)."""
    rows = session.execute(
        select(MatchRow.id, MatchRow.seat0_id, MatchAnalysisRow.result)
        .join(MatchAnalysisRow, MatchAnalysisRow.match_id == MatchRow.id)
        .where(
            or_(MatchRow.seat0_id == user.id, MatchRow.seat1_id == user.id),
            MatchAnalysisRow.status == "done",
            MatchRow.winner.is_not(None),  # an aborted match's analysis has nothing in it
        )
        .order_by(MatchRow.created_at, MatchRow.id)
    ).all()
    out = []
    for match_id, seat0, result in rows:
        pr, _ = _player_figures(result, 0 if seat0 == user.id else 1)
        if pr is not None:
            out.append((match_id, pr))
    return out


def player_dice(session: Session, user: User) -> dict | None:
    """The statistics (:func:`boardgammon.stats.report.dice_report`) of ``user``'s own revealed
    rolls (their seat's rolls only) in every match they played; ``None`` before their first
    revealed roll. Opening rolls, which belong to both players (one die each), are left out:
    v2 records mark them (``kind``); of v1 records, which do not, :func:`_v1_normal_rolls`
    finds them in the match's record."""
    from boardgammon.stats.record import DiceRecord
    from boardgammon.stats.report import dice_report

    rows: list[Any] = _v1_normal_rolls(session, user)
    rows += session.execute(
        select(DiceRollV2.match_id, DiceRollV2.die1, DiceRollV2.die2)
        .join(MatchRow, MatchRow.id == DiceRollV2.match_id)
        .where(
            revealed(DiceRollV2),
            DiceRollV2.kind == "normal",
            or_(
                and_(DiceRollV2.seat == 0, MatchRow.seat0_id == user.id),
                and_(DiceRollV2.seat == 1, MatchRow.seat1_id == user.id),
            ),
        )
        .order_by(DiceRollV2.match_id, DiceRollV2.seq)
    ).all()
    if not rows:
        return None
    match_id, die1, die2 = zip(*rows, strict=True)
    return dice_report(DiceRecord.from_columns(list(die1), list(die2), match_id=match_id))


def _v1_normal_rolls(session: Session, user: User) -> list[tuple[str, int, int]]:
    """``(match_id, die1, die2)`` of ``user``'s own v1 rolls that were not opening rolls.

    A match applies its revealed rolls in order, each as the next ``opening`` or ``roll`` entry
    of its record (``match_log``; ties re-rolled are ``opening`` entries too): the k-th revealed
    roll, by ``seq``, is the k-th such entry. A revealed roll past the record's entries (a
    server stopped between the reveal and the log, until the match is loaded again) cannot be
    told apart and is left out."""
    rolls = session.execute(
        select(DiceRoll.match_id, DiceRoll.seat, DiceRoll.die1, DiceRoll.die2,
               MatchRow.seat0_id)
        .join(MatchRow, MatchRow.id == DiceRoll.match_id)
        .where(
            revealed(DiceRoll),
            or_(MatchRow.seat0_id == user.id, MatchRow.seat1_id == user.id),
        )
        .order_by(DiceRoll.match_id, DiceRoll.seq)
    ).all()
    if not rolls:
        return []
    kinds: dict[str, list[str]] = {}
    for match_id, action in session.execute(
        select(MatchLogEntry.match_id, MatchLogEntry.action)
        .where(MatchLogEntry.match_id.in_({r.match_id for r in rolls}))
        .order_by(MatchLogEntry.match_id, MatchLogEntry.seq)
    ):
        kind = json.loads(action).get("kind")
        if kind in ("opening", "roll"):
            kinds.setdefault(match_id, []).append(kind)
    out: list[tuple[str, int, int]] = []
    index: dict[str, int] = {}
    for match_id, seat, die1, die2, seat0_id in rolls:
        k = index[match_id] = index.get(match_id, -1) + 1
        applied = kinds.get(match_id, [])
        mine = (seat == 0) == (seat0_id == user.id)
        if mine and k < len(applied) and applied[k] == "roll" and die1 and die2:
            out.append((match_id, die1, die2))
    return out
