"""A published release cannot change: not through the ORM, not behind its back in SQL, not in the admin."""

from __future__ import annotations

import hashlib
import importlib
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence, Variant
from releases.actions import create_release
from releases.formats import ReleaseIntegrityError
from releases.models import Release, ReleaseFile, ReleaseFrozen

pytestmark = pytest.mark.django_db

TRIGGERS = importlib.import_module("datasets.migrations.0005_release_triggers").TRIGGERS
DATA_FILE = "tidy/compounds.jsonl"


def eager_beaver() -> Compound:
    """One English compound with a sentence and an approved variant: the smallest releasable dataset."""
    compound = Compound.objects.create(
        collection=Collection.named("team"),
        language="en",
        text="eager beaver",
        modifier="eager",
        head="beaver",
        compositionality_class=vocabulary.IDIOMATIC,
        type_score=1.2,
        token_score=1.0,
    )
    sentence = Sentence.objects.create(
        compound=compound,
        slot=1,
        text="Carol is such an eager beaver that she starts at six.",
        span_start=17,
        span_end=29,
        token_score=1.0,
    )
    Variant.objects.create(
        sentence=sentence,
        kind=vocabulary.SYNONYM_NC,
        text="Carol is such an enthusiast that she starts at six.",
        span_start=17,
        span_end=27,
        status=vocabulary.APPROVED,
        origin=vocabulary.ORIGIN_CURATOR,
    )
    return compound


@pytest.fixture
def published() -> Release:
    eager_beaver()
    return create_release("1.0.0", ["en"], publish=True)


@pytest.fixture
def draft() -> Release:
    eager_beaver()
    return create_release("1.0.0", ["en"])


@contextmanager
def refused_by_the_database():
    # The savepoint keeps PostgreSQL's transaction usable after the refused statement.
    with pytest.raises(IntegrityError, match="published"), transaction.atomic():
        yield


@contextmanager
def triggers_dropped():
    """The triggers gone, as a DBA with raw SQL could make them: the read-time check must still notice."""
    drop, create = TRIGGERS[connection.vendor][1], TRIGGERS[connection.vendor][0]
    with connection.cursor() as cursor:
        for statement in drop:
            cursor.execute(statement)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for statement in create:
                cursor.execute(statement)


# --- the ORM ----------------------------------------------------------------------------------


def test_saving_a_published_release_is_refused(published):
    published.title = "Something else"
    with pytest.raises(ReleaseFrozen, match="1.0.0 is published"):
        published.save()
    assert Release.objects.get().title != "Something else"


def test_deleting_a_published_release_is_refused(published):
    with pytest.raises(ReleaseFrozen, match="cannot be deleted"):
        published.delete()
    assert Release.objects.filter(version="1.0.0").exists()


def test_a_published_release_cannot_go_back_to_draft(published):
    published.status = Release.Status.DRAFT
    with pytest.raises(ReleaseFrozen):
        published.save()


def test_the_files_of_a_published_release_cannot_be_saved_deleted_or_added(published):
    data = published.files.get(path=DATA_FILE)
    data.content = b"{}"
    with pytest.raises(ReleaseFrozen):
        data.save()
    with pytest.raises(ReleaseFrozen):
        data.delete()
    with pytest.raises(ReleaseFrozen):
        ReleaseFile(release=published, path="extra.csv", sha256="0" * 64, size=0, content=b"").save()


def test_a_file_cannot_be_moved_from_a_draft_into_a_published_release(published):
    other = create_release("1.0.1", ["en"])
    moved = other.files.get(path=DATA_FILE)
    moved.path, moved.release = "moved.jsonl", published
    with pytest.raises(ReleaseFrozen):
        moved.save()


def test_a_draft_is_built_completely_and_can_be_deleted(draft):
    assert draft.status == Release.Status.DRAFT
    assert set(draft.verified_files()) == {f["path"] for f in draft.manifest["files"]} | {"manifest.json"}
    draft.delete()
    assert not Release.objects.exists() and not ReleaseFile.objects.exists()


