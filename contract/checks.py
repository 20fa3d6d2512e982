"""The checks verify runs against one implementation. Each returns a Result: how many cases ran
and, for each one that failed, what was sent, what was expected and what came back."""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchlib.apps import settings as declared_settings, still_todo
from contract.calls import APPLICATION_JSON, Request
from contract.client import CLOSED, USABLE, Client, Response
from contract.expected import dumps, problem

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
# The keys a GraphQL error object may have, in this order (no `extensions`).
ERROR_KEYS = ("message", "locations", "path")
# How `agree` compares two answers to one request: every byte; the JSON keys, where each GraphQL
# library words its own message; the status, where the HTTP server may answer before any handler.
BYTES, KEYS, STATUS = "bytes", "keys", "status"
NOT_SEEN = "declared but not seen: remove it from framework.json's deviations"


@dataclass
class Failure:
    what: str               # the request, or the batch
    expected: str
    got: str
    note: str = ""


@dataclass(frozen=True)
class Declared:
    """A failure that a framework.json's `deviations` declares: neither a pass nor a failure."""
    what: str
    by: str                 # the implementation that declares it
    why: str
    upstream: str


@dataclass
class Result:
    check: str
    total: int = 0
    failures: list[Failure] = field(default_factory=list)
    skipped: str | None = None   # why the check did not apply
    declared: list[Declared] = field(default_factory=list)

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
        shown = f"pass {self.total}" if self.passed else f"FAIL {len(self.failures)}/{self.total}"
        return shown + (f", {len(self.declared)} declared" if self.declared else "")


# --- declared deviations --------------------------------------------------------------------------

def names(what: str, request: str) -> bool:
    """Whether a failure is about a deviation's request: a request as the check describes it, or
    what comes before the ": " of a described bad-input row or statements kind (its name)."""
    return what == request or what.startswith(request + ": ")


def deviations(framework: dict, check: str | None = None) -> list[dict]:
    """Its framework.json's declared deviations, of one check or of all."""
    return [d for d in framework.get("deviations") or [] if check is None or d["check"] == check]


def declare(result: Result, declared: list[tuple[str, dict]], must_be_seen: bool = True) -> Result:
    """Moves the failures that a declared deviation names from `failures` (and the count) to
    `declared`. declared: (the implementation that declares it, the deviation). Where
    `must_be_seen`, a deviation that names no failure is itself a failure: it no longer deviates,
    or never named a request the check sends, and a list that keeps it would hide the day it
    deviates again."""
    if result.skipped:
        return result
    for by, deviation in declared:
        named = [f for f in result.failures if names(f.what, deviation["request"])]
        if not named and must_be_seen:
            result.failures.append(Failure(deviation["request"], f"the deviation {by} declares",
                                           "the contract's answer", NOT_SEEN))
        for failure in named:
            result.failures.remove(failure)
            result.total -= 1
            result.declared.append(Declared(failure.what, by, deviation["why"], deviation["upstream"]))
    return result


def show(body: bytes, limit: int = 160) -> str:
    text = body.decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + f"… ({len(body)} bytes)"


def diff(expected: bytes, got: bytes) -> str:
    """Where two bodies first differ, with a little context on each side."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    start = max(0, at - 40)

    def cut(b):
        return b[start:at + 60].decode("utf-8", "replace")
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


# --- the bad-input table --------------------------------------------------------------------------

def load_bad_input() -> list[dict]:
    return json.loads(BAD_INPUT.read_text())


def bad_request(case: dict) -> Request:
    """A row's request: its `headers` exactly, else Accept (the row's `accept`, by default
    application/json) and, with a body, Content-Type: application/json."""
    if "headers" in case:
        headers = tuple(tuple(h) for h in case["headers"])
    else:
        headers = (("Accept", case.get("accept", APPLICATION_JSON)),)
        if "body" in case:
            headers += (("Content-Type", APPLICATION_JSON),)
    return Request(case["method"], case["path"], case.get("body"), headers)


def described(case: dict) -> str:
    """A row as its failures name it: the row's name, then the request as sent."""
    return f"{case['name']}: {bad_request(case).describe()[:200]}"


def exact_body(case: dict) -> bytes | None:
    """The bytes a row fixes (a problem's `detail`, or the JSON value `expect`), or None where it
    fixes only the shape (`keys`)."""
    if "detail" in case:
        return problem(case["status"], case["detail"])[2]
    if "expect" in case:
        return dumps(case["expect"])
    return None


def shape_problem(body: bytes, keys: list[str]) -> str | None:
    """Why a body is not a JSON object with exactly these keys, in order, whose errors (if any)
    are objects with a message and no keys but message, locations and path, in that order."""
    try:
        value = json.loads(body)
    except ValueError:
        return "body is not JSON"
    if not isinstance(value, dict):
        return f"body is a JSON {type(value).__name__}, not an object with keys {keys}"
    if list(value) != keys:
        return f"keys {list(value)}, expected {keys}"
    if "errors" not in value:
        return None
    errors = value["errors"]
    if not (isinstance(errors, list) and errors and all(
            isinstance(e, dict) and isinstance(e.get("message"), str) for e in errors)):
        return "no errors list with messages"
    for error in errors:
        if [k for k in ERROR_KEYS if k in error] != list(error):
            return f"error keys {list(error)}, expected some of {list(ERROR_KEYS)} in that order"
    return None


