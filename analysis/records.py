"""A run's manifest as the analysis reads it: small immutable records (in the spirit of pyperf's
Run), built once by `Manifest.from_dict` when the run is loaded, so no module looks into the JSON
itself; an item's run.json is benchlib/items.py's Record, the type the writer builds it from. The
items' figures are summary.csv's rows, read once into one validated table
(benchlib/results.load_summary) that the statistics work on by column.

Each record holds only what the analysis reads, each field with the default an older schema implies
(docs/results-format.md lists the manifest's keys; a run of schema 1 has no protocol, no sequential
rule, no load generator choice, no `base` or `variant` per arm, ...). A required field missing (the
run_id, a readable schema_version, the machine's cores), or a part the report could not read (an
engine without an endpoint, a stopping state without its cell), is a ResultFileError naming the
manifest, as benchlib/results.py reports every bad result file.

Free-form parts the report only passes through to text or to a list of differences (the machine and
settings as recorded, the versions, an arm's settings, env and loaded) stay mappings: read-only
views of the values as written, whose nested values are as the JSON had them.
"""
import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from benchlib.results import MANIFEST, ResultFileError, check_manifest
from benchlib.stopping import TARGET

# What collect/items/validity.py judged an item's throughput against (validity.numbers.ceiling_share)
# before the manifest recorded it.
CEILING_SHARE = 0.8
EMPTY: Mapping = MappingProxyType({})


def _empty() -> Mapping:
    """A field's default: no mapping recorded (a read-only view is no hashable default)."""
    return field(default_factory=lambda: EMPTY)


def _object(raw: Mapping, key: str) -> dict:
    """The JSON object under `key`, {} when it is missing or not an object (an older schema)."""
    found = raw.get(key)
    return found if isinstance(found, dict) else {}


def _frozen(value) -> Mapping:
    """A free-form object as a read-only view of a copy of it; {} when it is not an object."""
    return MappingProxyType(copy.deepcopy(value)) if isinstance(value, dict) else EMPTY


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _number(value) -> int | float | None:
    """A JSON number as written (an int stays an int, so it prints as recorded); None otherwise."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Arm:
    """The manifest's `frameworks[arm]`: framework.json as that variant ran it. Runs before variants
    have no `base` (then the part of the arm before ':') and no variant (`default`, or the part
    after ':'); runs before types and colours have neither ('' and None)."""
    name: str
    display_name: str
    base: str
    variant: str                    # the variant's name
    description: str | None = None  # the variant's, in words
    type: str = ""                  # realistic or tuned
    colour: str | None = None       # as framework.json wrote it, not checked to be a colour
    settings: Mapping = _empty()       # framework.json's settings (free-form)
    variant_settings: Mapping = _empty()  # the variant's, over them (free-form)
    env: Mapping = _empty()            # free-form
    loaded: Mapping = _empty()         # what the arm's process reported loading (free-form)
    runtime: str | None = None         # framework.json's runtime, in words
    deviations: tuple[Mapping, ...] = ()  # where its libraries depart from the contract: check, request, why, upstream

    @classmethod
    def from_dict(cls, name: str, raw) -> "Arm":
        raw = raw if isinstance(raw, dict) else {}
        variant = _object(raw, "variant")
        return cls(
            name=name,
            display_name=raw.get("display_name", name),
            base=raw.get("base") or name.split(":")[0],
            variant=(raw.get("variant_run") or variant.get("name")
                     or (name.split(":", 1)[1] if ":" in name else "default")),
            description=variant.get("description") or None,
            type=raw["type"] if isinstance(raw.get("type"), str) else "",
            colour=_text(raw.get("colour")),
            settings=_frozen(raw.get("settings")), variant_settings=_frozen(variant.get("settings")),
            env=_frozen(raw.get("env")), loaded=_frozen(raw.get("loaded")), runtime=_text(raw.get("runtime")),
            deviations=tuple(_frozen(d) for d in raw.get("deviations") or () if isinstance(d, dict)))


@dataclass(frozen=True)
class Profile:
    """`settings.profile`, the loads and windows of the run's profile (absent in schema 1's first runs)."""
    name: str | None = None
    threads: int | str | None = None  # a number, or in words (`min(requests, 10)`)
    warmup_s: int | float | None = None
    duration_s: int | float | None = None
    thread_cap: int | None = None


@dataclass(frozen=True)
class Settings:
    """`settings`: the arms the user named, in that order (strings only), the address the apps
    listened on (remote engines), the profile; `recorded` is every setting as written (free-form),
    for the list of what differs between two runs."""
    frameworks: tuple[str, ...] = ()
    bind_address: str | None = None
    profile: Profile | None = None
    aa: str | None = None  # an A/A run (`--aa F`): its two arms are two processes of F
    recorded: Mapping = _empty()

    @classmethod
    def from_dict(cls, raw: dict) -> "Settings":
        named = raw.get("frameworks")
        profile = raw.get("profile")
        return cls(
            frameworks=tuple(a for a in named if isinstance(a, str)) if isinstance(named, list) else (),
            bind_address=raw.get("bind_address") or None,
            aa=raw.get("aa") if isinstance(raw.get("aa"), str) else None,
            profile=Profile(name=profile.get("name"), threads=profile.get("threads"),
                            warmup_s=profile.get("warmup_s"), duration_s=profile.get("duration_s"),
                            thread_cap=profile.get("thread_cap")) if isinstance(profile, dict) else None,
            recorded=_frozen(raw))


@dataclass(frozen=True)
class Machine:
    """`machine`; `recorded` is the whole entry as written (free-form), for the list of differences."""
    cores: int
    cpu_model: str | None = None
    mem_total_mb: int | float | None = None
    kernel: str | None = None
    recorded: Mapping = _empty()


@dataclass(frozen=True)
class Protocol:
    """`protocol`; runs before the interleaved protocol have none: their iterations are independent
    groups (one per framework), not pairs."""
    name: str | None = None
    paired: bool = False
    rounds: int | None = None


@dataclass(frozen=True)
class StoppingState:
    """A cell's state when the extra rounds ended (`sequential.states`)."""
    api: str
    case: int
    state: str


