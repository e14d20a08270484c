#!/usr/bin/env python3
"""Pick the PostgreSQL and Redis a test run talks to, then run a command with them.

    python scripts/services.py [--] COMMAND [ARG...]

For each service, in order:

1. the machine's own server: PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth) and
   Redis at 127.0.0.1:6379;
2. else a throwaway server started here on a free port (``initdb`` + ``pg_ctl``, found on
   PATH or in /usr/lib/postgresql/*/bin; ``redis-server``), stopped and deleted at exit;
3. else none: SQLite with ``WORKBENCH_NO_POSTGRES=1``, no ``REDIS_URL`` and
   ``WORKBENCH_NO_REDIS=1``, so that the tests that need the service are skipped.

The child gets ``DATABASE_URL`` (postgres://postgres@HOST:PORT/workbench; pytest-django makes
test_workbench from it) and ``REDIS_URL`` (redis://HOST:PORT/15). The exit code is the child's.

Environment (mostly for trying the fallbacks):
  WORKBENCH_PG_HOST, WORKBENCH_PG_PORT          where to look for PostgreSQL (127.0.0.1, 5432)
  WORKBENCH_PG_DBNAME                           database name in DATABASE_URL (workbench)
  WORKBENCH_REDIS_HOST, WORKBENCH_REDIS_PORT    where to look for Redis (127.0.0.1, 6379)
  WORKBENCH_TEMP_SERVICES=0                     never start throwaway servers

Standard library only; psycopg2, when importable, confirms that PostgreSQL accepts a login.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# A script run as `python scripts/services.py`: its sibling module is on the path, the project is not.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_servers import (  # noqa: E402
    TempPostgres,
    TempRedis,
    ensure_database,
    find_pg_bin,
    log,
    postgres_answers,
    redis_answers,
)

REDIS_TEST_DB = 15


# --- probes ---------------------------------------------------------------------------------


# --- throwaway servers ----------------------------------------------------------------------


# --- choices --------------------------------------------------------------------------------


@dataclass
class Choice:
    """What one service contributes: variables to set (None: remove) and how to clean up."""

    summary: str
    env: dict[str, str | None] = field(default_factory=dict)
    cleanup: Callable[[], None] | None = None
    notice: str = ""


def _setting(env: dict[str, str], name: str, default: str) -> str:
    return env.get(name) or default


def temp_services_allowed(env: dict[str, str]) -> bool:
    return env.get("WORKBENCH_TEMP_SERVICES", "1").strip().lower() not in {"0", "false", "no"}


def choose_database(env: dict[str, str]) -> Choice:
    host = _setting(env, "WORKBENCH_PG_HOST", "127.0.0.1")
    port = int(_setting(env, "WORKBENCH_PG_PORT", "5432"))
    dbname = _setting(env, "WORKBENCH_PG_DBNAME", "workbench")

    def postgres(host: str, port: int, summary: str, cleanup=None) -> Choice:
        ensure_database(host, port, dbname)
        url = f"postgres://postgres@{host}:{port}/{dbname}"
        return Choice(summary, {"DATABASE_URL": url, "WORKBENCH_NO_POSTGRES": None}, cleanup)

    if postgres_answers(host, port):
        return postgres(host, port, f"PostgreSQL at {host}:{port}")
    initdb, pg_ctl = find_pg_bin("initdb"), find_pg_bin("pg_ctl")
    reason = f"nothing answers at {host}:{port}"
    if not temp_services_allowed(env):
        reason += ", WORKBENCH_TEMP_SERVICES=0"
    elif initdb and pg_ctl:
        server = TempPostgres(initdb, pg_ctl)
        try:
            server.start()
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            server.stop()
            reason += f", temporary cluster failed: {exc}"
        except BaseException:  # a signal while starting: leave nothing behind
            server.stop()
            raise
        else:
            summary = f"temporary PostgreSQL at {server.host}:{server.port} ({server.root})"
            return postgres(server.host, server.port, summary, server.stop)
    else:
        reason += ", no initdb/pg_ctl found"
    return Choice(
        "SQLite",
        {"DATABASE_URL": None, "WORKBENCH_NO_POSTGRES": "1"},
        notice=f"PostgreSQL unavailable ({reason}): PostgreSQL-only tests will be skipped",
    )


def choose_redis(env: dict[str, str]) -> Choice:
    host = _setting(env, "WORKBENCH_REDIS_HOST", "127.0.0.1")
    port = int(_setting(env, "WORKBENCH_REDIS_PORT", "6379"))

    def redis(host: str, port: int, summary: str, cleanup=None) -> Choice:
        url = f"redis://{host}:{port}/{REDIS_TEST_DB}"
        return Choice(f"{summary} ({url})", {"REDIS_URL": url, "WORKBENCH_NO_REDIS": None}, cleanup)

    if redis_answers(host, port):
        return redis(host, port, f"Redis at {host}:{port}")
    server_bin = shutil.which("redis-server")
    reason = f"nothing answers PING at {host}:{port}"
    if not temp_services_allowed(env):
        reason += ", WORKBENCH_TEMP_SERVICES=0"
    elif server_bin:
        server = TempRedis(server_bin)
        try:
            server.start()
        except (RuntimeError, OSError) as exc:
            server.stop()
            reason += f", temporary server failed: {exc}"
        except BaseException:
            server.stop()
            raise
        else:
            return redis(server.host, server.port, "temporary Redis", server.stop)
    else:
        reason += ", no redis-server found"
    return Choice(
        "no Redis",
        {"REDIS_URL": None, "WORKBENCH_NO_REDIS": "1"},
        notice=f"Redis unavailable ({reason}): Redis tests will be skipped",
    )


def child_environment(base: dict[str, str], choices: Sequence[Choice]) -> dict[str, str]:
    env = dict(base)
    for choice in choices:
        for name, value in choice.env.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
    return env


# --- running --------------------------------------------------------------------------------


class _Stop(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run(command: Sequence[str], base_env: dict[str, str] | None = None) -> int:
    """Choose the services, run ``command`` with them, clean up; return the exit code."""
    base_env = dict(os.environ if base_env is None else base_env)
    choices: list[Choice] = []
    child: subprocess.Popen | None = None

    def on_signal(signum: int, _frame) -> None:
        if child is None:
            raise _Stop(signum)
        if signum != signal.SIGINT:  # Ctrl-C already reached the child's process group
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        choices.append(choose_database(base_env))
        choices.append(choose_redis(base_env))
        for choice in choices:
            if choice.notice:
                log(choice.notice)
        database, redis = choices
        log(f"using database: {database.summary}; redis: {redis.summary}")
        try:
            child = subprocess.Popen(list(command), env=child_environment(base_env, choices))
        except OSError as exc:
            log(f"cannot run {command[0]!r}: {exc}")
            return 127
        code = child.wait()
        return 128 - code if code < 0 else code
    except _Stop as stop:
        log(f"stopped by signal {stop.signum}")
        return 128 + stop.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for choice in reversed(choices):
            if choice.cleanup is not None:
                choice.cleanup()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "--":
        args = args[1:]
    if not args or args[0] in {"-h", "--help"}:
        print(__doc__, file=sys.stderr)
        return 0 if args else 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
