"""The requests verify sends: HTTP requests, and the valid API calls whose answers the data decides.

A `Call` is one REST endpoint or GraphQL field with its arguments and selection; contract/expected.py
renders its exact response from the database, so the sample needs no recorded answers."""
import json
import random
from dataclasses import dataclass, replace

# The golden data set (seed 1, scale 1): verify refuses any other, so these bounds are fixed.
USERS = 1000
COMMENTS = 200_000
MAX_ID = 2_147_483_647
MAX_LIMIT = 1000

COMMENT_FIELDS = ("id", "threadId", "userId", "body", "dateMade", "dateLastUpdated")
USER_FIELDS = ("id", "name", "email", "phone")
FIELDS = ("commentById", "commentsByLimit", "commentByUserId", "commentsByUserId")
REST_PATHS = {
    "commentById": "/rest/comment/{id}",
    "commentsByLimit": "/rest/comments/{limit}",
    "commentByUserId": "/rest/user/{id}/comment",
    "commentsByUserId": "/rest/user/{id}/comments/{limit}",
}
APPLICATION_JSON = "application/json"
GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON_HEADERS = (("Accept", APPLICATION_JSON),)
# What goes without saying in a failure's description of a request.
USUAL_HEADERS = JSON_HEADERS + (("Content-Type", APPLICATION_JSON),)


@dataclass(frozen=True)
class Request:
    """Exactly what goes on the wire (Host and Content-Length aside)."""
    method: str
    path: str
    body: str | None = None
    headers: tuple = JSON_HEADERS

    def describe(self) -> str:
        unusual = [f"{name}: {value}" for name, value in self.headers
                   if (name, value) not in USUAL_HEADERS]
        if self.body is not None and "Content-Type" not in (name for name, _ in self.headers):
            unusual.append("no Content-Type")
        return (f"{self.method} {self.path}" + (f" [{'; '.join(unusual)}]" if unusual else "")
                + (f" {self.body}" if self.body is not None else ""))

    @property
    def api(self) -> str:
        """The API style a request exercises; /healthz and unknown paths count as REST."""
        return "graphql" if self.path.split("?")[0] == "/graphql" else "rest"

    def to_json(self) -> dict:
        out = {"method": self.method, "path": self.path}
        if self.body is not None:
            out["body"] = self.body
        if self.headers != JSON_HEADERS:
            out["headers"] = [list(h) for h in self.headers]
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Request":
        headers = tuple(tuple(h) for h in data["headers"]) if "headers" in data else JSON_HEADERS
        return cls(data["method"], data["path"], data.get("body"), headers)


def graphql_request(query: str, variables=None, operation=None, headers=JSON_HEADERS) -> Request:
    payload = {"query": query}
    if variables is not None:
        payload["variables"] = variables
    if operation is not None:
        payload["operationName"] = operation
    return Request("POST", "/graphql", json.dumps(payload, separators=(",", ":")),
                   headers + (("Content-Type", "application/json"),))


@dataclass(frozen=True)
class Call:
    """A valid request (ids and limits in range) to one of the four operations.

    GraphQL only: `user` selects Comment.user (REST's ByUserId endpoints always include it);
    `style` passes arguments as `variables`, `literal` (12) or `string` ("12"); `fields` and
    `user_fields` give the selection in order; `alias` renames the root field; `accept` is the
    media type asked for, and so the response's Content-Type."""
    api: str
    field: str
    id: int | None = None
    limit: int | None = None
    user: bool = False
    style: str = "variables"
    fields: tuple = COMMENT_FIELDS
    user_fields: tuple = USER_FIELDS
    alias: str | None = None
    accept: str = APPLICATION_JSON

    @property
    def has_user(self) -> bool:
        return self.user or (self.api == "rest" and self.field.endswith("ByUserId"))

    def request(self) -> Request:
        if self.api == "rest":
            return Request("GET", REST_PATHS[self.field].format(id=self.id, limit=self.limit))
        return self._graphql()

    def _graphql(self) -> Request:
        headers = (("Accept", self.accept),)
        args = {k: v for k, v in (("id", self.id), ("limit", self.limit)) if v is not None}
        selection = list(self.fields)
        if self.user:
            selection.append("user { " + " ".join(self.user_fields) + " }")
        head = f"{self.alias}: {self.field}" if self.alias else self.field
        if self.style == "variables":
            types = {"id": "ID!", "limit": "Int!"}
            params = ", ".join(f"${k}: {types[k]}" for k in args)
            call = ", ".join(f"{k}: ${k}" for k in args)
            name = self.field[0].upper() + self.field[1:]
            query = f"query {name}({params}) {{ {head}({call}) {{ {' '.join(selection)} }} }}"
            # ids travel as strings, as the load plans send them; limits as numbers.
            variables = {k: (str(v) if k == "id" else v) for k, v in args.items()}
            return graphql_request(query, variables, name, headers)
        literal = {k: (f'"{v}"' if self.style == "string" and k == "id" else str(v))
                   for k, v in args.items()}
        call = ", ".join(f"{k}: {v}" for k, v in literal.items())
        return graphql_request(f"{{ {head}({call}) {{ {' '.join(selection)} }} }}", headers=headers)

    def describe(self) -> str:
        return self.request().describe()


