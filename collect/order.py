"""The order a run measures its items in: shuffled from a recorded seed."""
import random

from benchlib.results import item_key


def order(frameworks, apis, case_numbers, iterations, restart, seed) -> list[str]:
    """Shuffled within each iteration so slow drift (thermal, other load) favours no one. When the
    app is restarted per framework x API block rather than per case, blocks stay whole: the
    blocks are shuffled, then the cases inside each."""
    rng = random.Random(seed)
    out = []
    for iteration in range(1, iterations + 1):
        if restart == "case":
            combos = [(f, a, c) for f in frameworks for a in apis for c in case_numbers]
            rng.shuffle(combos)
        else:
            blocks = [(f, a) for f in frameworks for a in apis]
            rng.shuffle(blocks)
            combos = []
            for f, a in blocks:
                inner = list(case_numbers)
                rng.shuffle(inner)
                combos += [(f, a, c) for c in inner]
        out += [item_key({"framework": f, "api": a, "case": c, "iteration": iteration})
                for f, a, c in combos]
    return out
