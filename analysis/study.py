"""The study's published Tables 1-10 (study-2021-tables.csv): loading, units, and the values whose
transcription is uncertain.

Each value was read from the thesis's extracted text (not part of this repository); the CSV's
`transcription` column says how (analysis/README.md).
"""
from pathlib import Path

import pandas as pd

STUDY_CSV = Path(__file__).with_name("study-2021-tables.csv")
STUDY_CORES = 4
STUDY_RAM_MB = 8192

# study metric -> (our summary column, unit both are shown in)
STUDY_METRICS = {
    "cpu_peak_pct": ("cpu_peak_pct", "% of machine"),
    "mem_peak_pct": ("rss_peak_mb", "MB"),
    "rt_mean_ms": ("mean_ms", "ms"),
    "rt_min_ms": ("min_ms", "ms"),
    "rt_max_ms": ("max_ms", "ms"),
}
# our summary column -> the study's metric it is compared with
STUDY_METRIC_OF = {column: metric for metric, (column, _) in STUDY_METRICS.items()}

# Every value marked `uncertain` in the CSV, with each reading its garbled text allows; the CSV
# holds the first. GraphQL case 4's "125," is anything from 125.0 to 125.9: a ratio is monotonic in
# it, so the two ends stand for the whole range.
READINGS = {
    ("rest", 13, "express", "rt_mean_ms"): (204.8, 204.3),     # "204,38" (L962)
    ("graphql", 4, "aspnet", "rt_mean_ms"): (125.0, 125.9),    # "125," (L1093)
    ("graphql", 7, "aspnet", "rt_mean_ms"): (220.1,),          # "920.1 9933" (L1099)
    ("graphql", 7, "express", "rt_mean_ms"): (233.3, 223.3),   # "920.1 9933" (L1099)
    # "o88,8" (L1109): 688.8 fits the mean/max ratio of its neighbours better than 588.8
    ("graphql", 14, "aspnet", "rt_mean_ms"): (588.8, 688.8),
    ("graphql", 15, "express", "rt_mean_ms"): (694.7, 594.7, 894.7),  # "094,7" (L1110)
}


def load_study() -> pd.DataFrame:
    return pd.read_csv(STUDY_CSV)


def normalise_study(metric: str, value: float) -> float:
    """The study's CPU (0-400 % on 4 cores) as % of the machine, its memory (% of 8 GiB) as MB."""
    if metric == "cpu_peak_pct":
        return value / STUDY_CORES
    if metric == "mem_peak_pct":
        return value * STUDY_RAM_MB / 100
    return value
