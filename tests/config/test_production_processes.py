"""How production processes log and how many gunicorn workers serve (issue 35, item 5)."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY = "process-test-key-8e1d3c5b7a9f0e2d4c6b8a0f1e3d5c7b9a"
LOG_ONE = "import logging; logging.getLogger('workbench.test').warning('hello %s', 'world')"


def run_shell(tmp_path: Path, *command: str, **env: str) -> subprocess.CompletedProcess:
    keep = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "LC_ALL"}}
    base = {"WORKBENCH_VAR_DIR": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3"}
    return subprocess.run(
        [sys.executable, "manage.py", *(command or ("shell", "-c", LOG_ONE))],
        cwd=REPO_ROOT,
        env=keep | base | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_logs_one_json_object_per_line_on_stdout(tmp_path):
    result = run_shell(tmp_path, DEBUG="false", SECRET_KEY=SECRET_KEY)
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout.strip().splitlines()[-1])
    assert entry["message"] == "hello world" and entry["level"] == "WARNING" and entry["logger"] == "workbench.test"
    assert "request_id" not in entry  # outside a request


def test_development_logs_plain_text_on_stderr_unless_asked(tmp_path):
    plain = run_shell(tmp_path, DEBUG="true")
    assert plain.returncode == 0 and "hello world" in plain.stderr and "{" not in plain.stderr
    asked = run_shell(tmp_path, DEBUG="true", LOG_FORMAT="json")
    assert json.loads(asked.stdout.strip().splitlines()[-1])["message"] == "hello world"


def test_an_unknown_log_format_stops_start_up_saying_what_to_set(tmp_path):
    result = run_shell(tmp_path, "check", DEBUG="true", LOG_FORMAT="xml")
    assert result.returncode != 0 and "LOG_FORMAT='xml' is not a log format: set it to json or plain" in result.stderr


@pytest.mark.parametrize(("cap", "expected"), [(None, "2c+1"), ("3", 3), ("1000", "2c+1"), ("0", 1)])
def test_gunicorn_runs_two_workers_per_cpu_and_one_more_at_most_web_concurrency(monkeypatch, cap, expected):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    if cap is None:
        monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    else:
        monkeypatch.setenv("WEB_CONCURRENCY", cap)
    conf = runpy.run_path(str(REPO_ROOT / "gunicorn.conf.py"))
    assert conf["workers"] == (9 if expected == "2c+1" else expected)
    assert conf["worker_class"] == "gthread" and conf["preload_app"] is True
