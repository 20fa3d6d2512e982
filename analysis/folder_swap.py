"""Replace a folder of derived files (a run's report, a comparison of two runs) whole: they are a
function of the result files and this code, so a new one replaces the old instead of piling up
report-2/, report-3/, … beside it, which would leave readers guessing which is current."""
import os
import shutil
from pathlib import Path
from typing import Callable


def replace_dir(final: Path, build: Callable[[Path], None]) -> Path:
    """Build a folder of derived files (a report) beside `final` and swap it in with two renames, so
    a failed build leaves the previous one untouched and a reader never sees half of one."""
    building = final.parent / f".{final.name}-building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    try:
        build(building)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    old = final.parent / f".{final.name}-old-{os.getpid()}"
    if final.exists():
        final.rename(old)
    building.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final
