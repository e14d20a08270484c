"""Start-up stays light: what every process imports at boot loads none of the slow scientific libraries.

The URL conf (with every view), the settings, the Celery app with every task module, and the
argument parser of every project command are imported in a fresh interpreter; then none of the
libraries that cost seconds to import may be in ``sys.modules``. They load where they are used
(a report page, a probe run, variant generation), once per process. Deterministic: no timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "onnxruntime",
    "onnx",
    "inflect",
    "typeguard",
    "matplotlib",
    "scipy.stats",
    "pandas",
    "wordfreq",
)
BOOT = """
import json, os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from django.urls import get_resolver
import config.urls
import config.celery
get_resolver().url_patterns                      # every view module
config.celery.app.loader.import_default_modules()  # every tasks module, as a worker imports them at boot
from django.core.management import get_commands, load_command_class
for name, app in sorted(get_commands().items()):
    if app in {"annotation", "building", "datasets", "releases", "probing", "core", "config"}:
        load_command_class(app, name).create_parser("manage.py", name)
"""


def test_no_process_boot_imports_a_slow_library():
    code = f"{BOOT}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
