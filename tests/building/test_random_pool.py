"""The default NC_Rand pool: real phrases of the language's own sentences beside the lexicon's entries."""

from __future__ import annotations

import pytest

from building.lexicon.portuguese_morphology import DEFAULT_PATHS
from building.variants.resources import GenerationOptions, forget_resources, load_resources, random_pool_entries
from tests.building.test_generate_variants import make_compound

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not DEFAULT_PATHS[0].is_file(), reason="needs Debian's hunspell-pt-pt"),
]

SENTENCE = "Os preceitos rígidos da escola não previam um abalo sísmico tão forte ."


@pytest.fixture(autouse=True)
def lexical_resources(mythes_pt, settings):
    settings.MYTHES_PT = mythes_pt
    forget_resources()
    yield
    forget_resources()


def test_the_portuguese_pool_holds_the_noun_adjective_phrases_of_the_sentences():
    make_compound("abalo sísmico", "sísmico", "abalo", language="pt", sentences=[SENTENCE])
    entries = random_pool_entries("pt")
    assert "preceito rígido" in entries  # from the sentence, in the singular
    assert "abalo sísmico" in entries  # the dataset's compound
    resources = load_resources("pt", GenerationOptions())
    assert "noun-adjective phrases" in resources.pool_source
    found = resources.pool.frequency_matched("água doce", ["doce", "água"], 1.0, n=len(resources.pool))
    assert "preceito rígido" in {c.text for c in found}


def test_english_takes_no_sentence_phrases(wordnet_lexicon):
    make_compound("front man", "front", "man", sentences=["The band's front man sang old songs all night."])
    assert "old song" not in random_pool_entries("en", wordnet_lexicon)
