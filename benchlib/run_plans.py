"""The plans a run gives JMeter (collect/): the batch plan that measures a round, one thread group
per measurement of the closed model, with the clock that opens and closes each one's window; the
open model's plan of a latency round; the probe of a remote engine, and what remote engines need
beside a plan (its data files written where they run, their CPU over the window). Built from
benchlib/plans.py's elements and requests, which the checked-in plans share.
"""
import hashlib

from benchlib.items import Item
from benchlib.plans import (csv_data_set, element, endpoint_key, if_true, looping_group, once, pause, per_iteration,
                            prop, result_file, sampler, stop_thread, test_plan, tree)

# The batch plan (collect/load/batch.py): one thread group per measurement, run one after another by one
# JMeter process, so a round costs one JVM start instead of one per measurement. Each group keeps
# its own phase in the property testbed.<plan>.phase.<n>: warmup, then measured, then done. The
# plan's own key keeps apart the batches a long-lived remote engine runs one after another.
BATCH_VARIABLES = {"PHASE_warmup": "warmup ", "PHASE_measured": "", "PHASE_done": "",
                   "GO_warmup": "true", "GO_measured": "true", "GO_done": "false",
                   "STOP_warmup": "false", "STOP_measured": "false", "STOP_done": "true"}
# Beyond its warm-up and measured window, how long a group may run (start, the requests in flight at
# the end) before JMeter's scheduler stops it: only a backstop.
GROUP_BACKSTOP_S = 120
# A remote engine's own CPU during the window: utime + stime of its JVM from /proc/self/stat, in
# ticks of 1/100 s, so ticks per second are % of one core; read every 100 ms as the local sampler does.
ENGINE_CPU = " ".join([
    # 41 is ')': a parenthesis in a string would end JMeter's parse of the __groovy call.
    "def ticks = { def s = new File('/proc/self/stat').text; def f = s.substring(s.lastIndexOf(41) + 2).split(' ');",
    "(f[11] as long) + (f[12] as long) };",
    "def t0 = System.nanoTime(); def c0 = ticks(); def last = t0; def lastc = c0; def peak = 0d; def count = 0;",
    "while (System.currentTimeMillis() < end) { sleep(Math.max(1L, Math.min(100L, end - System.currentTimeMillis())));",
    "def t = System.nanoTime(); def c = ticks(); peak = Math.max(peak, (c - lastc) * 1e9d / (t - last)); count++;",
    "last = t; lastc = c };",
    "def mean = count ? (lastc - c0) * 1e9d / (last - t0) : 0d;",
    "props.put(KEY + 'cpu', String.format('cpu_mean_pct=%.1f;cpu_peak_pct=%.1f;cores=%d;samples=%d;late_ms=%d',",
    "mean, peak, Runtime.runtime.availableProcessors(), count, late));"])


# How the clock learns that every thread has completed a request: each JMeterThread counts its
# iterations (JMeterVariables.getIteration, 1 during the first), and a thread group keeps its
# threads in the private map allThreads, which Groovy reads. Polling it costs the clock's own thread
# a few microseconds per 50 ms and the request path nothing.
EVERY_THREAD_DONE = ("def all = { def m = org.apache.jmeter.threads.ThreadGroup.getDeclaredField('allThreads'); "
                     "m.setAccessible(true); "
                     "def v = org.apache.jmeter.threads.JMeterThread.getDeclaredField('threadVars'); "
                     "v.setAccessible(true); m.get(g).keySet().every { v.get(it).getIteration() >= 2 } }; ")


