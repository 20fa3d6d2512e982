"""`./testbed verify`: run every check against every implementation and print one table, then
what fails, check by check: the failures counted per route of the contract, and the first few."""
import re
from collections import Counter
from itertools import groupby

import pymysql

from benchlib.apps import select_arms
from benchlib.console import fail, say
from benchlib.database import start as start_database
from contract import checks, golden
from contract.calls import REST_PATHS, sample_calls
from contract.client import Client
from contract.expected import Renderer, connect, dataset
from contract.framing import framing
from contract.statements import statements
from contract.targets import acquire

COLUMNS = ("golden", "sample", "agree", "bad-input", "headers", "framing", "statements",
           "settings")
SHOWN_FAILURES = 3
# The contract's routes, in its order (contract/openapi.yaml): each failure is counted under the path its
# request hits, whatever the method, so a researcher reads which routes are still missing.
ROUTES = (*(f"GET {path}" for path in REST_PATHS.values()), "POST /graphql", "GET /healthz")
PATHS = tuple(route.split(" ", 1)[1] for route in ROUTES)
ROUTE_PATTERNS = [re.compile("/".join("[^/]+" if part.startswith("{") else re.escape(part)
                                      for part in path.split("/"))) for path in PATHS]
# A request as every check writes it (contract/calls.py Request.describe): METHOD /path, then a
# space or the end, at the start of a failure's `what` or after its prefix ("row name: ", "kind:
# 50 requests, e.g. "). A bad-input row's name may read like a request ("POST /healthz: POST
# /healthz"); the path before its colon is passed over for the request that follows.
REQUEST = re.compile(r"(?:^|(?<=\s))(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE) "
                     r"(/|/\S*[^:\s])(?=\s|$)")
SHOWN_UNMATCHED = 80


def same_dataset(loaded: dict | None, recorded: dict) -> None:
    """Refuse to compare goldens recorded on other rows: every failure would be noise."""
    if loaded != recorded:
        have = "no data set" if not loaded else \
            f"seed {loaded['seed']}, scale {loaded['scale']}, checksum {loaded['checksum'][:12]}…"
        fail(f"the database holds {have}, but contract/golden.json was recorded on seed "
             f"{recorded['seed']}, scale {recorded['scale']}, checksum {recorded['checksum'][:12]}…; "
             f"load that data set (./testbed seed --scale {recorded['scale']}) to verify.")


def check_one(framework, target, recorded, calls, expectations, cases, conn,
              only) -> tuple[dict, dict]:
    """One implementation's results, and its sample and bad-input responses for `agree`."""
    client = Client(target.url)
    say(f"verify: {target.name}: {', '.join(c for c in COLUMNS if c in only)} ...")
    results = {c: checks.Result(c, skipped="not asked for") for c in COLUMNS}
    responses = {"sample": [None] * len(calls), "bad-input": [None] * len(cases)}
    if "golden" in only:
        results["golden"] = checks.golden(client, recorded["responses"], target.apis)
    if "sample" in only:
        results["sample"], responses["sample"] = checks.sample(client, calls, expectations, target.apis)
    if "bad-input" in only:
        results["bad-input"], responses["bad-input"] = checks.bad_input(client, cases, target.apis)
    if "statements" in only:
        results["statements"] = statements(client, conn, target.apis, target.relay)
    if "framing" in only:
        results["framing"] = framing(client, target.apis)
    if "headers" in only:
        results["headers"] = checks.headers(client.seen)
    if "settings" in only:
        results["settings"] = checks.settings(framework)
    client.close()
    for column, result in results.items():
        checks.declare(result, [(target.name, d) for d in checks.deviations(framework, column)])
    return results, responses


def paired(calls, cases, mine: dict, theirs: dict):
    """(description, how to compare, my response, theirs) for every request both were sent."""
    for call, a, b in zip(calls, mine["sample"], theirs["sample"]):
        yield call.describe(), checks.BYTES, a, b
    for case, a, b in zip(cases, mine["bad-input"], theirs["bad-input"]):
        yield checks.described(case), checks.compared(case), a, b


