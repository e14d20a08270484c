"""Crowd platforms' ends of a study (annotation/platforms.py: pure, no database)."""

import pytest

from annotation.platforms import mturk_submit_url, origin, prolific_completion_url


def test_a_prolific_code_becomes_its_completion_link():
    assert prolific_completion_url("SCR33N") == "https://app.prolific.com/submissions/complete?cc=SCR33N"
    assert prolific_completion_url("a&b c") == "https://app.prolific.com/submissions/complete?cc=a%26b%20c"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://www.mturk.com", "https://www.mturk.com/mturk/externalSubmit"),
        ("https://workersandbox.mturk.com/", "https://workersandbox.mturk.com/mturk/externalSubmit"),
        ("http://www.mturk.com", None),  # never in clear text
        ("https://www.mturk.com.evil.example", None),
        ("https://evil.example/?https://www.mturk.com", None),
        ("https://user@www.mturk.com", None),
        ("https://www.mturk.com:8443", None),
        ("https://www.mturk.com/elsewhere", None),
        ("", None),
    ],
)
def test_only_mturks_own_hosts_receive_a_hit(given, expected):
    assert mturk_submit_url(given) == expected


def test_origin():
    assert origin("https://www.mturk.com/mturk/externalSubmit") == "https://www.mturk.com"
