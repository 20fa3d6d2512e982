"""Which commit of this code wrote a report: a report is a function of the result files and this
code, so it prints both commits."""
import subprocess
from pathlib import Path

CODE_DIR = Path(__file__).resolve().parent


def code_version() -> str:
    try:
        out = subprocess.run(["git", "-C", str(CODE_DIR), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"
