"""The matrix every stage shares: the API styles and the 18 cases of
jmeter-plans/cases.csv, read in this one place."""
import csv

from benchlib.console import fail
from benchlib.paths import PLANS

API_STYLES = ("rest", "graphql")
CASES_CSV = PLANS / "cases.csv"
# The study's two frameworks: what `./testbed run` measures unless --frameworks names others.
STUDY_PAIR = ("aspnet", "express")


def cases() -> dict[int, dict]:
    """Case number -> {"case": 1, "requests": 100, "rows": 1, "joins": 0}, in the study's order."""
    with open(CASES_CSV, newline="") as f:
        return {int(r["case"]): {k: int(v) for k, v in r.items()} for r in csv.DictReader(f)}


def find_case(number: int) -> dict:
    found = cases()
    if number not in found:
        fail(f"there is no case {number}: cases are 1 to {len(found)} (jmeter-plans/cases.csv).")
    return found[number]


def check_api(api: str) -> None:
    if api not in API_STYLES:
        fail(f"unknown API {api!r}; choose from {', '.join(API_STYLES)}.")
