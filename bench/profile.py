"""`python3 -m bench profile`: where one implementation spends its CPU on one cell of the matrix.

Starts the implementation with its runtime's symbol map on (so that perf can name JIT-compiled
frames) and, for Go, the GC's trace; drives the cell's own request with wrk (benchlib/wrk.py: what
the run's wrk sends for that API and case, at the case's concurrency), a warm-up first; then
records the app's process with `perf record -g` over the measured window only. Prints requests/s,
the app's CPU per request, its OS counters over the window, Go's GC cycles and their CPU, the share
of perf's samples by category and the symbols with the largest self share.

    /usr/bin/python3 -m bench profile --framework gin --api graphql --case 6 [--duration 20] [--warmup 5]

A sample's category is that of the innermost frame of its stack that a pattern of RUNTIMES names,
so a library's calls into runtime helpers count as the library (encoding/json's runtime.memmove is
JSON), while an allocation's runtime.mallocgc, inner to the library, is GC. A sample in the kernel
is kernel's, split by KERNEL. One that no pattern names is `runtime` if its own frame is the
runtime's, else `other`, whose leading symbols are printed.
"""
import argparse
import functools
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchlib import apps
from benchlib import wrk as wrk_tool
from benchlib.cases import API_STYLES, find_case
from benchlib.console import fail, say
from benchlib.database import loaded, server_pid, start as start_database
from benchlib.packages import ensure_debian, need_tool
from benchlib.paths import IDS, LOGS, ROOT, shown as shown_path
from benchlib.processes import cpu_seconds

# Kernel samples, by the innermost frame these name; the rest is `kernel: other`.
KERNEL = (
    ("kernel: network", r"tcp_|udp_|\bip_|__ip_|inet_|sock_|__sys_(send|recv)|skb|net_rx|napi|__dev_|neigh_|"
                        r"loopback"),
    ("kernel: scheduler, futex, epoll", r"schedule|task_switch|futex|epoll|wake_up|nanosleep"),
)


def dotnet_modules(*names: str) -> str:
    """A managed frame of one of these assemblies: its perf map name starts with `[Assembly]`, and
    a frame the map does not name is the assembly's file. By assembly, since a frame's signature
    names other assemblies' types."""
    either = "|".join(names)
    return rf"\[({either})\]|/({either})\.dll\)"


