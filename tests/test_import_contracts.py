"""The purity contract finds its modules in the code (scripts/import_contracts.py): a module that says it is
pure and imports Django fails ``lint-imports``; one that does not say so is not checked."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scripts.import_contracts import claims_pure

REPO = Path(__file__).resolve().parent.parent
CONFIG = """
[importlinter]
root_packages =
    planted
include_external_packages = True
contract_types =
    pure_modules: scripts.import_contracts.PureModulesContract

[importlinter:contract:pure]
name = pure modules import no Django
type = pure_modules
forbidden_modules =
    django
"""


@pytest.mark.parametrize(
    "docstring",
    [
        "Cosines of many pairs (pure: no Django).",
        "Pure: pandas and scipy, no Django.",
        "Sim and Affinity (He et al. 2024, section 3.4; pure: no Django).",
        "Backends.\n\nPure (no Django): the registration reads files.",
        "A campaign's figures (pure reads).",
    ],
)
def test_these_docstrings_claim_purity(docstring):
    assert claims_pure(f'"""{docstring}"""\n')


@pytest.mark.parametrize(
    "docstring",
    ["Load what the pure analyses need from the database.", "The science lives in pure modules.", "Purely cosmetic."],
)
def test_these_docstrings_only_mention_it(docstring):
    assert not claims_pure(f'"""{docstring}"""\n')


def lint(tree: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(REPO)}
    lint_imports = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120
    )


def plant(tree: Path, files: dict[str, str]) -> None:
    (tree / ".importlinter").write_text(CONFIG)
    for name, text in files.items():
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_a_module_that_says_pure_and_imports_django_fails_and_one_that_does_not_say_so_passes(tmp_path):
    plant(
        tmp_path,
        {
            "planted/__init__.py": "",
            "planted/clean.py": '"""Clean numbers (pure: no Django)."""\nimport json\n',
            "planted/helper.py": '"""Reads the database."""\nfrom django.db import models\n',
            "planted/dirty.py": '"""Cosines (pure: no Django)."""\nfrom planted import helper\n',
        },
    )
    result = lint(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "planted.dirty is not allowed to import django" in result.stdout
    assert "planted.dirty -> planted.helper" in result.stdout and "planted.helper ->" in result.stdout
    (tmp_path / "planted/dirty.py").write_text('"""Cosines, read from the database."""\nfrom planted import helper\n')
    assert lint(tmp_path).returncode == 0


def test_a_claim_in_a_packages_init_covers_its_modules(tmp_path):
    plant(
        tmp_path,
        {
            "planted/__init__.py": "",
            "planted/rules/__init__.py": '"""Rules (pure: no Django import)."""\n',
            "planted/rules/plan.py": '"""What goes where."""\nimport django\n',
        },
    )
    result = lint(tmp_path)
    assert result.returncode == 1 and "planted.rules.plan is not allowed to import django" in result.stdout
