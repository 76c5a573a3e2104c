"""A contact network and a race network as one (issue #27; results in docs/neural.md, "A race
network of its own").

Every ranking fit on the 2-ply data made race plays worse, even one that fitted no race
decision: the contact fit moves hidden units the race positions share. The evaluator therefore
takes a *joined* network (:meth:`boardgammon.bots.network.Network.join`): a contact half and a
race half in one set of arrays, of which its forward pass computes only the half the race input
(:data:`RACE_INPUT`) picks, at the cost of one half.

The fits (:mod:`training.ranking`, numpy, one hidden layer) fit a joined network in its *gated*
form (:func:`gated`), an ordinary network of ``2K + 1`` units that does the picking itself:

* each contact unit gets ``−GATE`` on the race input, so in a race its sigmoid is 0 to within
  ``e^−GATE`` and it adds nothing to the outputs; in contact its value is exactly its own;
* each race unit gets ``−GATE`` on its bias and ``+GATE`` on the race input: exactly its own
  in a race, 0 in contact;
* one more unit, ``sigmoid(GATE · (2 · race − 1))``, is 1 in a race and 0 in contact; its
  output weights are the race network's output biases less the contact network's, which are
  the gated network's.

So the gated network's outputs are the contact half's in contact and the race half's in a race
(to float32's rounding), and a fit of it moves each half's hidden units only by the decisions
whose candidates it values: a contact position's play that breaks contact is valued by the race
half, so the two halves are fitted together, on one scale. The output biases are shared: a fit
moves the race half's with the contact half's, and the switch unit's output weights by what the
race positions ask beyond that. :func:`native` turns it back into a joined network.

    python -m training.split --contact CONTACT.npz --race RACE.npz --out JOINED.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from boardgammon.bots.encoding import N_INPUTS
from boardgammon.bots.network import RACE_INPUT, Network

GATE = 60.0
"""How hard a unit is switched off: its sigmoid is at most about ``e^−(GATE − 20)`` where its
own pre-activation stays within ±20 (float32's ``exp`` takes up to about 88)."""


SWITCH_TOLERANCE = 1e-3
"""How far :func:`native` lets the switch unit's input weights and bias have moved: a fit moves
them by about ``e^−GATE`` of its steps, so anything visible means the network is not a gated
one."""


join = Network.join
"""The joined network of a contact and a race network (:meth:`Network.join
<boardgammon.bots.network.Network.join>`; a network of the encoding's inputs by construction)."""


def gated(joined: Network) -> Network:
    """The ordinary network of ``hidden + 1`` units equal to ``joined`` (module docstring), for
    the fits.

    Raises:
        ValueError: not a joined network.
    """
    contact, race = joined.halves()
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


def native(net: Network) -> Network:
    """The joined network a gated one (:func:`gated`, perhaps fitted since) stands for: the
    gates taken off each half, the switch unit's output weights added to the race half's
    output biases. The switch unit's other weights, which a fit leaves where :func:`gated` put
    them to within its vanishing gradient, are dropped once checked.

    Raises:
        ValueError: ``net`` has not the gated form's odd number of units, or its switch unit
            (the last) is not :func:`gated`'s to within :data:`SWITCH_TOLERANCE` (it would
            not be the joined network it stands for).
    """
    if net.joined or net.hidden % 2 != 1:
        raise ValueError(f"a gated network has 2K + 1 units, not {net.hidden}")
    k = net.hidden // 2
    expected = np.zeros(N_INPUTS)
    expected[RACE_INPUT] = 2.0 * GATE
    drift = max(float(np.abs(net.w1[:, 2 * k] - expected).max()),
                abs(float(net.b1[2 * k]) + GATE))
    if drift > SWITCH_TOLERANCE:
        raise ValueError(f"the switch unit moved by {drift:.3g} from the gated form's "
                         f"(at most {SWITCH_TOLERANCE}): not a gated network to turn back")
    w1 = net.w1.astype(np.float64)
    b1 = net.b1.astype(np.float64)
    w1_c, w1_r = w1[:, :k].copy(), w1[:, k:2 * k].copy()
    w1_c[RACE_INPUT] += GATE
    w1_r[RACE_INPUT] -= GATE
    b1_r = b1[k:2 * k] + GATE
    contact = Network(w1_c, b1[:k], net.w2[:, :k], net.b2)
    race = Network(w1_r, b1_r, net.w2[:, k:2 * k], net.b2 + net.w2[:, 2 * k])
    return Network.join(contact, race)


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
    contact, race = Network.load(args.contact, widen=True), Network.load(args.race, widen=True)
    if contact.joined or race.joined or contact.hidden != race.hidden:
        ap.error(f"--contact and --race must be single networks of one size, not "
                 f"{contact.hidden}{' joined' * contact.joined} and "
                 f"{race.hidden}{' joined' * race.joined} hidden units")
    joined = join(contact, race)
    with np.load(args.contact) as z:
        keep = {k: z[k] for k in z.files if k not in ("w1", "b1", "w2", "b2", "hidden", "split")}
    joined.save(args.out, split=json.dumps({"contact": str(args.contact), "race": str(args.race)}),
                **keep)
    print(f"{args.out}: {joined.hidden} units, {contact.hidden} computed a position "
          f"({args.contact} in contact, {args.race} in races)")


if __name__ == "__main__":
    main()
