from benchlib.results import SUMMARY, append_summary, summary_row, summary_rows

ITEM = {"framework": "express", "api": "rest", "case": 1, "requests": 100, "rows": 1, "joins": 0, "iteration": 1}


def test_rows_appended_to_a_new_file_share_one_header(tmp_path):
    append_summary(tmp_path / SUMMARY, summary_row(ITEM, "ok", [], {"samples": 5}, {}))
    append_summary(tmp_path / SUMMARY, summary_row({**ITEM, "iteration": 2}, "failed", [], {}, {}))

    rows = summary_rows(tmp_path / SUMMARY)
    assert [(r["iteration"], r["status"]) for r in rows] == [("1", "ok"), ("2", "failed")]
    assert rows[0]["samples"] == "5" and rows[1]["samples"] == ""


def test_a_file_an_interrupt_left_empty_gets_its_header_with_the_first_row(tmp_path):
    (tmp_path / SUMMARY).touch()  # created, then cut before its first write

    append_summary(tmp_path / SUMMARY, summary_row(ITEM, "ok", [], {}, {}))

    assert [(r["framework"], r["case"]) for r in summary_rows(tmp_path / SUMMARY)] == [("express", "1")]
