"""JMeter from Python: find it, run one plan of the matrix, summarise its JTL.

Used by `./testbed load` and by the run orchestrator (collect/), which calls:
- `cases()`: the 18 cases of DESIGN §5 from jmeter-plans/cases.csv;
- `plan_command(...)` / `start_plan(...)`: the argv for one run / the running JMeter (a Popen, so
  its JVM pid can be sampled while it runs);
- `summarize_jtl(path)`: the measured window's statistics, keyed like summary.csv.
"""
import csv
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from cli.common import ROOT, STATE, fail, say

PLANS = ROOT / "jmeter-plans"
PROPERTIES = PLANS / "testbed.properties"
APIS = ("rest", "graphql")
DEFAULTS = {"rampup_s": 2, "warmup_s": 5, "duration_s": 20}
WARMUP_PREFIX = "warmup "
# Keeps warm-up samples out of JMeter's HTML dashboard.
SAMPLE_FILTER = f"-Jjmeter.reportgenerator.sample_filter=^(?!{WARMUP_PREFIX}).*"

VERSION = "5.6.3"
ARCHIVE_URL = f"https://archive.apache.org/dist/jmeter/binaries/apache-jmeter-{VERSION}.tgz"
# Apache's published apache-jmeter-5.6.3.tgz.sha512 (same URL + ".sha512").
ARCHIVE_SHA512 = ("5978a1a35edb5a7d428e270564ff49d2b1b257a65e17a759d259a9283fc17093"
                  "e522fe46f474a043864aea6910683486340706d745fcdf3db1505fd71e689083")
DOWNLOADED = STATE / "tools" / f"apache-jmeter-{VERSION}"
# The development machines' copy (see ../shared/tools/README.md); CI sets JMETER_HOME to it.
SHARED = ROOT.parent / "shared" / "tools" / f"apache-jmeter-{VERSION}"


def cases() -> list[dict]:
    """The matrix in DESIGN §5 order: [{"case": 1, "requests": 100, "rows": 1, "joins": 0}, ...]."""
    with open(PLANS / "cases.csv", newline="") as f:
        return [{k: int(v) for k, v in row.items()} for row in csv.DictReader(f)]


def find_case(number: int) -> dict:
    found = [c for c in cases() if c["case"] == number]
    if not found:
        fail(f"there is no case {number}: cases are 1 to {len(cases())} (jmeter-plans/cases.csv).")
    return found[0]


case = find_case  # plan_command's `case` argument shadows this name inside it


def find_jmeter() -> str:
    """The jmeter launcher: $JMETER_HOME/bin/jmeter, else a 5.x `jmeter` on PATH, else the
    development machines' shared copy, else the official 5.6.3 archive, downloaded once into
    .testbed/tools/ and checked against Apache's SHA-512."""
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        fail("java not found: JMeter needs Java 8 or later (Debian: apt-get install default-jre-headless).")
    home = os.environ.get("JMETER_HOME")
    if home:
        launcher = Path(home) / "bin" / "jmeter"
        if not launcher.is_file():
            fail(f"JMETER_HOME={home} has no bin/jmeter; point it at an Apache JMeter 5.x folder or unset it.")
        require_5x(launcher)
        return str(launcher)
    on_path = shutil.which("jmeter")
    if on_path:
        require_5x(Path(on_path))
        return on_path
    for home in (SHARED, DOWNLOADED):
        if (home / "bin" / "jmeter").is_file():
            return str(home / "bin" / "jmeter")
    return str(download() / "bin" / "jmeter")


def jmeter_version(launcher: Path) -> str:
    """From ApacheJMeter.jar's manifest beside the launcher, else from `jmeter --version`."""
    jar = Path(os.path.realpath(launcher)).parent / "ApacheJMeter.jar"
    if jar.is_file():
        with zipfile.ZipFile(jar) as z:
            found = re.search(r"Implementation-Version: *(\S+)", z.read("META-INF/MANIFEST.MF").decode())
            if found:
                return found.group(1)
    try:
        out = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"{launcher} --version failed ({e}); set JMETER_HOME to an Apache JMeter 5.x folder.")
    found = re.search(r"(?m)^(?:Version )?(\d+\.\d+(?:\.\d+)?)", out.stdout + out.stderr)
    return found.group(1) if found else "unknown"


