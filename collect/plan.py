"""What a run will do: the items (framework x API x case x iteration) and their shuffled order."""
import csv
import random

from cli.common import ROOT

CASES_CSV = ROOT / "jmeter-plans" / "cases.csv"
APIS = ("rest", "graphql")


def load_cases() -> dict[int, dict]:
    with open(CASES_CSV) as f:
        return {int(r["case"]): {k: int(v) for k, v in r.items()} for r in csv.DictReader(f)}


def key(item: dict) -> str:
    """The item's folder under the run, also its name in the manifest's order."""
    return f"{item['framework']}/{item['api']}/case-{item['case']:02d}/iter-{item['iteration']:02d}"


def parse_key(text: str, cases: dict[int, dict]) -> dict:
    framework, api, case, iteration = text.split("/")
    case_no = int(case.removeprefix("case-"))
    return {"framework": framework, "api": api, **cases[case_no],
            "iteration": int(iteration.removeprefix("iter-"))}


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
        out += [f"{f}/{a}/case-{c:02d}/iter-{iteration:02d}" for f, a, c in combos]
    return out