def table(results: dict[str, dict], apis: dict[str, tuple]) -> str:
    rows = [("implementation", "apis", *COLUMNS)] + [
        (name, "+".join(apis[name]), *(r[c].cell() for c in COLUMNS)) for name, r in results.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in rows)


def route(what: str) -> tuple[int, str]:
    """The route of the contract a failure's request hits, any method, with the place of its path
    in the contract's order: 'GET /rest/comment/abc' is (0, 'GET /rest/comment/{id}'), 'HEAD
    /rest/comment/1' (0, 'HEAD /rest/comment/{id}'). A path the contract has no route for is shown
    as sent (method and path, query string dropped), and a `what` that names no request as it
    is; both come after the contract's routes."""
    found = REQUEST.search(what)
    if not found:
        return len(ROUTES), what if len(what) <= SHOWN_UNMATCHED else what[:SHOWN_UNMATCHED] + "…"
    method, path = found.group(1), found.group(2).split("?")[0]
    index = next((i for i, p in enumerate(ROUTE_PATTERNS) if p.fullmatch(path)), None)
    if index is None:
        return len(ROUTES), f"{method} {path}"
    return index, f"{method} {PATHS[index]}"


def by_route(failures: list) -> str:
    """'67 failed: GET /rest/comment/{id} 12, …, POST /graphql 33': the failures counted per
    route, in the contract's order (each path's own method first, then the others it was sent
    with), then the requests to other paths and the failures that name none, as first met."""
    counts, first = Counter(), {}
    for i, failure in enumerate(failures):
        place, name = route(failure.what)
        counts[name] += 1
        first.setdefault(name, (place, name not in ROUTES, i))
    return f"{len(failures)} failed: " + ", ".join(
        f"{name} {counts[name]}" for name in sorted(counts, key=first.get))


def details(results: dict[str, dict]) -> list[str]:
    """Per failing cell: one line counting its failures per route, then the first few, each with
    the request, what was expected, what came back and why. Settings still "TODO" are one line."""
    lines = []
    for name, by_check in results.items():
        for column in COLUMNS:
            failures = by_check[column].failures
            if not failures:
                continue
            if column == "settings":
                lines.append(f"{name} / settings: still TODO in framework.json: "
                             + ", ".join(f.what for f in failures))
                continue
            lines.append(f"{name} / {column}: {by_route(failures)}")
            for failure in failures[:SHOWN_FAILURES]:
                lines += [f"{name} / {column}: {failure.what}",
                          f"    expected: {failure.expected}",
                          f"    got:      {failure.got}"]
                if failure.note:
                    lines.append(f"    {failure.note}")
    return lines


def declared_lines(results: dict[str, dict]) -> list[str]:
    """Per cell with declared deviations: one line counting them, then each request, with why and
    where its library's issue is, said once for the requests that share them (a row's twins)."""
    lines = []
    for name, by_check in results.items():
        for column in COLUMNS:
            declared = by_check[column].declared
            if declared:
                lines.append(f"{name} / {column}: {len(declared)} declared, neither passes nor failures")
            for (by, why, upstream), items in groupby(declared, key=lambda d: (d.by, d.why, d.upstream)):
                lines += [f"{name} / {column}: declared by {by}: {item.what}" for item in items]
                lines += [f"    why: {why}", f"    upstream: {upstream}"]
    return lines


def chosen_arms(names: list[str] | None, variant: str | None, extra_frameworks: list) -> list[dict]:
    """The implementations to verify, each as one of its variants: `variant` (a name, or "all")
    applies to every framework named; a name may also be written framework:variant."""
    if variant and not names:
        fail("--variant picks a variant of the --framework given; name the framework too.")
    return select_arms(names, extra_frameworks, variant)


