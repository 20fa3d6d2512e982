"""The study's tables: the copy in analysis/ is the shared one, and every uncertain value has its
readings."""
from pathlib import Path

import pytest

from analysis.study import READINGS, STUDY_CSV, load_study

SHARED_CSV = Path(__file__).resolve().parents[2] / "shared" / "reference" / "study-2021-tables.csv"


def test_the_copy_is_identical_to_the_shared_reference():
    if not SHARED_CSV.is_file():
        pytest.skip(f"{SHARED_CSV} is not on this machine (the project's machines have it)")
    assert STUDY_CSV.read_bytes() == SHARED_CSV.read_bytes()


def test_the_study_data_is_complete():
    study = load_study()
    assert len(study) == 360
    row = study[(study["api"] == "rest") & (study["case"] == 14) & (study["framework"] == "aspnet")
                & (study["metric"] == "cpu_peak_pct")]
    assert row["value"].iloc[0] == 333.90


def test_every_uncertain_value_has_its_readings_and_the_csv_holds_the_first():
    study = load_study()
    uncertain = study[study["transcription"] == "uncertain"]
    assert set(READINGS) == {(r.api, r.case, r.framework, r.metric) for r in uncertain.itertuples()}
    for r in uncertain.itertuples():
        assert READINGS[(r.api, r.case, r.framework, r.metric)][0] == r.value


def test_the_three_garbled_digits_are_uncertain_not_restored():
    study = load_study().set_index(["api", "case", "framework", "metric"])
    for key in [("rest", 13, "express", "rt_mean_ms"), ("graphql", 14, "aspnet", "rt_mean_ms"),
                ("graphql", 15, "express", "rt_mean_ms")]:
        assert study.loc[key, "transcription"] == "uncertain"
        assert len(READINGS[key]) > 1
