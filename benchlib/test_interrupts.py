"""A Ctrl-C that pandas turns into a ParserError is still known as Ctrl-C."""
import os
import signal
import threading
import time

import pandas as pd
import pytest

from benchlib import interrupts


@pytest.fixture
def sigint_restored():
    before = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, before)


def interrupted_read(tmp_path):
    """pandas reading a CSV from a pipe whose writer stalls, and Ctrl-C arriving meanwhile."""
    fifo = tmp_path / "results.jtl"
    os.mkfifo(fifo)
    main = threading.get_ident()

    def stall_then_interrupt():
        with open(fifo, "w") as w:
            w.write("timeStamp,elapsed\n1,2\n")
            w.flush()
            time.sleep(0.5)  # pandas is now blocked reading the rest
            signal.pthread_kill(main, signal.SIGINT)
            time.sleep(0.5)

    writer = threading.Thread(target=stall_then_interrupt)
    writer.start()
    try:
        pd.read_csv(fifo)
    except BaseException as e:  # whatever pandas lets through is what the test looks at
        return e
    finally:
        writer.join()
    pytest.fail("the read ended without the interrupt")


def test_ctrl_c_inside_pandas_is_an_interrupt_whatever_pandas_calls_it(tmp_path, sigint_restored):
    interrupts.catch(signal.SIGINT)
    e = interrupted_read(tmp_path)
    assert interrupts.caused(e), repr(e)


def test_an_error_with_no_signal_before_it_is_not_an_interrupt(sigint_restored):
    interrupts.catch(signal.SIGINT)
    assert not interrupts.caused(ValueError("a bad row"))
    assert interrupts.caused(KeyboardInterrupt())
