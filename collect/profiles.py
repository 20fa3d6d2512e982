"""The run profiles (DESIGN §5): how much load, how long, how often. The README explains each choice."""
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    iterations: int
    rampup_s: float       # JMeter ramp-up of the thread group
    warmup_s: float       # load before the measured window, excluded from statistics
    duration_s: float     # the measured window
    thread_cap: int | None  # None: the case's own request count (the study's load)
    restart: str          # "case": a fresh app per case (the study); "block": per framework x API
    jmeter_env: dict = field(default_factory=dict)  # HEAP / JVM_ARGS for JMeter's launcher

    def threads(self, requests: int) -> int:
        return min(requests, self.thread_cap) if self.thread_cap else requests

    def settings(self) -> dict:
        return {**asdict(self), "threads": f"min(requests, {self.thread_cap})" if self.thread_cap
                else "requests (the case's own load)"}

    @classmethod
    def from_recorded(cls, recorded: dict) -> "Profile":
        """The profile as a run's manifest recorded it (settings.profile)."""
        return cls(**{k: v for k, v in recorded.items() if k != "threads"})

    def with_iterations(self, iterations: int) -> "Profile":
        return Profile(**{**asdict(self), "iterations": iterations})


PROFILES = {
    "smoke": Profile(
        "smoke", "every framework x API x case once, tiny loads: proves the pipeline end to end (CI)",
        iterations=1, rampup_s=0, warmup_s=0, duration_s=1, thread_cap=10, restart="block",
        # JMeter's JVM start-up is most of a smoke item: C1 only, a small heap and no bytecode
        # verification of JMeter's own jars take a third off it on the 2-core machine.
        jmeter_env={"HEAP": "-Xms256m -Xmx256m",
                    "JVM_ARGS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData "
                                "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"}),
    "quick": Profile(
        "quick", "the study's loads, one iteration, short windows: a first look (the default)",
        iterations=1, rampup_s=1, warmup_s=3, duration_s=6, thread_cap=None, restart="case"),
    "study": Profile(
        "study", "the study's protocol: 10 iterations, a fresh app per case, its full loads",
        iterations=10, rampup_s=1, warmup_s=10, duration_s=20, thread_cap=None, restart="case"),
}
DEFAULT = "quick"
