"""Turn one run's result files (results/<run-id>/) into the report: tables, figures, verdicts.

It only reads result files; `analysis.report.write_report(run_dir)` is the entry point.
"""
