"""Typed readers for settings that come from the environment.

Plain functions (only Django's exception class is imported), testable on their own. Every reader
raises ``ImproperlyConfigured`` naming the variable and what it accepts.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import os
import re
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


S3_BACKENDS = {"storages.backends.s3.S3Storage", "storages.backends.s3boto3.S3Boto3Storage"}


def env_storage(name: str, options_name: str, default: str) -> dict:
    """A ``STORAGES`` entry: the backend class ``name`` names (dotted path) and its options, a JSON object.

    The backend's module must be installed: ``storages.backends.s3.S3Storage`` needs django-storages[s3].
    """
    backend = os.environ.get(name, "").strip() or default
    module, _, cls = backend.rpartition(".")
    if not module or not cls:
        raise ImproperlyConfigured(f"{name}={backend!r}: give a storage class's dotted path.")
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise ImproperlyConfigured(
            f"{name}={backend!r}: no module {module} (django-storages: pip install django-storages[s3])."
        )
    raw = os.environ.get(options_name, "").strip()
    try:
        options = json.loads(raw) if raw else {}
    except ValueError:
        raise ImproperlyConfigured(
            f'{options_name} is not JSON: give an object such as {{"bucket_name": "corpora"}}.'
        ) from None
    if not isinstance(options, dict):
        raise ImproperlyConfigured(f"{options_name} must be a JSON object of the storage's options.")
    if backend in S3_BACKENDS:
        # As on the local disk, a second upload of the same name gets a new name; django-storages'
        # default would replace the object a running job reads. An explicit "file_overwrite" wins.
        options.setdefault("file_overwrite", False)
    return {"BACKEND": backend, "OPTIONS": options}


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} is set but empty: give a comma-separated list.")
    return items


def env_paths(name: str, default: list[Path], not_inside: Path | None = None) -> list[Path]:
    """Absolute folders separated by colons or commas, as real paths (symlinks followed); empty means none.

    ``not_inside``: a folder none of them may be or lie in (MEDIA_ROOT, for the folders models load from).
    """
    raw = os.environ.get(name)
    items = [str(path) for path in default] if raw is None else raw.replace(",", ":").split(":")
    paths = []
    for item in (item.strip() for item in items):
        if not item:
            continue
        if not os.path.isabs(item):
            raise ImproperlyConfigured(f"{name}: {item!r} is not an absolute path: list folders such as /srv/models.")
        paths.append(Path(os.path.realpath(item)))
    if not_inside is not None:
        forbidden = Path(os.path.realpath(not_inside))
        for path in paths:
            if path == forbidden or forbidden in path.parents:
                raise ImproperlyConfigured(
                    f"{name}: {path} lies inside {forbidden}, where uploads are kept: list folders outside it."
                )
    return paths


HEX = frozenset("0123456789abcdef")


def env_sha256s(name: str) -> frozenset[str]:
    """sha256 digests (64 hex digits, as ``sha256sum`` prints them) separated by commas or spaces."""
    digests = frozenset(item.lower() for item in os.environ.get(name, "").replace(",", " ").split())
    for digest in sorted(digests):
        if len(digest) != 64 or not set(digest) <= HEX:
            raise ImproperlyConfigured(f"{name}: {digest!r} is not a sha256: list what `sha256sum FILE` prints first.")
    return digests


def env_names(name: str, default: list[str], refused: frozenset[str] = frozenset()) -> list[str]:
    """Environment variable names (letters, digits, underscores), comma-separated; none of ``refused``."""
    names = env_list(name, default)
    for item in names:
        if not (item.replace("_", "a").isalnum() and item.isascii() and not item[0].isdigit()):
            raise ImproperlyConfigured(f"{name}: {item!r} is not an environment variable name.")
        if item in refused:
            raise ImproperlyConfigured(f"{name}: {item} holds a secret of the server itself: never list it.")
    return names


def env_hosts(name: str, default: list[str]) -> list[str]:
    """Host names, addresses or networks (api.openai.com, 10.0.0.5, 10.0.0.0/24, [::1]), comma-separated."""
    hosts = env_list(name, default)
    for host in hosts:
        try:
            ipaddress.ip_network(host.strip("[]"), strict=False)
        except ValueError:
            label = host.rstrip(".").replace("-", "a").replace(".", "a")
            if not (label.isalnum() and label.isascii()):
                raise ImproperlyConfigured(
                    f"{name}: {host!r} is not a host name, an address or a network (such as 10.0.0.0/24)."
                ) from None
    return [host.lower().rstrip(".") for host in hosts]


def env_url(name: str, default: str) -> str:
    """An http(s) URL with a host and no user or password, such as ``https://huggingface.co``."""
    raw = os.environ.get(name)
    url = default if raw is None or raw.strip() == "" else raw.strip()
    try:
        parts = urlparse(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in {"http", "https"} or not parts.hostname or parts.username or parts.password:
        raise ImproperlyConfigured(f"{name}={url!r} is not an http(s) URL with a host: use one such as https://HOST.")
    return url.rstrip("/")


def env_networks(name: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Addresses or networks (10.0.0.5, 172.16.0.0/12, ::1), comma-separated; unset or empty: none."""
    networks = []
    for item in (item.strip() for item in os.environ.get(name, "").split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item.strip("[]"), strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not an address or a network (such as 10.0.0.0/24)."
            ) from None
    return tuple(networks)


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

        # Persistent connections (one per gunicorn thread), checked once per request before reuse.
        config = dj_database_url.parse(
            url,
            conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0),
            conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
        )
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


def cache_config(url: str | None) -> dict:
    """``CACHE_URL`` as a Django cache: Redis, shared by every gunicorn worker, or local memory when unset.

    Login lockouts live in the database; the API's rate limits live here, so a production server
    with several workers needs Redis for them to count every worker's requests.
    """
    if not url or url == "locmem://":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "workbench"}
    scheme = urlparse(url).scheme
    if scheme in {"redis", "rediss"}:
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    raise ImproperlyConfigured(
        f"CACHE_URL={url!r} has an unsupported scheme {scheme!r}: use redis://HOST:6379/1, "
        "or leave it unset for a cache in each process's memory (one process only)."
    )


def session_engine(cache: dict) -> str:
    """Where sessions live: read through the cache when it is Redis, shared by every process, else the database.

    Every request of a study reads its session (each rating's submit and next item): from Redis that
    costs no query, and the database still keeps every session (``cached_db`` writes through). A
    cache in each process's memory could hand one process a session that another has changed since.
    """
    if cache["BACKEND"].endswith("RedisCache"):
        return "django.contrib.sessions.backends.cached_db"
    return "django.contrib.sessions.backends.db"


def proxy_ssl_header(value: str | None) -> tuple[str, str] | None:
    """``SECURE_PROXY_SSL_HEADER`` as Django wants it: "X-Forwarded-Proto" gives ("HTTP_X_FORWARDED_PROTO", "https").

    "NAME: VALUE" names another value than https. Unset: Django trusts no proxy header.
    """
    if not value:
        return None
    name, _, expected = value.partition(":")
    name, expected = name.strip(), expected.strip() or "https"
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", name):
        raise ImproperlyConfigured(
            f"SECURE_PROXY_SSL_HEADER={value!r} is not a header name: use the header your TLS proxy sets, "
            "e.g. X-Forwarded-Proto (or X-Forwarded-Proto: https)."
        )
    return "HTTP_" + name.upper().replace("-", "_"), expected


def env_rate(name: str, default: str) -> str:
    """A rate such as ``60/minute`` (DRF's throttle format: per second, minute, hour or day)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    rate = raw.strip()
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", rate):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a rate: use NUMBER/PERIOD, e.g. 60/minute or 1000/hour.")
    return rate
