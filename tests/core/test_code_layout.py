"""Layout rules import-linter cannot say: config/urls.py wires apps, module aliases are words, views, serializers,
commands and tasks write only through actions, and no product module grows past 400 lines."""

from __future__ import annotations

import ast
import re
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


# Database writes: what a view, serializer, command or task must leave to an app's actions.
WRITES = {"save", "update", "create", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
# Not the database: the cache, the session, messages; a form's unsaved instance; DRF's door to serializer.create().
NOT_DATABASE = {"cache", "session", "request.session", "messages", "serializer"}
MAX_LINES = 400


def entry_points() -> list[Path]:
    """Views, the API (its serializers and view sets), serializers, management commands and Celery tasks."""
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            name = path.name
            if (
                name in {"views.py", "api.py", "serializers.py", "tasks.py"}
                or name.endswith("_views.py")
                or "commands" in path.parts
            ):
                found.append(path)
    return found


def direct_writes(source: str) -> list[str]:
    """``line: call`` for every database write in ``source`` (``form.save(commit=False)`` writes nothing)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITES):
            continue
        receiver = ast.unparse(node.func.value)
        if receiver in NOT_DATABASE or receiver.endswith(".session"):
            continue
        if any(
            k.arg == "commit" and isinstance(k.value, ast.Constant) and k.value.value is False for k in node.keywords
        ):
            continue
        if node.func.attr == "update" and not any(
            word in receiver for word in ("objects", "filter(", "exclude(", "all(")
        ):
            continue  # dict.update and friends
        found.append(f"{node.lineno}: {receiver}.{node.func.attr}(...)")
    return found


def test_the_write_scan_finds_what_it_must_and_only_that():
    planted = """
def view(request, campaign, form):
    Campaign.objects.filter(pk=campaign.pk).update(status="open")
    campaign.save()
    form.save()
    Item.objects.create(campaign=campaign)
    example.delete()
    context.update({"a": 1})
    form.save(commit=False)
    serializer.save(created_by=request.user)
    cache.delete("key")
"""
    assert [line.split(": ")[1] for line in direct_writes(planted)] == [
        "Campaign.objects.filter(pk=campaign.pk).update(...)",
        "campaign.save(...)",
        "form.save(...)",
        "Item.objects.create(...)",
        "example.delete(...)",
    ]


def test_views_serializers_commands_and_tasks_write_only_through_actions():
    found = [
        f"{path.relative_to(ROOT)}:{write}"
        for path in entry_points()
        for write in direct_writes(path.read_text(encoding="utf-8"))
    ]
    assert len(entry_points()) > 40
    assert found == [], "write through the app's actions (actions.py, setup_actions.py, ...):\n" + "\n".join(found)


def test_no_product_module_is_over_400_lines():
    long = [
        f"{path.relative_to(ROOT)}: {count} lines"
        for folder in [*APPS, "scripts"]
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "migrations" not in path.parts and (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert long == []


def test_architecture_names_every_package_and_every_module_it_names_exists():
    """The map stays true: every package of the apps is on it, and no file it names has moved away."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = [
        path.parent.relative_to(ROOT)
        for app in APPS
        for path in sorted((ROOT / app).rglob("__init__.py"))
        if "migrations" not in path.parts and "management" not in path.parts and "templatetags" not in path.parts
    ]
    missing = [str(p) for p in packages if p.name + "/" not in text and f"`{p.name}`" not in text]
    assert missing == [], "packages missing from ARCHITECTURE.md: " + ", ".join(missing)
    named = set(re.findall(r"`([\w/]+\.py)`", text))
    everywhere = [path for path in ROOT.rglob("*.py") if ".venv" not in path.parts and ".git" not in path.parts]
    files = {path.name for path in everywhere} | {str(path.relative_to(ROOT)) for path in everywhere}
    gone = sorted(name for name in named if name not in files and name.split("/")[-1] not in files)
    assert gone == [], "ARCHITECTURE.md names files that do not exist: " + ", ".join(gone)
