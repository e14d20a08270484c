"""Production settings come from the environment (issue 13, item 6).

`manage.py check --deploy` runs in a subprocess with DEBUG off and the production variables the
README documents, and must report nothing; every page carries a Content-Security-Policy that
allows no inline script or style.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import cache_config, env_rate, proxy_ssl_header

REPO_ROOT = Path(__file__).resolve().parents[2]
# The README's "Production" section lists exactly these.
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x7#pQ2!vL9$wR4@zT6^yU8&iO1*aS3(dF5)gH0-jK_lZ+cX=mN4;bV7:qE2",
    "ALLOWED_HOSTS": "workbench.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://workbench.example.org",
    "WORKBENCH_HTTPS": "true",
    "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "SECURE_HSTS_PRELOAD": "true",
    "WORKBENCH_TRUSTED_PROXIES": "127.0.0.1",
    "CACHE_URL": "redis://127.0.0.1:6379/1",
}


def check_deploy(tmp_path: Path, **overrides: str) -> subprocess.CompletedProcess:
    keep = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "LC_ALL"}}
    env = keep | PRODUCTION | {"WORKBENCH_VAR_DIR": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3"}
    env |= overrides
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_documented_production_variables(tmp_path):
    result = check_deploy(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    # and the check still sees a server that is not behind HTTPS
    insecure = check_deploy(tmp_path, WORKBENCH_HTTPS="false")
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in insecure.stdout + insecure.stderr


def test_a_count_of_proxies_is_refused_with_what_to_set_instead(tmp_path):
    result = check_deploy(tmp_path, WORKBENCH_PROXY_COUNT="1")
    assert result.returncode != 0
    assert "Set WORKBENCH_TRUSTED_PROXIES to your proxies' addresses" in result.stderr


@pytest.mark.django_db
def test_every_page_forbids_inline_scripts_and_styles(client):
    policy = client.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


@pytest.mark.parametrize(
    ("reader", "raw", "message"),
    [
        (cache_config, "memcached://x", "CACHE_URL"),
        (proxy_ssl_header, "X Forwarded Proto", "SECURE_PROXY_SSL_HEADER"),
    ],
)
def test_bad_security_variables_stop_start_up_naming_the_variable(reader, raw, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        reader(raw)


def test_security_readers_give_what_django_wants(monkeypatch):
    assert proxy_ssl_header("X-Forwarded-Proto") == ("HTTP_X_FORWARDED_PROTO", "https")
    assert proxy_ssl_header("X-Scheme: HTTPS") == ("HTTP_X_SCHEME", "HTTPS")
    assert proxy_ssl_header(None) is None
    assert cache_config("redis://h:6379/1")["BACKEND"].endswith("RedisCache")
    assert cache_config(None)["BACKEND"].endswith("LocMemCache")
    monkeypatch.setenv("WB_RATE", "every minute")
    with pytest.raises(ImproperlyConfigured, match="WB_RATE"):
        env_rate("WB_RATE", "1/second")
    monkeypatch.setenv("WB_RATE", "30/minute")
    assert env_rate("WB_RATE", "1/second") == "30/minute"
