"""create_release, publish_release, export_release, import_release and what a release includes."""

from __future__ import annotations

import hashlib
import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from datasets import vocabulary
from datasets.models import Collection, Compound, Paraphrase, Sentence, Variant
from releases.actions import (
    create_release,
    export_release,
    publish_release,
    release_files,
    release_zip,
)
from releases.collect import collect_snapshot
from releases.formats import ReleaseIntegrityError
from releases.import_actions import import_release
from releases.models import Release, ReleaseError

pytestmark = pytest.mark.django_db

SENTENCE = "Carol is such an eager beaver that she starts at six."


@pytest.fixture
def carol():
    """A curator."""
    return get_user_model().objects.create_user("carol", password="pw")


def compound(text: str = "eager beaver", language: str = "en", collection: str = "team", **fields) -> Compound:
    modifier, head = text.split(" ", 1)
    defaults = {"compositionality_class": vocabulary.IDIOMATIC, "type_score": 1.2, "token_score": 1.0}
    return Compound.objects.create(
        collection=Collection.named(collection),
        language=language,
        text=text,
        modifier=modifier,
        head=head,
        **(defaults | fields),
    )


def sentence(c: Compound, slot: int = 1, text: str = SENTENCE, **fields) -> Sentence:
    start = text.find(c.text)
    span = {"span_start": start, "span_end": start + len(c.text)} if start >= 0 else {}
    return Sentence.objects.create(compound=c, slot=slot, text=text, token_score=1.0, **(span | fields))


def variant(s: Sentence, kind: str, status: str, origin: str = vocabulary.ORIGIN_GENERATED, rank: int = 1) -> Variant:
    text = s.text.replace(s.compound.text, f"{kind} {rank}")
    start = text.find(f"{kind} {rank}")
    return Variant.objects.create(
        sentence=s,
        kind=kind,
        rank=rank,
        text=text,
        span_start=start,
        span_end=start + len(f"{kind} {rank}"),
        status=status,
        origin=origin,
    )


@pytest.fixture
def eager_beaver() -> Compound:
    c = compound()
    s = sentence(c)
    variant(s, vocabulary.SYNONYM_NC, vocabulary.APPROVED)
    return c


# --- what a release includes -----------------------------------------------------------------------


def test_a_release_holds_curated_and_imported_variants_but_not_pending_or_rejected_ones():
    c = compound()
    s = sentence(c)
    variant(s, vocabulary.SYNONYM_NC, vocabulary.APPROVED)
    variant(s, vocabulary.HEAD_ONLY, vocabulary.EDITED)
    variant(
        s, vocabulary.MODIFIER_ONLY, vocabulary.GENERATED, origin=vocabulary.ORIGIN_IMPORTED
    )  # from a published file
    variant(s, vocabulary.GENERIC_HEAD, vocabulary.GENERATED)  # pending review
    variant(s, vocabulary.GENERIC_MODIFIER, vocabulary.REJECTED)
    variant(s, vocabulary.SYNONYM_BOTH, vocabulary.REJECTED, origin=vocabulary.ORIGIN_IMPORTED)

    (released,) = collect_snapshot(["en"]).compounds

    kinds = {x.kind: x.status for x in released.sentences[0].variants}
    assert kinds == {
        vocabulary.SYNONYM_NC: vocabulary.APPROVED,
        vocabulary.HEAD_ONLY: vocabulary.EDITED,
        vocabulary.MODIFIER_ONLY: vocabulary.GENERATED,
    }


def test_a_release_leaves_out_corpus_pointers_but_keeps_their_token_paraphrases():
    c = compound()
    sentence(c, slot=1)
    pointer = sentence(c, slot=3, text="", available=False, corpus_pointer="sent3: ('http://…', 140)")
    Paraphrase.objects.create(compound=c, level=vocabulary.TYPE_LEVEL, text="enthusiast", frequency=3)
    Paraphrase.objects.create(
        compound=c, sentence=pointer, level=vocabulary.TOKEN_LEVEL, text="keen worker", frequency=2
    )

    (released,) = collect_snapshot(["en"]).compounds

    assert [s.slot for s in released.sentences] == [1]
    assert {(p.level, p.slot, p.text, p.frequency) for p in released.paraphrases} == {
        ("type", None, "enthusiast", 3),
        ("token", 3, "keen worker", 2),
    }


def test_a_release_carries_the_reference_scores_by_default(eager_beaver):
    snapshot = collect_snapshot(["en"])
    (released,) = snapshot.compounds
    assert snapshot.scores.source == "reference"
    assert (released.type_score, released.token_score, released.sentences[0].token_score) == (1.2, 1.0, 1.0)


