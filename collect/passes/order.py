"""The order a run measures its items in, drawn from a recorded seed."""
import random

from benchlib.results import item_key


def order(frameworks, apis, case_numbers, rounds, restart, seed) -> list[str]:
    """Interleaved rounds when the apps serve the whole run: each round shuffles its (API, case)
    slots, and in each slot the frameworks run back to back in the slot's counterbalanced order
    (`arms_in_slot`), so a shared machine's drift hits every framework alike and each slot is a
    pair. With a fresh app per case (the study's protocol) each round is shuffled whole."""
    rng = random.Random(seed)
    out = []
    for round_ in range(1, rounds + 1):
        if restart == "case":
            combos = [(f, a, c) for f in frameworks for a in apis for c in case_numbers]
            rng.shuffle(combos)
        else:
            slots = [(a, c) for a in apis for c in case_numbers]
            rng.shuffle(slots)
            combos = [(f, a, c) for a, c in slots for f in arms_in_slot(frameworks, a, c, round_, seed)]
        out += [item_key({"framework": f, "api": a, "case": c, "round": round_})
                for f, a, c in combos]
    return out


def arms_in_slot(frameworks, api: str, case: int, round_: int, seed: int) -> list[str]:
    """The arms' order in one slot of one round: a cyclic Latin square per cell, so each arm goes
    first in every len(frameworks)-th round of it (A first in rounds 1 and 3 of a cell, B in 2 and 4,
    for two arms) from a start drawn per cell. A coin flip per slot put the same arm first in all
    three rounds of a quarter of the cells, where an order effect would not cancel; balanced, it
    cancels within each cell up to the odd round, and the report estimates it
    (analysis/order_effect.py)."""
    arms = list(frameworks)
    start = random.Random(f"{seed}/{api}/{case}").randrange(len(arms))
    shift = (start + round_ - 1) % len(arms)
    return arms[shift:] + arms[:shift]


def extra_round(frameworks, slots, round_, seed) -> list[str]:
    """A round of only some (API, case) slots, shuffled with its own seed (the run's and the
    round's) so a resumed run draws the same order; each slot's arms go on in the cell's
    counterbalanced order."""
    rng = random.Random(seed * 1000 + round_)
    slots = list(slots)
    rng.shuffle(slots)
    return [item_key({"framework": f, "api": a, "case": c, "round": round_})
            for a, c in slots for f in arms_in_slot(frameworks, a, c, round_, seed)]
