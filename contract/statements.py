"""Database statements per request, counted by the server (as TechEmpower's verifier does).

For each kind of request verify sends a batch and divides. The contract's SQL shape fixes the
number of SELECTs exactly: more means extra queries (one per comment for `user`, say), fewer means
skipped work (a cache), and prepared statements break the text-protocol rule.

Two counters, because the server's are server-wide and a shared machine has other clients:
- `SHOW GLOBAL STATUS` Com_select / Com_stmt_prepare / Com_stmt_execute deltas over the batch;
- for an implementation verify started itself, the statement relay (contract/sqlcount.py) between
  it and the database, which sees only that implementation's statements.
A kind passes when the relay counted exactly the expected SELECTs and nothing else, and the server's
Com_select rose by at least as much (other clients can only add). Without a relay (an
implementation that was already running), the server's deltas must be exact within SLACK on one of
ATTEMPTS batches: true at once in CI, where nothing else runs."""
import random
from collections import Counter

from contract.calls import COMMENTS, USERS, Request, gql, graphql_request, rest
from contract.checks import Failure, Result
from contract.client import Client
from contract.expected import query

BATCH = 50
SLACK = 2
ATTEMPTS = 3
COUNTERS = ("Com_select", "Com_stmt_prepare", "Com_stmt_execute")


def kinds(rng: random.Random) -> list[tuple[str, int, callable]]:
    """(name, SELECTs per request, request maker). Ids vary so nothing can be served twice."""
    def comment():
        return rng.randint(1, COMMENTS)

    def user():
        return rng.randint(1, USERS)

    def limit():
        return rng.randint(1, 100)
    pair = ("{ a: commentById(id: %d) { id user { id name } } "
            "b: commentById(id: %d) { id user { id email } } }")
    return [
        ("REST comment by id", 1, lambda: rest("commentById", id=comment()).request()),
        ("REST unknown comment (404)", 1, lambda: rest("commentById", id=COMMENTS + comment()).request()),
        ("REST comments by limit", 1, lambda: rest("commentsByLimit", limit=limit()).request()),
        ("REST user's first comment", 1, lambda: rest("commentByUserId", id=user()).request()),
        ("REST user's comments", 1, lambda: rest("commentsByUserId", id=user(), limit=limit()).request()),
        ("REST invalid id (400)", 0, lambda: rest("commentById", id=f"x{comment()}").request()),
        ("healthz", 1, lambda: Request("GET", "/healthz")),
        ("GraphQL commentById", 1, lambda: gql("commentById", id=comment()).request()),
        ("GraphQL commentById + user", 2, lambda: gql("commentById", id=comment(), user=True).request()),
        ("GraphQL unknown commentById + user", 1,
         lambda: gql("commentById", id=COMMENTS + comment(), user=True).request()),
        ("GraphQL commentsByLimit", 1, lambda: gql("commentsByLimit", limit=limit()).request()),
        ("GraphQL commentsByLimit(201-400) + user (2 users)", 2,
         lambda: gql("commentsByLimit", limit=rng.randint(201, 400), user=True).request()),
        ("GraphQL commentByUserId + user", 1, lambda: gql("commentByUserId", id=user(), user=True).request()),
        ("GraphQL commentsByUserId + user", 1,
         lambda: gql("commentsByUserId", id=user(), limit=limit(), user=True).request()),
        ("GraphQL two aliased commentById + user", 3,
         lambda: graphql_request(pair % (comment(), comment()))),
        ("GraphQL invalid id (200 with error)", 0,
         lambda: gql("commentById", id=f"x{comment()}", style="string").request()),
        ("GraphQL validation error (no data)", 0,
         lambda: graphql_request("{ commentById(id: 1) { nope } }")),
    ]


def counters(conn) -> dict:
    rows = query(conn, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select', "
                       "'Com_stmt_prepare', 'Com_stmt_execute')")
    return {name: int(value) for name, value in rows}


def batch(client: Client, conn, relay, requests) -> tuple[dict, Counter | None, bool]:
    """The counters' deltas, and whether the batch is void: the database went away meanwhile
    (a 503, or the server's counters restarted from zero), as tests on a shared machine do."""
    before, relayed = counters(conn), relay.snapshot() if relay else None
    void = False
    for request in requests:
        void |= client.send(request).status == 503
    after = counters(conn)
    server = {name: after[name] - before[name] for name in COUNTERS}
    void |= any(delta < 0 for delta in server.values())
    return server, (relay.snapshot() - relayed if relay else None), void


def judge(expected: int, server: dict, relayed: Counter | None) -> bool:
    if relayed is not None:
        return (relayed == Counter({"SELECT": expected} if expected else {})
                and server["Com_select"] >= expected)
    return (expected <= server["Com_select"] <= expected + SLACK
            and server["Com_stmt_prepare"] + server["Com_stmt_execute"] <= SLACK)


def describe(server: dict, relayed: Counter | None) -> str:
    text = (f"server: {server['Com_select']} SELECT ({server['Com_select'] / BATCH:g}/request), "
            f"{server['Com_stmt_prepare']} prepare, {server['Com_stmt_execute']} execute")
    if relayed is not None:
        counted = ", ".join(f"{n} {kind}" for kind, n in sorted(relayed.items())) or "nothing"
        text += f"; relay: {counted}"
    return text


def described(name: str, request: Request) -> str:
    """A kind as its failure names it: the kind, and one request of its batch as sent."""
    return f"{name}: {BATCH} requests, e.g. {request.describe()[:160]}"


def statements(client: Client, conn, apis, relay=None, seed: int = 7) -> Result:
    result = Result("statements")
    if relay is not None and relay.encrypted:
        relay = None   # TLS hides the commands: fall back to the server's counters
    rng = random.Random(seed)
    for name, per_request, make in [k for k in kinds(rng) if k[2]().api in apis]:
        client.send(make())  # the pool's first connection is opened outside the count
        expected = per_request * BATCH
        seen = []
        for _ in range(ATTEMPTS):
            server, relayed, void = batch(client, conn, relay, [make() for _ in range(BATCH)])
            seen.append(("void (the database restarted): " if void else "") + describe(server, relayed))
            if void:
                continue
            if judge(expected, server, relayed) or relay:
                break
        if not judge(expected, server, relayed) or void:
            note = "counted by the relay, so only this implementation's statements" if relay else \
                f"{ATTEMPTS} attempts; server-wide counters, so other clients can add (not remove)"
            result.case(False, Failure(
                described(name, make()),
                f"{expected} SELECT ({per_request}/request), nothing else", "; ".join(seen), note))
        else:
            result.case(True)
    return result
