"""The answer's format: what parses, what is refused and why, digit distributions, digits found in a token stream."""

import math

import jsonschema
import pytest

from annotators.answers import ANSWER_SCHEMA, digit_positions, distribution, parse

VALID = '{"head": 3, "modifier": 5, "compound": 4, "paraphrases": ["a lab for research", "research facility"]}'


def test_a_valid_answer_parses_and_satisfies_the_schema_it_is_asked_with():
    parsed = parse(VALID)
    assert parsed.valid and parsed.scores == {"head": 3, "modifier": 5, "compound": 4}
    assert parsed.paraphrases == ["a lab for research", "research facility"]
    import json

    jsonschema.validate(json.loads(VALID), ANSWER_SCHEMA)


@pytest.mark.parametrize(
    "text",
    [
        f"Here is my answer:\n```json\n{VALID}\n```",
        f"{VALID}\nI hope this helps.",
        VALID.replace(', "paraphrases": ["a lab for research", "research facility"]', ""),  # paraphrases optional
    ],
)
def test_an_answer_around_prose_or_a_fence_or_without_paraphrases_parses(text):
    parsed = parse(text)
    assert parsed.valid and parsed.scores == {"head": 3, "modifier": 5, "compound": 4}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I would say it is fairly literal.", "no JSON object"),
        ('{"head": 3, "modifier": 5, "compound": 4', "no JSON object"),  # cut off: never completed
        ('{"head": 3, "modifier": 5}', "no compound score"),
        ('{"head": 3.5, "modifier": 5, "compound": 4}', "3.5 is not a whole number"),
        ('{"head": "four", "modifier": 5, "compound": 4}', "'four' is not a whole number"),
        ('{"head": true, "modifier": 5, "compound": 4}', "True is not a whole number"),
        ('{"head": 7, "modifier": 5, "compound": 4}', "7 is outside the scale"),
        ('{"head": -1, "modifier": 5, "compound": 4}', "-1 is outside the scale"),
        ('{"head": 1, "modifier": 5, "compound": 4, "paraphrases": [1, 2]}', "not a list of texts"),
        ('{"head": 1, "modifier": 5, "compound": 4, "paraphrases": ["a", "b", "c", "d"]}', "4 given, at most 3"),
        ("{'head': 1, 'modifier': 5, 'compound': 4}", "not valid JSON"),
        ("[1, 2, 3]", "no JSON object"),
    ],
)
def test_an_invalid_answer_is_refused_with_its_reason_never_coerced(text, reason):
    parsed = parse(text)
    assert not parsed.valid and reason in parsed.error and parsed.scores == {}


def test_paraphrases_are_tidied_and_deduplicated_as_the_human_form_does():
    parsed = parse('{"head": 1, "modifier": 2, "compound": 0, "paraphrases": ["  keen   worker ", "Keen worker", ""]}')
    assert parsed.paraphrases == ["keen worker"]


def test_a_distribution_is_renormalised_over_the_digits_with_its_expected_value_mode_and_entropy():
    found = distribution({"3": math.log(0.6), "4": math.log(0.2), "x": math.log(0.2)})
    assert found["probs"] == pytest.approx([0, 0, 0, 0.75, 0.25, 0])
    assert found["expected"] == pytest.approx(3.25) and found["mode"] == 3
    assert found["entropy"] == pytest.approx(-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)), abs=1e-6)
    uniform = distribution({str(d): -1.0 for d in range(6)})
    assert uniform["entropy"] == pytest.approx(math.log2(6), abs=1e-6) and uniform["expected"] == pytest.approx(2.5)
    assert distribution({"a": -0.1}) is None


def test_digit_positions_follow_the_keys_whatever_the_tokenisation():
    tokens = [
        {"token": '{"head": '},
        {
            "token": "3",
            "logprob": -0.2,
            "top_logprobs": [{"token": "3", "logprob": -0.2}, {"token": "4", "logprob": -1.8}],
        },
        {"token": ', "modifier":'},
        {
            "token": " 5",
            "logprob": -0.1,
            "top_logprobs": [{"token": " 5", "logprob": -0.1}, {"token": " 2", "logprob": -3.0}],
        },
        {"token": ', "compound": '},
        {"token": "4", "logprob": -0.3, "top_logprobs": []},
        {"token": ', "paraphrases": ["a'},
        {"token": " 2", "logprob": -0.5, "top_logprobs": [{"token": " 2", "logprob": -0.5}]},  # a digit in a paraphrase
    ]
    assert digit_positions(tokens) == {
        "head": {"3": -0.2, "4": -1.8},
        "modifier": {"5": -0.1, "2": -3.0},
        "compound": {"4": -0.3},
    }
