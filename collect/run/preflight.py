"""Checks made before a run starts anything: one clear line and nothing created when one fails.
`./testbed run` (its options) and the Docker runner (its environment variables, collect/run/external_run.py)
read and check their settings with the same functions, so both say the same of the same mistake."""
import argparse
import os
import shutil
from pathlib import Path

from benchlib import apps
from benchlib.cases import API_STYLES, cases
from benchlib.console import fail
from benchlib.net import port_free
from collect.items.profiles import PROFILES

# What a setting is called where `./testbed run` takes it; the Docker runner names its variables.
RUN_OPTIONS = {"iterations": "--iterations"}


# --- reading a setting's text (argparse `type`s: an error is an ArgumentTypeError) ----------------
def names(text: str) -> list[str]:
    return [n for n in text.replace(",", " ").split() if n]


def case_numbers(text: str) -> list[int]:
    """`1,4,7-9` → [1, 4, 7, 8, 9]."""
    out = []
    for part in names(text):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise argparse.ArgumentTypeError(f"numbers and ranges such as 1,4,7-9, not {part!r}")
        out += range(int(low), int(high or low) + 1)
    return sorted(set(out))


def profile_name(text: str) -> str:
    """A profile of collect/items/profiles.py, worded as argparse words a choice."""
    if text not in PROFILES:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {text!r} (choose from {', '.join(repr(name) for name in PROFILES)})")
    return text


# --- checking what was read ------------------------------------------------------------------------
def check_options(apis: list[str], case_numbers: list[int], iterations: int | None,
                  budget_min: float | None = None, named: dict[str, str] = RUN_OPTIONS) -> None:
    """`named`: what each setting is called where it was given."""
    bad = [a for a in apis if a not in API_STYLES]
    if bad:
        fail(f"unknown API {', '.join(bad)}; choose from {', '.join(API_STYLES)}.")
    known = cases()
    wrong = [str(c) for c in case_numbers if c not in known]
    if wrong:
        fail(f"no case {', '.join(wrong)}; cases are 1-{max(known)}.")
    if iterations is not None and iterations < 1:
        fail(f"{named['iterations']} must be 1 or more.")
    if budget_min is not None and not budget_min > 0:
        fail("--budget is the run's time in minutes (e.g. --budget 90); give a number above 0.")


def check_loadgen(loadgen: str | None, profile: str, engines: bool) -> None:
    """`--loadgen` where the run can use it: remote engines are JMeter's, and so is the latency
    profile's open model (its arrivals are JMeter plans)."""
    if loadgen == "wrk" and engines:
        fail("--engines sends the load from JMeter remote engines; drop --loadgen wrk (or --engines).")
    if loadgen == "wrk" and PROFILES[profile].latency:
        fail("the latency profile drives its arrivals with JMeter; drop --loadgen wrk.")


def check_memory_rounds(memory_rounds: int | None, profile: str) -> None:
    """`--memory-rounds` where the profile has a memory pass to give them to."""
    if memory_rounds is None:
        return
    if memory_rounds < 1:
        fail("--memory-rounds is how many fresh processes each arm and case gets in the memory pass; "
             "give 1 or more.")
    if not PROFILES[profile].memory_s:
        with_pass = ", ".join(name for name, p in PROFILES.items() if p.memory_s)
        fail(f"the {profile} profile has no memory pass for --memory-rounds; drop it, or use "
             f"--profile {with_pass}.")


def check_results_root(root: Path) -> None:
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        fail(f"cannot write results under {root} ({e.strerror or e}); "
             f"make it writable or choose another folder with --results-dir.")


def check_tools() -> None:
    for tool, package in (("top", "procps"), ("grep", "grep")):
        if not shutil.which(tool):
            fail(f"{tool} not found: install the Debian package {package} (./testbed setup).")


def check_ports(frameworks: dict[str, dict]) -> None:
    for framework in frameworks.values():
        if not port_free(apps.port(framework)):
            fail(f"port {apps.port(framework)} ({framework['name']}) is already in use: stop what "
                 f"listens there (./testbed down?) or set TESTBED_PORT_OFFSET to move the apps.")
