"""A likelihood probe of a published release's minimal pairs, end to end in one process (tiny models)."""

from __future__ import annotations

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from probing.likelihood.items import TEMPLATE_VERSION, choice_items
from probing.likelihood.loading import LanguageModel
from probing.likelihood.probe import probe, tables, texts_alone, texts_to_score
from probing.measures.analysis import human_scores
from probing.run.loading import release_probes
from tests.probing.probe_factories import make_probe_data, publish, texts
from tests.tiny_models import save_tiny_llama

pytestmark = pytest.mark.django_db


class Counting:
    """A scorer that counts the texts it is asked to score (each must be asked once)."""

    def __init__(self, model: LanguageModel) -> None:
        self.model, self.asked = model, []

    def score(self, texts, batch_size=None, start_token=False):
        self.asked += list(texts)
        return self.model.score(texts, batch_size, start_token)


@pytest.fixture
def release_pairs():
    make_probe_data()
    probes = release_probes(publish())
    pairs = [p for key in probes.compounds for p in probes.pairs.get(key, ())]
    return pairs, human_scores(probes.snapshot)


def test_a_release_is_probed_with_each_text_scored_once(release_pairs, tmp_path):
    pairs, human = release_pairs
    items, _ = choice_items(pairs)
    corpus = texts() + [text for item in items for text, _ in item.texts()]
    folder = save_tiny_llama(tmp_path / "llama", corpus, causal_lm=True, shape={"max_position_embeddings": 256})
    model = LanguageModel(
        "causal_lm", AutoModelForCausalLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder), {}
    )
    scorer = Counting(model)
    report = probe(pairs, scorer, human, batch_size=8)
    assert len(scorer.asked) == len(set(scorer.asked)) == report["texts_scored"]
    assert set(scorer.asked) == set(texts_to_score(pairs, items)) | set(texts_alone(items))
    # Five compounds, three sentences each (two naturalistic, one neutral), two levels.
    assert len(report["sentences"]) == 5 * 3 * 2 and len(report["compounds"]) == 5 * 2 * 2
    assert all(row["pref_rand"] is not None and row["pref_comp"] is not None for row in report["sentences"])
    assert len(report["items"]) == 15 and report["items_skipped"] == 0
    assert {row["class"] for row in report["accuracy"]} >= {"all", "idiomatic", "compositional"}
    assert all(row["acc_mutual_info"] is not None for row in report["items"])
    assert report["template"]["version"] == TEMPLATE_VERSION
    measures = {(r["measure"], r["subset"]) for r in report["correlations"]}
    assert ("pref_rand", "all") in measures and ("surprisal", "all") in measures


def test_a_text_without_its_score_is_an_error_not_a_gap(release_pairs):
    pairs, human = release_pairs
    with pytest.raises(KeyError, match="were not scored"):
        tables(pairs, [], {}, human)