def require_5x(launcher: Path) -> None:
    version = jmeter_version(launcher)
    if not version.startswith("5."):
        fail(f"{launcher} is JMeter {version if version != 'unknown' else 'of an unknown version'}, "
             f"but the plans need JMeter 5.x "
             f"(Debian's 2.13 cannot load them); set JMETER_HOME to an Apache JMeter {VERSION} folder.")


def download() -> Path:
    """The official binary archive, verified before it is unpacked."""
    DOWNLOADED.parent.mkdir(parents=True, exist_ok=True)
    archive = DOWNLOADED.parent / f"apache-jmeter-{VERSION}.tgz"
    say(f"JMeter not found: downloading {ARCHIVE_URL} (about 90 MB) ...")
    try:
        urllib.request.urlretrieve(ARCHIVE_URL, archive)
    except OSError as e:
        fail(f"could not download JMeter ({e}); install JMeter {VERSION} and set JMETER_HOME.")
    digest = hashlib.sha512(archive.read_bytes()).hexdigest()
    if digest != ARCHIVE_SHA512:
        archive.unlink()
        fail(f"the downloaded {archive.name} does not match Apache's SHA-512; it was deleted. Try again later.")
    unpacked = Path(tempfile.mkdtemp(dir=DOWNLOADED.parent))
    with tarfile.open(archive) as tar:
        # Its checksum is Apache's; the "data" filter (Python >= 3.11.4) is a second guard.
        tar.extractall(unpacked, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    # Renamed into place only when complete, so an interrupted unpack is never taken for JMeter.
    (unpacked / f"apache-jmeter-{VERSION}").rename(DOWNLOADED)
    unpacked.rmdir()
    archive.unlink()
    return DOWNLOADED


def plan_command(api, case, host, port, threads, rampup_s, warmup_s, duration_s, jtl_path, ids_dir,
                 log_path, dashboard_dir=None, jmeter=None) -> list[str]:
    """argv running jmeter-plans/<api>.jmx for `case` (a number or a cases() dict) in CLI mode.

    Threads loop with no think time for warmup_s + duration_s (ramping up over rampup_s, which
    must fit in the warm-up); samples started in the warm-up are labelled `warmup ...`.
    Writes a CSV JTL to jtl_path (JMeter appends if it exists) and JMeter's log to log_path;
    with dashboard_dir (which must not exist or be empty), also the HTML dashboard of the
    measured window (or write it later with `dashboard_command`)."""
    if api not in APIS:
        fail(f"--api must be one of {', '.join(APIS)}, not {api!r}.")
    c = case if isinstance(case, dict) else find_case(int(case))
    threads, rampup_s, warmup_s, duration_s = (
        whole(value, name, least) for value, name, least in
        ((threads, "threads", 1), (rampup_s, "ramp-up", 0), (warmup_s, "warm-up", 0), (duration_s, "duration", 1)))
    if rampup_s > warmup_s:
        fail(f"the ramp-up ({rampup_s} s) must fit in the warm-up ({warmup_s} s), so that every thread "
             "runs through the whole measured window.")
    ids_dir = Path(ids_dir)
    cmd = [jmeter or find_jmeter(), "-n", "-t", str(PLANS / f"{api}.jmx"), "-q", str(PROPERTIES),
           "-l", str(jtl_path), "-j", str(log_path),
           f"-Jhost={host}", f"-Jport={port}", f"-Jthreads={threads}", f"-Jrampup={rampup_s}",
           f"-Jwarmup={warmup_s}", f"-Jduration={duration_s}", f"-Jrows={c['rows']}", f"-Jjoins={c['joins']}",
           f"-Jcomment_ids={ids_dir / 'comment_ids.csv'}", f"-Juser_ids={ids_dir / 'user_ids.csv'}"]
    if dashboard_dir is not None:
        cmd += ["-e", "-o", str(dashboard_dir), SAMPLE_FILTER]
    return cmd


def whole(value, name, least) -> int:
    """JMeter's thread group takes whole numbers (seconds, threads)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if isinstance(value, bool) or number is None or not number.is_integer() or number < least:
        fail(f"{name} must be a whole number of at least {least}, not {value!r}.")
    return int(number)


def start_plan(*args, stdout=subprocess.DEVNULL, **kwargs) -> subprocess.Popen:
    """Start `plan_command(...)` and return at once; `.pid` is the JMeter JVM (the launcher execs java)."""
    return subprocess.Popen(plan_command(*args, **kwargs), stdout=stdout, stderr=subprocess.STDOUT)


def dashboard_command(jtl_path, out_dir, jmeter=None) -> list[str]:
    """argv writing JMeter's HTML dashboard for the measured window of a finished JTL."""
    return [jmeter or find_jmeter(), "-g", str(jtl_path), "-o", str(out_dir), "-q", str(PROPERTIES),
            SAMPLE_FILTER]


SUMMARY_KEYS = ("samples", "errors", "error_pct", "throughput_rps", "mean_ms", "min_ms", "max_ms",
                "p50_ms", "p90_ms", "p95_ms", "p99_ms", "in_flight_mean")


def summarize_jtl(path) -> dict:
    """Statistics of the measured window (warm-up samples left out), keyed like summary.csv.

    throughput_rps = samples / (last end - first start), as JMeter computes it; percentiles use
    the (n+1)p rank with interpolation, as JMeter's dashboard does (commons-math's default).
    in_flight_mean is the mean number of requests in flight over that window (the sum of the
    response times over its length: Little's law), the concurrency the server really saw."""
    import numpy as np
    import pandas as pd

    try:
        jtl = pd.read_csv(path, usecols=["timeStamp", "elapsed", "label", "success"],
                          dtype={"timeStamp": "int64", "elapsed": "int64", "label": str, "success": str},
                          keep_default_na=False, engine="c")
    except (FileNotFoundError, pd.errors.EmptyDataError):
        return {"samples": 0, "errors": 0, **{k: None for k in SUMMARY_KEYS[2:]}}
    measured = jtl[~jtl["label"].str.startswith(WARMUP_PREFIX)]
    n = len(measured)
    if n == 0:
        return {"samples": 0, "errors": 0, **{k: None for k in SUMMARY_KEYS[2:]}}
    errors = int((measured["success"] != "true").sum())
    elapsed = measured["elapsed"].to_numpy()
    window_ms = int((measured["timeStamp"] + measured["elapsed"]).max() - measured["timeStamp"].min())
    p50, p90, p95, p99 = np.percentile(elapsed, [50, 90, 95, 99], method="weibull")
    return {"samples": n, "errors": errors, "error_pct": round(100 * errors / n, 3),
            "throughput_rps": round(n * 1000 / window_ms, 3) if window_ms > 0 else None,
            "mean_ms": round(float(elapsed.mean()), 3), "min_ms": int(elapsed.min()),
            "max_ms": int(elapsed.max()), "p50_ms": round(float(p50), 3), "p90_ms": round(float(p90), 3),
            "p95_ms": round(float(p95), 3), "p99_ms": round(float(p99), 3),
            "in_flight_mean": round(float(elapsed.sum()) / window_ms, 2) if window_ms > 0 else None}


def failures(path, limit=3) -> list[str]:
    """The most common failure messages of the measured window, for error reports."""
    import pandas as pd
    jtl = pd.read_csv(path, usecols=["label", "responseCode", "success", "failureMessage"],
                      dtype=str, keep_default_na=False)
    bad = jtl[(jtl["success"] != "true") & ~jtl["label"].str.startswith(WARMUP_PREFIX)]
    reasons = (bad["responseCode"] + " " + bad["failureMessage"]).str.strip()
    return [f"{count}x {reason}" for reason, count in reasons.value_counts().head(limit).items()]
