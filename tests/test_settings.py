"""config/env.py: every setting read from the environment, and the errors a bad one gives.

No database: the readers are plain functions, and the two end-to-end checks run
``django.setup()`` in a subprocess with a broken environment.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    broker_url,
    cache_config,
    database_config,
    env_bool,
    env_hosts,
    env_int,
    env_list,
    env_names,
    env_paths,
    env_sha256s,
    env_storage,
    secret_key,
    session_engine,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
GOOD_KEY = "k" * 50


# --- env_bool / env_int / env_list -----------------------------------------------------------


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", " yes ", "on"])
def test_env_bool_true_words(monkeypatch, raw):
    monkeypatch.setenv("WB_FLAG", raw)
    assert env_bool("WB_FLAG", False) is True


@pytest.mark.parametrize("raw", ["0", "false", "No", "off", ""])
def test_env_bool_false_words(monkeypatch, raw):
    monkeypatch.setenv("WB_FLAG", raw)
    assert env_bool("WB_FLAG", True) is False


def test_env_bool_unset_gives_default(monkeypatch):
    monkeypatch.delenv("WB_FLAG", raising=False)
    assert env_bool("WB_FLAG", True) is True
    assert env_bool("WB_FLAG", False) is False


def test_env_bool_rejects_other_words_naming_the_variable(monkeypatch):
    monkeypatch.setenv("WB_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="WB_FLAG='maybe' is not a boolean"):
        env_bool("WB_FLAG", True)


def test_env_int_reads_and_defaults(monkeypatch):
    monkeypatch.setenv("WB_COUNT", "42")
    assert env_int("WB_COUNT", 7) == 42
    monkeypatch.setenv("WB_COUNT", "  ")
    assert env_int("WB_COUNT", 7) == 7
    monkeypatch.delenv("WB_COUNT")
    assert env_int("WB_COUNT", 7) == 7


def test_env_int_rejects_non_numbers(monkeypatch):
    monkeypatch.setenv("WB_COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="WB_COUNT='ten' is not a whole number"):
        env_int("WB_COUNT", 7)


def test_env_int_enforces_minimum(monkeypatch):
    monkeypatch.setenv("WB_COUNT", "0")
    with pytest.raises(ImproperlyConfigured, match="WB_COUNT='0' must be at least 1"):
        env_int("WB_COUNT", 7, minimum=1)
    monkeypatch.setenv("WB_COUNT", "1")
    assert env_int("WB_COUNT", 7, minimum=1) == 1


def test_env_list_splits_and_strips(monkeypatch):
    monkeypatch.setenv("WB_HOSTS", " example.org, ,localhost ")
    assert env_list("WB_HOSTS", ["x"]) == ["example.org", "localhost"]
    monkeypatch.delenv("WB_HOSTS")
    assert env_list("WB_HOSTS", ["x"]) == ["x"]


def test_env_list_set_but_empty_is_an_error(monkeypatch):
    monkeypatch.setenv("WB_HOSTS", " , ")
    with pytest.raises(ImproperlyConfigured, match="WB_HOSTS is set but empty"):
        env_list("WB_HOSTS", ["x"])


# --- database_config ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", [None, ""])
def test_database_defaults_to_sqlite_in_var_with_wal(tmp_path, url):
    config = database_config(url, tmp_path)
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == str(tmp_path / "workbench.sqlite3")
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def test_database_sqlite_url_with_absolute_path(tmp_path):
    config = database_config(f"sqlite:///{tmp_path}/other.db", tmp_path / "var")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == str(tmp_path / "other.db")


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_database_postgres_url_is_parsed(tmp_path, scheme):
    config = database_config(f"{scheme}://wb:s3cret@db.example:6543/workbench", tmp_path)
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("workbench", "wb", "s3cret")
    assert (config["HOST"], int(config["PORT"])) == ("db.example", 6543)
    assert config["CONN_MAX_AGE"] == 60
    assert config["CONN_HEALTH_CHECKS"] is True


def test_database_postgres_url_without_a_database_name_is_an_error(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL=.* names no database"):
        database_config("postgres://postgres@127.0.0.1:5432", tmp_path)


@pytest.mark.parametrize("url", ["mysql://root@localhost/wb", "oracle://x", "nonsense"])
def test_database_unsupported_scheme_names_the_variable(tmp_path, url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL=.*unsupported scheme"):
        database_config(url, tmp_path)


# --- broker_url ----------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [None, ""])
def test_broker_defaults_to_embedded_filesystem_broker(url):
    assert broker_url(url) == "filesystem://"


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://cache:6380/1", "amqp://guest:guest@mq:5672//"])
def test_broker_accepts_redis_and_amqp(url):
    assert broker_url(url) == url


@pytest.mark.parametrize("url", ["sqs://queue", "http://broker", "kafka://x:9092"])
def test_broker_unsupported_scheme_names_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="CELERY_BROKER_URL=.*unsupported scheme"):
        broker_url(url)


# --- cache_config / session_engine --------------------------------------------------------------


def test_sessions_are_read_through_a_shared_redis_cache_and_kept_in_the_database():
    assert session_engine(cache_config("redis://127.0.0.1:6379/1")) == "django.contrib.sessions.backends.cached_db"


def test_sessions_stay_in_the_database_when_the_cache_is_each_process_memory():
    # A session changed by one process must never be read stale from another's memory.
    assert session_engine(cache_config(None)) == "django.contrib.sessions.backends.db"
    assert session_engine(cache_config("locmem://")) == "django.contrib.sessions.backends.db"


def test_the_local_cache_is_the_default_one_when_no_shared_cache_is_set():
    # Without CACHE_URL (as in the tests): one memory, so clearing the default clears what "local" keeps.
    from django.core.cache import caches

    caches["default"].set("probe", 1)
    assert caches["local"].get("probe") == 1
    caches["default"].clear()
    assert caches["local"].get("probe") is None


# --- secret_key ----------------------------------------------------------------------------------


def test_secret_key_generated_once_into_var_dir_and_reused(tmp_path):
    var_dir = tmp_path / "var"
    first = secret_key(None, True, var_dir)
    key_file = var_dir / "secret_key"
    assert key_file.read_text().strip() == first
    assert len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert secret_key(None, True, var_dir) == first
    assert secret_key("", True, var_dir) == first


def test_secret_key_given_value_wins_and_writes_nothing(tmp_path):
    assert secret_key(GOOD_KEY, False, tmp_path) == GOOD_KEY
    assert not (tmp_path / "secret_key").exists()


def test_secret_key_required_when_debug_is_off(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set when DEBUG is off"):
        secret_key(None, False, tmp_path)
    assert not (tmp_path / "secret_key").exists()


def test_secret_key_too_short_is_rejected(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY is too short"):
        secret_key("short", True, tmp_path)


# --- what the server may load: folders, trusted pickles, key variables, API hosts ----------------


def test_env_paths_reads_colons_or_commas_as_real_paths(monkeypatch, tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.setenv("WB_DIRS", f"{tmp_path / 'link'}:{tmp_path / 'b'}, {tmp_path / 'c'}")
    assert env_paths("WB_DIRS", []) == [(tmp_path / "real").resolve(), tmp_path / "b", tmp_path / "c"]
    monkeypatch.setenv("WB_DIRS", "")
    assert env_paths("WB_DIRS", [tmp_path]) == []  # set but empty: none


def test_env_paths_refuses_relative_paths_and_folders_inside_the_uploads(monkeypatch, tmp_path):
    monkeypatch.setenv("WB_DIRS", "models")
    with pytest.raises(ImproperlyConfigured, match="WB_DIRS: 'models' is not an absolute path"):
        env_paths("WB_DIRS", [])
    monkeypatch.setenv("WB_DIRS", str(tmp_path / "media" / "corpora"))
    with pytest.raises(ImproperlyConfigured, match="where uploads are kept"):
        env_paths("WB_DIRS", [], not_inside=tmp_path / "media")
    monkeypatch.setenv("WB_DIRS", str(tmp_path))  # a parent of the uploads: they stay refused when loading
    assert env_paths("WB_DIRS", [], not_inside=tmp_path / "media") == [tmp_path.resolve()]


def test_env_sha256s_wants_64_hex_digits(monkeypatch):
    digest = "ab" * 32
    monkeypatch.setenv("WB_SUMS", f"{digest.upper()}, {'cd' * 32}")
    assert env_sha256s("WB_SUMS") == {digest, "cd" * 32}
    monkeypatch.setenv("WB_SUMS", "abc123")
    with pytest.raises(ImproperlyConfigured, match="WB_SUMS: 'abc123' is not a sha256"):
        env_sha256s("WB_SUMS")


def test_env_names_refuses_bad_names_and_the_servers_own_secrets(monkeypatch):
    monkeypatch.setenv("WB_KEYS", "OPENAI_API_KEY,MY_KEY_2")
    assert env_names("WB_KEYS", [], refused=frozenset({"SECRET_KEY"})) == ["OPENAI_API_KEY", "MY_KEY_2"]
    for raw, error in (("OPENAI-KEY", "not an environment variable name"), ("SECRET_KEY", "never list it")):
        monkeypatch.setenv("WB_KEYS", raw)
        with pytest.raises(ImproperlyConfigured, match=error):
            env_names("WB_KEYS", [], refused=frozenset({"SECRET_KEY"}))


def test_env_hosts_takes_names_addresses_and_networks(monkeypatch):
    monkeypatch.setenv("WB_HOSTS", "API.OpenAI.com.,10.0.0.0/24,[::1],192.168.1.5")
    assert env_hosts("WB_HOSTS", []) == ["api.openai.com", "10.0.0.0/24", "[::1]", "192.168.1.5"]
    monkeypatch.setenv("WB_HOSTS", "http://evil.example/v1")
    with pytest.raises(ImproperlyConfigured, match="not a host name, an address or a network"):
        env_hosts("WB_HOSTS", [])


# --- the whole settings module, in a fresh interpreter -------------------------------------------


def setup_django(tmp_path: Path, **overrides: str | None) -> subprocess.CompletedProcess:
    """Run ``django.setup()`` with config.settings under a clean, given environment."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"SECRET_KEY", "DEBUG", "DATABASE_URL", "CELERY_BROKER_URL", "ALLOWED_HOSTS"}
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings", WORKBENCH_VAR_DIR=str(tmp_path / "var"))
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_settings_load_with_debug_off_and_a_real_key(tmp_path):
    result = setup_django(tmp_path, DEBUG="false", SECRET_KEY=GOOD_KEY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_settings_refuse_debug_off_without_secret_key(tmp_path):
    result = setup_django(tmp_path, DEBUG="false")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY must be set" in result.stderr


def test_settings_refuse_a_model_folder_inside_the_uploads(tmp_path):
    result = setup_django(tmp_path, WORKBENCH_MODEL_DIRS=str(tmp_path / "var" / "media" / "corpora"))
    assert result.returncode != 0
    assert "WORKBENCH_MODEL_DIRS" in result.stderr and "where uploads are kept" in result.stderr


def test_settings_refuse_a_heartbeat_too_rare_for_its_timeout(tmp_path):
    result = setup_django(tmp_path, SHARD_HEARTBEAT_TIMEOUT="60", SHARD_HEARTBEAT_EVERY="45")
    assert result.returncode != 0
    assert "SHARD_HEARTBEAT_EVERY=45 must be at most half of SHARD_HEARTBEAT_TIMEOUT=60" in result.stderr
    assert setup_django(tmp_path, SHARD_HEARTBEAT_TIMEOUT="60", SHARD_HEARTBEAT_EVERY="30").returncode == 0


def test_settings_refuse_an_unsupported_database_url(tmp_path):
    result = setup_django(tmp_path, DATABASE_URL="mysql://x")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DATABASE_URL='mysql://x'" in result.stderr


def test_database_sqlite_url_with_relative_path_is_relative_to_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = database_config("sqlite:///relative.db", tmp_path / "var")
    assert config["NAME"] == str(tmp_path / "relative.db")


def test_env_storage_reads_the_backend_and_its_options(monkeypatch):
    default = "django.core.files.storage.FileSystemStorage"
    monkeypatch.delenv("WB_STORE", raising=False)
    monkeypatch.delenv("WB_STORE_OPTIONS", raising=False)
    assert env_storage("WB_STORE", "WB_STORE_OPTIONS", default) == {"BACKEND": default, "OPTIONS": {}}
    monkeypatch.setenv("WB_STORE", "django.core.files.storage.InMemoryStorage")
    monkeypatch.setenv("WB_STORE_OPTIONS", '{"location": "shared"}')
    assert env_storage("WB_STORE", "WB_STORE_OPTIONS", default) == {
        "BACKEND": "django.core.files.storage.InMemoryStorage",
        "OPTIONS": {"location": "shared"},
    }


@pytest.mark.parametrize("backend", ["storages.backends.s3.S3Storage", "storages.backends.s3boto3.S3Boto3Storage"])
def test_an_s3_store_keeps_a_second_upload_of_the_same_name_unless_told_to_overwrite(monkeypatch, backend):
    monkeypatch.setenv("WB_STORE", backend)
    monkeypatch.setenv("WB_STORE_OPTIONS", '{"bucket_name": "corpora"}')
    default = "django.core.files.storage.FileSystemStorage"
    assert env_storage("WB_STORE", "WB_STORE_OPTIONS", default)["OPTIONS"] == {
        "bucket_name": "corpora",
        "file_overwrite": False,
    }
    monkeypatch.setenv("WB_STORE_OPTIONS", '{"bucket_name": "corpora", "file_overwrite": true}')
    assert env_storage("WB_STORE", "WB_STORE_OPTIONS", default)["OPTIONS"]["file_overwrite"] is True


@pytest.mark.parametrize(
    ("backend", "options", "message"),
    [
        ("storages.backends.nowhere.S3Storage", "", "no module storages.backends.nowhere"),
        ("S3Storage", "", "dotted path"),
        ("django.core.files.storage.InMemoryStorage", "{bucket", "not JSON"),
        ("django.core.files.storage.InMemoryStorage", "[1]", "JSON object"),
    ],
)
def test_env_storage_refuses_what_cannot_work_naming_the_variable(monkeypatch, backend, options, message):
    monkeypatch.setenv("WB_STORE", backend)
    monkeypatch.setenv("WB_STORE_OPTIONS", options)
    with pytest.raises(ImproperlyConfigured, match=message):
        env_storage("WB_STORE", "WB_STORE_OPTIONS", "django.core.files.storage.FileSystemStorage")
