"""The batch driver's count of finished measurements, with a real process as the load generator (a
shell script that logs each measurement as it starts, as wrk_batch.py does): what a clean exit
counts, and that a Ctrl-C counts before the stop, which a load generator may answer with exit 0.
The rounds, the latency pass and the probes on real apps are in test_faults.py, test_latency.py
and test_smoke.py."""
import subprocess
import time

import pytest

from benchlib.cases import cases
from benchlib.items import Item
from collect.load.batch import Batch, Measurement
from collect.load.driver import Ending, Stages, drive, finished

BEGIN = "echo 'Starting measurement: {n} : m{n}' >> jmeter.log"


class Counting(Stages):
    """Keeps the index of each finished measurement; `interrupt_at`: a Ctrl-C as that one begins."""
    poll_s = 0.05

    def __init__(self, script: str, interrupt_at: int | None = None):
        self.script, self.interrupt_at = script, interrupt_at
        self.begun, self.kept = 0, []

    def start(self, batch):
        batch.process = subprocess.Popen(["sh", "-c", self.script], cwd=batch.folder, start_new_session=True)
        self.deadline = time.monotonic() + 30

    def begin(self, batch, index):
        self.begun = index + 1
        if index == self.interrupt_at:
            raise KeyboardInterrupt()

    def overran(self, batch):
        return Ending(self.finished(batch), "overran")

    def finished(self, batch):
        return finished(batch, self.begun)

    def keep(self, batch, index):
        self.kept.append(index)


def two(tmp_path) -> Batch:
    shape = cases()[1]
    item = Item(framework="toy", api="rest", case=1, requests=1, rows=shape["rows"], joins=shape["joins"],
                round=1)
    return Batch(tmp_path, [Measurement(item, "127.0.0.1", 1)] * 2, time.time())


def test_a_clean_exit_after_every_measurement_began_keeps_them_all(tmp_path):
    stages = Counting(f"{BEGIN.format(n=1)}; sleep 0.2; {BEGIN.format(n=2)}; sleep 0.2")
    assert drive(two(tmp_path), stages) == Ending(2) and stages.kept == [0, 1]


def test_a_clean_exit_before_the_last_measurement_began_keeps_those_before_the_one_it_was_on(tmp_path):
    stages = Counting(f"{BEGIN.format(n=1)}; sleep 0.2")
    assert drive(two(tmp_path), stages) == Ending(0) and stages.kept == []


def test_ctrl_c_keeps_what_finished_before_the_load_generator_was_stopped(tmp_path):
    # Stopped, this load generator exits 0 with every measurement begun: counted after the stop,
    # the one it was cut in would be kept as finished.
    script = (f"trap 'exit 0' TERM; {BEGIN.format(n=1)}; sleep 0.2; {BEGIN.format(n=2)}; "
              "while :; do sleep 0.05; done")
    stages = Counting(script, interrupt_at=1)
    batch = two(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        drive(batch, stages)
    assert stages.kept == [0] and batch.exit_code() == 0
