"""How responses are framed on the wire, which no body comparison sees (the `framing` column).

Every response: a Content-Length equal to the body's length, no Transfer-Encoding, and exactly the
header names of the contract's transport section (Content-Type, Content-Length, Date, Connection,
Keep-Alive: timeout=130 while the connection stays open, Allow on a 405). HEAD answers what GET
would: the same status and headers, Date aside, and no body. An answer to a malformed
request-target is left out: the HTTP server may write it before any handler runs."""
from contract.calls import Request
from contract.checks import Failure, Result, show
from contract.client import Client, Response

KEEP_ALIVE = "timeout=130"
# A GET of each: every REST endpoint, /healthz, two kinds of 404, a 400, and the 405 of /graphql.
HEAD_PARITY = ("/rest/comment/1", "/rest/comments/5", "/rest/user/1/comment",
               "/rest/user/1/comments/5", "/healthz", "/nothing", "/rest/comment/200001",
               "/rest/comment/abc", "/graphql")


def expected_names(response: Response) -> list[str]:
    names = {"content-type", "content-length", "date", "connection"}
    if (response.header("connection") or "").lower() == "keep-alive":
        names.add("keep-alive")
    if response.status == 405:
        names.add("allow")
    return sorted(names)


def wire_problems(request: Request, response: Response) -> list[str]:
    problems = []
    if response.header("transfer-encoding") is not None:
        problems.append(f"Transfer-Encoding: {response.header('transfer-encoding')}")
    length = response.header("content-length")
    # A HEAD's Content-Length is the GET body's: the parity check compares it.
    if request.method != "HEAD" and length != str(len(response.body)):
        problems.append(f"Content-Length {length}, body {len(response.body)} bytes")
    names = sorted(name for name, _ in response.headers)
    if names != expected_names(response):
        problems.append(f"header names {names}, expected {expected_names(response)}")
    if "keep-alive" in names and response.header("keep-alive") != KEEP_ALIVE:
        problems.append(f"Keep-Alive: {response.header('keep-alive')}, expected {KEEP_ALIVE}")
    return problems


def without_date(response: Response) -> list[tuple[str, str]]:
    return sorted((name, value) for name, value in response.headers if name != "date")


def head_problem(get: Response, head: Response) -> str | None:
    if head.status != get.status:
        return f"HEAD {head.status}, GET {get.status}"
    if without_date(head) != without_date(get):
        return f"HEAD headers {without_date(head)}, GET {without_date(get)}"
    return f"a {len(head.body)}-byte body after HEAD" if head.body else None


def framing(client: Client, apis) -> Result:
    """HEAD against GET for HEAD_PARITY, then the wire rules over every response the client saw
    (those included)."""
    result = Result("framing")
    for path in HEAD_PARITY:
        get = Request("GET", path)
        if get.api not in apis:
            continue
        got, head = client.send(get), client.send(Request("HEAD", path))
        reason = head_problem(got, head)
        result.case(reason is None, reason and Failure(
            f"HEAD {path}", f"GET's {got.status} and headers, no body", show(head.body), reason))
    for request, response in client.seen:
        # The HTTP server's own answer to a malformed request-target frames itself as it will
        # (RFC 9112 §3.2); its row in bad-input checks what the contract asks of it.
        if response.after is not None:
            continue
        problems = wire_problems(request, response)
        result.case(not problems, problems and Failure(
            request.describe()[:200], "Content-Length, no Transfer-Encoding, the contract's headers",
            f"{response.status} {show(response.body, 80)}", "; ".join(problems)))
    return result
