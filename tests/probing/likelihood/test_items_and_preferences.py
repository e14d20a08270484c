"""probing/likelihood/items.py and preferences.py on hand-made pairs and scores (values worked out by hand)."""

from __future__ import annotations

from collections import Counter

import pytest

from probing.embedding.base import TextSpan
from probing.likelihood.items import DELIMITER, TEMPLATE_VERSION, choice_items, item_rows, template_of
from probing.likelihood.preferences import compound_rows, sentence_rows
from probing.likelihood.scores import TextScore, TokenScore
from probing.measures.probes import Pair

SENTENCE = "My sister is a night owl at heart."
REPLACEMENTS = {
    ("syn", 1): "late sleeper",
    ("head", 1): "owl",
    ("modifier", 1): "night",
    ("words_syn", 1): "evening bird",
    ("words_syn", 2): "dusk fowl",
    ("rand", 1): "silver screen",
    ("rand", 2): "grey matter",
}


def swap(sentence: str, compound: str, replacement: str) -> TextSpan:
    start = sentence.index(compound)
    text = sentence[:start] + replacement + sentence[start + len(compound) :]
    return TextSpan(text, (start, start + len(replacement)))


def pairs(
    compound="night owl", sentence=SENTENCE, condition="naturalistic", sentence_id="naturalistic-1", language="en"
):
    original = TextSpan(sentence, (sentence.index(compound), sentence.index(compound) + len(compound)))
    return [
        Pair(language, compound, condition, sentence_id, probe, rank, original, swap(sentence, compound, words), 8)
        for (probe, rank), words in REPLACEMENTS.items()
    ]


def word_score(text: str, per_word: dict[str, float], default: float = -2.0) -> TextScore:
    """A score with one token per word, each word's log-probability from ``per_word`` (else ``default``)."""
    tokens, start = [], 0
    for word in text.split(" "):
        begin = text.index(word, start)
        tokens.append(TokenScore(word, begin, begin + len(word), per_word.get(word, default)))
        start = begin + len(word)
    return TextScore.from_tokens(text, tokens)


# The synonym's words are likely, the random compound's unlikely: the model prefers the synonym.
LIKELY = {"late": -1.0, "sleeper": -1.0, "owl": -3.0, "night": -2.5, "evening": -3.0, "bird": -3.0,
          "dusk": -4.0, "fowl": -5.0, "silver": -6.0, "screen": -6.0, "grey": -7.0, "matter": -7.0}  # fmt: skip


def scores_for(items_pairs, per_word=LIKELY):
    texts = {p.original.text for p in items_pairs} | {p.variant.text for p in items_pairs}
    return {text: word_score(text, per_word) for text in texts}


def test_preferences_are_the_synonyms_log_probability_less_the_others():
    found = sentence_rows(pairs(), scores_for(pairs()))
    by_level = {row["level"]: row for row in found}
    nc, sentence = by_level["nc"], by_level["sentence"]
    # nc level: the replacement's own tokens. syn = -2; words_syn = mean(-6, -9) = -7.5; rand = mean(-12, -14) = -13;
    # comp = the likelier of head (-3) and modifier (-2.5) = -2.5.
    assert nc["pref_words_syn"] == pytest.approx(-2 - -7.5)
    assert nc["pref_rand"] == pytest.approx(-2 - -13)
    assert nc["pref_comp"] == pytest.approx(-2 - -2.5)
    # Per token: syn -1 per token; comp: head -3/1, modifier -2.5/1 -> -2.5; rand: mean(-6, -7) = -6.5.
    assert nc["pref_comp_per_token"] == pytest.approx(-1 - -2.5)
    assert nc["pref_rand_per_token"] == pytest.approx(-1 - -6.5)
    # The sentence level adds the same context to both sides: the same raw preferences here.
    assert sentence["pref_rand"] == pytest.approx(nc["pref_rand"])
    # Per token at sentence level the context's six tokens dilute the difference: 8 tokens on each side.
    assert sentence["pref_rand_per_token"] == pytest.approx((-2 - -13) / 8)
    # Surprisal of the compound: -(night + owl) = 5.5 at nc level.
    assert nc["surprisal"] == pytest.approx(5.5) and nc["length"] == 8


