"""Two layout rules of issue 15 that import-linter cannot say: config/urls.py wires apps, and module aliases are words."""

from __future__ import annotations

import ast
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

ROOT = Path(__file__).resolve().parents[2]
APPS = ["config", "core", "datasets", "annotation", "building", "releases", "probing"]
PROJECT_FOLDERS = [*APPS, "tests", "scripts", "benchmarks"]


def project_files() -> list[Path]:
    return [path for folder in PROJECT_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))]


def test_config_urls_imports_no_view():
    tree = ast.parse((ROOT / "config" / "urls.py").read_text(encoding="utf-8"))
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported == {"django.contrib", "django.urls"}


def test_every_route_of_config_urls_is_an_apps_urls_module():
    top = get_resolver().url_patterns
    assert not [str(pattern.pattern) for pattern in top if isinstance(pattern, URLPattern)]
    assert all(isinstance(pattern, URLResolver) for pattern in top)


def test_no_module_has_a_one_letter_alias():
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} as {alias.asname}"
        for path in project_files()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        if alias.asname is not None and len(alias.asname) == 1
    ]
    assert found == []


def test_the_layout_checks_see_the_project():
    assert len(project_files()) > 300