def rest(field, id=None, limit=None) -> Call:
    return Call("rest", field, id, limit)


def gql(field, id=None, limit=None, **kw) -> Call:
    return Call("graphql", field, id, limit, **kw)


def golden_calls() -> list[Call]:
    """The fixed golden set: every operation at its edges, and the load plans' exact queries."""
    calls = []
    for api in ("rest", "graphql"):
        make = rest if api == "rest" else gql
        calls += [make("commentById", id=i) for i in (1, 2, 137, COMMENTS, COMMENTS + 1, MAX_ID)]
        calls += [make("commentsByLimit", limit=n) for n in (1, 2, 50, 100, MAX_LIMIT)]
        calls += [make("commentByUserId", id=i) for i in (1, 2, 500, USERS, USERS + 1, MAX_ID)]
        calls += [make("commentsByUserId", id=i, limit=n)
                  for i, n in ((1, 1), (1, 50), (2, 100), (USERS, MAX_LIMIT), (USERS + 1, 5), (MAX_ID, 1))]
    # The load plans send ByUserId with `user`, the others without; add the other halves too.
    calls += [gql("commentById", id=1, user=True), gql("commentById", id=COMMENTS, user=True),
              gql("commentById", id=COMMENTS + 1, user=True),
              gql("commentsByLimit", limit=50, user=True), gql("commentsByLimit", limit=450, user=True),
              gql("commentByUserId", id=7, user=True), gql("commentByUserId", id=USERS + 1, user=True),
              gql("commentsByUserId", id=3, limit=50, user=True),
              gql("commentsByUserId", id=USERS + 1, limit=50, user=True),
              gql("commentById", id=42, style="literal"), gql("commentById", id=42, style="string"),
              gql("commentsByLimit", limit=3, style="literal", user=True),
              gql("commentsByUserId", id=9, limit=2, style="string", user=True, alias="mine"),
              gql("commentById", id=5, fields=("body", "id"), user=True, user_fields=("email", "id")),
              gql("commentByUserId", id=5, fields=("dateLastUpdated",), user=True,
                  user_fields=("phone",), style="literal")]
    # The other media type: an answer, a null and a join, each as application/graphql-response+json.
    calls += [gql("commentById", id=1, accept=GRAPHQL_RESPONSE),
              gql("commentById", id=COMMENTS + 1, accept=GRAPHQL_RESPONSE),
              gql("commentsByUserId", id=3, limit=5, user=True, accept=GRAPHQL_RESPONSE)]
    return calls


def sample_calls(n: int = 1000, seed: int = 20210517) -> list[Call]:
    """A deterministic mix over all eight operations, weighted towards the edges."""
    rng = random.Random(seed)

    def comment_id():
        edge = rng.random() < 0.2
        return rng.choice((1, 2, COMMENTS - 1, COMMENTS, COMMENTS + 1, MAX_ID,
                           rng.randint(COMMENTS + 2, MAX_ID - 1))) if edge \
            else rng.randint(1, COMMENTS)

    def user_id():
        edge = rng.random() < 0.2
        return rng.choice((1, 2, USERS - 1, USERS, USERS + 1, MAX_ID,
                           rng.randint(USERS + 2, MAX_ID - 1))) if edge else rng.randint(1, USERS)

    def limit():
        roll = rng.random()
        if roll < 0.2:
            return rng.choice((1, 2, 199, 200, 201, 999, MAX_LIMIT))
        return rng.randint(1, 100) if roll < 0.9 else rng.randint(101, MAX_LIMIT)

    calls = []
    for i in range(n):
        op = FIELDS[i % 4]
        args = {"id": comment_id()} if op == "commentById" else \
            {"limit": limit()} if op == "commentsByLimit" else \
            {"id": user_id()} if op == "commentByUserId" else {"id": user_id(), "limit": limit()}
        if (i // 4) % 2 == 0:
            calls.append(rest(op, **args))
            continue
        call = gql(op, **args, user=rng.random() < 0.5,
                   style=rng.choice(("variables", "variables", "literal", "string")))
        if rng.random() < 0.3:
            call = replace(call, fields=tuple(rng.sample(COMMENT_FIELDS, rng.randint(1, 6))),
                           user_fields=tuple(rng.sample(USER_FIELDS, rng.randint(1, 4))))
        if rng.random() < 0.15:
            call = replace(call, alias="a" + str(rng.randint(0, 9)))
        if rng.random() < 0.25:
            call = replace(call, accept=GRAPHQL_RESPONSE)
        calls.append(call)
    return calls
