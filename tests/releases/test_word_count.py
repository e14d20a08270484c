"""One rule for a sentence's length in words, used by the release's scores table and the probe report."""

from __future__ import annotations

import pytest

from releases.snapshot import word_count


@pytest.mark.parametrize(
    ("text", "words"),
    [("Carol is an eager beaver at work .", 7), ("( eager beavers ) , he said", 4), ("água-viva é comum", 3), ("", 0)],
)
def test_punctuation_tokens_are_not_words(text, words):
    assert word_count(text) == words
