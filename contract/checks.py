"""The checks verify runs against one implementation. Each returns a Result: how many cases ran
and, for each one that failed, what was sent, what was expected and what came back."""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from contract.calls import JSON_HEADERS, Request
from contract.client import Client, Response
from contract.expected import JSON, problem

HERE = Path(__file__).resolve().parent
BAD_INPUT = HERE / "bad_input.json"

# What a body must never show: stack frames and the insides of the server or its database driver.
LEAK_PATTERNS = (
    r"(?:\\n|\n)\s*at \S", r"\bat \S+ \(", r"Exception", r"Traceback", r"node_modules", r"/src/",
    r"\.cs:line", r"\.js:\d+", r"\bER_[A-Z_]+", r"MySqlConnector", r"MySql\.Data", r"mysql2",
    r"SELECT ", r" FROM comment", r"ECONNREFUSED", r"SqlState")
# One pass over each body finds whether any pattern occurs; the slow per-pattern pass names it.
ANY_LEAK = re.compile("|".join(LEAK_PATTERNS))
LEAKS = [re.compile(p) for p in LEAK_PATTERNS]
# Headers that would make one stack's responses differ from the other's, or leak its name.
FORBIDDEN_HEADERS = ("x-powered-by", "etag", "server")


@dataclass
class Failure:
    what: str               # the request, or the batch
    expected: str
    got: str
    note: str = ""


@dataclass
class Result:
    check: str
    total: int = 0
    failures: list[Failure] = field(default_factory=list)
    skipped: str | None = None   # why the check did not apply

    def case(self, ok: bool, failure: Failure | None = None) -> None:
        self.total += 1
        if not ok:
            self.failures.append(failure)

    @property
    def passed(self) -> bool:
        return not self.failures

    def cell(self) -> str:
        if self.skipped:
            return "-"
        return f"pass {self.total}" if self.passed else f"FAIL {len(self.failures)}/{self.total}"


def show(body: bytes, limit: int = 160) -> str:
    text = body.decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + f"… ({len(body)} bytes)"


def diff(expected: bytes, got: bytes) -> str:
    """Where two bodies first differ, with a little context on each side."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    start = max(0, at - 40)
    cut = lambda b: b[start:at + 60].decode("utf-8", "replace")
    return f"first difference at byte {at}: expected …{cut(expected)}… got …{cut(got)}…"


def compare(what: str, expected: tuple, got: Response) -> Failure | None:
    """expected = (status, content type, body bytes); all three must be exact."""
    status, content_type, body = expected
    if got.status != status or got.content_type != content_type:
        return Failure(what, f"{status} {content_type} {show(body)}",
                       f"{got.status} {got.content_type} {show(got.body)}")
    if got.body != body:
        return Failure(what, show(body), show(got.body), diff(body, got.body))
    return None


# --- golden responses -----------------------------------------------------------------------------

def golden(client: Client, entries: list[dict], apis) -> Result:
    result = Result("golden")
    for entry in entries:
        request = Request.from_json(entry["request"])
        if request.api not in apis:
            continue
        expected = (entry["status"], entry["content_type"], entry["body"].encode())
        failure = compare(request.describe(), expected, client.send(request))
        result.case(failure is None, failure)
    return result


# --- the sample -----------------------------------------------------------------------------------

def sample(client: Client, calls, expectations, apis) -> tuple[Result, list[Response | None]]:
    """Each call against its SQL rendering; the responses are kept for the cross-check, with
    None where the implementation does not serve the call's API."""
    result, responses = Result("sample"), []
    for call, expected in zip(calls, expectations):
        request = call.request()
        if request.api not in apis:
            responses.append(None)
            continue
        response = client.send(request)
        responses.append(response)
        failure = compare(call.describe(), expected, response)
        result.case(failure is None, failure)
    return result, responses


def agree(calls, mine: list[Response], theirs: list[Response], other: str) -> Result:
    """Byte-identical bodies and equal statuses with another implementation, call by call,
    over the APIs both serve."""
    result = Result("agree")
    for call, a, b in zip(calls, mine, theirs):
        if a is None or b is None:
            continue
        failure = compare(call.describe(), (b.status, b.content_type, b.body), a)
        if failure:
            failure.note = f"{other} answered the expected side. {failure.note}".strip()
        result.case(failure is None, failure)
    return result


# --- the bad-input table --------------------------------------------------------------------------

def load_bad_input() -> list[dict]:
    return json.loads(BAD_INPUT.read_text())


def bad_request(case: dict) -> Request:
    if "headers" in case:
        headers = tuple(tuple(h) for h in case["headers"])
    elif "body" in case:
        headers = JSON_HEADERS + (("Content-Type", "application/json"),)
    else:
        headers = JSON_HEADERS
    return Request(case["method"], case["path"], case.get("body"), headers)


def judge(case: dict, got: Response) -> str | None:
    """Why the response breaks the table's row, or None."""
    if got.status != case["status"] or got.content_type != case["content_type"]:
        return f"status/content type {got.status} {got.content_type}"
    if "allow" in case and got.header("allow") != case["allow"]:
        return f"Allow header {got.header('allow')!r}, expected {case['allow']!r}"
    if "detail" in case:
        expected = problem(case["status"], case["detail"])[2]
        return None if got.body == expected else "body " + diff(expected, got.body)
    if case["content_type"] != JSON:
        return None
    try:
        body = json.loads(got.body)
    except ValueError:
        return "body is not JSON"
    if not isinstance(body, dict):
        return "body is not a JSON object"
    errors = body.get("errors")
    if case.get("data_only"):
        return None if list(body) == ["data"] else f"keys {list(body)}, expected only data"
    if not (isinstance(errors, list) and errors
            and all(isinstance(e, dict) and isinstance(e.get("message"), str) for e in errors)):
        return "no errors list with messages"
    if case.get("errors_only"):
        return None if list(body) == ["errors"] else f"keys {list(body)}, expected only errors"
    if list(body) != ["errors", "data"]:
        return f"keys {list(body)}, expected errors then data"
    if errors[0]["message"] != case["message"]:
        return f"message {errors[0]['message']!r}"
    if body["data"] != case["data"]:
        return f"data {json.dumps(body['data'])}"
    return None


def bad_input(client: Client, cases: list[dict], apis) -> Result:
    result = Result("bad-input")
    for case in cases:
        request = bad_request(case)
        if request.api not in apis:
            continue
        got = client.send(request)
        reason = judge(case, got)
        expected = f"{case['status']} {case['content_type']}" + (
            f" {case['detail']}" if "detail" in case else f" {case['message']}" if "message" in case else "")
        result.case(reason is None, reason and Failure(
            f"{case['name']}: {request.describe()[:200]}", expected, show(got.body), reason))
    return result


# --- headers and leaks, over every response the client saw ---------------------------------------

def headers(seen: list[tuple[Request, Response]]) -> Result:
    result = Result("headers")
    for request, response in seen:
        problems = []
        if not response.content_type:
            problems.append("no Content-Type")
        problems += [f"{name} header" for name in FORBIDDEN_HEADERS if response.header(name)]
        text = response.body.decode("utf-8", "replace")
        if ANY_LEAK.search(text):
            problems += [f"body matches /{leak.pattern}/" for leak in LEAKS if leak.search(text)]
        result.case(not problems, problems and Failure(
            request.describe()[:200], "a Content-Type, no server internals",
            show(response.body), "; ".join(problems)))
    return result