@dataclass(frozen=True)
class Sequential:
    """`sequential`, the extra-rounds rule (benchlib/stopping.py). A run without `--budget`, or from
    before the rule, has no budget, the rule's default target and no rounds added."""
    budget_s: int | float | None = None
    target: float = TARGET                  # the half-width of a settled interval
    round_cells: tuple[int, ...] = ()       # each added round's number of cells
    states: tuple[StoppingState, ...] = ()
    stopped: str | None = None              # why the rounds stopped


@dataclass(frozen=True)
class Loadgen:
    """`loadgen` (schema 4): the load generator chosen and why."""
    tool: str = "jmeter"
    why: str | None = None


@dataclass(frozen=True)
class Placement:
    """`layout` (schema 4), `pinning` before: whether the load generator had a CPU set of its own."""
    applied: bool | None = None
    note: str | None = None


@dataclass(frozen=True)
class Engine:
    """One of `engines`, a JMeter remote engine as it reported itself."""
    endpoint: str
    host: str | None = None
    jmeter: str | None = None
    java: str | None = None
    cores: int | float | None = None
    ssl: bool | None = None


@dataclass(frozen=True)
class LatencyCell:
    """One of `latency.cells`: the slowest framework of an API and case, and per arm whether its
    capacity was a lower bound."""
    api: str
    case: int
    slowest: str | None = None
    capacity_bound: Mapping = _empty()  # arm -> bool


@dataclass(frozen=True)
class LatencyPass:
    """`latency`, the latency profile's open-model pass; empty for any other run. `thresholds` are
    the checks' own words (`checks.thresholds`, free-form: name -> text)."""
    rounds: int | None = None
    window_s: int | float | None = None
    warmup_s: int | float | None = None
    arrivals: str | None = None
    thresholds: Mapping = _empty()
    cells: tuple[LatencyCell, ...] = ()


