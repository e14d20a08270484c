"""The synonym ranking's score: its features, its weights and where each candidate came from."""

import csv
import re
from pathlib import Path

import pytest

from building.lexicon.base import Synonym
from building.rules.synonyms import crowd, scoring, tuning
from building.rules.synonyms.scoring import Evidence, Proposal, morphology_fit, ranked, recorded_weights
from building.rules.synonyms.words_syn import SynonymQuery, head_synonyms, modifier_synonyms, words_syn

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "nctti"
WEIGHTS = {"sense": 1.0, "frequency": 0.5, "crowd": 2.0, "from_crowd": -0.5, "from_model": -1.0}


def test_each_feature_counts_as_its_weight_says():
    common_sense = Evidence("forepart", sense_rank=1, frequency=0.01)
    crowd_backed = Evidence("leader", sense_rank=3, frequency=0.01, crowd=3)
    frequent = Evidence("lead", sense_rank=2, frequency=1000.0)
    order = [s.evidence.word for s in ranked([common_sense, crowd_backed, frequent], WEIGHTS)]
    # forepart: 1 + 0.5*0.25 = 1.125; leader: 0.9 + 0.125 + 2*0.75 = 2.525; lead: 0.95 + 0.5*0.875 = 1.3875
    assert order == ["leader", "lead", "forepart"]
    assert [s.evidence.word for s in ranked([common_sense, crowd_backed, frequent], {"sense": 1.0})] == [
        "forepart",
        "lead",
        "leader",
    ]


def test_the_parts_add_up_to_the_total_and_name_the_source():
    score = ranked([Evidence("chief", source="model", frequency=10.0)], WEIGHTS)[0]
    assert score.parts["from_model"] == -1.0 and score.parts["sense"] == 0.0
    assert score.total == pytest.approx(sum(score.parts.values()))
    assert score.as_dict() == {"source": "model", "parts": {"frequency": 0.3125, "from_model": -1.0}, "total": -0.6875}


def test_a_source_without_a_weight_is_scored_by_its_evidence_alone():
    other = ranked([Evidence("chief", source="a-thesaurus", sense_rank=1)], WEIGHTS)[0]
    assert other.total == pytest.approx(1.0 + 0.5 * scoring.frequency_feature(0.0))


def test_context_fit_is_normalised_over_the_side_and_missing_fit_scores_nothing():
    scored = scoring.score_all(
        [Evidence("a", context_fit=0.9), Evidence("b", context_fit=0.8), Evidence("c")], {"context_fit": 1.0}
    )
    assert [s.features["context_fit"] for s in scored] == [1.0, 0.0, 0.0]


class FakeMorphology:
    """Analyses as (gender, number) by word."""

    def __init__(self, words):
        self.words = words

    def analyse(self, word, categories):
        from building.lexicon.portuguese_morphology import Analysis

        return [Analysis(word, "nc", g, n) for g, n in self.words.get(word, [])]


def test_morphology_fit_compares_gender_and_number_with_the_replaced_word():
    morphology = FakeMorphology({"mesa": [("f", "s")], "balcão": [("m", "s")], "tábua": [("f", "s")]})
    assert morphology_fit(morphology, "mesa", "tábua", "head") == 1.0
    assert morphology_fit(morphology, "mesa", "balcão", "head") == 0.0
    assert morphology_fit(morphology, "mesa", "xyz", "head") is None
    assert morphology_fit(None, "mesa", "tábua", "head") is None


def query(**changes) -> SynonymQuery:
    base = dict(
        compound="front man",
        modifier="front",
        head="man",
        modifier_synonyms=[Synonym("forepart", 1, 0)],
        head_synonyms=[Synonym("serviceman", 1, 0), Synonym("human", 2, 0)],
        frequency=lambda word: 1.0,
        resource="test",
        weights=WEIGHTS,
    )
    return SynonymQuery(**{**base, **changes})


def test_proposals_enter_the_ranking_marked_with_their_source_and_the_crowd_backs_a_word():
    found = head_synonyms(
        query(
            crowd=[("band leader", 9)],
            proposals=[Proposal("head", "leader", "crowd"), Proposal("head", "frontman", "model")],
        )
    )
    # leader: 2 * 9/10 + 0.5 * 0.5 - 0.5 = 1.55; serviceman: 1 + 0.25; human: 0.95 + 0.25; frontman: 0.25 - 1
    assert [r.text for r in found] == ["front leader", "front serviceman", "front human", "front frontman"]
    ranking = found[0].details["ranking"]
    assert ranking["head"]["source"] == "crowd" and ranking["head"]["parts"]["crowd"] == 1.8
    assert ranking["total"] == ranking["head"]["total"]
    assert found[-1].details["ranking"]["head"]["source"] == "model"


def test_a_pair_is_ranked_by_the_sum_of_its_words_scores_and_keeps_both_parts():
    pair = words_syn(query())[0]
    assert pair.text == "forepart serviceman"
    ranking = pair.details["ranking"]
    assert ranking["total"] == pytest.approx(ranking["modifier"]["total"] + ranking["head"]["total"])
    assert modifier_synonyms(query())[0].details["ranking"]["modifier"]["source"] == "lexicon"


def test_the_recorded_weights_name_only_known_features():
    weights = recorded_weights()
    assert set(weights) == set(scoring.FEATURES)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text))


def _compounds() -> set[str]:
    found = set()
    for language in ("en", "pt"):
        with (DATA / f"data_{language}.tsv").open(encoding="utf-8") as handle:
            found |= {" ".join(row["compound"].casefold().split()) for row in csv.DictReader(handle, delimiter="\t")}
    return {c for c in found if c}


@pytest.mark.skipif(not DATA.is_dir(), reason="the shared NCTTI data is not here")
def test_no_rule_list_or_weight_names_a_compound():
    compounds = _compounds()
    assert len(compounds) > 100
    for path in (Path(scoring.__file__), Path(tuning.__file__), Path(crowd.__file__), scoring.WEIGHTS_FILE):
        text = _words(path.read_text(encoding="utf-8").casefold())
        named = sorted(c for c in compounds if f" {_words(c)} " in f" {text} ")
        assert named == [], f"{path.name} names compounds: {named}"
