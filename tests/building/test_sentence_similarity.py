"""The sentence similarity that ranks synonyms in context, with a tiny BERT whose words we place."""

import pytest

from building.lexicon.base import Synonym
from building.rules.synonyms.words_syn import SynonymQuery, head_synonyms, scored_in_context
from building.variants.sentence_similarity import SentenceSimilarity, covers, model_folder
from tests.tiny_models import save_tiny_bert, words_of

SENTENCE = "the band's front man sang all night ."
TEXTS = [SENTENCE, *(SENTENCE.replace("man", word) for word in ("human", "leader", "serviceman"))]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    # "leader" is placed next to "man"; "human" and "serviceman" are random words.
    folder = tmp_path_factory.mktemp("tiny-bert")
    return save_tiny_bert(folder, words_of(TEXTS), texts=TEXTS, seed=3, layers=2, near={"leader": "man"})


def test_the_word_placed_near_scores_closer(tiny):
    similarity = SentenceSimilarity(str(tiny))
    near, far, other = similarity([(TEXTS[0], TEXTS[2]), (TEXTS[0], TEXTS[1]), (TEXTS[0], TEXTS[3])])
    assert near > far and near > other
    assert similarity([(TEXTS[0], TEXTS[0])]) == [pytest.approx(1.0)]


def test_the_ranking_moves_to_the_contextually_closer_synonym(tiny):
    query = SynonymQuery(
        compound="front man",
        modifier="front",
        head="man",
        modifier_synonyms=[],
        head_synonyms=[Synonym("human", 1, 0), Synonym("serviceman", 1, 0), Synonym("leader", 2, 0)],
        frequency=lambda word: {"human": 200.0, "serviceman": 3.0, "leader": 50.0}[word],
    )
    before = [r.details["head"]["synonym"] for r in head_synonyms(query)]
    assert before[-1] == "leader"  # a later sense: last by the lexicon's order
    fit = scored_in_context(query, contexts=[(SENTENCE, (11, 20))], similarity=SentenceSimilarity(str(tiny)))
    after = [r.details["head"]["synonym"] for r in head_synonyms(query.with_fit(fit))]
    assert after[0] == "leader"


def test_an_unknown_model_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a folder"):
        model_folder(str(tmp_path / "missing"))
    assert (model_folder("bundled:minilm") / "config.json").is_file()


def test_the_bundled_model_ranks_english_only_and_a_folder_every_language(tiny):
    assert covers("bundled:minilm", "en-GB") and not covers("bundled:minilm", "pt")
    assert covers(str(tiny), "pt")