def test_collecting_takes_a_fixed_number_of_queries(django_assert_max_num_queries):
    for n in range(12):
        c = compound(f"eager beaver{n}")
        for slot in (1, 2, 3):
            s = sentence(c, slot=slot, text=f"Carol is such an eager beaver{n} today.")
            variant(s, vocabulary.SYNONYM_NC, vocabulary.APPROVED)
            Paraphrase.objects.create(compound=c, sentence=s, level=vocabulary.TOKEN_LEVEL, text=f"keen {slot}")
    with django_assert_max_num_queries(5):
        assert len(collect_snapshot(["en"]).compounds) == 12


def test_campaign_scores_replace_the_reference_ones_for_the_rated_compounds():
    from annotation.models import Campaign, FilterPolicy
    from annotation.reports.build import campaign_report

    call_command("load_demo", stdout=StringIO())
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", "demo-type", stdout=StringIO())
    policy = FilterPolicy.objects.get(name="rho>=0.2")
    type_report = campaign_report(Campaign.objects.get(slug="demo-type"), policy, save_run=False)
    rated = type_report["compounds"]["rows"][0]
    expected = {
        row["question"]: row["comp_mean"]
        for row in type_report["compounds"]["rows"]
        if row["compound"] == rated["compound"]
    }

    snapshot = collect_snapshot(["en"], collections=["demo"], campaigns=["demo-type", "demo-token"], policy="rho>=0.2")

    released = next(c for c in snapshot.compounds if c.text == rated["compound_text"])
    assert released.type_score == pytest.approx(expected["compound_score"])
    assert released.head_score == pytest.approx(expected["head_score"])
    assert released.modifier_score == pytest.approx(expected["modifier_score"])
    assert released.token_score != Compound.objects.get(text=rated["compound_text"]).token_score
    assert snapshot.scores.source == "campaign"
    assert snapshot.scores.campaigns == ("demo-token", "demo-type")
    assert snapshot.scores.policy["name"] == "rho>=0.2" and snapshot.scores.policy["min_rho"] == 0.2
    assert {a.source for a in snapshot.agreement} == {"campaign demo-token", "campaign demo-type"}
    assert all(a.n_ratings > 0 and a.language == "en" for a in snapshot.agreement)


def test_an_unknown_campaign_is_a_clear_error(eager_beaver):
    with pytest.raises(ReleaseError, match="no campaign nope"):
        collect_snapshot(["en"], campaigns=["nope"])


def test_the_same_compound_in_two_collections_must_be_disambiguated(eager_beaver):
    compound(collection="other")
    with pytest.raises(ReleaseError, match="eager beaver .en. is in collections other and team"):
        create_release("1.0.0", ["en"])
    assert create_release("1.0.0", ["en"], collections=["team"]).counts["en"]["compounds"] == 1


# --- create and publish ----------------------------------------------------------------------------


def test_creating_a_release_stores_every_file_with_its_checksum(eager_beaver, carol):
    release = create_release("1.0.0", ["en"], user=carol, title="First", citation="Us (2025)")

    files = release_files(release)
    assert release.status == Release.Status.DRAFT and release.created_by == carol
    assert release.checksum == hashlib.sha256(files["manifest.json"]).hexdigest()
    assert json.loads(files["manifest.json"]) == release.manifest
    assert {f["path"] for f in release.manifest["files"]} == set(files) - {"manifest.json"}
    assert hashlib.sha256(release_zip(release)).hexdigest() == release.zip_sha256
    assert release.counts == {
        "en": {"compounds": 1, "classes": {"idiomatic": 1}, "sentences": 1, "variants": {"synonym_nc": 1}}
    }
    assert release.scores["source"] == "reference" and release.languages == ["en"]


def test_a_release_can_be_published_at_once(eager_beaver, carol):
    release = create_release("1.0.0", ["en"], user=carol, publish=True)
    assert release.status == Release.Status.PUBLISHED and release.published_by == carol and release.published_at


def test_publishing_twice_is_a_clear_error(eager_beaver, carol):
    release = publish_release(create_release("1.0.0", ["en"]), carol)
    with pytest.raises(ReleaseError, match="1.0.0 is published already"):
        publish_release(release, carol)


def test_an_existing_version_is_refused_and_the_next_one_suggested(eager_beaver):
    create_release("1.0.0", ["en"], publish=True)
    with pytest.raises(ReleaseError, match=r"release 1.0.0 exists already \(published\).*1.0.1"):
        create_release("1.0.0", ["en"])


