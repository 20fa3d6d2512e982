"""How many of a run's items ended in each state, read once from its items (summary.csv, through
analysis.validity): the console's end-of-run line, the report's bottom line and its trust summary
all say these numbers in these words, so none of them can tell a different story from the data.

An item is one arm, API, case and round. Its status is ok, failed or excluded (collect); an ok item
of a checked run is then valid, bound (the load generator set its rate) or invalid (never used),
and a usable one may be unfair (some connections never served: its response times are left out).
Flagged items carry collect's load flags (underloaded, loadgen_saturated, …).
"""
from dataclasses import dataclass

from analysis import validity
from analysis.load import Run


@dataclass(frozen=True)
class ItemCounts:
    items: int
    ok: int
    failed: int
    excluded: int
    flagged: int
    checked: bool  # whether the ok items carry validity verdicts (schema 3 on)
    valid: int = 0
    bound: int = 0
    invalid: int = 0
    unfair: int = 0

    @property
    def usable(self) -> int:
        return self.valid + self.bound if self.checked else self.ok

    def sentence(self) -> str:
        """The counts in one sentence, every state named even at 0, so a reader never has to infer
        one from another's absence."""
        kept = (f"{self.valid} valid, {self.bound} bound by the load generator (used as bounds) and "
                f"{self.invalid} invalid (never used)" if self.checked else
                f"{self.ok} ok (this run predates the validity checks, so every ok item counts)")
        return (f"Of {self.items} item{'s' if self.items != 1 else ''} (one arm, API, case and round), {kept}; "
                f"{self.failed} failed and {self.excluded} excluded"
                + (f"; {self.unfair} of the usable ones left connections unserved (their response times are "
                   "left out)" if self.unfair else "")
                + (f"; {self.flagged} {'carries' if self.flagged == 1 else 'carry'} a load flag"
                   if self.flagged else "") + ".")


def counts(run: Run) -> ItemCounts:
    status = run.summary["status"]
    flagged = int(((status == "ok") & (run.summary["flags"] != "")).sum())
    base = dict(items=len(run.summary), ok=int((status == "ok").sum()), failed=int((status == "failed").sum()),
                excluded=int((status == "excluded").sum()), flagged=flagged, checked=run.checked)
    if not run.checked:
        return ItemCounts(**base)
    judged = validity.judged(run)
    usable = judged["validity"].isin(validity.USABLE)
    return ItemCounts(**base, valid=int((judged["validity"] == validity.VALID).sum()),
                      bound=int((judged["validity"] == validity.BOUND).sum()),
                      invalid=int((judged["validity"] == validity.INVALID).sum()),
                      unfair=int((usable & (judged["latency_validity"] == validity.UNFAIR)).sum()))
