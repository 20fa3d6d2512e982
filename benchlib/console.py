"""How the testbed talks to its user: progress lines, and errors the user can fix."""
from typing import NoReturn


class UserError(Exception):
    """A problem the user can fix: printed as one or two lines, exit status 2."""


def fail(message: str) -> NoReturn:
    raise UserError(message)


def say(message: str) -> None:
    print(message, flush=True)