# Per runtime (the start of framework.json's `runtime`): the environment that names its frames or
# traces its GC, the categories (the first pattern that names a frame gives its category, matched
# against perf's `symbol (dso)`), what marks a frame as the runtime's own, and optionally the
# threads whose name gives their samples' category before any frame does.
RUNTIMES = {
    "Go": {
        # Native symbols need no map; gctrace writes a line per GC cycle to stderr (the app's log).
        "env": {"GODEBUG": "gctrace=1"},
        "categories": (
            ("GC", r"^runtime\.(gc\w+|mallocgc|bgsweep|bgscavenge|sweepone|markroot\w*|scan\w+|greyobject|wbBuf\w*)\b"),
            ("JSON", r"^encoding/json\.|/jsonbytes\."),
            ("database driver", r"^github\.com/go-sql-driver/mysql\.|^database/sql\."),
            ("GraphQL: graphql-go", r"^github\.com/graph-gophers/graphql-go"),
            ("GraphQL: gqlparser", r"^github\.com/vektah/gqlparser"),
            ("HTTP server/framework", r"^github\.com/gin-gonic/gin|^net/http\.|^net/textproto\."),
            ("app's own code", r"^forum/"),
        ),
        "runtime": r"^(runtime|internal/\w+|sync|syscall)[./]",
    },
    "Node.js": {
        "env": {"NODE_OPTIONS": "--perf-basic-prof"},
        "categories": (
            ("GC", r"v8::internal::(\w*Heap|\w*Scaveng\w*|\w*MarkCompact\w*|\w*Marking\w*|\w*Sweep\w*|"
                   r"\w*Evacuat\w*)[:<]|cppgc::|Builtins?[_:]RecordWrite"),
            ("JSON", r"Builtins?[_:]Json|v8::internal::Json"),
            ("database driver", r"node_modules/mysql2/"),
            ("GraphQL", r"node_modules/(graphql|express-graphql|graphql-http|mercurius|graphql-jit|dataloader)/"),
            ("HTTP server/framework", r"node_modules/(express|router|body-parser|finalhandler|fastify|find-my-way|"
                                      r"avvio|@fastify/[\w-]+)/|node:(_http|net|internal/http)|llhttp"),
            ("app's own code", r"/(express|fastify)-api/(?!node_modules/|runtimes/)|/forum-node-common/|/node-common/"),
        ),
        "runtime": r"\(\S*/bin/node\)|^(Builtins?_|Builtin:|BytecodeHandler:|Stub:)|v8::",
    },
    ".NET": {
        # 3: the perf map alone (1 adds a jitdump file per process, which perf script does not read).
        # Without W^X the JIT writes code to anonymous memory, where perf looks it up in the map; with
        # it, to a shared memory file perf cannot name.
        "env": {"DOTNET_PerfMapEnabled": "3", "DOTNET_EnableWriteXorExecute": "0"},
        # libcoreclr.so ships without symbols, so its GC's frames are nameless: the GC's own threads
        # name them instead (Server GC collects on them; an allocation's slow path stays unnamed).
        "threads": (("GC", r"^\.NET (Server GC|BGC)"), ("runtime", r"^\.NET Tiered")),
        "categories": (
            ("GC", r"(SVR|WKS)::|libclrgc"),
            ("JSON", dotnet_modules(r"System\.Text\.Json", r"GraphQL\.SystemTextJson")),
            ("database driver", dotnet_modules("MySqlConnector", r"MySql\.Data")),
            ("GraphQL", dotnet_modules("GraphQL", "GraphQLParser", r"GraphQL\.MicrosoftDI")),
            ("HTTP server/framework", dotnet_modules(r"Microsoft\.AspNetCore[\w.]*", r"System\.IO\.Pipelines",
                                                     r"System\.Net\.Sockets")),
            ("app's own code", dotnet_modules("AspnetApi")),
        ),
        "runtime": r"libcoreclr|libclrjit|System\.Private\.CoreLib",
    },
}
GCTRACE = re.compile(r"^gc \d+ @[\d.]+s \d+%: \S+ ms clock, ([\d.]+)\+([\d.]+)/([\d.]+)/([\d.]+)\+([\d.]+) ms cpu")
KERNEL_DSO = "([kernel.kallsyms])"
TOP = 15
SHOWN = 110


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m bench profile", description=__doc__.split("\n\n")[0])
    p.add_argument("--framework", required=True, metavar="F[:VARIANT]")
    p.add_argument("--api", default="rest", choices=API_STYLES)
    p.add_argument("--case", type=int, default=1, help="the cell's case, 1-18 (default 1)")
    p.add_argument("--warmup", type=int, default=5, help="unmeasured seconds of the same load first (default 5)")
    p.add_argument("--duration", type=int, default=20, help="measured and recorded seconds (default 20)")
    p.add_argument("--frequency", type=int, default=499, help="perf's sampling frequency, Hz (default 499)")
    args = p.parse_args(argv)
    if min(args.warmup, args.duration, args.frequency) < 1:
        p.error("--warmup, --duration and --frequency must be at least 1")
    return args


def runtime_of(framework: dict) -> dict:
    found = next((r for prefix, r in RUNTIMES.items() if framework["runtime"].startswith(prefix)), None)
    if found is None:
        say(f"profile: no patterns for runtime {framework['runtime']!r} (bench/profile.py RUNTIMES): "
            f"every sample outside the kernel is `other`")
        return {"env": {}, "categories": (), "runtime": r"$^"}
    return found


def check_seeded() -> None:
    """The database (the managed one started if it is not running) holds the data set, and the
    id lists wrk sends are there."""
    db = start_database()
    if loaded(db) is None or not all((IDS / f).exists() for f in ("comment_ids.csv", "user_ids.csv")):
        fail(f"no data set in the {db.describe()} or no id lists in {shown_path(IDS)}: run ./testbed seed first.")