def verify(names: list[str] | None, extra_frameworks: list, fresh: bool = False,
           only: tuple = COLUMNS, variant: str | None = None) -> int:
    db = start_database()
    recorded = golden.load()
    same_dataset(dataset(db), recorded["dataset"])
    chosen = chosen_arms(names, variant, extra_frameworks)
    calls = sample_calls() if "sample" in only else []
    renderer = Renderer(db)
    try:
        expectations = [renderer.render(call) for call in calls]
    finally:
        renderer.close()
    cases = checks.load_bad_input()
    conn = connect(db)
    results, responses, apis, targets, declared = {}, {}, {}, [], {}
    try:
        for framework in chosen:
            target = acquire(framework, fresh)
            targets.append(target)
            apis[target.name] = target.apis
            declared[target.name] = [(target.name, d) for d in checks.deviations(framework)]
            results[target.name], responses[target.name] = check_one(
                framework, target, recorded, calls, expectations, cases, conn, only)
    finally:
        for target in targets:
            target.release()
        conn.close()
    names = list(results)
    if "agree" in only:
        for name in names:
            others = [n for n in names if n != name]
            results[name]["agree"] = checks.agree(
                paired(calls, cases, responses[name], responses[others[0]]), others[0],
                declared[name] + declared[others[0]]) \
                if others and {"sample", "bad-input"} & set(only) \
                else checks.Result("agree", skipped="nothing to compare")
    say("")
    say(table(results, apis))
    failed = any(not r.passed for by_check in results.values() for r in by_check.values())
    shown = (details(results) if failed else []) + declared_lines(results)
    if shown:
        say("")
        for line in shown:
            say(line)
    count = sum(len(r.declared) for by_check in results.values() for r in by_check.values())
    say(f"\nverify: {len(names)} implementation(s), {len(calls)} sampled calls, "
        f"{len(recorded['responses'])} golden, {len(cases)} bad-input cases: "
        + ("FAILED" if failed else "all checks pass")
        + (f", {count} declared (above)." if count else "."))
    return 1 if failed else 0


def regenerate(name: str | None, extra_frameworks: list, fresh: bool = False) -> int:
    db = start_database()
    loaded = dataset(db)
    if not loaded or (loaded["seed"], loaded["scale"]) != (1, 1):
        fail("goldens are recorded on the seed 1, scale 1 data set; run ./testbed seed first.")
    chosen = chosen_arms([name] if name else None, None, extra_frameworks)
    if len(chosen) != 1:
        fail("say which implementation to record from: --framework NAME.")
    target = acquire(chosen[0], fresh)
    renderer = Renderer(db)
    try:
        client = Client(target.url)
        disagreements = golden.record(client, renderer, loaded, target.name)
    finally:
        renderer.close()
        target.release()
    if disagreements:
        for failure in disagreements[:SHOWN_FAILURES]:
            say(f"{failure.what}\n    SQL rendering: {failure.expected}\n    {target.name}: {failure.got}"
                + (f"\n    {failure.note}" if failure.note else ""))
        fail(f"{target.name} disagrees with the SQL rendering on {len(disagreements)} golden "
             f"request(s) (above); contract/golden.json is unchanged.")
    say(f"verify: wrote contract/golden.json: {len(golden.load()['responses'])} responses recorded "
        f"from {target.name}, each equal to the SQL rendering.")
    return 0


def main(frameworks: list[str] | None, extra_frameworks: list, fresh: bool, checks_asked: str | None,
         regenerate_golden: bool, variant: str | None = None) -> int:
    """`./testbed verify` with its options; a database failure midway is one clear line."""
    try:
        if regenerate_golden:
            if frameworks and len(frameworks) > 1:
                fail("--regenerate-golden records from one implementation: give one --framework.")
            return regenerate(frameworks[0] if frameworks else None, extra_frameworks, fresh)
        only = COLUMNS if checks_asked is None else tuple(c.strip() for c in checks_asked.split(","))
        unknown = [c for c in only if c not in COLUMNS]
        if unknown:
            fail(f"unknown check {', '.join(unknown)}; choose from {','.join(COLUMNS)}.")
        return verify(frameworks, extra_frameworks, fresh, only, variant)
    except pymysql.MySQLError as e:
        fail(f"the database failed during verify ({e.args[-1]}); check `./testbed db status` "
             f"and run verify again.")
