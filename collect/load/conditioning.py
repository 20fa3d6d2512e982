"""Conditioning a fresh process before a round measures it: every request shape the app serves (the
six of cases 1-6 per API), `condition_s` each, with wrk, the arms side by side, nothing recorded.

Why. A process started for its round (Profile.restart "round" or "slot") is not yet what the round
should measure: three seconds after its start ASP.NET Core served REST case 1 at 0.55-0.65 of what
it served ten seconds later (tiered JIT and dynamic PGO still compiling), Express.js at 0.85-0.95
(`python3 -m bench levels`, collect/README.md "Which level the rounds replicate"). A few seconds of
each shape compile each endpoint's path before the round's first warm-up, whichever cell comes
first: the quick profile's 3 s cost about 37 s a round (1 s left ASP.NET Core's first item of a
round at 0.2-0.8 of its other rounds, collect/README.md "Conditioning long enough")."""
from concurrent.futures import ThreadPoolExecutor

from benchlib import wrk
from benchlib.cases import cases
from benchlib.console import UserError
from collect.load.app_pool import AppFailed

# Cases 1-6 hold every request shape (rows 1, 50, 100, with and without the join) at 100 users.
SHAPES = (1, 2, 3, 4, 5, 6)
# A heavy shape on a fresh process, beside the other arm's conditioning, can hold every request longer
# than one window: ASP.NET Core answers GraphQL case 6 at about 60 requests a second alone and, serving
# all 100 connections at once, often none inside a 1 s window beside Express.js, which failed whole
# rounds. A shape nobody answered is driven again for twice as long, until one request is answered or
# PATIENCE_S have gone; only then has the arm stopped answering.
PATIENCE_S = 15


def shapes(apis) -> list[dict]:
    """The requests that touch every endpoint of `apis`."""
    matrix = cases()
    return [{"api": api, **matrix[n]} for api in apis for n in SHAPES]


def condition(apps, names: list[str], seconds: float, patience_s: float = PATIENCE_S) -> dict[str, AppFailed]:
    """Each of `names` (running in `apps`, an AppPool) through every shape it serves, the arms side
    by side; those that stopped answering, with why."""
    def drive(name: str) -> AppFailed | None:
        host, port = apps.address(name)
        for request in shapes(apps.served(name)):
            try:
                spent = until_answered(f"http://{host}:{port}", request, seconds, patience_s)
            except UserError as e:
                return AppFailed(f"{name} failed while conditioned before its round: {e}", "")
            if spent is not None:
                return AppFailed(f"{name} answered no {request['api']} request of case {request['case']} "
                                 f"in {spent:g} s while conditioned before its round", "")
        return None

    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        found = dict(zip(names, pool.map(drive, names)))
    return {name: failure for name, failure in found.items() if failure}


def until_answered(url: str, request: dict, seconds: float, patience_s: float) -> float | None:
    """Drives `request` for `seconds`, then for twice as long each time none was answered; None once
    one was, else the seconds spent when patience_s ran out."""
    window, spent = seconds, 0.0
    while True:
        done = wrk.run(url, request, request["requests"], window)
        spent += window
        if done["samples"]:
            return None
        if spent >= patience_s:
            return spent
        window = min(2 * window, patience_s - spent)
