"""The servers a test run talks to: whether one answers, and throwaway PostgreSQL and Redis servers.

Standard library only (psycopg2, when importable, confirms that PostgreSQL accepts a login); used by
``scripts/services.py``, which chooses between the machine's servers and these."""

from __future__ import annotations

import glob
import os
import pwd
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def log(message: str) -> None:
    print(f"services: {message}", file=sys.stderr, flush=True)


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
