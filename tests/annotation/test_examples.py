"""Worked examples (annotation/examples.py, pure): never about a compound the campaign asks about."""

from __future__ import annotations

from annotation.examples import DEFAULT_EXAMPLES, Example, campaign_examples, gives_away, presented, sentence_parts


def test_the_defaults_leave_out_a_compound_the_campaign_rates():
    shown = campaign_examples([], ["Coffee  Cup", "night owl"])
    assert [e.compound for e in shown] == ["eager beaver", "brain drain"]
    assert len(campaign_examples([], ["night owl"])) == len(DEFAULT_EXAMPLES)


def test_own_examples_replace_the_defaults_and_are_filtered_too():
    own = [
        Example("rat race", "He left the rat race for a farm.", 0, 1, 1),
        Example("night owl", "A night owl.", 0, 4, 1),
    ]
    assert [e.compound for e in campaign_examples(own, ["night owl"])] == ["rat race"]
    assert gives_away("Night Owl", ["night owl"]) and not gives_away("night owls", ["night owl"])


def test_presented_examples_highlight_the_compound_and_ask_the_rating_page_questions():
    shown = presented(DEFAULT_EXAMPLES[0], "en")
    assert (shown["nc"], shown["after"]) == ("eager beaver", ", arriving an hour early every day.")
    assert [row["before"] + row["nc"] + row["after"] for row in shown["rows"]] == [
        "How literally is an eager beaver a beaver?",
        "How literal is the use of “eager” in eager beaver?",
        "How literal is the whole compound eager beaver?",
    ]
    assert [row["score"] for row in shown["rows"]] == [0, 4, 1]
    assert shown["paraphrases"] == ["keen worker", "enthusiastic person"]
    assert sentence_parts("No compound here.", "rat race") == ("No compound here.", "", "")
