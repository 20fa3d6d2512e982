"""Ctrl-C, and the SIGTERM of `docker stop`, stop a command the same way, even when a library
turns the interrupt into an error of its own.

pandas' C parser reads a file through Python's file object; a KeyboardInterrupt raised inside that
read comes out as `ParserError: ... Calling read(nbytes) on source failed`. A run cut that way
stopped with a traceback and exit 1, its state left "running", instead of keeping what had finished
and exiting 130 for --resume. So the handler remembers that the signal came, and `caused` tells an
interrupt by whatever name it reaches the code that handles it.
"""
import signal

_received = False


def _raise(signum, frame):
    global _received
    _received = True
    raise KeyboardInterrupt()


def catch(*signums: int) -> None:
    """From now on each of `signums` raises KeyboardInterrupt, and is remembered."""
    global _received
    _received = False
    for signum in signums:
        signal.signal(signum, _raise)


def caused(e: BaseException) -> bool:
    """Whether `e` is an interrupt, or an error raised after one was delivered (a library's own
    error around the KeyboardInterrupt it swallowed)."""
    return isinstance(e, KeyboardInterrupt) or (_received and isinstance(e, Exception))
