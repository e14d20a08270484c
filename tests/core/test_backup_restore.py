"""manage.py backup and restore: a live instance (a published release, a campaign's rating, an uploaded file)
backed up, restored into a second database of its own, and found there whole, triggers included."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg2
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import connection

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.models import Annotator, Campaign
from annotation.protocol import Answers
from annotation.setup_actions import add_items
from datasets import vocabulary
from releases.actions import create_release
from releases.models import Release
from tests.datasets.factories import make_compound, make_sentence, make_variant

ROOT = Path(__file__).resolve().parents[2]
UPLOAD = "corpora/tiny corpus.txt"
UPLOADED = b"the eager beaver starts at six\n" * 100
TRIGGERS = {
    "datasets_release_frozen",
    "datasets_releasefile_frozen",
    "datasets_release_no_truncate",
    "datasets_releasefile_no_truncate",
}
# Run inside the restored instance: what a user of it would look at.
CHECKS = f"""
import hashlib, json
from django.core.files.storage import default_storage
from django.db import connection
from annotation.models import Campaign, Rating
from releases.models import Release
with connection.cursor() as cursor:
    cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
    triggers = sorted(row[0] for row in cursor.fetchall())
releases = {{r.version: len(r.verified_files(include_zip=True)) for r in Release.objects.all()}}
print(json.dumps({{
    "releases": releases,
    "published": list(Release.objects.filter(status="published").values_list("version", flat=True)),
    "triggers": triggers,
    "campaigns": list(Campaign.objects.values_list("slug", flat=True)),
    "ratings": list(Rating.objects.values_list("compound_score", flat=True)),
    "upload": hashlib.sha256(default_storage.open({UPLOAD!r}, "rb").read()).hexdigest(),
}}))
"""


@pytest.fixture
def media(settings, tmp_path):
    """This instance's default storage: a folder of the test's own."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": tmp_path / "m"}},
    }
    return tmp_path / "m"


def server():
    """A connection to the server's maintenance database, for creating and dropping the restore's target."""
    facts = connection.settings_dict
    return psycopg2.connect(
        dbname="postgres", host=facts["HOST"], port=facts["PORT"], user=facts["USER"], password=facts["PASSWORD"]
    )


@pytest.fixture
def target():
    """A second database, made for this test and dropped after it."""
    name = f"backup_target_{uuid.uuid4().hex[:12]}"
    admin = server()
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def run_sql(name: str, sql: str) -> list[tuple]:
    """``sql`` in database ``name`` (on this test's server), committed; the rows it returned."""
    facts = connection.settings_dict
    with (
        psycopg2.connect(
            dbname=name, host=facts["HOST"], port=facts["PORT"], user=facts["USER"], password=facts["PASSWORD"]
        ) as db,
        db.cursor() as cursor,
    ):
        cursor.execute(sql)
        rows = cursor.fetchall() if cursor.description else []
    db.close()
    return rows


