"""Synonyms ranked by how well they fit the compound's own sentences (an injected similarity)."""

import pytest

from building.lexicon.base import Synonym
from building.rules.synonyms.context_fit import CONTEXTS, Context, context_fit, contexts_of
from building.rules.synonyms.layout import locate
from building.rules.synonyms.words_syn import (
    SynonymQuery,
    head_synonyms,
    modifier_synonyms,
    scored_in_context,
    words_syn,
)

SENTENCE = ("The band's front man sang all night.", (11, 20))
FREQUENCY = {"serviceman": 3.0, "human": 200.0, "leader": 50.0, "forepart": 0.5, "lead": 80.0}


def synonyms(*lemmas):
    return [Synonym(lemma, 1, 0) for lemma in lemmas]


def args(**changes) -> SynonymQuery:
    base = dict(
        compound="front man",
        modifier="front",
        head="man",
        modifier_synonyms=synonyms("forepart", "lead"),
        head_synonyms=synonyms("human", "serviceman", "leader"),
        frequency=lambda word: FREQUENCY.get(word, 0.0),
        resource="test",
    )
    return SynonymQuery(**{**base, **changes})


class FakeSimilarity:
    """Similarity by which word stands in the substituted sentence; records every call."""

    def __init__(self, closeness):
        self.closeness, self.calls = closeness, []

    def __call__(self, pairs):
        self.calls.append(list(pairs))
        return [max((v for w, v in self.closeness.items() if w in b.split()), default=0.1) for _, b in pairs]


def test_without_a_model_synonyms_keep_the_lexicon_order():
    found = head_synonyms(args())
    assert [r.details["head"]["synonym"] for r in found] == ["human", "leader", "serviceman"]


def test_the_synonym_that_fits_the_sentence_comes_first():
    similarity = FakeSimilarity({"leader": 0.9, "serviceman": 0.5, "human": 0.3, "lead": 0.8, "forepart": 0.2})
    fit = scored_in_context(args(), contexts=[SENTENCE], similarity=similarity, model="fake")
    found = head_synonyms(args(fit=fit))
    assert [r.details["head"]["synonym"] for r in found] == ["leader", "serviceman", "human"]
    assert found[0].details["head"]["context_fit"] == 0.9
    assert [r.details["modifier"]["synonym"] for r in modifier_synonyms(args(fit=fit))] == ["lead", "forepart"]
    # Pairs by the sum of both fits, new words first.
    assert [r.text for r in words_syn(args(fit=fit))][:2] == ["lead leader", "forepart serviceman"]


def test_the_compounds_first_sentences_go_to_the_model_in_one_call():
    similarity = FakeSimilarity({"leader": 0.9})
    second = ("A front man needs a voice.", (2, 11))
    scored_in_context(args(), contexts=[SENTENCE, second], similarity=similarity)
    (call,) = similarity.calls
    used = min(CONTEXTS, 2)
    assert len(call) == (2 + 3) * used  # both modifier and all three head synonyms, in each sentence used
    assert ("The band's front man sang all night.", "The band's front leader sang all night.") in call
    assert (("A front man needs a voice.", "A front leader needs a voice.") in call) == (CONTEXTS > 1)


def test_only_the_best_ranked_candidates_are_scored_and_the_rest_follow_in_order():
    similarity = FakeSimilarity({"serviceman": 0.9, "leader": 0.5})
    layout = locate("front man", "front", "man")
    fit = context_fit(
        [Context(*SENTENCE)], "front man", layout.replace, [], ["human", "leader", "serviceman"], similarity, per_side=2
    )
    assert fit.score("head", "serviceman") is None  # third: past the two scored, however well it would fit
    assert sorted(["serviceman", "human", "leader"], key=lambda w: fit.rank_key("head", w)) == [
        "leader",  # 0.5
        "human",  # 0.1
        "serviceman",  # not scored
    ]


def test_a_sentence_is_cut_to_a_window_around_the_compound():
    text = "one two three four the front man sang five six seven"
    (context,) = contexts_of("front man", [(text, (text.index("front"), text.index(" sang")))], window=2)
    assert context.text == "four the front man sang five"
    assert context.text[context.span[0] : context.span[1]] == "front man"


def test_a_compound_without_sentences_is_scored_alone():
    assert contexts_of("front man", []) == [Context("front man", (0, 9))]
    assert contexts_of("front man", [("", (0, 1)), SENTENCE]) == [Context(*SENTENCE)]


def test_a_similarity_that_loses_pairs_is_an_error():
    with pytest.raises(ValueError, match="values for"):
        scored_in_context(args(), contexts=[SENTENCE], similarity=lambda pairs: [1.0])
