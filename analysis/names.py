"""How the report names arms in its sentences: with their type, as a pair, and several in a list."""
from analysis import ranking
from analysis.load import Run


def listing(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def typed_name(run: Run, arm: str) -> str:
    """Its display name and, where the run recorded it, its type: `Fastify (realistic)`."""
    kind = ranking.kind(run, arm)
    return run.display_name(arm) + (f" ({kind})" if kind else "")


def versus_names(run: Run, versus) -> str:
    return f"{run.display_name(versus.numerator)} / {run.display_name(versus.denominator)}"
