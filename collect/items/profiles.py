"""The run profiles: how much load, how long, how often. The README explains each choice."""
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    rounds: int  # the matrix's repeats; a manifest's settings.profile calls it `iterations` (settings)
    rampup_s: float       # JMeter ramp-up of the thread group
    warmup_s: float       # load before the measured window, at least this long
    duration_s: float     # the measured window
    thread_cap: int | None  # None: the case's own request count (the study's load)
    # When the apps start afresh: "case", for every item (the study's protocol, unpaired); "run",
    # once, serving the whole run; "round", at each round's start, so that rounds replicate
    # processes; "slot", for each (API, case) of a round, so that no cell's pair follows another cell.
    restart: str
    # After each restart of a "round" or "slot" profile, each app serves every request shape for
    # this long before the round measures it (collect/load/conditioning.py); 0: not conditioned.
    condition_s: float = 0
    jmeter_env: dict = field(default_factory=dict)  # HEAP / JVM_ARGS for JMeter's launcher
    # The warm-up goes on past warmup_s until every thread has completed a request, up to this cap
    # (None: exactly warmup_s). benchlib/run_plans.group_clock.
    warmup_cap_s: float | None = None
    # After the rounds (collect/passes/extra_passes.py): the cross-check, crosscheck_cases of the first
    # crosscheck_rounds rounds (None: every round) measured again by the other load generator
    # through the same windows and checks, and each case's memory on a fresh process under memory_s
    # of wrk load (0: not measured), in memory_rounds interleaved rounds of fresh processes.
    crosscheck: bool = False
    crosscheck_cases: tuple[int, ...] = (1, 13, 18)
    crosscheck_rounds: int | None = None
    # Measured even where the reference work shows the other generator would be bound on every
    # item (collect/passes/extra_passes.py crosscheck_skipped): a profile that proves the pass works.
    crosscheck_always: bool = False
    memory_s: float = 0
    memory_rounds: int = 1
    # The cases the memory pass measures (None: every case of the run).
    memory_cases: tuple[int, ...] | None = None
    # Extra rounds for the cells whose interval is wider than ± target, while the run's wall time
    # stays within budget_s (None: the profile's rounds only). collect/passes/rounds.py, benchlib/stopping.py.
    budget_s: float | None = None
    target: float = 0.10
    # After the rounds (collect/passes/latency.py): the open-model latency pass at fixed fractions of
    # each cell's capacity, which the rounds measured, in this many rounds.
    latency: bool = False
    latency_rounds: int = 3
    # The probes outside the items (the reference work, the load generator's ceiling:
    # collect/passes/probe.py) measure for this long, after a ramp-up of a quarter and a warm-up of half
    # of it (the warm-up going on, up to the window's length, until every connection has answered).
    probe_s: float = 2
    # Every measurement at this many threads, whatever its case's requests (`./testbed load
    # --threads`); None: as thread_cap says.
    thread_count: int | None = None

    @property
    def paired(self) -> bool:
        """Rounds whose frameworks run back to back on apps that serve the whole run (collect/README.md,
        "The protocol")."""
        return self.restart != "case"

    def protocol(self) -> dict:
        """How the run measures, as its manifest records it (and analysis reads it)."""
        if self.paired:
            return {"name": "interleaved-rounds", "paired": True, "rounds": self.rounds,
                    "order": "each round shuffles its (API, case) slots; in each slot the frameworks "
                             "run back to back, which one first counterbalanced over the cell's rounds "
                             "(a rotation from a start drawn per cell; seeded)",
                    "apps": APPS[self.restart],
                    "jmeter": "one JMeter process per round (a batch): one thread group per "
                              "measurement, run one after another, each with its own clock"}
        return {"name": "per-case-restart", "paired": False, "rounds": self.rounds,
                "order": "each round shuffles its framework x API x case items (seeded)",
                "apps": "a fresh app for every case, as the study did",
                "jmeter": "one JMeter process per measurement"}

    @property
    def measured_by_jmeter(self) -> bool:
        """JMeter is the profile's own instrument: the study's tool for its protocol, and the latency
        pass's open-model plans are JMeter's."""
        return self.latency or self.name == "study"

    def crosscheck_round_count(self) -> int:
        """How many of the run's rounds the cross-check measures again."""
        return min(self.rounds, self.crosscheck_rounds or self.rounds)

    def longest(self) -> float:
        """The longest a measurement's ramp-up, warm-up and window can take."""
        return self.rampup_s + max(self.warmup_s, self.warmup_cap_s or 0) + self.duration_s

    def threads(self, requests: int) -> int:
        if self.thread_count:
            return self.thread_count
        return min(requests, self.thread_cap) if self.thread_cap else requests

    def settings(self) -> dict:
        """As JSON holds it (a manifest's settings.profile): tuples as lists, and `rounds` under the
        name runs have recorded it by, `iterations`."""
        cases = list(self.memory_cases) if self.memory_cases is not None else None
        threads = str(self.thread_count) if self.thread_count else f"min(requests, {self.thread_cap})" \
            if self.thread_cap else "requests (the case's own load)"
        found = {("iterations" if k == "rounds" else k): v for k, v in asdict(self).items()}
        return {**found, "memory_cases": cases, "crosscheck_cases": list(self.crosscheck_cases),
                "threads": threads}

    @classmethod
    def from_recorded(cls, recorded: dict) -> "Profile":
        """The profile as a run's manifest recorded it (settings.profile)."""
        fields = {("rounds" if k == "iterations" else k): v for k, v in recorded.items() if k != "threads"}
        if "crosscheck_s" in fields:  # before schema 4: wrk's own windows, this long
            fields["crosscheck"] = bool(fields.pop("crosscheck_s"))
        for name in ("memory_cases", "crosscheck_cases"):
            if fields.get(name) is not None:
                fields[name] = tuple(fields[name])
        return cls(**fields)


