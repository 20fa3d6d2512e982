"""A plain-text progress line with an ETA: one updating line on a terminal, plain lines otherwise."""
import shutil
import sys
import textwrap
import time
from pathlib import Path


def duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}h{rest // 60:02d}m" if h else f"{rest // 60}m{rest % 60:02d}s"


class Progress:
    def __init__(self, total: int, done: int, estimate_s: float, stream=None):
        self.total, self.done = total, done
        self.estimate_s = estimate_s  # per item, until real items have been timed
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.timed = 0
        self.label = ""
        self.after_s = 0.0  # what follows the items (the wrk passes), estimated

    def begin_items(self, after_s: float) -> None:
        """The items start now (what came before, e.g. the ceiling, does not time them), and
        `after_s` more follow them."""
        self.started, self.after_s = time.monotonic(), after_s

    def eta(self) -> float:
        per_item = (time.monotonic() - self.started) / self.timed if self.timed else self.estimate_s
        return per_item * (self.total - self.done) + self.after_s

    def _line(self, phase: str) -> str:
        width = 20
        filled = width * self.done // max(1, self.total)
        return (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"{self.label} {phase} | elapsed {duration(time.monotonic() - self.started)}, "
                f"ETA {duration(self.eta())}")

    def start(self, label: str) -> None:
        self.label = label
        self.phase("starting")

    def phase(self, phase: str) -> None:
        if self.tty:  # one line, cut to the terminal's width so \r can rewrite it
            width = shutil.get_terminal_size().columns - 1
            self.stream.write("\r\033[K" + self._line(phase)[:width])
            self.stream.flush()
        elif phase == "starting":
            print(self._line(phase), file=self.stream, flush=True)

    def advance(self) -> None:
        """One more item measured (its outcome is printed once its files are read)."""
        self.done += 1
        self.timed += 1

    def result(self, label: str, outcome: str) -> None:
        """An item's outcome, as a line of its own."""
        self.note(f"  {label}: {outcome}")

    def note(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        print(text, file=self.stream, flush=True)


def final_report(run_dir: Path, planned: int, rows: list[dict], stream, reference: str | None = None) -> None:
    """The end-of-run summary: how many items ended in each state, every item that failed or is
    flagged, then the bottom line the report opens with, against the same `reference` (the same
    counts and sentences: both come from analysis.item_counts and analysis.bottom_line)."""
    # Imported here: pandas and matplotlib load only once the measuring is over.
    from analysis import answer, bottom_line, load

    def say(text: str = "") -> None:
        print(text, file=stream, flush=True)

    try:
        run = load.load_run(run_dir)
    except load.ResultFileError as e:  # nothing was measured: there is nothing to count
        say(f"\nrun {run_dir.name}: {len(rows)} of {planned} measured; {e}")
        return
    say(f"\nrun {run_dir.name}: {len(rows)} of {planned} measured.")
    for r in rows:
        where = f"{r['framework']}/{r['api']}/case-{int(r['case']):02d}/iter-{int(r['round']):02d}"
        if r["status"] != "ok":
            say(f"  {r['status']}: {where}")
        elif r["flags"]:
            say(f"  flagged ({r['flags'].replace(';', ', ')}): {where}")
    try:
        said = bottom_line.for_run(run, reference)
    except answer.UnknownReference as e:  # a resumed run's --reference is checked only here
        say(f"\n{e}; the bottom line compares against the default reference instead.")
        said = bottom_line.for_run(run)
    say("\nThe bottom line (the report opens with it):")
    for sentence in said:
        say(textwrap.fill(sentence, width=100, initial_indent="  ", subsequent_indent="  "))
