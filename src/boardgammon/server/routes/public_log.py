"""The dice record's public log over HTTP (``docs/api.md`` §The public log): its signing key,
its newest signed head, proofs, entries, and the witnesses' co-signatures. The work is
:mod:`boardgammon.server.dice_log`'s."""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi import APIRouter, Depends, Query, Request
from pydantic import Field
from sqlalchemy.orm import Session

from boardgammon.dice.transparency import HEAD_FORMAT
from boardgammon.server import dice_log
from boardgammon.server.auth import client_address
from boardgammon.server.bodies import RequestBody
from boardgammon.server.db import get_session
from boardgammon.server.errors import responses
from boardgammon.server.services import services

router = APIRouter(prefix="/api/log", tags=["public log"])
# Indexes and sizes go into SQL as signed 64-bit integers (and ``start + count`` too): a larger
# one is refused here (422) rather than failing in the database driver (500).
LARGEST = 2**62
Index = Annotated[int, Query(ge=0, le=LARGEST, description="a leaf's index (0 …)")]
Size = Annotated[int, Query(ge=0, le=LARGEST, description="a tree size (number of leaves)")]
KEY_PATTERN = r"^[0-9a-fA-F]{64}$"


class Cosignature(RequestBody):
    """A witness's co-signature of a signed head (``docs/fair-dice.md`` §Witnesses)."""

    tree_size: int = Field(ge=0, le=LARGEST)
    witness_key: str = Field(pattern=KEY_PATTERN, description="Ed25519, 32 bytes hex")
    signature: str = Field(pattern=r"^[0-9a-fA-F]{128}$", description="Ed25519, 64 bytes hex")


@router.get("/public-key")
def public_key(request: Request) -> dict:
    """The key that signs the log's tree heads: ``{"algorithm": "Ed25519", "public_key"
    (32 bytes hex), "pem" (SubjectPublicKeyInfo), "head_format"}``."""
    raw = services(request.app).log_key.public_key
    pem = Ed25519PublicKey.from_public_bytes(raw).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return {
        "algorithm": "Ed25519",
        "public_key": raw.hex(),
        "pem": pem.decode(),
        "head_format": HEAD_FORMAT,
    }


@router.get("/head")
def head(request: Request, session: Session = Depends(get_session)) -> dict:
    """The newest signed tree head (signed now if the log grew since the last one and that
    one is at least ``BOARDGAMMON_LOG_HEAD_INTERVAL`` old)."""
    parts = services(request.app)
    return dice_log.signed_head(session, parts.log_key,
                                interval_s=parts.settings.log_head_interval_s,
                                writing=parts.db.writing)


@router.get("/proof/inclusion", responses=responses(404))
def inclusion(index: Index, tree_size: Size, session: Session = Depends(get_session)) -> dict:
    """The leaf at ``index`` and its inclusion proof in the tree of ``tree_size`` leaves (404
    ``not_found`` beyond the log; 422 ``invalid_request`` for ``index >= tree_size``)."""
    return dice_log.inclusion_proof(session, index, tree_size)


@router.get("/proof/consistency", responses=responses(404))
def consistency(first: Size, second: Size, session: Session = Depends(get_session)) -> dict:
    """The consistency proof from the tree of ``first`` leaves to that of ``second`` (404
    ``not_found`` beyond the log; 422 ``invalid_request`` unless 1 <= first <= second)."""
    return dice_log.consistency_proof(session, first, second)


@router.get("/entries")
def entries(
    start: Index = 0,
    count: Annotated[int, Query(ge=1, le=dice_log.MAX_ENTRIES)] = 100,
    session: Session = Depends(get_session),
) -> list[dict]:
    """Up to ``count`` leaves from index ``start`` (0 unless given, so that a plain ``GET`` of
    the address reads the log's first page), fewer at the log's end."""
    return dice_log.entries(session, start, count)


@router.post("/witness", status_code=201, responses=responses(400, 404, 429))
def witness(body: Cosignature, request: Request,
            session: Session = Depends(get_session)) -> dict:
    """Store a witness's co-signature of the signed head of ``tree_size`` (400
    ``bad_signature`` if it does not verify, 404 ``not_found`` for no head of that size; 429
    ``rate_limited`` with ``Retry-After`` beyond ``GameConfig.witness_rate`` per address).
    One per witness key and head: the same again stores nothing."""
    services(request.app).game.witness_limit.hit(f"witness:{client_address(request)}")
    return dice_log.add_cosignature(session, body.tree_size, body.witness_key, body.signature)


WitnessKey = Annotated[str | None, Query(pattern=KEY_PATTERN,
                                         description="a witness's Ed25519 key, 32 bytes hex")]


@router.get("/witnesses", responses=responses(422))
def witnesses(
    key: WitnessKey = None,
    before: Annotated[int | None, Query(ge=0, le=LARGEST, description=(
        "a tree size: the page after the row of this head and before_key (without "
        "before_key: the heads below it)"))] = None,
    before_key: WitnessKey = None,
    limit: Annotated[int, Query(ge=1, le=dice_log.MAX_COSIGNATURES)] = dice_log.COSIGNATURES_PAGE,
    session: Session = Depends(get_session),
) -> list[dict]:
    """Co-signatures with the heads they sign, largest heads first, within a head by witness
    key (:func:`boardgammon.server.dice_log.cosignatures`): ``key`` only that witness's; for
    the next page pass the last row's ``tree_size`` and ``witness_key`` as ``before`` and
    ``before_key``. 422 ``invalid_request``: a malformed key, ``before_key`` without
    ``before``, ``limit`` outside 1 … 500."""
    return dice_log.cosignatures(session, limit, key=key, before=before, before_key=before_key)
