"""Typed readers for settings that come from the environment.

Plain functions (only Django's exception class is imported), testable on their own. Every reader
raises ``ImproperlyConfigured`` naming the variable and what it accepts.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: set it to one of true/false, 1/0, yes/no, on/off.")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} is set but empty: give a comma-separated list.")
    return items


def database_config(url: str | None, var_dir: Path) -> dict:
    """Turn ``DATABASE_URL`` into a Django DATABASES entry (SQLite under var/ by default)."""
    if not url:
        return sqlite_config(var_dir / "workbench.sqlite3")
    scheme = urlparse(url).scheme
    if scheme in {"sqlite", "sqlite3"}:
        # sqlite:///relative.db and sqlite:////absolute/path.db, as in SQLAlchemy and dj-database-url.
        path = url.split("://", 1)[1]
        path = path[1:] if path.startswith("/") else path
        return sqlite_config(Path(path).resolve() if path else var_dir / "workbench.sqlite3")
    if scheme in {"postgres", "postgresql", "pgsql"}:
        import dj_database_url

        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
        if not config.get("NAME"):
            raise ImproperlyConfigured(f"DATABASE_URL={url!r} names no database: use postgres://USER@HOST:PORT/DBNAME.")
        return config
    raise ImproperlyConfigured(
        f"DATABASE_URL={url!r} has an unsupported scheme {scheme!r}: "
        "use postgres://USER:PASSWORD@HOST:PORT/DBNAME or sqlite:///PATH (or leave it unset)."
    )


def sqlite_config(path: Path) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            # WAL lets the web server read while a worker writes; IMMEDIATE avoids
            # "database is locked" on upgrade from a read to a write transaction.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
    }


def broker_url(url: str | None) -> str:
    """Validate ``CELERY_BROKER_URL``; empty means the embedded filesystem broker."""
    if not url:
        return "filesystem://"
    scheme = urlparse(url).scheme
    if scheme not in {"redis", "rediss", "amqp", "pyamqp", "filesystem", "memory"}:
        raise ImproperlyConfigured(
            f"CELERY_BROKER_URL={url!r} has an unsupported scheme {scheme!r}: "
            "use redis://HOST:6379/0, amqp://USER:PASS@HOST:5672// or leave it unset "
            "for the embedded broker."
        )
    return url


def secret_key(value: str | None, debug: bool, var_dir: Path) -> str:
    """Use ``SECRET_KEY`` when given; in DEBUG generate one once into var/secret_key."""
    if value:
        if len(value) < 32:
            raise ImproperlyConfigured("SECRET_KEY is too short: use at least 32 characters.")
        return value
    if not debug:
        raise ImproperlyConfigured(
            'SECRET_KEY must be set when DEBUG is off (python -c "import secrets; print(secrets.token_urlsafe(50))").'
        )
    key_file = var_dir / "secret_key"
    if key_file.exists():
        return key_file.read_text().strip()
    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    key_file.write_text(key)
    key_file.chmod(0o600)
    return key
