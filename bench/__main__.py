"""`python3 -m bench TOOL …`: load measurements outside the study's protocol, with wrk.

    frameworks   implementations and their variants side by side, in interleaved rounds
    headroom     how much load JMeter can drive here, against wrk on the cheapest endpoint
    levels       which level a cell's ratio moves at: fresh processes, the same cell again, after other cells
    profile      where one implementation spends its CPU on one cell: perf's samples by category, OS and GC counters
"""
import sys

from benchlib.console import UserError
from bench import headroom, http_bench, levels, profile

TOOLS = {"frameworks": http_bench.main, "headroom": headroom.main, "levels": levels.main, "profile": profile.main}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in TOOLS:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        return TOOLS[argv[0]](argv[1:])
    except UserError as e:
        print(f"bench {argv[0]}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