@dataclass(frozen=True)
class Manifest:
    """A run's manifest.json as the analysis reads it (docs/results-format.md)."""
    run_id: str
    schema_version: int
    machine: Machine
    profile: str | None = None  # the profile's name
    git_commit: str | None = None
    git_dirty: bool = False
    settings: Settings = Settings()
    versions: Mapping = _empty()   # tool -> version, the scalar ones only
    dataset_checksum: str | None = None  # `database.dataset.checksum`: the rows the run measured
    database_version: str | None = None
    protocol: Protocol = Protocol()
    sequential: Sequential = Sequential()
    loadgen: Loadgen | None = None   # None before schema 4: JMeter, chosen by no one
    layout: Placement | None = None
    pinning: Placement | None = None
    engines: tuple[Engine, ...] = ()  # none for a local run
    latency: LatencyPass = LatencyPass()
    ceiling_share: float = CEILING_SHARE  # `validity.numbers.ceiling_share`
    crosscheck_skipped: str | None = None  # `crosscheck.skipped`: why the run measured no cross-check
    arms: Mapping = _empty()        # arm -> Arm, the manifest's `frameworks`
    order: tuple[str, ...] = ()     # the item keys in the order the run measured them

    @property
    def paired(self) -> bool:
        return self.protocol.paired

    @property
    def extra_rounds(self) -> bool:
        """Whether the stopping rule may have added rounds (a budget), so that the throughput of the
        cells it extended is drawn wider (analysis.tables.extended)."""
        return bool(self.sequential.budget_s)

    @property
    def loadgen_tool(self) -> str:
        return self.loadgen.tool if self.loadgen else "jmeter"

    def arm(self, name: str) -> Arm:
        """The arm's record; an arm the manifest does not describe gets the defaults of its name."""
        return self.arms.get(name) or Arm.from_dict(name, {})

    @classmethod
    def from_dict(cls, raw: dict, path: Path = Path(MANIFEST)) -> "Manifest":
        """The records of a manifest as read (benchlib.results.load_manifest); `path` names the
        file in an error."""
        if not isinstance(raw, dict):
            raise ResultFileError(path, "must hold a JSON object")
        check_manifest(raw, path)
        machine = raw["machine"]
        database = _object(raw, "database")
        dataset = _object(database, "dataset")
        checksum = dataset.get("checksum")
        protocol = raw.get("protocol")
        chosen = raw.get("loadgen")
        return cls(
            run_id=raw["run_id"], schema_version=raw["schema_version"],
            machine=Machine(cores=machine["cores"], cpu_model=_text(machine.get("cpu_model")),
                            mem_total_mb=_number(machine.get("mem_total_mb")), kernel=_text(machine.get("kernel")),
                            recorded=_frozen(machine)),
            profile=_text(raw.get("profile")), git_commit=_text(raw.get("git_commit")),
            git_dirty=bool(raw.get("git_dirty")),
            settings=Settings.from_dict(_object(raw, "settings")),
            versions=MappingProxyType({k: v for k, v in _object(raw, "versions").items()
                                       if isinstance(v, (str, int, float))}),
            dataset_checksum=checksum if isinstance(checksum, str) and checksum else None,
            database_version=_text(database.get("version")),
            protocol=Protocol(name=_text(protocol.get("name")), paired=protocol.get("paired") is True,
                              rounds=_number(protocol.get("rounds"))) if isinstance(protocol, dict) else Protocol(),
            sequential=_sequential(_object(raw, "sequential"), path),
            order=tuple(k for k in raw.get("order") or () if isinstance(k, str)),
            loadgen=Loadgen(tool=chosen.get("tool") or "jmeter", why=chosen.get("why") or None)
            if isinstance(chosen, dict) and chosen else None,
            layout=_placement(raw.get("layout")), pinning=_placement(raw.get("pinning")),
            engines=_engines(raw.get("engines"), path),
            latency=_latency(_object(raw, "latency")),
            ceiling_share=_ceiling_share(raw),
            crosscheck_skipped=_text(_object(raw, "crosscheck").get("skipped")),
            arms=MappingProxyType({name: Arm.from_dict(name, entry)
                                   for name, entry in _object(raw, "frameworks").items()}))


def _sequential(raw: dict, path: Path) -> Sequential:
    states = []
    for s in raw.get("states") or []:
        if not (isinstance(s, dict) and isinstance(s.get("api"), str) and isinstance(s.get("state"), str)
                and str(s.get("case")).isdigit()):
            raise ResultFileError(path, f"sequential.states: each needs an api, a case and a state, not {s!r}")
        states.append(StoppingState(s["api"], int(s["case"]), s["state"]))
    target = _number(raw.get("target"))
    return Sequential(
        budget_s=_number(raw.get("budget_s")), target=float(target) if target is not None else TARGET,
        round_cells=tuple(len(r.get("cells") or []) for r in raw.get("rounds") or [] if isinstance(r, dict)),
        states=tuple(states), stopped=raw.get("stopped") or None)


def _ceiling_share(raw: dict) -> float:
    found = _number(_object(_object(raw, "validity"), "numbers").get("ceiling_share"))
    return CEILING_SHARE if found is None else found


def _placement(raw) -> Placement | None:
    if not isinstance(raw, dict) or not raw:
        return None
    return Placement(applied=raw.get("applied"), note=raw.get("note") or None)


def _engines(raw, path: Path) -> tuple[Engine, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(e, dict) and e.get("endpoint") for e in raw):
        raise ResultFileError(path, "engines must be a list of objects with an endpoint")
    return tuple(Engine(endpoint=e["endpoint"], host=e.get("host"), jmeter=e.get("jmeter"), java=e.get("java"),
                        cores=e.get("cores"), ssl=e.get("ssl")) for e in raw)


def _latency(raw: dict) -> LatencyPass:
    thresholds = _object(_object(raw, "checks"), "thresholds")
    return LatencyPass(
        rounds=raw.get("rounds") or None, window_s=raw.get("window_s"), warmup_s=raw.get("warmup_s"),
        arrivals=raw.get("arrivals"),
        thresholds=MappingProxyType({k: v for k, v in thresholds.items() if isinstance(v, str)}),
        cells=tuple(LatencyCell(api=c.get("api"), case=c.get("case"), slowest=c.get("slowest") or None,
                                capacity_bound=_frozen(c.get("capacity_bound")))
                    for c in raw.get("cells") or [] if isinstance(c, dict)))
