"""Generation with a context model: synonyms ranked by fit in the compound's sentences (a tiny BERT)."""

from __future__ import annotations

import pytest

from building.rules.synonyms.context_fit import SCORED_PER_SIDE
from building.rules.synonyms.lookup import lookup_synonyms
from building.variants.generation import generate_variants
from building.variants.resources import GenerationOptions, open_lexicon
from datasets import vocabulary
from datasets.models import Variant
from tests.building.test_generate_variants import FRONT_MAN, make_compound
from tests.tiny_models import save_tiny_bert, words_of

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def lexical_resources(debian_wordnet, mythes_pt, settings, tmp_path_factory):
    settings.WORDNET_DIR = debian_wordnet
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"
    settings.MYTHES_PT = mythes_pt


def head_synonyms_of(compound) -> list[Variant]:
    return list(
        Variant.objects.filter(
            sentence__compound=compound,
            sentence__kind=vocabulary.NATURALISTIC,
            kind=vocabulary.SYNONYM_HEAD,
            isolated=False,
        ).order_by("rank")
    )


def test_a_context_model_brings_the_synonym_that_fits_the_sentence_into_the_top_five(tmp_path):
    front_man = make_compound("front man", "front", "man", gold="representative", sentences=[FRONT_MAN])
    generate_variants([front_man], GenerationOptions(context_model="none"))
    by_lexicon = [v.details["head"]["synonym"] for v in head_synonyms_of(front_man)]
    assert all("context_fit" not in v.details["head"] for v in head_synonyms_of(front_man))

    found = lookup_synonyms(open_lexicon("en"), "front", "man", "en", "front man")
    candidates = [s.lemma for s in found.head if " " not in s.lemma and s.lemma.casefold() != "man"]
    # A synonym the lexicon ranks outside the top five (but among those scored) is made the one
    # whose embedding is next to "man"'s.
    target = next(
        word for word in candidates[5:SCORED_PER_SIDE] if word.casefold() not in {w.casefold() for w in by_lexicon}
    )
    words = words_of([FRONT_MAN, *(s.lemma for s in found.head), *(s.lemma for s in found.modifier)])
    folder = save_tiny_bert(tmp_path / "tiny", words, texts=[FRONT_MAN], seed=5, layers=2, near={target.lower(): "man"})

    generate_variants([front_man], GenerationOptions(context_model=str(folder)))
    in_context = head_synonyms_of(front_man)
    fits = {v.details["head"]["synonym"]: v.details["head"]["context_fit"] for v in in_context}
    assert target in fits and target not in by_lexicon  # brought into the top five by its fit
    assert fits[target] == max(fits.values())