def group_clock(key: str, warmup_s: float, duration_s: float, start_ms: int | None = None,
                window_file=None, warmup_cap_s: float | None = None) -> str:
    """A pause of 0 ms, in each thread's first iteration, that starts the group's clock once every
    thread of the group runs: a background thread that sets <key>phase to measured after the
    warm-up and to done after the window, and then writes the window's two instants (epoch ms) and
    the warm-up it took (ms) to `window_file`; samples are counted by completion between the two
    instants (benchlib/jtl.py).

    The warm-up lasts at least `warmup_s` and, with `warmup_cap_s`, until every thread has
    completed a request, but no longer than the cap: an app that leaves some connections unserved
    for seconds under a new load (Express does at 500) would otherwise have those requests span
    the window, and the window would describe only the threads it served.

    Here the threads do not wait for each other: each starts sending as JMeter starts it (over the
    group's ramp-up), and the last one to start starts the clock, so the warm-up counts from the
    moment the case's full concurrency is reached. Threads released all at once would hit the app
    with every connection's first request in the same instant, a burst the app may take seconds to
    work off, and no steady state.

    With `start_ms` (epoch ms), as on remote engines, each thread waits until every thread of its
    engine runs (threads that wait sleep, so the last ones get the CPU to start), and the warm-up
    counts from that time rather than from when the threads ran, so that every engine measures the
    same window; the clock then also measures the engine's own CPU over the window and keeps it in
    <key>cpu."""
    started, phase = f"{key}started", f"{key}phase"
    warm, length = round(warmup_s * 1000), round(duration_s * 1000)
    if start_ms is None:
        cap = max(warm, round((warmup_cap_s or 0) * 1000))
        clock = ("def t0 = System.currentTimeMillis(); " + EVERY_THREAD_DONE +
                 f"while (true) {{ def el = System.currentTimeMillis() - t0; "
                 f"if (el >= {cap} || (el >= {warm} && all())) break; "
                 f"sleep(el < {warm} ? Math.min(50L, {warm}L - el) : 50L) }}; "
                 f"def w0 = System.currentTimeMillis(); props.put('{phase}', 'measured'); "
                 f"sleep({length}); def w1 = System.currentTimeMillis(); props.put('{phase}', 'done'); "
                 f"new File('{window_file}').text = w0 + ' ' + w1 + ' ' + (w0 - t0)")
        wait = "if (g.getNumberOfThreads() >= g.getNumThreads()) "
    else:
        clock = (f"def KEY = '{key}'; def now = System.currentTimeMillis(); "
                 f"def late = Math.max(0L, now - {start_ms}L); def at = Math.max(now, {start_ms}L); "
                 f"def end = at + {warm + length}L; "
                 f"sleep(Math.max(0L, at + {warm}L - System.currentTimeMillis())); props.put('{phase}', 'measured'); "
                 f"{ENGINE_CPU} props.put('{phase}', 'done')")
        wait = (f"while (props.get('{started}') == null && g.getNumberOfThreads() < g.getNumThreads()) "
                "{ sleep(5) }; ")
    script = ("def g = ctx.getThreadGroup(); " + wait +
              f"synchronized (props) {{ if (props.get('{started}') == null) {{ "
              f"props.put('{started}', String.valueOf(System.currentTimeMillis())); "
              f"Thread.start {{ {clock} }} }} }}; 0")
    return "${__groovy(" + script.replace(",", "\\,") + ")}"


def groovy(kind: str, name: str, script: str, parameters: str = ""):
    """A Groovy JSR223 element of `kind` (JSR223PreProcessor, JSR223PostProcessor); `parameters`
    reaches the script as `Parameters`. (JMeter's JSR223 sampler is in a jar some JMeter homes lack.)"""
    return element(kind, "TestBeanGUI", name,
                   prop("stringProp", "scriptLanguage", "groovy"), prop("stringProp", "parameters", parameters),
                   prop("stringProp", "filename", ""), prop("stringProp", "cacheKey", "true"),
                   prop("stringProp", "script", script))


def engine_report(key: str, jtl):
    """After the window, the first thread of the group reports the engine's CPU as one sample
    (a debug sample whose response message a script sets), written to `jtl` apart from the
    measurement's requests."""
    guard = if_true("first thread after the window", "${__groovy(props.putIfAbsent('" + key
                    + "reported'\\, '1') == null)}")
    fill = groovy("JSR223PostProcessor", "the engine's CPU over the window",
                  f"def v = props.get('{key}cpu'); prev.setResponseMessage(v ?: 'missing'); "
                  "prev.setSuccessful(v != null); prev.setResponseCode(v ? '200' : '500')")
    return guard, tree(debug_sample("engine cpu", fill, jtl))


def debug_sample(name: str, script, jtl):
    """A sample carrying no request: a debug sampler whose result the JSR223 post-processor
    `script` fills in, written to `jtl` alone."""
    sample = element("DebugSampler", "TestBeanGUI", name,
                     prop("boolProp", "displayJMeterProperties", False),
                     prop("boolProp", "displayJMeterVariables", False),
                     prop("boolProp", "displaySystemProperties", False))
    return sample, tree((script, None), (result_file(jtl), None))


