"""Short measurements outside the run's items (the load generator's ceiling, the reference work),
made as one batch by either load generator, in the run's layout, with the samplers on, each reduced
to its JTL summary and sampler stats over its own window. Their files stay in the folder given
(under `ceiling/` or `reference/` of the run)."""
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib.jtl import summarize
from benchlib.results import PROC
from collect.load import batch as batches
from collect.items import item_stats
from collect.load.batch import Batch, Measurement
from collect.load.driver import Stages, drive, trim_to_window
from collect.items.profiles import Profile


def probe_profile(run_profile: Profile) -> Profile:
    """The timing of a run's probes (its profile's probe_s). Probes need less than an item: the app
    is warm (it has served the run, or the probe before), and a probe's figure is a rate, not a
    comparison."""
    window = run_profile.probe_s
    return Profile("probe", "short measurements outside the items: ceiling, reference work", rounds=1,
                   rampup_s=window / 4, warmup_s=window / 2, duration_s=window, thread_cap=None, restart="run",
                   warmup_cap_s=window, jmeter_env={})


@dataclass
class Figures:
    """One probe measurement: its JTL summary, sampler stats over its window, and the cores of the
    load generator's CPU set."""
    summary: dict
    stats: dict
    cores: int

    @property
    def rps(self) -> float | None:
        return self.summary.get("throughput_rps")

    def per_request(self, key: str) -> float | None:
        """ms of CPU per completed request of a stats key (cpu_mean_pct, db_cpu_mean_pct, …)."""
        cpu, n, window = self.stats.get(key), self.summary.get("samples"), self.summary.get("window_s")
        return round(cpu / 100 * window * 1000 / n, 4) if cpu is not None and n and window else None


def measure(run, folder: Path, measurements: list[Measurement], loadgen: str) -> list[Figures]:
    """Measures `measurements` (their apps must be running) as one batch of `loadgen` into `folder`."""
    stages = ProbeStages(run, folder)
    drive(Batch(folder, measurements, time.time(), loadgen=loadgen), stages)
    return stages.found


class ProbeStages(Stages):
    """A probe batch: nothing to open as a measurement begins, and every measurement reduced once
    the load generator has ended, however it ended (one that never ran its clock reduces to no
    figures); cut by Ctrl-C, none. One that overruns raises subprocess.TimeoutExpired."""

    def __init__(self, run, folder: Path):
        self.run, self.folder = run, folder
        self.profile = probe_profile(run.context.profile)
        self.found: list[Figures] = []

    def start(self, batch):
        run = self.run
        batches.start(batch, self.profile, run.context.jmeter, run.sampled(), run.context.cpus.get("loadgen"))
        self.timeout_s = len(batch.measurements) * (self.profile.longest() + 30) + 120
        self.deadline = time.monotonic() + self.timeout_s

    def overran(self, batch):
        raise subprocess.TimeoutExpired(batch.process.args, self.timeout_s)

    def finished(self, batch):
        return len(batch.measurements) if batch.launched and batch.exit_code() is not None else 0

    def keep(self, batch, index):
        window = batch.window_ms(index)
        out = self.folder / f"measurement-{index + 1:03d}"
        out.mkdir()
        summary = summarize(batch.jtl(index), window) if window else {}
        stats = {}
        if window:
            trim_to_window(batch, out, window[0] / 1000 - batch.t0, window[1] / 1000 - batch.t0,
                           self.run.roles(batch.measurements[index].framework))
            stats = item_stats.sampler_stats(out / PROC)
        self.found.append(Figures(summary, stats, batch.cores))
