"""The settings' text as `./testbed run` and the Docker runner read it (collect/run/preflight.py)."""
import argparse

import pytest

from collect.run.preflight import case_numbers, profile_name


def test_case_numbers_take_lists_and_ranges():
    assert case_numbers("1,4,7-9") == [1, 4, 7, 8, 9]
    with pytest.raises(argparse.ArgumentTypeError):
        case_numbers("1,x")


def test_a_profile_is_named_as_argparse_names_a_choice():
    assert profile_name("smoke") == "smoke"
    with pytest.raises(argparse.ArgumentTypeError, match=r"invalid choice: 'long' \(choose from 'smoke', "):
        profile_name("long")
