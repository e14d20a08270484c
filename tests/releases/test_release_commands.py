"""create_release, export_release and import_release from the shell, errors included."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence, Variant
from releases.models import Release

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def dataset() -> None:
    """An English and a Portuguese compound, each with one sentence and an approved variant."""
    for language, text, sentence_text in [
        ("en", "eager beaver", "Carol is such an eager beaver that she starts at six."),
        ("pt", "ovelha negra", "Ele era a ovelha negra da família."),
    ]:
        words = text.split()
        compound = Compound.objects.create(
            collection=Collection.named("team"),
            language=language,
            text=text,
            modifier=words[0] if language == "en" else words[1],
            head=words[1] if language == "en" else words[0],
            compositionality_class=vocabulary.IDIOMATIC,
            type_score=1.0,
        )
        start = sentence_text.index(text)
        sentence = Sentence.objects.create(
            compound=compound, slot=1, text=sentence_text, span_start=start, span_end=start + len(text)
        )
        Variant.objects.create(
            sentence=sentence,
            kind=vocabulary.HEAD_ONLY,
            text=sentence_text.replace(text, compound.head),
            span_start=start,
            span_end=start + len(compound.head),
            status=vocabulary.APPROVED,
        )


def test_create_release_prints_version_status_counts_and_checksum(dataset):
    out = run("create_release", "--release", "1.0.0", "--languages", "en,pt", "--title", "First", "--publish")
    release = Release.objects.get()
    assert "release 1.0.0 (published): en, pt" in out
    assert "en: 1 compounds (idiomatic 1), 1 sentences, 1 variants" in out
    assert release.checksum in out
    assert release.title == "First"


def test_create_release_refuses_an_existing_version(dataset):
    run("create_release", "--release", "1.0.0")
    with pytest.raises(CommandError, match="release 1.0.0 exists already"):
        run("create_release", "--release", "1.0.0")


def test_create_release_refuses_an_unknown_collection(dataset):
    with pytest.raises(CommandError, match="no collection nope"):
        run("create_release", "--release", "1.0.0", "--collections", "nope")


def test_export_release_prints_every_file_with_its_sha256(dataset, tmp_path):
    run("create_release", "--release", "1.0.0", "--publish")
    out = run("export_release", "--release", "1.0.0", "--out", str(tmp_path / "out"))
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        assert f"{entry['path']}" in out and entry["sha256"] in out
    assert "release.zip" in out and Release.objects.get().checksum in out


def test_export_release_of_an_unknown_version_lists_the_known_ones(dataset, tmp_path):
    run("create_release", "--release", "1.0.0")
    with pytest.raises(CommandError, match=r"no release 2.0.0 \(releases: 1.0.0\)"):
        run("export_release", "--release", "2.0.0", "--out", str(tmp_path))


def test_import_release_prints_the_summary(dataset, tmp_path):
    run("create_release", "--release", "1.0.0", "--publish")
    run("export_release", "--release", "1.0.0", "--out", str(tmp_path / "out"))
    out = run("import_release", str(tmp_path / "out"), "--collection", "copy")
    assert "release 1.0.0 → collection copy" in out
    assert "compounds    created      2" in out
    assert (
        Variant.objects.filter(sentence__compound__collection__slug="copy", origin=vocabulary.ORIGIN_IMPORTED).count()
        == 2
    )


def test_import_release_rejects_a_tampered_export_naming_the_file(dataset, tmp_path):
    run("create_release", "--release", "1.0.0", "--publish")
    run("export_release", "--release", "1.0.0", "--out", str(tmp_path / "out"))
    scores = tmp_path / "out" / "human_compositionality_scores.csv"
    scores.write_text(scores.read_text(encoding="utf-8").replace("1.0", "4.0"), encoding="utf-8")
    with pytest.raises(CommandError, match="human_compositionality_scores.csv: sha256 is .* but the manifest says"):
        run("import_release", str(tmp_path / "out"))
    assert not Collection.objects.filter(slug="release-1-0-0").exists()


def test_import_release_of_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="no such file or folder"):
        run("import_release", str(tmp_path / "nowhere"))


@pytest.mark.django_db
def test_the_demo_path_approves_unflagged_first_ranked_variants_and_releases_once(tmp_path):
    from django.contrib.auth import get_user_model

    from building.models import VariantChange
    from tests.datasets.factories import make_compound, make_sentence, make_variant

    admin = get_user_model().objects.create_superuser("admin", "a@b.c", "pw")
    sentence = make_sentence(make_compound("eager beaver"))
    clean = make_variant(sentence, kind=vocabulary.SYNONYM_NC)
    weaker = make_variant(sentence, "keen beaver", kind=vocabulary.SYNONYM_NC, rank=2)  # a lower rank: left for review
    flagged = make_variant(sentence, "beaver", kind=vocabulary.HEAD_ONLY, flags=["article: check"])
    draw = make_variant(sentence, "brick wall", kind=vocabulary.RANDOM_FREQ, rank=3)  # random: each rank a slot
    out = StringIO()
    call_command("approve_variants", "--user", "admin", stdout=out)
    assert "2 unflagged, first-ranked variants approved by admin" in out.getvalue()
    assert Variant.objects.get(pk=draw.pk).status == vocabulary.APPROVED
    assert Variant.objects.get(pk=clean.pk).status == vocabulary.APPROVED
    assert Variant.objects.get(pk=weaker.pk).status == vocabulary.GENERATED
    assert Variant.objects.get(pk=flagged.pk).status == vocabulary.GENERATED
    assert {change.user for change in VariantChange.objects.all()} == {admin}
    call_command("approve_variants", "--user", "admin", "--all-ranks", stdout=out)
    assert Variant.objects.get(pk=weaker.pk).status == vocabulary.APPROVED
    assert Variant.objects.get(pk=flagged.pk).status == vocabulary.GENERATED
    call_command("create_release", "--release", "1.0.0", "--publish", stdout=StringIO())
    again = StringIO()
    call_command("create_release", "--release", "1.0.0", "--publish", "--exist-ok", stdout=again)
    assert "exists already (published): left as it is" in again.getvalue()


def test_create_release_names_its_creators_and_the_curators_words(dataset):
    run(
        "create_release",
        "--release",
        "1.0.0",
        "--creator",
        "Jane Doe | Sheffield | 0000-0002-1825-0097",
        "--creator",
        "Ana Sousa",
        "--intended-use",
        "Probing encoders.",
        "--biases",
        "Two compounds.",
    )
    release = Release.objects.get(version="1.0.0")
    assert [c["name"] for c in release.creators] == ["Jane Doe", "Ana Sousa"]
    assert (release.intended_use, release.biases) == ("Probing encoders.", "Two compounds.")
    card = bytes(release.files.get(path="README.md").content).decode()
    assert (
        "Creators: Jane Doe (Sheffield) [ORCID 0000-0002-1825-0097](https://orcid.org/0000-0002-1825-0097); Ana Sousa."
        in card
    )
    with pytest.raises(CommandError, match="creators: '42' is not an ORCID iD"):
        run("create_release", "--release", "1.0.1", "--creator", "Jane | x | 42")