RESTARTS = ("case", "run", "round", "slot")
# How the manifest's protocol describes each paired restart.
APPS = {"run": "started once; each serves the whole run (restarted only if it exits)",
        "round": "started afresh at each round's start (extra rounds included), conditioned by every request "
                 "shape (condition_s each), then each serves its round",
        "slot": "started afresh for each (API, case) of each round and conditioned by every request shape "
                "(condition_s each); each serves one cell's pair"}

PROFILES = {
    "smoke": Profile(
        "smoke", "every framework x API x case once, tiny loads: proves the pipeline end to end (CI)",
        rounds=1, rampup_s=0, warmup_s=0, duration_s=1, thread_cap=10, restart="run",
        # Probes as short as its items: a smoke run's ceiling and reference figures only have to exist.
        probe_s=1,
        # The memory pass restarts an app per (arm, API, case): the cross-check's three cases prove it
        # in a fraction of the time all 18 take (collect/README.md, Profiles, "smoke").
        crosscheck=True, crosscheck_always=True, memory_s=1, memory_cases=(1, 13, 18),
        # JMeter's JVM start-up is most of a smoke item, which C1 only, a small heap and no bytecode
        # verification of JMeter's own jars shorten (collect/README.md, Profiles, "smoke").
        jmeter_env={"HEAP": "-Xms256m -Xmx256m",
                    "JVM_ARGS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData "
                                "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"}),
    # Each setting is the least the evidence allows, so that a run fits its budget (figures in
    # collect/README.md): 3 rounds, the fewest with a paired interval and a test that can reach
    # p < 0.05; windows as short as the checks allow ("Time"); the same ramp-up and warm-up before
    # every window, as both frameworks rise after the run switches cells (Profiles, "quick"); two
    # fresh processes per memory cell, so each memory ratio has a spread, paid for by a smaller
    # cross-check ("Time"); processes started for each round, as the process carries more of the
    # spread than the window ("Which level the rounds replicate"), conditioned long enough that a
    # round's first item is not below the cell's others ("Conditioning long enough").
    "quick": Profile(
        "quick", "the study's loads in 3 interleaved rounds, short windows, paired statistics (the default)",
        rounds=3, rampup_s=1, warmup_s=2, duration_s=3, thread_cap=None, restart="round", condition_s=3,
        warmup_cap_s=2, crosscheck=True, crosscheck_cases=(1, 18), crosscheck_rounds=2, memory_s=2,
        memory_rounds=2, budget_s=34 * 60),
    "study": Profile(
        "study", "the study's protocol: 10 iterations, a fresh app per case, its full loads",
        rounds=10, rampup_s=1, warmup_s=10, duration_s=20, thread_cap=None, restart="case",
        crosscheck=True),
    # One closed-model round with quick's windows gives each cell's capacity; the latency pass
    # (collect/passes/latency.py) then drives rates below and above it (its time: collect/README.md,
    # Profiles, "latency").
    "latency": Profile(
        "latency", "each cell's capacity in one closed-model round, then latency at fixed arrival "
                   "rates (open model, Poisson), the same rates for every framework",
        rounds=1, rampup_s=1, warmup_s=2, duration_s=4, thread_cap=None, restart="run",
        warmup_cap_s=4, latency=True),
    # The latency profile through every step of its pipeline at a fraction of its time: one round at
    # each rate, since through remote engines a round's lead costs most of what its load does
    # (collect/README.md, Profiles, "latency").
    "latency-smoke": Profile(
        "latency-smoke", "the latency profile with one round at each rate: proves its pipeline end to end (CI)",
        rounds=1, rampup_s=1, warmup_s=1, duration_s=3, thread_cap=None, restart="run",
        warmup_cap_s=3, latency=True, latency_rounds=1),
}
DEFAULT = "quick"