@pytest.mark.parametrize("version", ["1.0", "v1.0.0", "01.0.0", "1.0.0-beta", ""])
def test_a_version_must_be_major_minor_patch(eager_beaver, version):
    with pytest.raises(ReleaseError, match="MAJOR.MINOR.PATCH"):
        create_release(version, ["en"])


def test_an_empty_release_is_refused(eager_beaver):
    with pytest.raises(ReleaseError, match="nothing to release: no compounds in pt"):
        create_release("1.0.0", ["pt"])
    assert not Release.objects.exists()


# --- export and import -----------------------------------------------------------------------------


def test_export_writes_the_verified_files_and_the_zip(eager_beaver, tmp_path):
    release = create_release("1.0.0", ["en"], publish=True)
    written = export_release(release, tmp_path / "out")
    assert {f["path"] for f in written} == set(release_files(release)) | {"release.zip"}
    for f in written:
        assert hashlib.sha256((tmp_path / "out" / f["path"]).read_bytes()).hexdigest() == f["sha256"]


def test_export_refuses_a_folder_that_holds_something(eager_beaver, tmp_path):
    (tmp_path / "old.txt").write_text("hello")
    with pytest.raises(ReleaseError, match="not an empty folder"):
        export_release(create_release("1.0.0", ["en"]), tmp_path)


def test_export_refuses_a_release_whose_stored_files_were_changed(eager_beaver, tmp_path):
    release = create_release("1.0.0", ["en"])
    release.files.filter(path="tidy/compounds.jsonl").update(content=b"{}\n")
    with pytest.raises(ReleaseIntegrityError, match="tidy/compounds.jsonl"):
        export_release(release, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_import_keeps_status_and_marks_variants_imported(tmp_path):
    c = compound(gold_synonym="enthusiast", frequency=1.5, pmi=2.0)
    s = sentence(c)
    variant(s, vocabulary.SYNONYM_NC, vocabulary.EDITED)
    variant(s, vocabulary.HEAD_ONLY, vocabulary.GENERATED, origin=vocabulary.ORIGIN_IMPORTED)
    export_release(create_release("1.0.0", ["en"]), tmp_path / "out")

    imported = import_release(tmp_path / "out")

    assert (imported.version, imported.collection) == ("1.0.0", "release-1-0-0")
    copy = Compound.objects.get(collection__slug="release-1-0-0")
    assert (copy.gold_synonym, copy.frequency, copy.pmi, copy.type_score) == ("enthusiast", 1.5, 2.0, 1.2)
    assert copy.sentences.get().token_score == 1.0
    variants = {x.kind: (x.status, x.origin) for x in Variant.objects.filter(sentence__compound=copy)}
    assert variants == {
        vocabulary.SYNONYM_NC: (vocabulary.EDITED, vocabulary.ORIGIN_IMPORTED),
        vocabulary.HEAD_ONLY: (vocabulary.GENERATED, vocabulary.ORIGIN_IMPORTED),
    }


def test_import_from_the_zip_into_a_named_collection(eager_beaver, tmp_path):
    export_release(create_release("1.0.0", ["en"]), tmp_path / "out")
    imported = import_release(tmp_path / "out" / "release.zip", collection="mirror")
    assert imported.summary.tallies["compounds"].created == 1
    assert Compound.objects.filter(collection__slug="mirror").count() == 1


def test_import_of_a_tampered_file_names_it_and_writes_nothing(eager_beaver, tmp_path):
    export_release(create_release("1.0.0", ["en"]), tmp_path / "out")
    pairs = tmp_path / "out" / "tidy" / "pairs.jsonl"
    pairs.write_bytes(pairs.read_bytes().replace(b"eager", b"eaGer"))
    with pytest.raises(ReleaseError, match="checksum verification failed.*tidy/pairs.jsonl"):
        import_release(tmp_path / "out")
    assert not Collection.objects.filter(slug="release-1-0-0").exists()


def test_import_of_a_folder_whose_zip_differs_is_refused(eager_beaver, tmp_path):
    export_release(create_release("1.0.0", ["en"]), tmp_path / "one")
    compound("night owl")
    export_release(create_release("1.1.0", ["en"]), tmp_path / "two")
    (tmp_path / "one" / "release.zip").write_bytes((tmp_path / "two" / "release.zip").read_bytes())
    with pytest.raises(ReleaseError, match="release.zip: its files differ"):
        import_release(tmp_path / "one")