def test_current_is_the_highest_published_version_in_semantic_order(published):
    create_release("1.10.0", ["en"], publish=True)
    create_release("1.9.0", ["en"], publish=True)
    create_release("2.0.0", ["en"])
    assert Release.objects.current().version == "1.10.0"


# --- the database triggers (QuerySet.update/delete and raw SQL bypass save) ------------------------


def test_the_triggers_exist_for_this_database():
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE %s", ["datasets_release%"])
        else:
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s", ["datasets_release%"]
            )
        names = {row[0] for row in cursor.fetchall()}
    expected = {
        "postgresql": {
            "datasets_release_frozen",
            "datasets_releasefile_frozen",
            "datasets_release_no_truncate",
            "datasets_releasefile_no_truncate",
        },
        "sqlite": {
            "datasets_release_frozen_update",
            "datasets_release_frozen_delete",
            "datasets_releasefile_frozen_insert",
            "datasets_releasefile_frozen_update",
            "datasets_releasefile_frozen_delete",
        },
    }[connection.vendor]
    assert names == expected


def test_the_database_refuses_a_queryset_update_of_a_published_release(published):
    with refused_by_the_database():
        Release.objects.filter(pk=published.pk).update(title="Rewritten")
    with refused_by_the_database():
        Release.objects.filter(pk=published.pk).update(status=Release.Status.DRAFT)
    assert Release.objects.get().title == published.title


def test_the_database_refuses_a_queryset_delete_of_a_published_release(published):
    with refused_by_the_database():
        Release.objects.filter(pk=published.pk).delete()
    assert Release.objects.filter(pk=published.pk).exists()


def test_the_database_refuses_any_change_to_a_published_release_files(published):
    files = ReleaseFile.objects.filter(release=published)
    with refused_by_the_database():
        files.filter(path=DATA_FILE).update(content=b"{}")
    with refused_by_the_database():
        files.filter(path=DATA_FILE).delete()
    with refused_by_the_database():
        ReleaseFile.objects.bulk_create(
            [ReleaseFile(release=published, path="extra.csv", sha256="0" * 64, size=0, content=b"")]
        )
    assert published.verified_files()


