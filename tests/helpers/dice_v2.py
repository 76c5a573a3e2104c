"""Players' devices for the v2 dice record: a hash chain per device, and whole matches of
rolls played through :mod:`boardgammon.server.dice_record_v2` (live, correspondence with an
absent opponent, against the computer)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from boardgammon.dice import new_match_id
from boardgammon.server import dice_record_v2 as v2


@dataclass
class Device:
    """A player's device: a hash chain ``x_0 … x_n`` (``x_(i-1) = SHA-256(x_i)``), revealed
    from ``x_1`` on, and fresh roller entropy per roll."""

    length: int = 64
    links: list[bytes] = field(default_factory=list)
    used: int = 0

    def __post_init__(self) -> None:
        chain = [secrets.token_bytes(32)]
        for _ in range(self.length):
            chain.append(hashlib.sha256(chain[-1]).digest())
        self.links = chain[::-1]

    @property
    def anchor(self) -> bytes:
        return self.links[0]

    def next_link(self) -> bytes:
        self.used += 1
        return self.links[self.used]


def play_match(
    db, rolls: int, devices: tuple[Device | None, Device | None], absent_every: int = 0
) -> str:
    """A match of ``rolls`` rolls, seats alternating, the first an opening roll. A seat with
    a device registers its anchor and rolls with its entropy; a seat without one (the
    computer) rolls with the server's. The opponent's device reveals its link, except every
    ``absent_every``-th roll (a correspondence turn it was not there for), whose link is
    used up all the same. Returns the ID."""
    match_id = new_match_id()
    with db.sessions() as s:
        for seat, device in enumerate(devices):
            if device is not None:
                v2.register_anchor(s, match_id, seat, device.anchor)
        for k in range(rolls):
            seat = k % 2
            roller, opponent = devices[seat], devices[1 - seat]
            roll = v2.commit_roll(s, match_id, seat, "opening" if k == 0 else "normal")
            entropy = secrets.token_bytes(16) if roller is not None else None
            roll = v2.request_roll(s, roll.roll_id, roll.commitment, entropy)
            # Every roll uses up one of the opponent's links, whether it is sent or not.
            link = opponent.next_link() if opponent is not None else None
            if link is not None and not (absent_every and k % absent_every == 0):
                roll = v2.contribute(s, roll.roll_id, link)
            else:
                roll = v2.reveal_without_opponent(s, roll.roll_id)
            v2.mark_played(s, roll.roll_id)
    return match_id
