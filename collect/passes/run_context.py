"""What a run's phases measure with, read once from its folder and manifest: the run loop
(collect/run/run_loop.py) holds one and each phase reads it as `run.context`."""
from dataclasses import dataclass, field
from pathlib import Path

from benchlib.database import Database
from benchlib.paths import IDS
from collect.items.profiles import Profile
from collect.load.remote import Engines


@dataclass
class RunContext:
    dir: Path
    manifest: dict                 # written back when a phase records a choice in it
    frameworks: dict[str, dict]    # the arms: name -> its framework.json, variant included
    jmeter: str                    # JMeter's launcher
    db: Database | None            # None: the database is not the run's to watch (the Docker runner's)
    engines: Engines | None = None  # None: the load is sent from this machine
    ids: Path = IDS                # the seeder's id files, which the plans draw from
    profile: Profile = field(init=False)

    def __post_init__(self):
        self.profile = Profile.from_recorded(self.manifest["settings"]["profile"])

    @property
    def seed(self) -> int | None:
        """What the run's random choices are drawn from (its order, the latency pass's arrivals)."""
        return self.manifest.get("seed")

    @property
    def machine_cores(self) -> int:
        return self.manifest["machine"]["cores"]

    @property
    def loadgen_choice(self) -> dict:
        """Which load generator was asked for (`requested`), which measures (`tool`, None until the
        reference work has chosen), and why."""
        return self.manifest["loadgen"]

    @property
    def layout(self) -> dict:
        return self.manifest["layout"]

    @property
    def cpus(self) -> dict:
        """role -> the cores it is pinned to ({} when every core is shared)."""
        return self.layout.get("cpus", {}) if self.layout.get("applied") else {}

    @property
    def loadgen_shares_cores(self) -> bool:
        """Whether the load generator runs on the apps' and the database's cores (no CPU set of its own)."""
        return not self.cpus.get("loadgen")

    @property
    def loadgen(self) -> str:
        """The load generator measuring the run's items: remote engines are JMeter's; otherwise as
        chosen (`--loadgen`, or by the reference work), JMeter for runs made before wrk measured."""
        return "jmeter" if self.engines else self.manifest.get("loadgen", {}).get("tool") or "jmeter"
