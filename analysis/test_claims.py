"""The claim list against the thesis it quotes and the study's tables it is checked on."""
import re
from pathlib import Path

import pytest

from analysis.claim_types import Direction, Equivalence, Magnitude, NonInferiority
from analysis.claims import ALL_CASES, CLAIMS, HIGHER_CONCURRENCY_MANY_ROWS, LOWEST_LOAD, MANY_ROWS, ONE_ROW, \
    PEAK_LOAD, cases
from analysis.study import load_study
from analysis.study_check import STUDY_METRIC

THESIS = Path(__file__).resolve().parents[2] / "shared" / "reference" / "002_05e988e8871ce58e.txt"
HEADING = re.compile(r"^\s*(\d+(?:\.\d+)+)\s+[A-Z]")


@pytest.fixture(scope="module")
def thesis() -> list[str]:
    if not THESIS.is_file():
        pytest.skip(f"{THESIS} is not on this machine (the project's machines have it)")
    return THESIS.read_text().splitlines()


def words(text: str) -> str:
    return " ".join(text.split())


def section_of(lines: list[str], number: int) -> str:
    """The numbered section a line is in, or Abstract before the introduction."""
    section = "Abstract"
    for line in lines[:number]:
        if line.strip() == "1 Introduction":
            section = "§1"
        found = HEADING.match(line)
        if found:
            section = "§" + found.group(1)
    return section


def test_every_quote_stands_at_its_cited_lines(thesis):
    for claim in CLAIMS:
        for source in claim.sources:
            first, last = source.lines
            assert words(source.words) in words(" ".join(thesis[first - 1:last])), (claim.id, source.lines)
            assert section_of(thesis, first) == source.section, (claim.id, source.lines)


def test_the_headline_claims_are_all_there():
    by_id = {c.id: c for c in CLAIMS}
    assert len(by_id) == len(CLAIMS)
    graphql_time = by_id["graphql-time-express-similar-or-better"]
    assert isinstance(graphql_time.test, NonInferiority) and graphql_time.cases == ALL_CASES
    assert {s.lines for s in graphql_time.sources} >= {(20, 22), (1324, 1326)}
    assert by_id["rest-many-rows-express-faster"].cases == MANY_ROWS and len(MANY_ROWS) == 12
    assert isinstance(by_id["rest-peak-load-almost-2x"].test, Magnitude)
    assert by_id["rest-peak-load-almost-2x"].cases == PEAK_LOAD == (14, 15, 17, 18)
    assert isinstance(by_id["rest-cpu-one-row-similar"].test, Equivalence)
    assert by_id["rest-cpu-aspnet-higher"].metrics == ("cpu_mean_pct",)     # CPU claims read the mean
    assert by_id["rest-memory-aspnet-higher"].metrics == ("rss_peak_mb",)
    assert by_id["graphql-cpu-more-than-double"].share == "most"
    assert by_id["graphql-memory-up-to-3.6x-high-load"].share == "peak"


def test_every_claim_metric_has_a_published_table():
    study = load_study()
    for claim in CLAIMS:
        for metric in claim.metrics:
            published = study[study["metric"] == STUDY_METRIC[metric]]
            assert set(claim.apis) <= set(published["api"]), claim.id
            assert set(claim.cases) <= set(published["case"]), claim.id


def test_case_scopes_follow_the_studys_matrix():
    study = load_study()

    def published(**where):
        part = study
        for column, values in where.items():
            part = part[part[column].isin(values)]
        return tuple(sorted(set(part["case"])))
    assert cases() == ALL_CASES == published()
    assert ONE_ROW == published(rows=[1]) == (1, 4, 7, 10, 13, 16)
    assert LOWEST_LOAD == published(requests=[100], rows=[1]) == (1, 4)
    assert HIGHER_CONCURRENCY_MANY_ROWS == published(requests=[250, 500], rows=[50, 100])
    assert cases(users=(250,), rows=(50,), joins=(0,)) == published(requests=[250], rows=[50], joins=[0]) == (8,)


def test_bands():
    assert Direction("aspnet").band() == (0.0, 1.0)
    assert Direction("express").band()[0] == 1.0
    assert Equivalence(0.25).band() == (0.8, 1.25)
    assert NonInferiority("express", 0.25).band()[0] == 0.8
    assert NonInferiority("aspnet", 0.25).band() == (0.0, 1.25)


def test_every_alternative_reading_names_a_claim_with_the_same_words():
    by_id = {c.id: c for c in CLAIMS}
    alternatives = [c for c in CLAIMS if c.alternative_of]
    assert {c.alternative_of for c in alternatives} == {
        "rest-peak-load-almost-2x", "rest-lower-load-aspnet-faster", "graphql-lower-load-similar-time"}
    for c in alternatives:
        primary = by_id[c.alternative_of]
        assert any(s.lines in {p.lines for p in primary.sources} for s in c.sources), c.id
        assert c.reading and primary.reading, c.id


def test_lower_load_is_read_as_rows_with_concurrency_the_alternative():
    by_id = {c.id: c for c in CLAIMS}
    assert by_id["rest-lower-load-aspnet-faster"].cases == ONE_ROW
    assert by_id["rest-lower-load-aspnet-faster-by-users"].cases == cases(users=(100,))


def test_interactions_pair_each_cell_with_its_neighbour_in_the_matrix():
    by_id = {c.id: c for c in CLAIMS}
    rows = by_id["rest-cpu-rises-more-with-rows"].test
    assert rows.pairs == ((("rest", 3), ("rest", 1)), (("rest", 6), ("rest", 4)), (("rest", 9), ("rest", 7)),
                          (("rest", 12), ("rest", 10)), (("rest", 15), ("rest", 13)), (("rest", 18), ("rest", 16)))
    users = by_id["graphql-time-rises-more-with-users"].test
    assert (("graphql", 18), ("graphql", 6)) in users.pairs and len(users.pairs) == 6
    assert by_id["rest-memory-one-row-higher"].test.pairs == (
        (("rest", 7), ("rest", 8)), (("rest", 10), ("rest", 11)), (("rest", 13), ("rest", 14)),
        (("rest", 16), ("rest", 17)))
    assert len(by_id["graphql-amplifies-rest"].test.pairs) == 18
