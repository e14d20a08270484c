"""The command line as a researcher meets it: every command says what it does, every option has help, one name
per concept (``--release`` for a release), nothing shadows Django's ``--version``, and no third-party banner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import django
import pytest
from django.core.management import get_commands, load_command_class

from config.cli import summary

ROOT = Path(__file__).resolve().parents[2]
APPS = {"config", "core", "datasets", "annotation", "building", "releases", "probing"}
# Django's own options of every command, which have Django's help.
DJANGO_OPTIONS = {"help", "version", "verbosity", "settings", "pythonpath", "traceback", "no_color", "force_color"}
DJANGO_OPTIONS |= {"skip_checks"}


def our_commands() -> list[tuple[str, str]]:
    return sorted((name, app) for name, app in get_commands().items() if app in APPS)


def manage(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_every_option_of_every_command_has_help_text():
    missing = []
    for name, app in our_commands():
        parser = load_command_class(app, name).create_parser("manage.py", name)
        for action in parser._actions:
            if action.dest not in DJANGO_OPTIONS and not (action.help or "").strip():
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert len(our_commands()) > 20
    assert missing == []


def test_a_release_is_always_named_with_release_and_version_is_djangos():
    for name, app in our_commands():
        parser = load_command_class(app, name).create_parser("manage.py", name)
        options = {option for action in parser._actions for option in action.option_strings}
        version = next(action for action in parser._actions if "--version" in action.option_strings)
        assert version.dest == "version", f"{name}: --version is not Django's"
        assert not {"--release-version", "--rel"} & options


@pytest.mark.parametrize(("name", "args"), [("run_probes", []), ("create_release", []), ("export_release", [])])
def test_version_prints_djangos_version_and_starts_nothing(name, args):
    result = manage(name, "--version", *args)
    assert result.returncode == 0 and result.stdout.strip() == django.get_version()


def test_help_describes_every_command_in_one_line_and_no_banner_is_printed():
    result = manage("help")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for name, app in our_commands():
        line = next(line for line in lines if line.split()[:1] == [name])
        described = line.split(None, 1)[1] if len(line.split(None, 1)) == 2 else ""
        assert described == summary(load_command_class(app, name).help), name
        assert len(described) > 20, name
    assert "AXES" not in result.stdout + result.stderr
    check = manage("check")
    assert "AXES" not in check.stdout + check.stderr and "System check identified no issues" in check.stdout


def test_the_summary_is_the_first_sentence():
    assert summary("Type/token analysis (Garcia et al. 2021, tables 2-3). More.") == (
        "Type/token analysis (Garcia et al. 2021, tables 2-3)"
    )
    assert summary("Export release --release VERSION into --out DIR: every file.\nSecond line.") == (
        "Export release --release VERSION into --out DIR: every file"
    )
