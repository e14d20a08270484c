"""An upgrade from the layout before issue 15 loses nothing: every row, every checksum, the published files.

The code of tests/upgrade/BASE_COMMIT (taken out of git with ``git archive``: CI has the whole
history) makes and fills a throwaway PostgreSQL database as a team would have it: the demo
loaded, its variants generated and approved, the two demo campaigns with simulated ratings,
release 1.0.0 published and 1.1.0 a draft, a corpus count (a BuildJob and its FrequencyTable),
and a finished probe run of a tiny BERT on 1.0.0. Then this checkout's ``migrate`` runs on it.

What must hold afterwards:

- every row of every table is still there with the same values (compared as a hash per row over
  the columns the table had before; later migrations may add columns), and the data path's
  tables have exactly the rows they had;
- the content types of the moved models carry their new app labels under the same ids, so
  permissions and admin history follow them;
- release checksums, zip checksums and the published release's file hashes are unchanged, and
  the new code reads 1.0.0 back verified (``Release.verified_files``);
- the immutability triggers still refuse to change the published release and its files;
- the new code sees the moved rows through the moved models (releases, building) and the probe
  run's foreign key, and a release it builds from the same data has the same data-file checksums.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import psycopg2
import pytest
from psycopg2 import sql

from tests.tiny_models import save_tiny_bert, words_of

pytestmark = pytest.mark.postgres

REPO_ROOT = Path(__file__).resolve().parents[2]
BASE_COMMIT_FILE = Path(__file__).with_name("BASE_COMMIT")
# (old app label, new app label, model) of every model issue 15 moved.
MOVED = [
    ("datasets", "releases", "release"),
    ("datasets", "releases", "releasefile"),
    ("datasets", "building", "buildjob"),
    ("datasets", "building", "frequencytable"),
    ("datasets", "building", "variantchange"),
]
# Tables whose rows Django adds to on migrate (new content types and permissions, the migration
# record): their old rows must stay, new ones may appear.
GROWING = {"django_migrations", "django_content_type", "auth_permission"}
# Release files whose content changed on purpose after BASE_COMMIT (issue 12: one overlap rule and one
# sentence-length rule for every file; issues 12 and 17: the tidy compounds carry the gold synonym's evidence).
CHANGED_SINCE_BASE = {"human_compositionality_scores.csv", "tidy/compounds.jsonl"}
# Rows that data migrations add on purpose: annotation 0007 ships the "exclude flagged" filter policy.
ADDED_BY_MIGRATIONS = {"annotation_filterpolicy": 1}
DATA_SUFFIXES = (".csv", ".jsonl", ".parquet")
SECONDS = 1200  # per command: generating the demo's variants is the slowest step (about 30 s here)


def base_commit() -> str:
    return BASE_COMMIT_FILE.read_text(encoding="utf-8").split()[0]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture
def base_tree(tmp_path) -> Path:
    """The files of BASE_COMMIT, extracted into a folder (no worktree to clean up)."""
    commit = base_commit()
    found = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=REPO_ROOT, capture_output=True)
    if found.returncode != 0:
        reason = f"commit {commit} (tests/upgrade/BASE_COMMIT) is not in this clone's history"
        if in_ci():
            pytest.fail(f"{reason} (CI=true: clone with the full history)", pytrace=False)
        pytest.skip(reason)
    tree = tmp_path / "base"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=REPO_ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


@pytest.fixture
def database() -> dict:
    """A new, empty PostgreSQL database on the test server, dropped afterwards: connection parameters."""
    from django.db import connection

    server = connection.settings_dict
    params = {
        "host": server["HOST"] or "127.0.0.1",
        "port": int(server["PORT"] or 5432),
        "user": server["USER"],
        "password": server["PASSWORD"] or "",
    }
    name = f"wb_upgrade_{uuid.uuid4().hex[:12]}"
    admin = psycopg2.connect(dbname="postgres", **params)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        yield {**params, "dbname": name}
    finally:
        with admin.cursor() as cursor:
            cursor.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.close()


def database_url(db: dict) -> str:
    password = f":{db['password']}" if db["password"] else ""
    return f"postgres://{db['user']}{password}@{db['host']}:{db['port']}/{db['dbname']}"


class Workbench:
    """``manage.py`` of one code tree against the throwaway database, tasks run eagerly."""

    def __init__(self, tree: Path, db: dict, var_dir: Path, model_dir: Path):
        self.tree = tree
        dropped = {"PYTHONPATH", "DJANGO_SETTINGS_MODULE", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"}
        self.env = {key: value for key, value in os.environ.items() if key not in dropped}
        self.env |= {
            "DATABASE_URL": database_url(db),
            "WORKBENCH_VAR_DIR": str(var_dir),
            "WORKBENCH_MODEL_DIRS": str(model_dir),
            "DEBUG": "true",
            "CELERY_TASK_ALWAYS_EAGER": "true",
        }

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=self.tree,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=SECONDS,
        )
        if done.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} in {self.tree} failed:\n{done.stderr[-4000:]}")
        return done.stdout


def fill_with_old_code(old: Workbench, db: dict, tmp_path: Path, model_dir: Path) -> None:
    old("migrate", "--noinput")
    old("load_demo")
    old("generate_variants", "--language", "en")
    old("generate_variants", "--language", "pt")
    old("create_demo_campaigns")
    old("simulate_ratings", "demo-token", "demo-type")
    old(
        "shell",
        "-c",
        "from django.contrib.auth.models import User; User.objects.create_superuser('admin', '', 'admin')",
    )
    old("approve_variants", "--user", "admin", "--collection", "demo")
    old("create_release", "--version", "1.0.0", "--languages", "en,pt", "--collections", "demo", "--user", "admin",
        "--title", "Idiomaticity Workbench demo", "--publish")  # fmt: skip
    old("create_release", "--version", "1.1.0", "--languages", "en", "--collections", "demo", "--user", "admin")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The eager beaver saw a guinea pig.\nA front man stood by the brick wall.\n", encoding="utf-8")
    old("count_corpus", "--language", "en", "--corpus", str(corpus), "--chunks", "2", "--wait")
    # A probe run: a tiny random BERT that knows the words of every text of the release.
    with psycopg2.connect(**db) as connection, connection.cursor() as cursor:
        cursor.execute("SELECT text FROM datasets_sentence UNION SELECT text FROM datasets_variant")
        texts = [row[0] for row in cursor.fetchall()]
    folder = save_tiny_bert(model_dir / "tiny-bert", words_of(texts), seed=1)
    old("register_model", "--name", "tiny-bert", "--kind", "transformer", "--source", str(folder),
        "--config", json.dumps({"max_length": 64, "batch_size": 64}))  # fmt: skip
    old("run_probes", "--release", "1.0.0", "--model", "tiny-bert", "--inline", "--shard-size", "50")


def table_rows(cursor, columns: dict[str, list[str]] | None = None) -> dict[str, tuple[list[str], Counter]]:
    """Per table: its columns (or the ones given) and the multiset of md5s of its rows over them."""
    cursor.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' "
        "ORDER BY table_name, ordinal_position"
    )
    present: dict[str, list[str]] = {}
    for table, column in cursor.fetchall():
        present.setdefault(table, []).append(column)
    out = {}
    for table, names in (columns or present).items():
        if table not in present:
            out[table] = (names, None)
            continue
        row = sql.SQL("ROW({})::text").format(sql.SQL(", ").join(sql.Identifier(n) for n in names))
        cursor.execute(sql.SQL("SELECT md5({}) FROM {}").format(row, sql.Identifier(table)))
        out[table] = (names, Counter(digest for (digest,) in cursor.fetchall()))
    return out


def release_facts(cursor) -> dict:
    cursor.execute(
        "SELECT version, status, checksum, zip_sha256, manifest::text FROM datasets_release ORDER BY version"
    )
    releases = {version: rest for version, *rest in cursor.fetchall()}
    cursor.execute(
        "SELECT r.version, f.path, f.sha256, f.size, encode(sha256(f.content), 'hex') "
        "FROM datasets_releasefile f JOIN datasets_release r ON r.id = f.release_id ORDER BY r.version, f.path"
    )
    files = {}
    for version, path, sha, size, actual in cursor.fetchall():
        assert sha == actual, f"{version} {path}: stored sha256 {sha} but the content hashes to {actual}"
        files[(version, path)] = (sha, size)
    return {"releases": releases, "files": files}


def content_types(cursor) -> dict[int, tuple[str, str]]:
    cursor.execute("SELECT id, app_label, model FROM django_content_type")
    return {pk: (app, model) for pk, app, model in cursor.fetchall()}


def refused(db: dict, statement: str) -> str:
    """The error a statement gets (rolled back either way); '' when it went through."""
    connection = psycopg2.connect(**db)
    try:
        with connection.cursor() as cursor:
            cursor.execute(statement)
        return ""
    except psycopg2.IntegrityError as error:
        return str(error)
    finally:
        connection.rollback()
        connection.close()


NEW_CODE_READS = """
import json
from django.db import IntegrityError, transaction
from building.models import BuildJob, FrequencyTable, VariantChange
from datasets.models import Variant
from probing.models import ProbeRun
from releases.models import Release, ReleaseFile