def measurement_group(n: int, api: str, case: Item, host: str, port: int, threads: int,
                      warmup_s: float, duration_s: float, jtl, ids_dir, plan_key: str = "testbed.",
                      start_ms: int | None = None, engine_jtl=None, window_file=None, request=None, rampup_s: float = 0,
                      warmup_cap_s: float | None = None):
    """Measurement n of a batch: `threads` clients, started over `rampup_s`, that send requests
    back to back through the warm-up (which counts from the last one's start) and the measured
    window, and stop when it ends (each after its request in flight). Samples started in the
    warm-up are labelled `warmup …`. `host` and `port`: where its app is reached, each
    measurement's own (the Docker runner's apps run on hosts of their own). On a remote engine
    (`start_ms`), the window starts at that time and the engine reports its CPU to `engine_jtl`.
    `request`: an (HTTP sampler, its checks) pair to send instead of the case's own."""
    key = f"{plan_key}{n}."
    phase = f"${{__P({key}phase,warmup)}}"
    rampup = 0 if start_ms is not None else rampup_s
    group = looping_group(f"measurement {n}", str(threads), f"{rampup:g}",
                          str(round(rampup + max(warmup_s, warmup_cap_s or 0) + duration_s) + GROUP_BACKSTOP_S))
    wait = element("OnceOnlyController", "OnceOnlyControllerGui", "first iteration only")
    http, checks = request or sampler(api, endpoint_key(case.rows, case.joins), str(case.rows), str(port),
                                      host)
    ended = [(stop_thread("stop this thread"), None)]
    if start_ms is not None:
        ended.insert(0, engine_report(key, engine_jtl))
    return group, tree(
        (csv_data_set("comment ids", f"{ids_dir}/comment_ids.csv", "comment_id", "shareMode.group"), None),
        (csv_data_set("user ids", f"{ids_dir}/user_ids.csv", "user_id", "shareMode.group"), None),
        (per_iteration("phase of this request", {"PHASE": f"${{__V(PHASE_{phase})}}",
                                                 "GO": f"${{__V(GO_{phase})}}",
                                                 "STOP": f"${{__V(STOP_{phase})}}"}), None),
        (wait, tree((pause("wait until every thread has started, then start the clock",
                           group_clock(key, warmup_s, duration_s, start_ms, window_file, warmup_cap_s)), None))),
        # The file sits beside the request, so that it holds the requests' samples only.
        (if_true("while the clock runs", "${GO}"), tree((http, checks), (result_file(jtl), None))),
        (if_true("once the window has ended", "${STOP}"), tree(*ended)))


def write_files(files: dict[str, str]):
    """A setUp group that writes the plan's data files where a remote engine's plan reads them
    (JMeter does not carry a plan's data files to its engines): under its temporary folder, in a
    folder named after their content, each file renamed into place once whole."""
    folder = files_folder(files)
    writes = [(pause(f"write {name}", "0"), tree((groovy(
        "JSR223PreProcessor", f"write {name}",
        f"def dir = new File(System.getProperty('java.io.tmpdir'), '{folder}'); dir.mkdirs(); "
        f"def part = new File(dir, '{name}.part'); part.text = Parameters; "
        f"part.renameTo(new File(dir, '{name}'))", text), None))) for name, text in files.items()]
    return once("SetupThreadGroup", "SetupThreadGroupGui", "write the data files"), tree(*writes)


def files_folder(files: dict[str, str]) -> str:
    digest = hashlib.sha256("".join(f"{k}\0{v}\0" for k, v in sorted(files.items())).encode()).hexdigest()
    return f"testbed-files-{digest[:16]}"


def remote_folder(files: dict[str, str]) -> str:
    """Where write_files puts the files, as the engine's plan names them."""
    return "${__groovy(System.getProperty('java.io.tmpdir'))}/" + files_folder(files)


def probe_plan(script: str, jtl) -> str:
    """One thread, one sample: a debug sample whose response message `script` sets (as `prev`),
    written to `jtl`. The run checks each remote engine with it before any load."""
    group = once("ThreadGroup", "ThreadGroupGui", "probe")
    sample = debug_sample("engine facts", groovy("JSR223PostProcessor", "what the engine runs", script), jtl)
    return test_plan("engine probe", "Written by collect/load/remote.py: what a remote engine runs.", {}, [],
                     [(group, tree(sample))])


BATCH_COMMENTS = """Written by collect/load/batch.py for one batch of a run: one thread group per measurement, run one
after another (see benchlib/run_plans.py). Each group's threads wait until all have started, then send
requests back to back: a warm-up (samples labelled 'warmup ...'), then the measured window. Every
response is asserted: status 200 and a body of the expected shape, row count and join."""


def batch_plan(title: str, measurements: list[dict], files: dict[str, str] | None = None) -> str:
    """The plan of one batch; each measurement is a dict of measurement_group's arguments but n,
    its host and port among them. With `files` (file name -> text), as on a remote engine, a setUp group first
    writes the id files there."""
    groups = [measurement_group(n, **m) for n, m in enumerate(measurements, start=1)]
    setup = [write_files(files)] if files else []
    return test_plan(title, BATCH_COMMENTS, BATCH_VARIABLES, [], setup + groups, serialize=True)


