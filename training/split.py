"""One network out of two, a contact network and a race network, switched by the race input
(issue #27; results in docs/neural.md, "A race network of its own").

Every ranking fit on the 2-ply data made race plays worse, even one that fitted no race
decision: the contact fit moves hidden units the race positions share. Keeping the race
network as it was needs the evaluator to pick weights by the kind of position. The evaluator's
kernels take one set of weights of one hidden layer, so the two are joined into one layer that
does the picking itself, through input :data:`RACE_INPUT` (1.0 in a pure race, else 0.0):

* each contact unit gets ``−GATE`` on the race input, so in a race its sigmoid is 0 to within
  ``e^−GATE`` and it adds nothing to the outputs; in contact its value is exactly its own;
* each race unit gets ``−GATE`` on its bias and ``+GATE`` on the race input: exactly its own
  in a race, 0 in contact;
* one more unit, ``sigmoid(GATE · (2 · race − 1))``, is 1 in a race and 0 in contact; its
  output weights are the race network's output biases less the contact network's, which are
  the joined network's.

So the joined network's outputs are the contact network's in contact and the race network's in
a race (to float32's rounding), at the cost of evaluating both layers.

    python -m training.split --contact CONTACT.npz --race RACE.npz --out JOINED.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from boardgammon.bots.encoding import N_INPUTS
from boardgammon.bots.network import Network

RACE_INPUT = 198
"""The encoding's race flag (:mod:`boardgammon.bots.encoding`)."""
GATE = 60.0
"""How hard a unit is switched off: its sigmoid is at most about ``e^−(GATE − 20)`` where its
own pre-activation stays within ±20 (float32's ``exp`` takes up to about 88)."""


def join(contact: Network, race: Network) -> Network:
    """A network of ``contact.hidden + race.hidden + 1`` units whose outputs are ``contact``'s
    in contact positions and ``race``'s in pure races (module docstring).

    Raises:
        ValueError: the networks' inputs differ from the encoding's.
    """
    for net in (contact, race):
        if net.w1.shape[0] != N_INPUTS:
            raise ValueError(f"a network of {net.w1.shape[0]} inputs, not {N_INPUTS}")
    w1_c, b1_c = contact.w1.astype(np.float64), contact.b1.astype(np.float64)
    w1_r, b1_r = race.w1.astype(np.float64), race.b1.astype(np.float64)
    w1_c[RACE_INPUT] -= GATE
    b1_r = b1_r - GATE
    w1_r[RACE_INPUT] += GATE
    switch_w = np.zeros((N_INPUTS, 1))
    switch_w[RACE_INPUT] = 2.0 * GATE
    w1 = np.hstack([w1_c, w1_r, switch_w])
    b1 = np.concatenate([b1_c, b1_r, [-GATE]])
    w2 = np.hstack([contact.w2, race.w2, (race.b2 - contact.b2)[:, None]])
    return Network(w1, b1, w2, contact.b2)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contact", required=True, type=Path)
    ap.add_argument("--race", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    for p in (args.contact, args.race):
        if not p.is_file():
            ap.error(f"no such weights file: {p}")
    if args.out.resolve() in (args.contact.resolve(), args.race.resolve()):
        ap.error("--out must differ from the networks it joins")
    joined = join(Network.load(args.contact), Network.load(args.race))
    with np.load(args.contact) as z:
        keep = {k: z[k] for k in z.files if k not in ("w1", "b1", "w2", "b2", "hidden")}
    joined.save(args.out, split=json.dumps({"contact": str(args.contact), "race": str(args.race),
                                            "gate": GATE}), **keep)
    print(f"{args.out}: {joined.hidden} units ({args.contact} in contact, {args.race} in races)")


if __name__ == "__main__":
    main()
