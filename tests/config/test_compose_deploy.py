"""docker/compose.yml's web environment passes `manage.py check --deploy` (issue 35, item 5).

The environment is read from the compose file itself, its ``${VAR:-default}`` filled as compose
fills them, so the test follows the file. As shipped the stack serves plain HTTP on localhost, and
the check names exactly the four HTTPS settings; with the variables a TLS proxy in front asks for
(docs/deployment.md "Production") it reports nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
COMPOSE = REPO_ROOT / "docker" / "compose.yml"
SECRET_KEY = "compose-test-key-4f9c1e7a2b8d6e0f3a5c7b9d1e2f4a6c8b0d"
BEHIND_TLS = {"WORKBENCH_HTTPS": "true", "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto", "SECURE_HSTS_PRELOAD": "true"}
HTTPS_WARNINGS = {"security.W004", "security.W008", "security.W012", "security.W016"}


def interpolate(value: str, given: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?message}`` from ``given``."""

    def one(match: re.Match) -> str:
        name, op, rest = match.group(1), match.group(2), match.group(3) or ""
        if given.get(name):
            return given[name]
        assert op != ":?", f"compose requires {name}: {rest}"
        return rest if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


def web_environment(given: dict[str, str]) -> dict[str, str]:
    web = yaml.safe_load(COMPOSE.read_text())["services"]["web"]
    return {name: interpolate(str(value), given) for name, value in web["environment"].items()}


def check_deploy(tmp_path: Path, given: dict[str, str]) -> subprocess.CompletedProcess:
    environment = web_environment({"SECRET_KEY": SECRET_KEY} | given)
    keep = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "LC_ALL"}}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO_ROOT,
        env=keep | environment | {"WORKBENCH_VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_compose_environment_is_production_settings():
    environment = web_environment({"SECRET_KEY": SECRET_KEY})
    assert environment["DEBUG"] == "false" and environment["SECRET_KEY"] == SECRET_KEY
    assert environment["DATABASE_URL"].startswith("postgres://") and environment["CELERY_BROKER_URL"].startswith(
        "redis://"
    )
    assert environment["ALLOWED_HOSTS"] == "localhost,127.0.0.1"


def test_check_deploy_is_clean_with_the_compose_environment_behind_tls(tmp_path):
    result = check_deploy(tmp_path, BEHIND_TLS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_names_only_the_https_settings_for_compose_on_plain_http(tmp_path):
    result = check_deploy(tmp_path, {})
    assert result.returncode != 0
    named = set(re.findall(r"\((\w+\.[WE]\d+)\)", result.stdout + result.stderr))
    assert named == HTTPS_WARNINGS, result.stdout + result.stderr
