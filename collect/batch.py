"""One batch of a run: several measurements, one after another, by one JMeter process running
benchlib/plans.py's batch plan, while both samplers watch every app, the database and JMeter.

A batch's files stay in `batches/<n>/` of the run: the plan, JMeter's log, each measurement's JTL
until its item takes it, and the samplers' files for the whole batch, from which each item keeps
its own window. Which measurement JMeter is on is read from its log, where JMeter names each thread
group as it starts it (groups run one after another: one starts when the one before has ended).
"""
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchlib import plans
from benchlib.jmeter import PROPERTIES
from benchlib.paths import IDS
from benchlib.processes import stop_group, wait_for_named
from collect import pinning
from collect.profiles import Profile
from collect.samplers import Samplers

GROUP_STARTED = re.compile(r"Starting ThreadGroup: (\d+) : ")


@dataclass
class Slot:
    """One measurement of a batch: the item, and the port of the app that serves it."""
    item: dict
    port: int

    @property
    def framework(self) -> str:
        return self.item["framework"]


@dataclass
class Batch:
    folder: Path
    slots: list[Slot]
    t0: float                      # what the samplers' t_s counts from
    jmeter: subprocess.Popen | None = None
    jvm: int | None = None
    cores: int = 1                 # the CPU set JMeter's JVM runs on: pinned, or all
    samplers: Samplers | None = None

    def jtl(self, index: int) -> Path:
        return self.folder / f"measurement-{index + 1:03d}.jtl"

    @property
    def log(self) -> Path:
        return self.folder / "jmeter.log"

    @property
    def raw(self) -> Path:
        return self.folder / "samplers"

    def groups_started(self) -> int:
        """How many thread groups JMeter has started, from its log."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return 0
        return max((int(n) for n in GROUP_STARTED.findall(text)), default=0)

    def stop(self) -> None:
        """JMeter and the samplers, whatever state they are in."""
        if self.jmeter and self.jmeter.poll() is None:
            stop_group(self.jmeter)
        if self.samplers:
            self.samplers.stop()


def new_folder(run_dir: Path) -> Path:
    """batches/<n>: numbered on, never reused, so a resumed run keeps the batches cut short."""
    parent = run_dir / "batches"
    parent.mkdir(exist_ok=True)
    n = 1 + max((int(p.name) for p in parent.iterdir() if p.name.isdigit()), default=0)
    folder = parent / f"{n:03d}"
    folder.mkdir()
    return folder


def write_plan(batch: Batch, host: str, profile: Profile) -> Path:
    measurements = [{"api": s.item["api"], "case": s.item, "port": s.port,
                     "threads": profile.threads(s.item["requests"]), "warmup_s": profile.warmup_s,
                     "duration_s": profile.duration_s, "jtl": batch.jtl(i), "ids_dir": IDS}
                    for i, s in enumerate(batch.slots)]
    path = batch.folder / "plan.jmx"
    path.write_text(plans.batch_plan(f"batch {batch.folder.name}", host, measurements))
    return path


def start(batch: Batch, host: str, profile: Profile, launcher: str, targets: dict[str, int],
          jmeter_cpus) -> None:
    """JMeter on the batch's plan (in its own session, so a Ctrl-C reaches the run engine alone,
    which stops it), then the samplers on `targets` (role -> pid) and the JMeter JVM."""
    plan = write_plan(batch, host, profile)
    with pinning.launching_on(jmeter_cpus):
        batch.jmeter = subprocess.Popen(
            [launcher, "-n", "-t", str(plan), "-q", str(PROPERTIES), "-j", str(batch.log)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env={**os.environ, **profile.jmeter_env})
    batch.jvm = wait_for_named(batch.jmeter.pid, "java")
    batch.cores = pinning.cores_of(batch.jvm)
    batch.raw.mkdir()
    batch.samplers = Samplers({**targets, "jmeter": batch.jvm}, batch.raw, batch.t0)