def test_a_model_that_expects_the_random_compound_has_negative_preferences():
    flipped = {w: -10.0 - v for w, v in LIKELY.items()}
    nc = next(r for r in sentence_rows(pairs(), scores_for(pairs(), flipped)) if r["level"] == "nc")
    assert nc["pref_rand"] < 0 and nc["pref_words_syn"] < 0


def test_a_compound_is_the_mean_of_its_sentences():
    both = pairs() + pairs(sentence="The night owl sang at heart.", sentence_id="naturalistic-2")
    scores = scores_for(both)
    scores["The night owl sang at heart."] = word_score("The night owl sang at heart.", {**LIKELY, "night": -0.5})
    rows = [r for r in compound_rows(sentence_rows(both, scores)) if r["level"] == "nc"]
    assert len(rows) == 1 and rows[0]["sentences"] == 2
    assert rows[0]["surprisal"] == pytest.approx((5.5 + 3.5) / 2)


def test_items_ask_which_reading_with_the_synonym_right_and_the_order_balanced():
    many = [
        p for i in range(9) for p in pairs(sentence_id=f"naturalistic-{i}", sentence=SENTENCE.replace("My", f"{i}"))
    ]
    items, skipped = choice_items(many)
    assert skipped == 0 and len(items) == 9
    first = items[0]
    assert first.context == '0 sister is a night owl at heart.\nHere, "night owl" means:'
    assert first.context == template_of("en").format(sentence="0 sister is a night owl at heart.", compound="night owl")
    assert set(first.choices) == {"late sleeper", "evening bird", "silver screen"} and first.literal == "words_syn"
    assert first.choices[first.gold] == "late sleeper"
    # Each position holds the right answer equally often.
    assert Counter(item.gold for item in items) == {0: 3, 1: 3, 2: 3}
    assert TEMPLATE_VERSION == 1 and template_of("pt").startswith("{sentence}\nAqui")
    assert template_of("de") == template_of("en")


def test_an_item_without_three_distinct_readings_is_skipped_and_counted():
    without_rand = [p for p in pairs() if p.probe != "rand"]
    assert choice_items(without_rand) == ([], 1)
    no_words_syn = [p for p in pairs() if p.probe != "words_syn"]
    [item], _ = choice_items(no_words_syn)
    assert item.literal == "head" and "owl" in item.choices


def test_items_are_scored_from_the_continuations_log_probabilities():
    [item], _ = choice_items(pairs())
    scores = {}
    for text, _ in item.texts():
        scores[text] = word_score(text, LIKELY, default=-1.0)
    [row] = item_rows([item], scores)
    # Continuations " late sleeper" (-2), " evening bird" (-6), " silver screen" (-12) after the context.
    expected = {"late sleeper": -2.0, "evening bird": -6.0, "silver screen": -12.0}
    assert row["loglikelihoods"] == [expected[c] for c in item.choices]
    assert row["acc"] == 1 and row["acc_norm"] == 1 and row["acc_mutual_info"] == 1
    assert item.texts()[0][0] == item.context + DELIMITER + item.choices[0]


@pytest.mark.parametrize(
    "likely, sign", [(["late", "sleeper"], 1), (["silver", "screen", "grey", "matter", "evening", "bird"], -1)]
)
def test_the_preferences_sign_follows_what_the_model_expects(tmp_path, likely, sign):
    # A tiny masked LM that predicts some words readily: the synonym's, or the other readings'.
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from probing.likelihood.scoring import masked_scores
    from tests.tiny_models import save_tiny_bert, words_of

    made = pairs()
    texts = sorted({p.original.text for p in made} | {p.variant.text for p in made})
    folder = save_tiny_bert(tmp_path / "mlm", words_of(texts), texts=texts, masked_lm=True, likely=likely)
    model, tokenizer = AutoModelForMaskedLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    scores = dict(zip(texts, masked_scores(model, tokenizer, texts), strict=True))
    nc = next(row for row in sentence_rows(made, scores) if row["level"] == "nc")
    assert sign * nc["pref_rand"] > 0 and sign * nc["pref_words_syn"] > 0 and sign * nc["pref_rand_per_token"] > 0
