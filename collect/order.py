"""The order a run measures its items in, drawn from a recorded seed."""
import random

from benchlib.results import item_key


def order(frameworks, apis, case_numbers, iterations, restart, seed) -> list[str]:
    """Interleaved rounds when the apps serve the whole run: each round shuffles its (API, case)
    slots, and in each slot the frameworks run back to back in a random order, so a shared
    machine's drift hits every framework alike and each slot is a pair. With a fresh app per
    case (the study's protocol) each iteration is shuffled whole."""
    rng = random.Random(seed)
    out = []
    for iteration in range(1, iterations + 1):
        if restart == "case":
            combos = [(f, a, c) for f in frameworks for a in apis for c in case_numbers]
            rng.shuffle(combos)
        else:
            slots = [(a, c) for a in apis for c in case_numbers]
            rng.shuffle(slots)
            combos = [(f, a, c) for a, c in slots for f in rng.sample(list(frameworks), len(frameworks))]
        out += [item_key({"framework": f, "api": a, "case": c, "iteration": iteration})
                for f, a, c in combos]
    return out


def extra_round(frameworks, slots, iteration, seed) -> list[str]:
    """A round of only some (API, case) slots, ordered as the interleaved rounds are; its own seed
    (the run's and the round's) so a resumed run draws the same order."""
    rng = random.Random(seed * 1000 + iteration)
    slots = list(slots)
    rng.shuffle(slots)
    return [item_key({"framework": f, "api": a, "case": c, "iteration": iteration})
            for a, c in slots for f in rng.sample(list(frameworks), len(frameworks))]