def os_counters(pid: int) -> dict:
    """The app's CPU seconds, threads and context switches so far, and its peak RSS (kB). Context
    switches are summed over the threads (/proc/PID/status counts the main thread's alone), so a
    thread that ends takes its own with it."""
    switches = Counter()
    tasks = list(Path(f"/proc/{pid}/task").iterdir())
    for task in tasks:
        try:
            status = (task / "status").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        for key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
            switches[key] += int(re.search(rf"^{key}:\s+(\d+)", status, re.M).group(1))
    peak = re.search(r"^VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return {"cpu_s": cpu_seconds(pid), "threads": len(tasks), **switches, "peak_rss_kb": int(peak.group(1))}


def gc_cycles(log_text: str) -> tuple[int, float]:
    """(cycles, CPU seconds) of the gctrace lines in `log_text`: assist, background and idle
    marking, and both stop-the-world phases."""
    found = [GCTRACE.match(line) for line in log_text.splitlines()]
    found = [m for m in found if m]
    return len(found), sum(float(x) for m in found for x in m.groups()) / 1000


def record(perf: str, base: str, cell: dict, args, pid: int, log: Path, data: Path) -> dict:
    """The measured window: wrk and perf together, with the app's and the database's counters
    around them and the app's log lines written meanwhile."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # peak RSS from here
    db_pid = server_pid()
    before, db_before, log_at = os_counters(pid), db_pid and cpu_seconds(db_pid), log.stat().st_size
    recorder = subprocess.Popen([perf, "record", "-F", str(args.frequency), "-g", "-p", str(pid), "-o", str(data),
                                 "--", "sleep", str(args.duration)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    figures = wrk_tool.run(base, cell, cell["requests"], args.duration)
    after, db_after = os_counters(pid), db_pid and cpu_seconds(db_pid)
    with open(log, "rb") as f:
        f.seek(log_at)
        written = f.read().decode(errors="replace")
    stderr = recorder.communicate()[1]
    if recorder.returncode != 0 or not data.exists():
        said = [x for x in stderr.splitlines() if x.strip() and x.strip() != "Error:" and not x.startswith("[ perf")]
        fail(f"perf record failed (exit {recorder.returncode}): {said[0] if said else 'no message'}")
    return {**figures, "before": before, "after": after, "gc": gc_cycles(written),
            "db_cpu_s": db_after - db_before if db_pid else None}


def stacks(perf: str, data: Path) -> list[tuple[str, list[str]]]:
    """Each sample's thread name and frames as `symbol (dso)`, innermost first."""
    out = subprocess.run([perf, "script", "-i", str(data), "-F", "comm,ip,sym,dso"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"perf script failed: {(out.stderr.strip().splitlines() or ['no message'])[-1]}")
    samples, thread = [], ""
    for line in out.stdout.splitlines():
        if line.startswith("\t"):
            samples[-1][1].append(line.strip().split(None, 1)[1] if " " in line.strip() else "[unknown]")
        elif line.strip():
            thread = line.strip()
            samples.append((thread, []))
    return [(thread, frames) for thread, frames in samples if frames]


@functools.cache
def named(frame: str, categories: tuple) -> str | None:
    """The category of the first pattern that names `frame` (frames repeat: cached)."""
    return next((name for name, pattern in categories if re.search(pattern, frame)), None)


def category(thread: str, frames: list[str], runtime: dict) -> str:
    if frames[0].endswith(KERNEL_DSO):
        kernel = [frame for frame in frames if frame.endswith(KERNEL_DSO)]
        return next(filter(None, (named(frame, KERNEL) for frame in kernel)), "kernel: other")
    by_frame = next(filter(None, (named(frame, runtime["categories"]) for frame in frames)), None)
    return named(thread, runtime.get("threads", ())) or by_frame \
        or ("runtime" if re.search(runtime["runtime"], frames[0]) else "other")


def shown(frame: str) -> str:
    """`symbol (dso's file name)`, paths in the repository relative to it, at most SHOWN long."""
    symbol, _, dso = frame.rpartition(" (")
    text = f"{symbol} ({Path(dso.rstrip(')')).name})" if symbol else frame
    text = text.replace(f"{ROOT}/", "")
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def report(args, r: dict, samples: list[tuple[str, list[str]]], runtime: dict) -> None:
    before, after, window = r["before"], r["after"], r["window_s"]
    app_cpu = after["cpu_s"] - before["cpu_s"]
    requests = r["samples"]
    say(f"requests/s     {r['throughput_rps']:.1f} ({requests} requests, {r['errors']} errors, "
        f"p99 {r['p99_ms']:.1f} ms)")
    say(f"app CPU        {app_cpu / window:.2f} cores, {1e6 * app_cpu / requests:.0f} µs per request"
        + (f"; database {r['db_cpu_s'] / window:.2f} cores" if r["db_cpu_s"] is not None else ""))
    voluntary = after["voluntary_ctxt_switches"] - before["voluntary_ctxt_switches"]
    involuntary = after["nonvoluntary_ctxt_switches"] - before["nonvoluntary_ctxt_switches"]
    say(f"OS             threads {before['threads']} -> {after['threads']}; context switches {voluntary} "
        f"voluntary + {involuntary} involuntary ({(voluntary + involuntary) / requests:.2f} per request); "
        f"peak RSS {after['peak_rss_kb'] / 1024:.0f} MB")
    cycles, gc_cpu = r["gc"]
    if "GODEBUG" in runtime["env"]:
        every = f", one per {requests / cycles:.0f} requests" if cycles else ""
        say(f"GC (gctrace)   {cycles} cycles ({cycles / window:.1f}/s{every}), {gc_cpu:.2f} CPU s = "
            f"{100 * gc_cpu / app_cpu:.1f} % of the app's CPU")
    categories = [category(thread, frames, runtime) for thread, frames in samples]
    counts = Counter(categories)
    total = len(samples)
    say(f"\nperf samples   {total} at {args.frequency} Hz over {args.duration} s, by category "
        f"(the innermost frame a pattern names):")
    order = [n for n, _ in KERNEL] + ["kernel: other"] + [n for n, _ in runtime["categories"]] + ["runtime", "other"]
    for cat in order:
        say(f"  {cat:<34} {100 * counts[cat] / total:5.1f} %")
    unnamed = Counter(shown(frames[0]) for (_, frames), cat in zip(samples, categories) if cat == "other")
    if unnamed:
        say("  other: no pattern named any frame; its leading own symbols: "
            + ", ".join(f"{s} {100 * n / total:.1f} %" for s, n in unnamed.most_common(3)))
    say(f"\ntop {TOP} symbols by self share:")
    for symbol, n in Counter(shown(frames[0]) for _, frames in samples).most_common(TOP):
        say(f"  {100 * n / total:5.1f} %  {symbol}")


def profile(args) -> int:
    arm = apps.select_arms([args.framework])[0]
    if args.api not in apps.served_apis(arm):
        fail(f"{arm['name']} does not serve {args.api} (its framework.json apis).")
    cell = {"api": args.api, **find_case(args.case)}
    perf = need_tool("perf", "Install it: apt-get install linux-perf.")
    ensure_debian("load")
    check_seeded()
    runtime = runtime_of(arm)
    log = LOGS / f"profile-{arm['name'].replace(':', '-')}.log"
    say(f"profile: {arm['name']} {args.api} case {args.case} ({cell['requests']} connections, {cell['rows']} "
        f"rows, {'a join' if cell['joins'] else 'no join'}): {args.warmup} s warm-up, then {args.duration} s "
        f"measured with perf record -F {args.frequency} -g; the app's log: {log}")
    with apps.started(arm, log, runtime["env"]) as (proc, port), tempfile.TemporaryDirectory() as tmp:
        pid = apps.sampled_pid(arm, proc)
        base = apps.url(arm, port)
        try:
            wrk_tool.run(base, cell, cell["requests"], args.warmup)
            figures = record(perf, base, cell, args, pid, log, Path(tmp) / "perf.data")
            samples = stacks(perf, Path(tmp) / "perf.data")
        finally:
            # The symbol maps, and the log V8 writes beside them in the app's folder under Node.js 24.
            left = [Path(f"/tmp/perf-{pid}.map"), Path(f"/tmp/perfinfo-{pid}.map"),
                    *Path(arm["dir"]).glob(f"isolate-*-{pid}-v8.log")]
            for path in left:
                path.unlink(missing_ok=True)
    if not samples:
        fail("perf recorded no samples of the app.")
    report(args, figures, samples, runtime)
    return 0


def main(argv=None) -> int:
    return profile(parse_args(sys.argv[1:] if argv is None else argv))
