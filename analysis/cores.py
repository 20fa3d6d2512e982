"""Which arms of a run could use only one of the machine's cores, and which variant of their framework
uses every core: one Node.js process runs its JavaScript on one core, while ASP.NET Core spreads
requests over all of them. On 2 cores that moves a ratio a little; on a 16-core server it is most
of the ratio, so the answer names it beside the arm's ratios (docs/your-hardware.md, "One core or
every core").

An arm is counted as one core when its framework runs on Node.js (the repository's framework.json
`runtime`) and its variant runs one process (`processes` 1, the variant's setting over the
framework's, as the run's manifest recorded them). The variant that uses every core is the
framework's variant, in framework.json today, whose `processes` is anything but 1 (Express.js's
`cluster`)."""
from analysis.load import Run
from benchlib.apps import frameworks, variants

HARDWARE_DOC = 'docs/your-hardware.md, "One core or every core"'


def _framework(name: str) -> dict | None:
    return next((f for f in frameworks() if f["name"] == name), None)


def one_core(run: Run, arm: str) -> bool:
    """Whether the arm ran as one single-threaded process on a machine with more cores."""
    framework = _framework(run.base(arm))
    if run.cores < 2 or framework is None or not str(framework.get("runtime", "")).startswith("Node.js"):
        return False
    entry = run.entry(arm)
    return entry.variant_settings.get("processes", entry.settings.get("processes")) == 1


def every_core_variant(run: Run, arm: str) -> str | None:
    """`framework:variant` of the arm's framework that runs a process per core, if it has one."""
    framework = _framework(run.base(arm))
    found = next((v["name"] for v in variants(framework) if (v.get("settings") or {}).get("processes", 1) != 1), None)
    return f"{framework['name']}:{found}" if found else None


def note(run: Run, arms: list[str]) -> str:
    """One sentence per arm of `arms` that used one core, for beside its ratios ("" if none did)."""
    said = []
    for arm in arms:
        if not one_core(run, arm):
            continue
        other = every_core_variant(run, arm)
        name = run.display_name(arm)
        said.append(f"{name} used one of this machine's {run.cores} cores (one Node.js process); "
                    + (f"its variant `{other}` uses every core" if other else
                       f"{name} has no variant that uses every core")
                    + f" ({HARDWARE_DOC}).")
    return " ".join(said)


def tag(run: Run, arm: str) -> str:
    """A few words for a figure's label: `(1 of 2 cores)` for an arm that used one core."""
    return f" (1 of {run.cores} cores)" if one_core(run, arm) else ""
