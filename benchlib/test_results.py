import pytest

from benchlib.results import (SUMMARY, ResultFileError, append_summary, load_run_table, load_summary, summary_row,
                              summary_rows)

ITEM = {"framework": "express", "api": "rest", "case": 1, "requests": 100, "rows": 1, "joins": 0, "round": 1}


def test_rows_appended_to_a_new_file_share_one_header(tmp_path):
    append_summary(tmp_path / SUMMARY, summary_row(ITEM, "ok", [], {"samples": 5}, {}))
    append_summary(tmp_path / SUMMARY, summary_row({**ITEM, "round": 2}, "failed", [], {}, {}))

    rows = summary_rows(tmp_path / SUMMARY)
    assert [(r["round"], r["status"]) for r in rows] == [("1", "ok"), ("2", "failed")]
    assert rows[0]["samples"] == "5" and rows[1]["samples"] == ""


def test_a_file_an_interrupt_left_empty_gets_its_header_with_the_first_row(tmp_path):
    (tmp_path / SUMMARY).touch()  # created, then cut before its first write

    append_summary(tmp_path / SUMMARY, summary_row(ITEM, "ok", [], {}, {}))

    assert [(r["framework"], r["case"]) for r in summary_rows(tmp_path / SUMMARY)] == [("express", "1")]


def test_a_run_of_schema_4_reads_its_iteration_column_as_the_round(tmp_path):
    path = tmp_path / SUMMARY
    append_summary(path, summary_row(ITEM, "ok", [], {"samples": 5}, {}))
    path.write_text(path.read_text().replace(",round,", ",iteration,", 1))
    assert path.read_text().split(",")[6] == "iteration"
    # A resumed run of schema 4 appends under the header it has: the columns are in the same places.
    append_summary(path, summary_row({**ITEM, "round": 2}, "ok", [], {"samples": 6}, {}))

    assert [r["round"] for r in summary_rows(path)] == ["1", "2"]
    table, _ = load_summary(path, 4)
    assert list(table["round"]) == [1, 2] and "iteration" not in table.columns
    with pytest.raises(ResultFileError, match="header differs from the contract"):
        load_summary(path, 5)
    assert list(load_run_table(path, ["framework", "round"])["round"]) == [1, 2]