# Outside a test transaction: TRUNCATE cannot run while the transaction holds deferred constraint checks.
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("statement", ["TRUNCATE datasets_releasefile", "TRUNCATE datasets_release CASCADE"])
def test_the_database_refuses_truncate_while_a_release_is_published(published, statement):
    with pytest.raises(IntegrityError, match="TRUNCATE of .* refused"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(statement)
    assert published.verified_files()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_truncate_of_drafts_only_is_allowed(draft):
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE datasets_release CASCADE")
    assert not Release.objects.exists()


def test_the_database_refuses_raw_sql_on_a_published_release(published):
    with refused_by_the_database(), connection.cursor() as cursor:
        cursor.execute("UPDATE datasets_release SET checksum = %s WHERE id = %s", ["0" * 64, published.pk])
    with refused_by_the_database(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM datasets_releasefile WHERE release_id = %s", [published.pk])


def test_the_database_lets_a_draft_change_and_be_published(draft):
    Release.objects.filter(pk=draft.pk).update(title="Better title")
    Release.objects.filter(pk=draft.pk).update(status=Release.Status.PUBLISHED)
    assert Release.objects.get().status == Release.Status.PUBLISHED


# --- checked on every read -------------------------------------------------------------------------


def test_a_changed_file_of_a_draft_is_reported_on_read(draft):
    ReleaseFile.objects.filter(release=draft, path=DATA_FILE).update(content=b'{"text": "forged"}\n')
    with pytest.raises(ReleaseIntegrityError, match=f"release 1.0.0: stored file {DATA_FILE} does not match"):
        draft.verified_files()


def test_a_file_changed_with_its_row_checksum_is_caught_by_the_manifest(published):
    forged = b'{"text": "forged"}\n'
    with triggers_dropped():
        ReleaseFile.objects.filter(release=published, path=DATA_FILE).update(
            content=forged, sha256=hashlib.sha256(forged).hexdigest(), size=len(forged)
        )
    with pytest.raises(ReleaseIntegrityError, match=f"{DATA_FILE}: sha256 is .* but the manifest says"):
        published.verified_files()


def test_a_rewritten_manifest_is_caught_by_the_release_checksum(published):
    with triggers_dropped():
        ReleaseFile.objects.filter(release=published, path="manifest.json").update(content=b'{"files": []}')
    with pytest.raises(ReleaseIntegrityError, match="manifest.json"):
        published.verified_files()


def test_a_changed_zip_is_caught_when_the_zip_is_read(published):
    with triggers_dropped():
        ReleaseFile.objects.filter(release=published, path="release.zip").update(content=b"PK")
    assert published.verified_files()  # the folder itself is intact
    with pytest.raises(ReleaseIntegrityError, match="release.zip"):
        published.verified_files(include_zip=True)


# --- the admin -------------------------------------------------------------------------------------


@pytest.fixture
def ada(client):
    """A superuser in the admin."""
    user = get_user_model().objects.create_superuser("ada", "ada@example.org", "pw")
    client.force_login(user)
    return user


def test_the_admin_shows_a_published_release_read_only(published, ada, client):
    page = client.get(reverse("admin:releases_release_change", args=[published.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert published.checksum in html and DATA_FILE in html
    assert 'name="_save"' not in html and 'name="title"' not in html


def test_the_admin_refuses_to_change_a_published_release(published, ada, client):
    answer = client.post(reverse("admin:releases_release_change", args=[published.pk]), {"title": "Rewritten"})
    assert answer.status_code == 403
    assert Release.objects.get().title == published.title


def test_the_admin_refuses_to_delete_a_published_release(published, ada, client):
    assert client.get(reverse("admin:releases_release_delete", args=[published.pk])).status_code == 403
    assert (
        client.post(reverse("admin:releases_release_delete", args=[published.pk]), {"post": "yes"}).status_code == 403
    )
    client.post(
        reverse("admin:releases_release_changelist"),
        {"action": "delete_selected", "_selected_action": [published.pk], "post": "yes"},
    )
    assert Release.objects.filter(pk=published.pk).exists()


def test_the_admin_refuses_to_change_or_delete_a_release_file(published, ada, client):
    data = published.files.get(path=DATA_FILE)
    assert client.post(reverse("admin:releases_releasefile_change", args=[data.pk]), {"path": "x"}).status_code == 403
    assert client.post(reverse("admin:releases_releasefile_delete", args=[data.pk]), {"post": "yes"}).status_code == 403
    assert published.verified_files()


def test_the_admin_publishes_a_draft_and_deletes_only_drafts(draft, ada, client):
    client.post(reverse("admin:releases_release_changelist"), {"action": "publish", "_selected_action": [draft.pk]})
    draft.refresh_from_db()
    assert draft.status == Release.Status.PUBLISHED and draft.published_by == ada
    other = create_release("1.0.1", ["en"])
    client.post(reverse("admin:releases_release_delete", args=[other.pk]), {"post": "yes"})
    assert list(Release.objects.values_list("version", flat=True)) == ["1.0.0"]


def test_reading_some_files_checks_those_and_the_manifest_and_reads_no_other(draft):
    readme = "README.md"
    ReleaseFile.objects.filter(release=draft, path=readme).update(content=b"changed, but not read")
    files = draft.verified_files(only=[DATA_FILE])
    assert set(files) == {DATA_FILE, "manifest.json"}
    with pytest.raises(ReleaseIntegrityError, match=f"stored file {readme} does not match"):
        draft.verified_files(only=[readme])
    with pytest.raises(ReleaseIntegrityError, match="no/such.csv: not listed in the manifest"):
        draft.verified_files(only=["no/such.csv"])


def test_a_file_read_alone_and_changed_with_its_row_checksum_is_caught_by_the_manifest(published):
    forged = b'{"text": "forged"}\n'
    with triggers_dropped():
        ReleaseFile.objects.filter(release=published, path=DATA_FILE).update(
            content=forged, sha256=hashlib.sha256(forged).hexdigest(), size=len(forged)
        )
    with pytest.raises(ReleaseIntegrityError, match=f"{DATA_FILE}: sha256 is .* but the manifest says"):
        published.verified_files(only=[DATA_FILE, "datapackage.json"])
