"""Generating minimal pairs into the database: table 1 of the NCIMP paper, regeneration, the command."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from building.models import BuildJob
from building.rules.grammar.inflection import pluralise
from building.rules.grammar.sentence_words import at_sentence_start, capitalise_first
from building.rules.synonyms import scoring
from building.tasks import start_generation_job
from building.variants.generation import generate_variants
from building.variants.jobs import run_generation_batch
from building.variants.resources import GenerationOptions
from datasets import vocabulary
from datasets.models import Collection, Compound, Paraphrase, Sentence, Variant

pytestmark = [pytest.mark.django_db]

FRONT_MAN = "John Paul II was an effective front man for the catholic church."


@pytest.fixture(autouse=True)
def lexical_resources(debian_wordnet, mythes_pt, settings, tmp_path_factory):
    """Real WordNet and MyThes; a private NLTK data folder."""
    settings.WORDNET_DIR = debian_wordnet
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"
    settings.MYTHES_PT = mythes_pt


def make_compound(text, modifier, head, language="en", gold="", sentences=()) -> Compound:
    compound = Compound.objects.create(
        collection=Collection.named("test"), language=language, text=text, modifier=modifier, head=head,
        gold_synonym=gold,
    )  # fmt: skip
    for slot, sentence in enumerate(sentences, start=1):
        start = sentence.casefold().index(text.split()[0].casefold())
        end = start + len(text) + (1 if sentence[start + len(text)] == "s" else 0)
        Sentence.objects.create(
            compound=compound, slot=slot, text=sentence, span_start=start, span_end=end, plural=end > start + len(text)
        )
    return compound


def variants(compound: Compound, kind: str, sentence_kind: str = vocabulary.NATURALISTIC) -> list[Variant]:
    return list(
        Variant.objects.filter(
            sentence__compound=compound, sentence__kind=sentence_kind, sentence__slot=1, kind=kind, isolated=False
        ).order_by("rank")
    )


def test_front_man_gets_the_minimal_pairs_of_table_1():
    front_man = make_compound("front man", "front", "man", gold="representative", sentences=[FRONT_MAN])
    summary = generate_variants([front_man])
    assert summary.compounds == 1 and summary.created > 40

    (syn,) = variants(front_man, vocabulary.SYNONYM_NC)
    assert syn.text == "John Paul II was an effective representative for the catholic church."
    assert syn.replacement == "representative"
    (head,) = variants(front_man, vocabulary.HEAD_ONLY)
    assert head.text == "John Paul II was an effective man for the catholic church."
    (modifier,) = variants(front_man, vocabulary.MODIFIER_ONLY)
    assert modifier.text == "John Paul II was an effective front for the catholic church."

    words_syn = variants(front_man, vocabulary.SYNONYM_BOTH)
    assert [x.rank for x in words_syn] == [1, 2, 3, 4, 5]
    assert len({x.replacement for x in words_syn}) == 5
    for pair in words_syn:
        first, second = pair.replacement.split()
        assert first != "front" and second != "man"
        assert pair.text == FRONT_MAN.replace("front man", pair.replacement)
        assert pair.details["resource"].startswith("WordNet")

    rand = variants(front_man, vocabulary.RANDOM_FREQ)
    assert len(rand) == 5
    for pair in rand:
        assert pair.text == FRONT_MAN.replace("front man", pair.replacement)
        assert len(pair.replacement.split()) == 2
        assert not {"front", "man"} & set(pair.replacement.split())
        assert pair.details["f_avg"] > 0


def test_every_variant_span_is_exactly_its_replacement():
    beaver = make_compound(
        "eager beaver", "eager", "beaver", gold="hard worker",
        sentences=["An eager beaver like her never stops.", "Those eager beavers stayed late.", "Eager beavers never rest."],
    )  # fmt: skip
    generate_variants([beaver])
    found = Variant.objects.filter(sentence__compound=beaver)
    assert found.count() > 100
    plural = capitalised = 0
    for variant in found:
        # The replacement as the sentence's grammar wants it: in the plural in a plural sentence, with a
        # capital at the start of a sentence (not a word shown alone); anything else in the span is a mistake.
        expected = variant.details["replacement"]
        if variant.sentence.plural:
            expected, plural = pluralise(expected, "en")[0], plural + 1
        if not variant.isolated and at_sentence_start(variant.text, variant.span_start):
            expected, capitalised = capitalise_first(expected), capitalised + 1
        assert variant.text[variant.span_start : variant.span_end] == expected, variant
    assert plural > 20 and capitalised > 20  # both cases were checked, not skipped
    (syn,) = variants(beaver, vocabulary.SYNONYM_NC)
    assert syn.text == "A hard worker like her never stops."
    plural_syn = Variant.objects.get(
        sentence__compound=beaver, sentence__kind=vocabulary.NATURALISTIC, sentence__slot=2, kind=vocabulary.SYNONYM_NC
    )
    assert plural_syn.text == "Those hard workers stayed late."


def test_neutral_sentences_are_created_for_the_compound_and_each_variant():
    beaver = make_compound("eager beaver", "eager", "beaver", gold="hard worker")
    generate_variants([beaver])
    neutral = {(s.kind, s.slot): s.text for s in beaver.sentences.all()}
    assert neutral[(vocabulary.NEUTRAL_SHORT, 1)] == "This is an eager beaver"
    assert neutral[(vocabulary.NEUTRAL_SHORT, 2)] == "These are eager beavers"
    assert neutral[(vocabulary.NEUTRAL_LONG, 1)] == "This is what an eager beaver is supposed to be"
    (syn,) = variants(beaver, vocabulary.SYNONYM_NC, vocabulary.NEUTRAL_SHORT)
    assert syn.text == "This is a hard worker"
    isolated = Variant.objects.get(sentence__compound=beaver, kind=vocabulary.SYNONYM_NC, isolated=True)
    assert isolated.text == "hard worker" and (isolated.span_start, isolated.span_end) == (0, 11)


def test_neutral_sentences_get_nc_rand_when_naturalistic_sentence_1_is_unavailable():
    beaver = make_compound(
        "eager beaver", "eager", "beaver", gold="hard worker",
        sentences=["She is an eager beaver at work.", "He was an eager beaver all year."],
    )  # fmt: skip
    beaver.sentences.filter(slot=1).update(available=False, text="")
    generate_variants([beaver])
    for kind in (vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_LONG):
        assert len(variants(beaver, vocabulary.RANDOM_FREQ, kind)) == 5
    isolated = Variant.objects.filter(sentence__compound=beaver, kind=vocabulary.RANDOM_FREQ, isolated=True)
    assert isolated.count() == 5
    second = Variant.objects.filter(sentence__compound=beaver, sentence__slot=2, sentence__kind=vocabulary.NATURALISTIC)
    assert second.filter(kind=vocabulary.RANDOM_FREQ).count() == 5


def test_portuguese_compounds_use_the_mythes_thesauri_and_agree_in_the_neutral_pattern():
    agua = make_compound(
        "água doce", "doce", "água", language="pt", gold="água potável",
        sentences=["O Brasil conta com grandes reservas de água doce."],
    )  # fmt: skip
    generate_variants([agua])
    assert agua.sentences.get(kind=vocabulary.NEUTRAL_SHORT, slot=1).text == "Esta é uma água doce"
    assert agua.sentences.get(kind=vocabulary.NEUTRAL_SHORT, slot=2).text == "Estas são águas doces"
    words_syn = variants(agua, vocabulary.SYNONYM_BOTH)
    assert words_syn, "MyThes should give synonyms of água and doce"
    assert all(x.details["resource"] for x in words_syn)
    (syn,) = variants(agua, vocabulary.SYNONYM_NC)
    assert syn.text == "O Brasil conta com grandes reservas de água potável."


def test_regeneration_keeps_curator_decisions_and_refreshes_the_rest():
    front_man = make_compound("front man", "front", "man", gold="representative", sentences=[FRONT_MAN])
    generate_variants([front_man])
    curator = get_user_model().objects.create_user("carol")
    (syn,) = variants(front_man, vocabulary.SYNONYM_NC)
    syn.text, syn.status, syn.decided_by = FRONT_MAN.replace("front man", "spokesman"), vocabulary.EDITED, curator
    syn.span_end = syn.span_start + len("spokesman")
    syn.save()
    (head,) = variants(front_man, vocabulary.HEAD_ONLY)
    Variant.objects.filter(pk=head.pk).update(status=vocabulary.REJECTED)
    stale = variants(front_man, vocabulary.SYNONYM_BOTH)[0]
    Variant.objects.filter(pk=stale.pk).update(text="something stale")
    count = Variant.objects.filter(sentence__compound=front_man).count()

    summary = generate_variants([front_man])

    syn.refresh_from_db()
    assert syn.replacement == "spokesman" and syn.status == vocabulary.EDITED
    assert Variant.objects.get(pk=head.pk).status == vocabulary.REJECTED
    assert Variant.objects.get(pk=stale.pk).text != "something stale"
    assert summary.kept_decided == 2 and summary.updated == 1 and summary.created == 0
    assert Variant.objects.filter(sentence__compound=front_man).count() == count

    front_man.gold_synonym = "figurehead"
    front_man.save()
    generate_variants([front_man])
    syn.refresh_from_db()
    assert syn.replacement == "spokesman", "a curator's edit survives a new gold synonym"


def test_imported_variants_are_never_replaced():
    front_man = make_compound("front man", "front", "man", gold="representative", sentences=[FRONT_MAN])
    sentence = front_man.sentences.get()
    imported = Variant.objects.create(
        sentence=sentence, kind=vocabulary.SYNONYM_NC, text="John Paul II was an effective spokesman for the catholic church.",
        span_start=30, span_end=39, origin=vocabulary.ORIGIN_IMPORTED,
    )  # fmt: skip
    generate_variants([front_man])
    imported.refresh_from_db()
    assert imported.replacement == "spokesman"


def test_the_command_prints_variants_per_probe_and_creates_new_compounds():
    make_compound("front man", "front", "man", gold="representative", sentences=[FRONT_MAN])
    out = StringIO()
    call_command("generate_variants", "--language", "en", "--compounds", "front man,eager beaver", "--format", "json",
                 stdout=out)  # fmt: skip
    report = json.loads(out.getvalue())
    names = [entry["compound"] for entry in report["compounds"]]
    assert names == ["front man", "eager beaver"]
    beaver = Compound.objects.get(key="eager beaver")
    assert (beaver.modifier, beaver.head) == ("eager", "beaver")
    front = report["compounds"][0]["variants"]
    assert {"syn", "head", "modifier", "words_syn", "rand", "neutral"} <= set(front)
    natural_syn = [x for x in front["syn"] if x["sentence_kind"] == vocabulary.NATURALISTIC]
    assert natural_syn == [
        {
            "kind": vocabulary.SYNONYM_NC,
            "rank": 1,
            "replacement": "representative",
            "sentence": "John Paul II was an effective representative for the catholic church.",
            "span": [30, 44],
            "status": vocabulary.GENERATED,
            "flags": [],
            "isolated": False,
            "sentence_kind": vocabulary.NATURALISTIC,
            "slot": 1,
        }
    ]
    assert len([x for x in front["rand"] if x["sentence_kind"] == vocabulary.NATURALISTIC]) == 5
    assert {x["sentence"] for x in front["neutral"]} >= {"This is a front man", "These are front men"}
    # The new compound has no gold synonym yet: no NC_Syn, said in the summary.
    assert report["compounds"][1]["variants"]["syn"] == []
    assert any("gold synonym" in note for note in report["summary"]["notes"]["eager beaver (en)"])


def test_the_command_rejects_a_single_word_compound():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="two words"):
        call_command("generate_variants", "--language", "en", "--compounds", "beaver", stdout=StringIO())


def test_a_generation_job_runs_in_batches_with_progress_and_ignores_repeats(django_capture_on_commit_callbacks):
    compounds = [
        make_compound("front man", "front", "man", gold="representative", sentences=[FRONT_MAN]),
        make_compound("eager beaver", "eager", "beaver", gold="hard worker"),
        make_compound("research lab", "research", "lab", gold="laboratory"),
    ]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = start_generation_job(compounds, GenerationOptions(), batch=2)
    assert len(callbacks) == 1 and job.total == 3 and job.options["parts"] == 2
    assert run_generation_batch(job.pk, 0) is True
    job.refresh_from_db()
    assert (job.status, job.done, job.done_parts) == (BuildJob.Status.RUNNING, 2, [0])
    assert run_generation_batch(job.pk, 0) is False  # a redelivered task does nothing
    assert run_generation_batch(job.pk, 1) is True
    job.refresh_from_db()
    assert job.status == BuildJob.Status.DONE and job.done == 3 and job.progress == 1.0
    assert job.result["created"] == Variant.objects.count()


def test_portuguese_feminine_adjectives_are_looked_up_as_lemmas_and_agree_with_a_new_head(monkeypatch):
    # The lexicon's own order (sense, then frequency), so that the words this test is about are among the five.
    monkeypatch.setattr(scoring, "recorded_weights", lambda: {"sense": 1.0, "frequency": 0.05})
    bebida = make_compound(
        "bebida alcoólica", "alcoólica", "bebida", language="pt", gold="bebida com álcool",
        sentences=["É proibido vender bebida alcoólica para menores."],
    )  # fmt: skip
    generate_variants([bebida])
    modifier_syn = variants(bebida, vocabulary.SYNONYM_MODIFIER)
    assert modifier_syn, "alcoólica is found through its lemma alcoólico"
    assert all(x.replacement.startswith("bebida ") and x.replacement.endswith("a") for x in modifier_syn)
    head_syn = variants(bebida, vocabulary.SYNONYM_HEAD)
    masculine = {x.replacement.split()[0]: x for x in head_syn if x.replacement.split()[0].endswith("o")}
    # The hunspell-pt-pt dictionary knows "líquido" as a masculine noun: the adjective follows it.
    assert masculine["líquido"].text == "É proibido vender líquido alcoólico para menores."
    assert not any(f.startswith("agreement:") for f in masculine["líquido"].flags)
    # "tonto" it knows only as an adjective: no head to agree with, so a curator is asked.
    assert masculine["tonto"].text == "É proibido vender tonto alcoólica para menores."
    assert any("'tonto'" in f for f in masculine["tonto"].flags)
    lone = variants(bebida, vocabulary.HEAD_SYNONYM_ONLY)
    assert lone and not any(x.flags for x in lone), "a noun alone has nothing to agree with"


def test_portuguese_head_synonyms_rewrite_the_determiners_around_them():
    exame = make_compound(
        "exame clínico", "clínico", "exame", language="pt", gold="consulta médica",
        sentences=["Ele fez um exame clínico completo no hospital."],
    )  # fmt: skip
    generate_variants([exame])
    by_head = {x.replacement.split()[0]: x for x in variants(exame, vocabulary.SYNONYM_HEAD)}
    feminine = [x for head, x in by_head.items() if head.endswith(("ção", "ise", "a"))]
    assert feminine, f"no feminine head among {sorted(by_head)}"
    for variant in feminine:
        head = variant.replacement.split()[0]
        assert variant.text == f"Ele fez uma {head} clínica completa no hospital.", variant.flags


def test_a_synonym_variant_keeps_where_its_word_came_from_and_its_score_parts():
    front_man = make_compound("front man", "front", "man", sentences=[FRONT_MAN])
    Paraphrase.objects.create(compound=front_man, level=vocabulary.TYPE_LEVEL, text="band leader", frequency=3)
    generate_variants([front_man])
    heads = variants(front_man, vocabulary.SYNONYM_HEAD)
    rankings = [v.details["ranking"] for v in heads]
    assert all(r["total"] == r["head"]["total"] for r in rankings)
    assert [r["total"] for r in rankings] == sorted((r["total"] for r in rankings), reverse=True)
    assert {r["head"]["source"] for r in rankings} <= {"lexicon", "crowd"}
    crowd = [v for v in heads if v.details["ranking"]["head"]["source"] == "crowd"]
    assert [v.replacement for v in crowd] in ([], ["front leader"])
    lexicon = next(r for r in rankings if r["head"]["source"] == "lexicon")
    assert lexicon["head"]["parts"]["sense"] > 0