published = Release.objects.get(version="1.0.0")
files = published.verified_files(include_zip=True)
try:
    with transaction.atomic():
        ReleaseFile.objects.filter(release=published).update(path="changed")
    orm_refused = False
except IntegrityError:
    orm_refused = True
run = ProbeRun.objects.select_related("release").get()
print(json.dumps({
    "verified": sorted(files),
    "orm_refused": orm_refused,
    "releases": sorted(Release.objects.values_list("version", "status")),
    "build_jobs": list(BuildJob.objects.values_list("kind", "status")),
    "frequency_tables": list(FrequencyTable.objects.values_list("name", "job__kind")),
    "variant_changes": VariantChange.objects.count(),
    "variant_changes_by_variant": VariantChange.objects.filter(variant__in=Variant.objects.all()).count(),
    "run": [run.status, run.release.version, len(run.report or {})],
}))
"""


def test_a_database_made_by_the_old_layout_migrates_without_losing_a_row(base_tree, database, tmp_path, debian_wordnet):
    model_dir = tmp_path / "models"
    model_dir.mkdir()
    old = Workbench(base_tree, database, tmp_path / "var-old", model_dir)
    new = Workbench(REPO_ROOT, database, tmp_path / "var-new", model_dir)
    fill_with_old_code(old, database, tmp_path, model_dir)

    with psycopg2.connect(**database) as connection, connection.cursor() as cursor:
        before = table_rows(cursor)
        releases_before = release_facts(cursor)
        types_before = content_types(cursor)
        cursor.execute("SELECT id, content_type_id, codename FROM auth_permission")
        permissions_before = set(cursor.fetchall())
    assert releases_before["releases"]["1.0.0"][0] == "published" and releases_before["releases"]["1.1.0"][0] == "draft"
    assert {(app, model) for app, model in types_before.values()} >= {(old_app, m) for old_app, _, m in MOVED}
    for table in ("datasets_variantchange", "datasets_buildjob", "datasets_frequencytable", "probing_proberun"):
        assert sum(before[table][1].values()) > 0, f"the old code left {table} empty: the test would prove nothing"

    new("migrate", "--noinput")

    with psycopg2.connect(**database) as connection, connection.cursor() as cursor:
        after = table_rows(cursor, {table: names for table, (names, _) in before.items()})
        releases_after = release_facts(cursor)
        types_after = content_types(cursor)
        cursor.execute("SELECT id, content_type_id, codename FROM auth_permission")
        permissions_after = set(cursor.fetchall())

    # Every row is still there, with the values it had; the data path's tables gained none either.
    for table, (_, rows) in before.items():
        if table in ("django_migrations", "django_content_type"):
            continue
        assert after[table][1] is not None, f"table {table} is gone"
        lost = rows - after[table][1]
        assert not lost, f"{table}: {sum(lost.values())} of {sum(rows.values())} rows lost or changed"
        if table in ADDED_BY_MIGRATIONS:
            added = sum((after[table][1] - rows).values())
            assert added == ADDED_BY_MIGRATIONS[table], f"{table}: {added} rows added by the upgrade"
        elif table not in GROWING:
            assert after[table][1] == rows, f"{table}: rows added by the upgrade"
    assert permissions_before <= permissions_after

    # The moved models' content types keep their ids under their new app labels.
    renamed = {(old_app, model): new_app for old_app, new_app, model in MOVED}
    for pk, (app, model) in types_before.items():
        assert types_after.get(pk) == (renamed.get((app, model), app), model)

    # Checksums and files: as they were, and still verified by the new code.
    assert releases_after == releases_before
    published_files = sorted(path for version, path in releases_before["files"] if version == "1.0.0")
    assert len(published_files) == 16

    # The triggers still guard the published release (and only it).
    assert "published and cannot change" in refused(
        database, "UPDATE datasets_release SET title = 'x' WHERE version = '1.0.0'"
    )
    assert "published and cannot change" in refused(database, "DELETE FROM datasets_release WHERE version = '1.0.0'")
    assert "cannot change" in refused(
        database,
        "UPDATE datasets_releasefile SET path = 'x' WHERE release_id = (SELECT id FROM datasets_release WHERE version = '1.0.0')",
    )
    assert refused(database, "UPDATE datasets_release SET title = 'x' WHERE version = '1.1.0'") == ""

    # The new code reads the moved rows through the moved models.
    seen = json.loads(new("shell", "--no-imports", "-c", NEW_CODE_READS).strip().splitlines()[-1])
    assert seen["verified"] == published_files
    assert seen["orm_refused"] is True
    assert seen["releases"] == [["1.0.0", "published"], ["1.1.0", "draft"]]
    assert seen["build_jobs"] == [["count_corpus", "done"]]
    assert seen["frequency_tables"] == [["corpus.txt", "count_corpus"]]
    assert (
        seen["variant_changes"]
        == seen["variant_changes_by_variant"]
        == sum(before["datasets_variantchange"][1].values())
    )
    assert seen["run"][:2] == ["done", "1.0.0"] and seen["run"][2] > 0

    # A release the new code builds from the same data has the same data files, byte for byte.
    new("create_release", "--release", "1.0.1", "--languages", "en,pt", "--collections", "demo", "--user", "admin")
    with psycopg2.connect(**database) as connection, connection.cursor() as cursor:
        rebuilt = release_facts(cursor)["files"]
    data = {path: facts for (version, path), facts in releases_before["files"].items() if version == "1.0.0"}
    data = {path: facts for path, facts in data.items() if path.endswith(DATA_SUFFIXES)}
    assert len(data) == 12  # 8 NCIMP files, the human scores table, 3 tidy files
    same = {path: facts for path, facts in data.items() if path not in CHANGED_SINCE_BASE}
    assert {path: rebuilt[("1.0.1", path)] for path in same} == same
    # The files whose content changed on purpose since BASE_COMMIT hold the same records.
    with psycopg2.connect(**database) as connection, connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.version, f.path, f.content FROM datasets_releasefile f JOIN datasets_release r "
            "ON r.id = f.release_id WHERE r.version IN ('1.0.0', '1.0.1') AND f.path = ANY(%s)",
            [list(CHANGED_SINCE_BASE)],
        )
        lines = {(version, path): bytes(content).count(b"\n") for version, path, content in cursor.fetchall()}
    for path in CHANGED_SINCE_BASE:
        assert lines[("1.0.1", path)] == lines[("1.0.0", path)] > 0, path
    # The published files hash as recorded, here in Python too.
    with psycopg2.connect(**database) as connection, connection.cursor() as cursor:
        cursor.execute(
            "SELECT f.path, f.sha256, f.content FROM datasets_releasefile f "
            "JOIN datasets_release r ON r.id = f.release_id WHERE r.version = '1.0.0'"
        )
        for path, sha, content in cursor.fetchall():
            assert hashlib.sha256(bytes(content)).hexdigest() == sha == releases_before["files"][("1.0.0", path)][0]
