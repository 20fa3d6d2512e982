"""The report's sections, a module each, which analysis/report.py calls in the order a reader meets
them; each writes its part of the document from numbers the rest of analysis/ works out."""
from analysis.sections import (answer, distributions, engines, extra, latency, protocol, replication, run, study,
                               study_support, summary, trust, variants, verdicts)

__all__ = ["answer", "distributions", "engines", "extra", "latency", "protocol", "replication", "run", "study",
           "study_support", "summary", "trust", "variants", "verdicts"]
