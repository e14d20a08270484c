"""The importers on the real public files in ../shared/data: counts, bad input, idempotency."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from datasets import vocabulary
from datasets.models import Compound, ImportRun, Paraphrase, Sentence, Variant

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def run_json(*args) -> dict:
    return json.loads(run(*args, "--json"))


def test_nctti_imports_every_language_with_its_bad_rows_reported(shared_data):
    summary = run_json("import_nctti", str(shared_data / "nctti"))
    assert summary["compounds"]["created"] == 460
    assert summary["sentences"]["created"] == 3 * 460
    assert summary["warnings"]["corpus pointer"] == Sentence.objects.filter(available=False).count()
    assert summary["warnings"]["missing type score"] == 1
    assert Compound.objects.filter(language="en").count() == 280
    assert Compound.objects.filter(language="pt").count() == 180

    small_fry = Compound.objects.get(language="en", key="small fry")
    assert small_fry.type_score is None
    assert small_fry.compositionality_class == vocabulary.PARTLY
    assert small_fry.flags == ["no type-level score in the source"]
    assert (small_fry.source_file, small_fry.source_line) == ("data_en.tsv", 246)

    pointer = Sentence.objects.get(compound__key="academy award", slot=3)
    assert not pointer.available and pointer.text == "" and pointer.corpus_pointer.startswith("sent3: (")
    # Every available sentence has its compound located; none is silently left without a span.
    assert not Sentence.objects.filter(available=True, span_start__isnull=True).exists()


def test_nctti_finds_inflected_compounds_in_sentences(shared_data):
    run("import_nctti", str(shared_data / "nctti"))
    plural = Sentence.objects.get(compound__language="pt", compound__key="caixa-forte", slot=1)
    assert plural.surface == "caixas-forte"
    assert plural.plural
    accented = Sentence.objects.get(compound__language="pt", compound__key="núcleo atômico", slot=2)
    assert accented.surface == "núcleos atómicos"
    lenses = Sentence.objects.filter(compound__key="contact lens", plural=True).first()
    assert lenses is not None and lenses.surface == "contact lenses"


def test_nctti_paraphrase_repeats_become_frequencies(shared_data):
    run("import_nctti", str(shared_data / "nctti"))
    car_park = Compound.objects.get(language="en", key="car park")
    type_level = {p.text: p.frequency for p in car_park.paraphrases.filter(level=vocabulary.TYPE_LEVEL)}
    assert type_level == {"parking lot": 2, "parking garage": 1, "vehicle lot": 1}
    token = Paraphrase.objects.get(compound=car_park, level=vocabulary.TOKEN_LEVEL)
    assert (token.text, token.sentence.slot) == ("garage", 1)


def test_ncs_creates_neutral_sentences_and_three_probes(shared_data):
    summary = run_json("import_ncs", str(shared_data / "ncs"))
    assert summary["compounds"]["created"] == 281 + 180  # NCS has "dust storm", which NCTTI lacks
    sentence = Sentence.objects.get(
        compound__language="en", compound__key="black operation", kind=vocabulary.NEUTRAL_SHORT
    )
    assert sentence.text == "This is a black operation" and sentence.surface == "black operation"
    variants = {var.kind: var for var in sentence.variants.all()}
    assert set(variants) == {
        vocabulary.SYNONYM_NC,
        vocabulary.HEAD_ONLY,
        vocabulary.MODIFIER_ONLY,
        vocabulary.SYNONYM_BOTH,
    }
    assert variants[vocabulary.SYNONYM_NC].replacement == "secret operation"
    # "This is a black operation" -> "This is an operation": the article change stays outside the span.
    assert variants[vocabulary.HEAD_ONLY].text == "This is an operation"
    assert variants[vocabulary.HEAD_ONLY].replacement == "operation"


def test_ncimp_portuguese_turns_tags_into_spans_and_columns_into_variants(shared_data):
    summary = run_json("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt")
    assert summary["compounds"]["created"] == 180
    assert summary["sentences"]["created"] == 180 * 3 + 180 * 2
    assert "malformed tag" not in summary["warnings"]
    sentence = Sentence.objects.get(compound__key="abalo sísmico", kind=vocabulary.NATURALISTIC, slot=1)
    assert (
        sentence.surface == "abalos sísmicos" and sentence.span_source == vocabulary.SPAN_FROM_TAGS and sentence.plural
    )
    by_kind = {(var.kind, var.rank, var.isolated): var for var in sentence.variants.all()}
    assert by_kind[(vocabulary.SYNONYM_NC, 1, False)].replacement == "tremores de terra"
    assert by_kind[(vocabulary.SYNONYM_BOTH, 1, False)].replacement == "trepidações enérgicas"
    assert by_kind[(vocabulary.ORIGINAL, 1, True)].text == "abalos sísmicos"
    assert [by_kind[(vocabulary.RANDOM_FREQ, k, False)].replacement for k in (1, 2)] == [
        "índios aculturados",
        "cruzadores auxiliares",
    ]
    assert by_kind[(vocabulary.RANDOM, 1, False)].replacement == "novos-ricos"
    assert sum(1 for kind, _, _ in by_kind if kind == vocabulary.RANDOM_FREQ) == 5
    assert sum(1 for kind, _, _ in by_kind if kind == vocabulary.RANDOM) == 5
    compound = sentence.compound
    assert (compound.head, compound.modifier) == ("abalo", "sísmico")


def test_ncimp_pairs_plural_neutral_variants_with_the_plural_sentence(shared_data):
    run("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt")
    plural = Sentence.objects.get(
        compound__key="abalo sísmico", kind=vocabulary.NEUTRAL_SHORT, slot=vocabulary.NEUTRAL_PLURAL_SLOT
    )
    assert plural.text.startswith("Estes são abalos sísmicos")
    # The Portuguese neutral file puts "nc rand freq sentence5" first; ranks follow the names.
    assert plural.variants.get(kind=vocabulary.RANDOM_FREQ, rank=5).text == "Estes são índios aculturados ."
    assert plural.variants.get(kind=vocabulary.SYNONYM_BOTH, rank=1).replacement == "trepidações enérgicas"


def test_ncimp_english_neutral_reports_every_malformed_tag_and_recovers_the_span(shared_data):
    summary = run_json("import_ncimp", str(shared_data / "ncimp" / "EN"), "--language", "en")
    assert summary["compounds"]["created"] == 281
    assert summary["warnings"]["malformed tag"] == 1124
    flagged = [
        f
        for f in Variant.objects.values_list("flags", flat=True)
        if "span recovered from the minimal-pair difference" in f
    ]
    assert len(flagged) == 1124
    awarding = Variant.objects.get(sentence__compound__key="academy award", kind=vocabulary.HEAD_SYNONYM_ONLY, rank=2)
    assert awarding.text == "This is awarding"
    assert awarding.replacement == "awarding"
    assert awarding.span_source == vocabulary.SPAN_FROM_DIFF
    assert awarding.source_column == "only head synonym alt1"


def test_every_import_of_all_public_data_gives_the_published_counts(shared_data):
    run("import_nctti", str(shared_data / "nctti"))
    run("import_ncs", str(shared_data / "ncs"))
    run("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt")
    run("import_ncimp", str(shared_data / "ncimp" / "EN"), "--language", "en")
    stats = json.loads(run("dataset_stats", "--format", "json"))["languages"]
    # 280 NCTTI compounds plus "dust storm", which only NCS and NCIMP have.
    assert stats["en"]["compounds"] == 281
    assert stats["pt"]["compounds"] == 180
    assert (
        stats["en"]["sentences_unavailable"]
        == Sentence.objects.filter(compound__language="en", corpus_pointer__startswith="sent").count()
        > 200
    )
    # NCIMP gives the text of every Portuguese sentence NCTTI had only as a pointer.
    assert stats["pt"]["sentences_unavailable"] == 0
    assert Sentence.objects.filter(compound__language="pt", available=True).exclude(corpus_pointer="").count() == 42


def test_reimporting_changes_nothing(shared_data):
    run("import_nctti", str(shared_data / "nctti"))
    run("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt")
    counts = (Compound.objects.count(), Sentence.objects.count(), Variant.objects.count(), Paraphrase.objects.count())
    again = run_json("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt")
    assert again["variants"] == {"created": 0, "updated": 0, "unchanged": 15120}
    assert again["sentences"]["created"] == again["sentences"]["updated"] == 0
    nctti_again = run_json("import_nctti", str(shared_data / "nctti"))
    # NCTTI's rounded token scores (4.33), derived means and a-priori classes do not undo the NCIMP
    # scores table's precise ones (found beside the PT folder), nor the other way round.
    assert nctti_again["compounds"] == {"created": 0, "updated": 0, "unchanged": 460}
    abalo = Sentence.objects.get(
        compound__language="pt", compound__key="abalo sísmico", kind=vocabulary.NATURALISTIC, slot=1
    )
    assert abalo.token_score == 4.33333333333333
    assert nctti_again["paraphrases"]["created"] == nctti_again["paraphrases"]["updated"] == 0
    assert counts == (
        Compound.objects.count(),
        Sentence.objects.count(),
        Variant.objects.count(),
        Paraphrase.objects.count(),
    )
    # NCTTI's text search never overrides the NCIMP tag spans.
    assert (
        not Sentence.objects.filter(compound__language="pt", kind=vocabulary.NATURALISTIC)
        .exclude(span_source=vocabulary.SPAN_FROM_TAGS)
        .exists()
    )


def test_dry_run_reports_the_same_counts_and_writes_nothing(shared_data):
    summary = run_json("import_nctti", str(shared_data / "nctti"), "--dry-run")
    assert summary["dry_run"] and summary["compounds"]["created"] == 460
    assert Compound.objects.count() == 0 and ImportRun.objects.count() == 0


def test_import_run_records_files_and_checksums(shared_data):
    run("import_nctti", str(shared_data / "nctti"), "--languages", "pt")
    run_record = ImportRun.objects.get()
    assert [f["name"] for f in run_record.files] == ["data_pt.tsv", "sentids_pt.csv"]
    assert all(len(f["sha256"]) == 64 for f in run_record.files)
    assert Compound.objects.filter(import_run=run_record).count() == 180


def planned_rows(table: str) -> float:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_an_import_leaves_the_planner_statistics_of_what_it_wrote(shared_data):
    """Statistics taken while the tables were nearly empty (after other work, or a new install) made the
    planner take the imported tables for tiny ones: a count of variants per language ran for hours."""
    from django.db import connection

    run("import_ncs", str(shared_data / "ncs"))
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM datasets_variant")
        cursor.execute("ANALYZE datasets_variant, datasets_sentence, datasets_compound")
    assert planned_rows("datasets_variant") == 0
    run("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt")
    assert planned_rows("datasets_variant") == pytest.approx(Variant.objects.count(), rel=0.1)
    assert Variant.objects.count() > 1000