def judge(case: dict, got: Response) -> str | None:
    """Why the response breaks the table's row, or None. A row whose request-target is malformed
    asserts only the status and that the connection still serves or was closed: RFC 9112 §3.2
    leaves such an answer's body to the HTTP server, which may write it before any handler runs."""
    if case.get("malformed_target"):
        if got.status != case["status"]:
            return f"status {got.status}"
        return None if got.after in (USABLE, CLOSED) else got.after
    if got.status != case["status"] or got.content_type != case["content_type"]:
        return f"status/content type {got.status} {got.content_type}"
    if "allow" in case and got.header("allow") != case["allow"]:
        return f"Allow header {got.header('allow')!r}, expected {case['allow']!r}"
    if case["method"] == "HEAD":
        return None if not got.body else f"a {len(got.body)}-byte body after HEAD"
    expected = exact_body(case)
    if expected is not None:
        return None if got.body == expected else "body " + diff(expected, got.body)
    return shape_problem(got.body, case["keys"]) if "keys" in case else None


def bad_input(client: Client, cases: list[dict], apis) -> tuple[Result, list[Response | None]]:
    """Every row against its response; the responses are kept for the cross-check, with None
    where the implementation does not serve the row's API."""
    result, responses = Result("bad-input"), []
    for case in cases:
        request = bad_request(case)
        if request.api not in apis:
            responses.append(None)
            continue
        got = client.send_alone(request) if case.get("malformed_target") else client.send(request)
        responses.append(got)
        reason = judge(case, got)
        result.case(reason is None, reason and Failure(
            described(case), row_expects(case), show(got.body), reason))
    return result, responses


def row_expects(case: dict) -> str:
    if case.get("malformed_target"):
        return f"{case['status']}, then the connection still serving or closed"
    expected = exact_body(case)
    shown = show(expected) if expected is not None else f"keys {case['keys']}" if "keys" in case else ""
    return f"{case['status']} {case['content_type']} {shown}".rstrip()


def compared(case: dict) -> str:
    """How `agree` compares two answers to a row."""
    return STATUS if case.get("malformed_target") else KEYS if case.get("library_message") else BYTES


# --- agreement between implementations -----------------------------------------------------------

def json_keys(body: bytes) -> list[str] | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return list(value) if isinstance(value, dict) else None


def header_names(response: Response) -> list[str]:
    return sorted(name for name, _ in response.headers)


def disagreement(mine: Response, theirs: Response, how: str) -> str | None:
    """How two implementations' answers to one request differ: status, Content-Type and body
    bytes (only the JSON keys, or only the status, as `how` says), and the header names."""
    if how == STATUS:
        return None if mine.status == theirs.status else f"status {mine.status}, the other {theirs.status}"
    if (mine.status, mine.content_type) != (theirs.status, theirs.content_type):
        return f"status/content type {mine.status} {mine.content_type}, " \
               f"the other {theirs.status} {theirs.content_type}"
    if how == KEYS:
        keys = [json_keys(r.body) for r in (mine, theirs)]
        if keys[0] != keys[1]:
            return f"JSON keys {keys[0]}, the other {keys[1]}"
    elif mine.body != theirs.body:
        return diff(theirs.body, mine.body)
    if header_names(mine) != header_names(theirs):
        return f"header names {header_names(mine)}, the other {header_names(theirs)}"
    return None


def agree(pairs, other: str, declared: list[tuple[str, dict]] = ()) -> Result:
    """Identical answers to the same requests as another implementation, over the requests both
    were sent. pairs: (description, how to compare, mine, theirs). A difference on a request that
    either declares a deviation for, in any check, is declared; whether it still deviates is that
    check's to say."""
    result = Result("agree")
    for what, how, mine, theirs in pairs:
        if mine is None or theirs is None:
            continue
        reason = disagreement(mine, theirs, how)
        result.case(reason is None, reason and Failure(
            what, f"{other}: {theirs.status} {show(theirs.body)}",
            f"{mine.status} {show(mine.body)}", reason))
    return declare(result, declared, must_be_seen=False)


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


# --- the settings declared in framework.json ------------------------------------------------------

def settings(framework: dict) -> Result:
    """Every setting its framework.json declares (and the verified variant's) has a value: none is
    still the scaffold's "TODO". A failure's `what` is the setting's name."""
    result = Result("settings")
    for name, value in declared_settings(framework):
        todo = still_todo(value)
        result.case(not todo, todo and Failure(name, "a declared value", json.dumps(value)))
    return result
