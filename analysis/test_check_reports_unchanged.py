"""The behaviour check's comparison: two renderings that differ only in the time they were written
are the same; a changed byte, a file on one side only, are named (the renderings themselves take a
minute and more, so the suite does not run them: analysis/README.md, "Behaviour unchanged")."""
from analysis.check_reports_unchanged import differences


def rendering(folder, stamp: str, table: str) -> None:
    (folder / "run" / "report").mkdir(parents=True)
    (folder / "run" / "report" / "report.md").write_text(f"The run: report written {stamp} UTC by analysis.\n")
    (folder / "run" / "report" / "metrics.csv").write_text(table)


def test_only_the_time_written_is_ignored(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    rendering(before, "2026-12-02 11:40", "ratio\n1.25\n")
    rendering(after, "2026-12-03 09:05", "ratio\n1.25\n")
    assert differences(before, after) == []
    (after / "run" / "report" / "metrics.csv").write_text("ratio\n1.26\n")
    (before / "run" / "report" / "report.md").write_text("The run: report written today.\n")
    (after / "run" / "figure.png").write_bytes(b"\x89PNG")
    assert differences(before, after) == ["only after: run/figure.png", "differs: run/report/metrics.csv",
                                          "differs: run/report/report.md"]
