"""``make serve`` (what ``make demo`` ends with) as a user meets it: a taken port moves it to the next free one,
saying so, and TERM or Ctrl-C to make's process group stops every process it started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def processes_with(marker: str) -> list[int]:
    """The processes whose environment holds ``marker`` (what serve started carries our var dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture
def var_dir(tmp_path):
    env = served_env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300)
    return tmp_path


def served_env(var_dir: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "LC_ALL"}}
    return keep | {
        "WORKBENCH_VAR_DIR": str(var_dir),
        "DATABASE_URL": f"sqlite:///{var_dir}/db.sqlite3",
        "DEBUG": "true",
        "WORKBENCH_SKIP_APT": "1",
    }


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_taken_port_moves_to_the_next_and_a_signal_to_makes_group_stops_everything(var_dir, sig):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        serve = subprocess.Popen(
            ["make", "serve"],
            cwd=ROOT,
            env=served_env(var_dir) | {"PORT": str(port)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # make's own process group, as a terminal gives it
        )
        lines, chosen = [], None
        try:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                line = serve.stdout.readline()
                if not line:
                    break
                lines.append(line)
                if "Ctrl-C stops everything" in line:
                    break
            text = "".join(lines)
            assert f"port {port} is in use: serving on port" in text, text[-3000:]
            chosen = int(text.split(f"port {port} is in use: serving on port ")[1].split()[0])
            assert chosen != port and f"http://127.0.0.1:{chosen}/" in text
            assert urllib.request.urlopen(f"http://127.0.0.1:{chosen}/", timeout=10).status == 200
            started = processes_with(str(var_dir))
            assert len(started) >= 3, "web, worker and beat run"
        finally:
            os.killpg(serve.pid, sig)
            serve.communicate(timeout=60)
    assert processes_with(str(var_dir)) == []
    assert chosen is not None and port_free(chosen)
