"""JMeter: find it (or download it once), and the command lines that run one plan of the matrix
or write a dashboard. What a JTL says is benchlib/results.py's job."""
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

from benchlib import toolchains
from benchlib.cases import check_api, find_case
from benchlib.console import fail, say
from benchlib.paths import PLANS, ROOT, TESTBED_HOME

PROPERTIES = PLANS / "testbed.properties"
# What the plans run with when no -J says otherwise, and `./testbed load`'s defaults.
DEFAULTS = {"rampup_s": 2, "warmup_s": 5, "duration_s": 20}

VERSION = "5.6.3"
ARCHIVE_URL = f"https://archive.apache.org/dist/jmeter/binaries/apache-jmeter-{VERSION}.tgz"
# Apache's published apache-jmeter-5.6.3.tgz.sha512 (same URL + ".sha512").
ARCHIVE_SHA512 = ("5978a1a35edb5a7d428e270564ff49d2b1b257a65e17a759d259a9283fc17093"
                  "e522fe46f474a043864aea6910683486340706d745fcdf3db1505fd71e689083")
DOWNLOADED = TESTBED_HOME / "tools" / f"apache-jmeter-{VERSION}"
# A JMeter 5.6.3 unpacked in a `shared/tools/` folder beside the clone, where the project's own
# machines keep one; users never need it (find_jmeter downloads JMeter when none is found).
SHARED = ROOT.parent / "shared" / "tools" / f"apache-jmeter-{VERSION}"


def find_jmeter() -> str:
    """The jmeter launcher: $JMETER_HOME/bin/jmeter, else a 5.x `jmeter` on PATH, else the
    development machines' shared copy, else the official 5.6.3 archive, downloaded once into
    .testbed/tools/ and checked against Apache's SHA-512."""
    toolchains.require([toolchains.JAVA])
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
                 log_path, jmeter=None) -> list[str]:
    """argv running jmeter-plans/<api>.jmx for `case` (a number or a cases() dict) in CLI mode.

    Threads loop with no think time for warmup_s + duration_s (ramping up over rampup_s, which
    must fit in the warm-up); samples started in the warm-up are labelled `warmup ...`.
    Writes a CSV JTL to jtl_path (JMeter appends if it exists) and JMeter's log to log_path."""
    check_api(api)
    c = case if isinstance(case, dict) else find_case(int(case))
    threads, rampup_s, warmup_s, duration_s = (
        whole(value, name, least) for value, name, least in
        ((threads, "threads", 1), (rampup_s, "ramp-up", 0), (warmup_s, "warm-up", 0), (duration_s, "duration", 1)))
    if rampup_s > warmup_s:
        fail(f"the ramp-up ({rampup_s} s) must fit in the warm-up ({warmup_s} s), so that every thread "
             "runs through the whole measured window.")
    ids_dir = Path(ids_dir)
    return [jmeter or find_jmeter(), "-n", "-t", str(PLANS / f"{api}.jmx"), "-q", str(PROPERTIES),
            "-l", str(jtl_path), "-j", str(log_path),
            f"-Jhost={host}", f"-Jport={port}", f"-Jthreads={threads}", f"-Jrampup={rampup_s}",
            f"-Jwarmup={warmup_s}", f"-Jduration={duration_s}", f"-Jrows={c['rows']}", f"-Jjoins={c['joins']}",
            f"-Jcomment_ids={ids_dir / 'comment_ids.csv'}", f"-Juser_ids={ids_dir / 'user_ids.csv'}"]


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
    """argv writing JMeter's HTML dashboard of every sample in a finished JTL (`jtl.write_measured`
    keeps the measured window's)."""
    return [jmeter or find_jmeter(), "-g", str(jtl_path), "-o", str(out_dir), "-q", str(PROPERTIES)]