# The open model (collect/passes/latency.py): arrivals at intended times drawn in Python, sent by a fixed
# pool of threads. Each thread takes the next arrival of the schedule file (shared by the group's
# threads, in order), waits until its intended time and sends it; a thread busy with a request
# takes no arrival, so when the whole pool is busy the next arrival goes out late, and its latency
# still counts from when it was intended (no coordinated omission). Each sample carries its
# intended time and the instant its thread took it (JMeter's sample_variables), so a late send can
# be told apart as the pool's (taken late) or JMeter's own (taken in time, sent late).
OPEN_VARIABLES = ("intended_ms", "picked_ms")
# Parameters: the group's key, the schedule's end (ms after t0), the file t0 is written to, and t0
# itself when it is set in advance. Locally the first thread to take an arrival sets the group's t0,
# the instant the schedule's offsets count from; on remote engines t0 is the measurement's start on
# the wall clock, the same for every engine, so their shares of the schedule interleave as drawn.
# An arrival taken after the schedule's end is not sent (it is `dropped`).
TAKE_ARRIVAL = " ".join([
    "def p = Parameters.split('[|]'); def key = p[0] + 't0'; def end = p[1] as long;",
    "def t0 = p.length > 3 ? p[3] : props.get(key);",
    "if (t0 == null) { synchronized (props) { t0 = props.get(key);",
    "if (t0 == null) { t0 = String.valueOf(System.currentTimeMillis()); props.put(key, t0); "
    "new File(p[2]).text = t0 } } };",
    "def start = t0 as long; def now = System.currentTimeMillis();",
    "def intended = start + (vars.get('offset_ms') as long);",
    "vars.put('intended_ms', String.valueOf(intended)); vars.put('picked_ms', String.valueOf(now));",
    "if (now > start + end) { vars.put('SEND', 'false') } else {",
    "if (intended > now) { Thread.sleep(intended - now) }; vars.put('SEND', 'true') }"])


def open_group(n: int, api: str, case: Item, host: str, port: int, pool: int, schedule, end_ms: int, jtl,
               ids_dir, window_file=None, start_ms: int | None = None, plan_key: str = "testbed.", request=None):
    """Measurement n of a latency batch: `pool` threads that send the arrivals of `schedule` (a
    CSV of offsets in ms from the group's t0: `start_ms`, epoch ms, on remote engines; otherwise
    when its first thread takes an arrival, written to `window_file`) at their intended times,
    until the schedule runs out, to the app at `host` and `port`; every sample goes to `jtl` with
    OPEN_VARIABLES."""
    key = f"{plan_key}{n}."
    group = looping_group(f"measurement {n}", str(pool), "0", str(round(end_ms / 1000) + GROUP_BACKSTOP_S))
    http, checks = request or sampler(api, endpoint_key(case.rows, case.joins), str(case.rows), str(port),
                                      host)
    take = pause("take the next arrival and wait until its intended time", "0")
    parameters = f"{key}|{end_ms}|{window_file or ''}" + (f"|{start_ms}" if start_ms is not None else "")
    return group, tree(
        (csv_data_set("arrivals", str(schedule), "offset_ms", "shareMode.group", once=True), None),
        (csv_data_set("comment ids", f"{ids_dir}/comment_ids.csv", "comment_id", "shareMode.group"), None),
        (csv_data_set("user ids", f"{ids_dir}/user_ids.csv", "user_id", "shareMode.group"), None),
        (take, tree((groovy("JSR223PreProcessor", "the arrival's intended time", TAKE_ARRIVAL, parameters), None))),
        (if_true("unless the schedule has ended", "${SEND}"), tree((http, checks), (result_file(jtl), None))))


OPEN_COMMENTS = """Written by collect/passes/latency.py for one round of the latency pass: one thread group per
measurement, run one after another (see benchlib/run_plans.py open_group). A fixed pool of threads sends
the arrivals of a schedule drawn in advance (Poisson) at their intended times; each sample records
its intended time (intended_ms). Every response is asserted as in the closed-model plans."""


def open_plan(title: str, measurements: list[dict], files: dict[str, str] | None = None) -> str:
    """The plan of one latency round; each measurement is a dict of open_group's arguments but n,
    its host and port among them. With `files` (file name -> text: the id files and the schedules), as on a
    remote engine, a setUp group first writes them there."""
    groups = [open_group(n, **m) for n, m in enumerate(measurements, start=1)]
    setup = [write_files(files)] if files else []
    # PHASE: the closed-model plans prefix warm-up labels with it; here every sample is labelled
    # by its request alone (the window is chosen by intended time).
    return test_plan(title, OPEN_COMMENTS, {"PHASE": ""}, [], setup + groups, serialize=True)
