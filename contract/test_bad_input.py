"""The bad-input table keeps the contract's own rules, so that a row added by hand cannot quietly
assert something else: a twin for each media type, the statuses and media types of the transport
section, exact bytes wherever the contract fixes the text, and only the contract's error keys."""
import json
import re

import pytest

from contract.calls import APPLICATION_JSON, GRAPHQL_RESPONSE
from contract.checks import BAD_INPUT, ERROR_KEYS, bad_request, load_bad_input

CASES = load_bad_input()
GRAPHQL_POSTS = [c for c in CASES if c["method"] == "POST" and c["path"] == "/graphql"]
TWIN = re.compile(r"^(?P<base>.*) \[(?P<media>json|graphql-response\+json)\]$")
MEDIA = {"json": APPLICATION_JSON, "graphql-response+json": GRAPHQL_RESPONSE}
REQUEST_CHECKS = ("Content-Type must be application/json", "the request body is not valid JSON",
                  "the request body must be a JSON object", "query must be a string",
                  "variables must be an object or null", "operationName must be a string or null",
                  "extensions must be an object or null")
NOT_ACCEPTABLE = "Accept must allow application/graphql-response+json or application/json"
# The texts the contract fixes beside those: a row with one of them asserts the exact bytes.
CONTRACT_TEXTS = re.compile(r"^(query is nested \d+ levels deep; the maximum is 5|"
                            r"query selects \d+ fields; the maximum is 200|"
                            r"query asks for \d+ comments; the maximum is 1000|"
                            r"id must be an integer from 1 to 2147483647|"
                            r"limit must be an integer from 1 to 1000)$")


def negotiate(accept: str | None) -> str | None:
    """The transport section's media type for an Accept header, written out again; None is 406."""
    if accept is None:
        return APPLICATION_JSON
    best = None
    for part in accept.split(","):
        media, *params = [p.strip() for p in part.split(";")]
        q = next((float(v) for k, _, v in (p.partition("=") for p in params) if k == "q"), 1.0)
        if media not in (GRAPHQL_RESPONSE, APPLICATION_JSON, "application/*", "*/*") or q == 0:
            continue
        chosen = GRAPHQL_RESPONSE if media == GRAPHQL_RESPONSE else APPLICATION_JSON
        if best is None or q > best[1] or (q == best[1] and chosen == GRAPHQL_RESPONSE):
            best = (chosen, q)
    return best and best[0]


def first_error(case: dict) -> dict:
    return (case.get("expect", {}).get("errors") or [{}])[0]


def test_names_are_unique():
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


def test_table_is_one_case_a_line():
    lines = BAD_INPUT.read_text().splitlines()
    assert lines[0] == "[" and lines[-1] == "]"
    assert [json.loads(line.removesuffix(",")) for line in lines[1:-1]] == CASES


@pytest.mark.parametrize("case", [c for c in CASES if TWIN.match(c["name"])], ids=lambda c: c["name"])
def test_every_graphql_row_has_a_twin_for_the_other_media_type(case):
    match = TWIN.match(case["name"])
    other = "graphql-response+json" if match["media"] == "json" else "json"
    twin = next((c for c in CASES if c["name"] == f"{match['base']} [{other}]"), None)
    assert twin is not None, f"no [{other}] twin"
    assert dict(bad_request(case).headers)["Accept"] == MEDIA[match["media"]]

    def request(c):
        return c["method"], c["path"], c.get("body"), [h for h in bad_request(c).headers if h[0] != "Accept"]
    assert request(case) == request(twin)


def test_every_graphql_post_is_twinned_unless_it_picks_its_own_accept():
    untwinned = [c["name"] for c in GRAPHQL_POSTS if not TWIN.match(c["name"]) and "headers" not in c]
    assert not untwinned


@pytest.mark.parametrize("case", GRAPHQL_POSTS, ids=lambda c: c["name"])
def test_graphql_status_and_media_type_follow_the_transport_section(case):
    chosen = negotiate(dict(bad_request(case).headers).get("Accept"))
    if chosen is None:
        assert (case["status"], case["content_type"]) == (406, f"{APPLICATION_JSON}; charset=utf-8")
        assert case["expect"] == {"errors": [{"message": NOT_ACCEPTABLE}]}
        return
    assert case["content_type"] == f"{chosen}; charset=utf-8"
    if first_error(case).get("message") in REQUEST_CHECKS:
        assert case["expect"] == {"errors": [{"message": first_error(case)["message"]}]}
        expected = 415 if first_error(case)["message"].startswith("Content-Type") else 400
    elif chosen == APPLICATION_JSON:
        expected = 200
    else:
        has_data = "data" in case.get("expect", {}) or case.get("keys") == ["data"]
        expected = 200 if has_data else 400
    assert case["status"] == expected


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_rows_assert_exact_bytes_unless_a_library_words_them(case):
    asserted = {"detail", "expect", "keys"} & set(case)
    if case["method"] == "HEAD":
        assert not asserted, "a HEAD answer has no body to assert"
        return
    assert len(asserted) <= 1, asserted
    if case.get("library_message"):
        assert case.get("keys") == ["errors"], "a library's message is asserted by the keys alone"
    elif "keys" in case:
        assert case["keys"] == ["data"], "an error the contract words is asserted byte for byte"
    for error in case.get("expect", {}).get("errors", []):
        assert [k for k in ERROR_KEYS if k in error] == list(error)
        assert error["message"] in REQUEST_CHECKS + (NOT_ACCEPTABLE,) \
            or CONTRACT_TEXTS.match(error["message"]), "a text the contract does not fix"


# A request-target RFC 3986 does not allow: an undecodable %-escape, or a byte outside its path and
# query characters.
MALFORMED_TARGET = re.compile(r"%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_a_malformed_request_target_asserts_only_its_400(case):
    """RFC 9112 §3.2: a server answers an invalid request-target with 400 and the RFC says nothing
    of the body; Go's net/http writes its own before any handler runs. So these rows, and only
    these, are marked and assert the status alone (verify adds that the connection still serves
    or was closed)."""
    if MALFORMED_TARGET.search(case["path"]):
        assert case.get("malformed_target") is True
        assert case["status"] == 400
        assert not {"content_type", "detail", "expect", "keys", "allow"} & set(case)
    else:
        assert "malformed_target" not in case