def tables_of(name: str) -> list[str]:
    return [row[0] for row in run_sql(name, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]


def instance_env(database: str, media: Path) -> dict[str, str]:
    """The environment of a second instance: the restore's target database and its own storage folder."""
    facts = connection.settings_dict
    password = f":{facts['PASSWORD']}" if facts["PASSWORD"] else ""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["DATABASE_URL"] = f"postgres://{facts['USER']}{password}@{facts['HOST']}:{facts['PORT']}/{database}"
    env["WORKBENCH_STORAGE_OPTIONS"] = json.dumps({"location": str(media)})
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def live_instance() -> Campaign:
    """A published release, a campaign with one rating, and a file uploaded to the default storage."""
    beaver = make_compound("eager beaver", gold_synonym="enthusiast", token_score=1.5)
    sentence = make_sentence(beaver, "Carol is such an eager beaver that she starts at six.")
    make_variant(sentence, "enthusiast", status=vocabulary.APPROVED)
    create_release("1.0.0", ["en"], publish=True)
    campaign = Campaign.objects.create(
        name="Study",
        slug="study-backup",
        collection=beaver.collection,
        language="en",
        ratings_per_item=1,
        status=Campaign.Status.OPEN,
    )
    add_items(campaign, [sentence])
    annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana")
    assignment = claim_next_item(annotator)
    submit_rating(annotator, str(assignment.token), Answers(head_score=3, modifier_score=1, compound_score=2))
    assert default_storage.save(UPLOAD, ContentFile(UPLOADED)) == UPLOAD
    return campaign


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_restored_backup_is_the_instance_with_its_triggers_ratings_and_files(media, target, tmp_path):
    live_instance()
    files = len(Release.objects.get().verified_files(include_zip=True))
    call_command("backup", str(tmp_path / "backup"))
    manifest = json.loads((tmp_path / "backup" / "backup.json").read_text())
    assert {entry["path"] for entry in manifest["files"]} == {"database.dump", f"storage/{UPLOAD}"}
    assert manifest["database"]["name"] == connection.settings_dict["NAME"]
    assert "0005_release_triggers" not in manifest["migrations"]["datasets"]  # heads only
    assert manifest["migrations"]["releases"] and manifest["code_version"]

    env = instance_env(target, tmp_path / "restored")
    restored = manage(env, "restore", str(tmp_path / "backup"))
    assert restored.returncode == 0, restored.stderr
    assert "1 stored files" in restored.stdout
    checked = manage(env, "shell", "-c", CHECKS)
    assert checked.returncode == 0, checked.stderr
    found = json.loads(checked.stdout.strip().splitlines()[-1])
    assert found["releases"] == {"1.0.0": files} and found["published"] == ["1.0.0"]
    assert TRIGGERS <= set(found["triggers"])
    assert found["campaigns"] == ["study-backup"] and found["ratings"] == [2]
    assert found["upload"] == hashlib.sha256(UPLOADED).hexdigest()
    assert (tmp_path / "restored" / UPLOAD).read_bytes() == UPLOADED

    # The restored database guards its published release as the original does.
    refused = manage(env, "shell", "-c", "from releases.models import Release; Release.objects.all().delete()")
    assert refused.returncode != 0 and "published" in refused.stderr


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_corrupted_backup_is_refused_before_anything_is_restored(media, target, tmp_path):
    live_instance()
    call_command("backup", str(tmp_path / "backup"))
    stored = tmp_path / "backup" / "storage" / UPLOAD
    stored.write_bytes(stored.read_bytes()[:-1] + b"!")
    env = instance_env(target, tmp_path / "restored")
    refused = manage(env, "restore", str(tmp_path / "backup"))
    assert refused.returncode != 0
    assert f"storage/{UPLOAD}: sha256" in refused.stderr and "nothing was restored" in refused.stderr
    assert tables_of(target) == []
    assert not (tmp_path / "restored").exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_database_that_is_not_empty_is_refused_unless_replace_is_given(media, target, tmp_path):
    live_instance()
    files = len(Release.objects.get().verified_files(include_zip=True))
    call_command("backup", str(tmp_path / "backup"))
    env = instance_env(target, tmp_path / "restored")
    assert manage(env, "restore", str(tmp_path / "backup")).returncode == 0

    refused = manage(env, "restore", str(tmp_path / "backup"))
    assert refused.returncode != 0 and "is not empty" in refused.stderr and "--replace" in refused.stderr

    # A table a later migration might have made does not survive a replace; the triggers come back.
    run_sql(target, "CREATE TABLE stray (id int)")
    replaced = manage(env, "restore", "--replace", str(tmp_path / "backup"))
    assert replaced.returncode == 0, replaced.stderr
    assert "stray" not in tables_of(target)
    checked = manage(env, "shell", "-c", CHECKS)
    found = json.loads(checked.stdout.strip().splitlines()[-1])
    assert TRIGGERS <= set(found["triggers"]) and found["releases"] == {"1.0.0": files}
    assert found["ratings"] == [2]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_backup_goes_into_a_new_or_empty_folder_only(media, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    with pytest.raises(CommandError, match="not an empty folder"):
        call_command("backup", str(tmp_path / "out"))
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["notes.txt"]


def test_sqlite_is_refused_with_what_to_do_instead(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'workbench.sqlite3'}"
    refused = manage(env, "backup", str(tmp_path / "backup"))
    assert refused.returncode != 0 and "SQLite" in refused.stderr and "copying that file" in refused.stderr
    assert not (tmp_path / "backup").exists()
