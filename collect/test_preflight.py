"""`./testbed run`'s own argument parsing."""
import argparse

import pytest

from cli.run import case_numbers


def test_case_numbers_take_lists_and_ranges():
    assert case_numbers("1,4,7-9") == [1, 4, 7, 8, 9]
    with pytest.raises(argparse.ArgumentTypeError):
        case_numbers("1,x")
