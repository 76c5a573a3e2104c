"""Players' ratings, kept per variant (``docs/ratings.md``): who is rated, the rating of a
player in a variant (for the lobby, the watch list and the profile), the range a rated seek
may ask of its opponent, and the update when a rated match ends.

Rules (documented in ``docs/ratings.md`` §Rules):

* A match is rated when it comes from a rated seek between two full accounts; guests and the
  computer never play rated.
* A rated match changes both players' ratings once, in the transaction that ends it, whatever
  ended it (bear-off, drop, resignation, flag): :func:`record_result` is called from that
  transaction and sets ``rated_matches.rated_at`` only where it is still unset, so two server
  processes finishing the same match change the ratings once (the match's version check lets
  only one of them commit; the row is the database's second guard).
* A match that never ends (abandoned without a clock) changes nothing.
* Each player's rating row is locked (``SELECT … FOR UPDATE``; SQLite's writers are serial) so
  that two matches of one player ending at once both count.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from boardgammon.ratings import GlickoRating, glicko
from boardgammon.server.db import rowcount
from boardgammon.server.refusals import ErrorCode, NotAllowed
from boardgammon.server.tables import PlayerRating, RatedMatch, RatingChange, Seek, User

START = GlickoRating()
"""An unrated player's rating (1500, deviation 350)."""


def _glicko(row: PlayerRating | None) -> GlickoRating:
    return START if row is None else GlickoRating(row.rating, row.deviation, row.volatility)


def ratings_of(session: Session, user_ids: Iterable[int | None], variant: str) -> dict[int, float]:
    """``{user_id: rating}`` in ``variant`` for the given players: the rating of a full
    account (1500 until its first rated match); guests are left out (they have none)."""
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return {}
    full = session.scalars(select(User.id).where(User.id.in_(ids), User.guest.is_(False))).all()
    found = dict(
        session.execute(
            select(PlayerRating.user_id, PlayerRating.rating).where(
                PlayerRating.user_id.in_(full), PlayerRating.variant == variant
            )
        ).all()
    )
    return {i: found.get(i, START.rating) for i in full}


def check_seek(session: Session, seek: Seek, user: User) -> None:
    """Refuse ``user`` a rated seek they may not accept: a guest (403 ``guest_unrated``), or a
    rating outside the seek's range (403 ``outside_rating_range``)."""
    rating = None if user.guest or not seek.rated else ratings_of(
        session, [user.id], seek.variant)[user.id]
    refused = seek_refusal(seek, rating)
    if refused is not None:
        raise NotAllowed(refused[1], refused[0])


def seek_refusal(seek: Seek, rating: float | None) -> tuple[ErrorCode, str] | None:
    """Why a player whose rating in the seek's variant is ``rating`` (``None``: a guest, who
    has none) may not accept ``seek``, as (code, message), or ``None``: it is unrated, or the
    rating is within its range (the lobby and the join page offer no Accept the server would
    refuse)."""
    if not seek.rated:
        return None
    if rating is None:
        return (ErrorCode.GUEST_UNRATED,
                "guests play unrated: sign up (keeping your matches) to play rated seeks")
    low = seek.min_rating if seek.min_rating is not None else float("-inf")
    high = seek.max_rating if seek.max_rating is not None else float("inf")
    if not low <= rating <= high:
        wanted = (
            (f"{seek.min_rating:.0f}" if seek.min_rating is not None else "any")
            + "–"
            + (f"{seek.max_rating:.0f}" if seek.max_rating is not None else "any")
        )
        return (ErrorCode.OUTSIDE_RATING_RANGE,
                f"your {seek.variant} rating {rating:.0f} is outside this seek's range {wanted}")
    return None


def mark_rated(session: Session, match_id: str) -> None:
    """Make the new match ``match_id`` a rated one (its ratings change when it ends)."""
    session.add(RatedMatch(match_id=match_id, rated_at=None))


def record_result(
    session: Session,
    match_id: str,
    players: tuple[int | None, int | None],
    winner: int,
    length: int,
    variant: str,
) -> bool:
    """In the transaction that ends the match: if it is rated and not yet counted, update
    both players' ratings (Glicko-2 with the match's length) and their history. ``players``
    are the seats' user IDs, ``winner`` the winning seat. Returns whether ratings changed."""
    now = datetime.now(UTC)
    claimed = rowcount(
        session.execute(
            update(RatedMatch)
            .where(RatedMatch.match_id == match_id, RatedMatch.rated_at.is_(None))
            .values(rated_at=now)
        )
    )
    if claimed != 1:
        return False
    won, lost = players[winner], players[1 - winner]
    if won is None or lost is None:
        return False
    rows = {
        r.user_id: r
        for r in session.scalars(
            select(PlayerRating)
            .where(PlayerRating.user_id.in_((won, lost)), PlayerRating.variant == variant)
            .order_by(PlayerRating.user_id)
            .with_for_update()
        )
    }
    before = {who: _glicko(rows.get(who)) for who in (won, lost)}
    after = dict(zip((won, lost), glicko.update(before[won], before[lost], length), strict=True))
    for who in (won, lost):
        row = rows.get(who)
        if row is None:
            row = PlayerRating(user_id=who, variant=variant, experience=0, matches=0)
            session.add(row)
        new = after[who]
        row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
        row.experience += length
        row.matches += 1
        row.updated_at = now
        session.add(
            RatingChange(
                match_id=match_id,
                user_id=who,
                variant=variant,
                before=before[who].rating,
                after=new.rating,
                deviation=new.deviation,
                created_at=now,
            )
        )
    session.flush()
    return True
