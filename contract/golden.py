"""The golden responses: a fixed set of requests and the exact bytes every implementation must send.

They are recorded from a running implementation and accepted only if every one also equals the
response rendered straight from the database rows (contract/expected.py): a golden file therefore
never enshrines one implementation's bug, and the recorded bytes are what real servers send.
`./testbed verify --regenerate-golden --framework NAME` rewrites contract/golden.json."""
import json
from pathlib import Path

from contract.calls import (APPLICATION_JSON, GRAPHQL_RESPONSE, Request, golden_calls, gql,
                            graphql_request)
from contract.checks import compare
from contract.client import Client
from contract.expected import JSON, Renderer, dumps

GOLDEN = Path(__file__).resolve().parent / "golden.json"
HEALTHZ = (Request("GET", "/healthz"), (200, JSON, b'{"status":"ok"}'))
ID_ERROR = "id must be an integer from 1 to 2147483647"


def argument_error_beside_data(renderer: Renderer, accept: str) -> tuple[Request, tuple]:
    """One root field fails its argument check while its neighbour is answered: 200 on both media
    types, the error (located at the field, with its path) before the data."""
    query = '{ bad: commentById(id: "0") { id } good: commentById(id: 137) { id body } }'
    good = gql("commentById", id=137, fields=("id", "body"), alias="good", accept=accept)
    status, content_type, body = renderer.render(good)
    error = {"message": ID_ERROR, "locations": [{"line": 1, "column": 3}], "path": ["bad"]}
    data = {"bad": None, **json.loads(body)["data"]}
    return (graphql_request(query, headers=(("Accept", accept),)),
            (status, content_type, dumps({"errors": [error], "data": data})))


def expected_set(renderer: Renderer) -> list[tuple[Request, tuple]]:
    return ([HEALTHZ] + [(call.request(), renderer.render(call)) for call in golden_calls()]
            + [argument_error_beside_data(renderer, accept)
               for accept in (APPLICATION_JSON, GRAPHQL_RESPONSE)])


def load() -> dict:
    return json.loads(GOLDEN.read_text())


def record(client: Client, renderer: Renderer, dataset: dict, source: str) -> list:
    """Write golden.json from `client`'s answers; returns the disagreements (nothing written)."""
    entries, disagreements = [], []
    for request, expected in expected_set(renderer):
        response = client.send(request)
        failure = compare(request.describe(), expected, response)
        if failure:
            disagreements.append(failure)
        entries.append({"request": request.to_json(), "status": response.status,
                        "content_type": response.content_type, "body": response.body.decode()})
    if disagreements:
        return disagreements
    document = {
        "schema": 1,
        "dataset": dataset,
        "recorded_from": source,
        "cross_checked": "every body equals the SQL rendering of contract/expected.py",
        "responses": entries,
    }
    # One response per line: diffs of a re-recording stay readable.
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in entries]
    head = json.dumps({k: v for k, v in document.items() if k != "responses"}, indent=1)[:-2]
    GOLDEN.write_text(head + ',\n "responses": [\n' + ",\n".join(lines) + "\n ]\n}\n")
    return []
