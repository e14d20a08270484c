import json
from io import StringIO

import pytest
from django.core.management import call_command

from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence

pytestmark = pytest.mark.django_db


def stats(*args) -> dict:
    out = StringIO()
    call_command("dataset_stats", "--format", "json", *args, stdout=out)
    return json.loads(out.getvalue())


def test_the_demo_is_balanced_and_every_sentence_marks_its_compound():
    call_command("load_demo", stdout=StringIO())
    assert stats() == {
        "languages": {
            "en": {
                "compounds": 24,
                "sentences": 24 * 6,
                "sentences_unavailable": 0,
                "variants": 0,
                "paraphrases": stats()["languages"]["en"]["paraphrases"],
            },
            "pt": {
                "compounds": 12,
                "sentences": 12 * 6,
                "sentences_unavailable": 0,
                "variants": 0,
                "paraphrases": stats()["languages"]["pt"]["paraphrases"],
            },
        }
    }
    for language, per_class in (("en", 8), ("pt", 4)):
        for cls, _ in vocabulary.CLASS_CHOICES:
            assert Compound.objects.filter(language=language, compositionality_class=cls).count() == per_class
    for sentence in Sentence.objects.select_related("compound"):
        assert sentence.surface and sentence.span_source == vocabulary.SPAN_FROM_MARKUP
        assert "[" not in sentence.text
    beaver = Compound.objects.get(key="eager beaver")
    assert beaver.gold_synonym == "enthusiastic person"
    top = beaver.paraphrases.order_by("-frequency").first()
    assert top.text == beaver.gold_synonym  # the gold synonym is the most frequent type-level paraphrase


def test_the_demo_lives_in_its_own_collection_beside_imported_data(tmp_path):
    (tmp_path / "data_en.tsv").write_text(
        '"compound"\t"CompScale"\t"CompType"\t"MeanS1"\t"MeanS2"\t"MeanS3"\t"Synonyms"\n'
        '"eager beaver"\t"NC"\t"0.5"\t"0.5"\t"0.5"\t"0.5"\t""\n',
        encoding="utf-8",
    )
    call_command("import_nctti", str(tmp_path), stdout=StringIO())
    call_command("load_demo", stdout=StringIO())
    assert Compound.objects.filter(key="eager beaver").count() == 2
    assert stats("--collection", "default")["languages"]["en"]["compounds"] == 1
    assert stats("--collection", "demo")["languages"]["en"]["compounds"] == 24
    assert Collection.objects.get(slug="default").compounds.get().type_score == 0.5


def test_loading_the_demo_twice_changes_nothing():
    call_command("load_demo", stdout=StringIO())
    out = StringIO()
    call_command("load_demo", "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["compounds"] == {"created": 0, "updated": 0, "unchanged": 36}
    assert summary["sentences"] == {"created": 0, "updated": 0, "unchanged": 216}


def test_a_broken_demo_file_is_refused_with_its_line(tmp_path):
    broken = tmp_path / "mine.json"
    broken.write_text(
        json.dumps(
            {
                "compounds": [
                    {
                        "language": "en",
                        "text": "eager beaver",
                        "modifier": "eager",
                        "head": "beaver",
                        "class": "idiomatic",
                        "type_score": 1,
                        "sentences": [{"text": "no brackets here"}],
                    }
                ]
            },
            indent=2,
        )
    )
    with pytest.raises(Exception, match=r"mine.json:\d+: compound #1: mark the compound with exactly one pair"):
        call_command("load_demo", "--file", str(broken))
    assert Compound.objects.count() == 0


def test_stats_on_an_empty_database():
    assert stats() == {"languages": {}}
