"""Test-wide setup: service markers and the fixtures that find services, a browser and data.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml. ``scripts/services.py`` (run by
``make test``) exports DATABASE_URL and REDIS_URL, or WORKBENCH_NO_POSTGRES=1 and
WORKBENCH_NO_REDIS=1 when a service cannot be had.

Markers (``--strict-markers``: only these exist):

- ``postgres``: skipped on SQLite or when WORKBENCH_NO_POSTGRES=1;
- ``redis``: skipped when REDIS_URL is unset (so is any test using the ``redis_url`` fixture);
- ``browser``: skipped when Debian's /usr/bin/chromium is missing, and a failure when CI=true
  (so is any test using ``chromium_path`` or ``chromium_launch_options``).

``shared_data`` (../shared/data beside the checkout, or WORKBENCH_SHARED_DATA) skips when absent, and fails when CI=true.
Skips are decided at collection, so ``-rs`` lists each skipped test with its reason.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("WORKBENCH_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")
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
    if requirement == "wordnet":
        found = (DEBIAN_WORDNET / "data.noun").is_file()
        return None if found else f"{DEBIAN_WORDNET} is missing (apt-get install wordnet-base)"
    raise ValueError(requirement)


# Only a developer's machine may lack these; in CI their absence is a failure.
REQUIRED_IN_CI = {"browser", "shared_data", "wordnet"}


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


@pytest.fixture
def redis_url() -> str:
    """REDIS_URL of a server for tests (database 15 under make test): use keys of your own."""
    url = redis_url_from_env()
    if url is None:  # only when called outside the collection-time skip
        pytest.skip(missing("redis"))
    return url


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
