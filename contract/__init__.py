"""The API contract as files (OpenAPI, SDL, bad-input table, golden responses) and its checker.

`./testbed verify` (cli/verify.py) runs the checks in contract/verify.py against every folder with
a framework.json; `./testbed verify --regenerate-golden` re-records the golden responses, and
contract/test_ecosystem.py runs the ecosystem's own checkers (package.json)."""
