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

import glob
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REDIS_TEST_DB = 15
PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def log(message: str) -> None:
    print(f"services: {message}", file=sys.stderr, flush=True)


# --- probes ---------------------------------------------------------------------------------


def port_open(host: str, port: int, timeout: float = 1.0) -> bool:
    """True when something accepts a TCP connection at host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def postgres_answers(host: str, port: int, timeout: int = 3) -> bool:
    """TCP connect, then a real login as postgres to the postgres database."""
    if not port_open(host, port, timeout):
        return False
    try:
        import psycopg2
    except ImportError:  # only the TCP check is possible
        return True
    try:
        conn = psycopg2.connect(dbname="postgres", user="postgres", host=host, port=port, connect_timeout=timeout)
    except psycopg2.Error:
        return False
    conn.close()
    return True


def ensure_database(host: str, port: int, dbname: str) -> None:
    """Create ``dbname`` when missing (best effort), so DATABASE_URL names a real database."""
    try:
        import psycopg2
    except ImportError:
        return
    try:
        conn = psycopg2.connect(dbname="postgres", user="postgres", host=host, port=port)
    except psycopg2.Error:
        return
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [dbname])
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE DATABASE "{dbname}"')
    except psycopg2.Error as exc:
        log(f"could not create database {dbname!r}: {exc}".strip())
    finally:
        conn.close()


def redis_answers(host: str, port: int, timeout: float = 2.0) -> bool:
    """True when host:port answers PING with PONG."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path)) or (0,)


def find_pg_bin(name: str, pattern: str = PG_BIN_GLOB) -> str | None:
    """``name`` on PATH, else in the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    for directory in sorted(glob.glob(pattern), key=_version_key, reverse=True):
        candidate = Path(directory) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def unprivileged_user() -> str | None:
    """The account to run PostgreSQL as: None when not root (run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise RuntimeError("running as root and neither a postgres nor a nobody account exists")


def as_user(command: Sequence[str], user: str | None) -> list[str]:
    if user is None:
        return list(command)
    if shutil.which("runuser"):
        return ["runuser", "-u", user, "--", *command]
    return ["su", user, "-s", "/bin/sh", "-c", shlex.join(command)]


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# --- throwaway servers ----------------------------------------------------------------------


class TempPostgres:
    """A PostgreSQL cluster in a temporary directory, on a free port, trust auth."""

    def __init__(self, initdb: str, pg_ctl: str, host: str = "127.0.0.1") -> None:
        self.initdb, self.pg_ctl, self.host = initdb, pg_ctl, host
        self.port = 0
        self.user = unprivileged_user()
        self.root: Path | None = None

    @property
    def data(self) -> Path:
        assert self.root is not None
        return self.root / "data"

    def _run(self, command: list[str], timeout: int) -> None:
        result = subprocess.run(
            as_user(command, self.user),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"{Path(command[0]).name} failed: {result.stdout.strip()[-800:]}")

    def start(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="workbench-pg-"))
        if self.user is not None:
            account = pwd.getpwnam(self.user)
            os.chown(self.root, account.pw_uid, account.pw_gid)
        self._run(
            [self.initdb, "-D", str(self.data), "-U", "postgres", "-A", "trust"]
            + ["-E", "UTF8", "--locale=C", "--no-sync"],
            timeout=120,
        )
        options = (
            f"-p {{port}} -k {self.root} -c listen_addresses={self.host} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        for _attempt in range(3):  # a free port can be taken between the probe and the bind
            self.port = free_port(self.host)
            try:
                self._run(
                    [self.pg_ctl, "-D", str(self.data), "-l", str(self.root / "postgres.log")]
                    + ["-w", "-t", "60", "-o", options.format(port=self.port), "start"],
                    timeout=90,
                )
            except RuntimeError:
                if port_open(self.host, self.port):
                    continue
                raise RuntimeError(f"pg_ctl start failed:\n{_tail(self.root / 'postgres.log')}") from None
            if postgres_answers(self.host, self.port):
                return
        raise RuntimeError("the temporary PostgreSQL never accepted a login")

    def stop(self) -> None:
        if self.root is None:
            return
        if (self.data / "postmaster.pid").exists():
            try:
                self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"], 60)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                log(f"could not stop the temporary PostgreSQL cleanly: {exc}")
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None


class TempRedis:
    """``redis-server`` on a free port that keeps nothing on disk."""

    def __init__(self, server: str, host: str = "127.0.0.1") -> None:
        self.server, self.host = server, host
        self.port = 0
        self.root: Path | None = None
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="workbench-redis-"))
        logfile = self.root / "redis.log"
        for _attempt in range(3):
            self.port = free_port(self.host)
            self.process = subprocess.Popen(
                [self.server, "--port", str(self.port), "--bind", self.host]
                + ["--save", "", "--appendonly", "no", "--daemonize", "no"]
                + ["--dir", str(self.root), "--logfile", str(logfile)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and self.process.poll() is None:
                if redis_answers(self.host, self.port):
                    return
                time.sleep(0.1)
            self._terminate()
        raise RuntimeError(f"redis-server did not start:\n{_tail(logfile)}")

    def _terminate(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def stop(self) -> None:
        self._terminate()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None


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
