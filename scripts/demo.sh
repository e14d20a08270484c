#!/usr/bin/env bash
# The workbench on this machine: install, migrate, load the demo data, then serve it (scripts/serve.sh:
# the web server, a Celery worker and Celery beat until Ctrl-C or TERM, on PORT or the next free port).
#
# Environment: PORT (8000), DATABASE_URL (SQLite in var/), CELERY_BROKER_URL (the embedded
# filesystem broker in var/celery), DEBUG (true; off: collectstatic + gunicorn), SECRET_KEY
# (generated into var/ when DEBUG), WORKBENCH_VAR_DIR (var/).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'demo: %s\n' "$*"; }

bash scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"
export DJANGO_SETTINGS_MODULE=config.settings

PORT="${PORT:-8000}"

# Settings errors (a bad DATABASE_URL, no SECRET_KEY with DEBUG off...) show up here, once.
python -c 'import django; django.setup()'

say "migrating the database"
python manage.py migrate --noinput

say "loading the demo data"
python manage.py load_demo
say "generating the demo's minimal-pair variants (WordNet, MyThes, wordfreq; curator decisions kept)"
python manage.py generate_variants --language en
python manage.py generate_variants --language pt
say "opening the demo campaigns"
python manage.py create_demo_campaigns --base-url "http://127.0.0.1:$PORT"
say "adding SIMULATED ratings to the demo campaigns (labelled simulated), so the reports have data"
python manage.py simulate_ratings demo-token demo-type

say "checking the demo superuser"
# admin / admin only with DEBUG on; with DEBUG off a random password, printed here once.
python manage.py create_demo_admin

say "approving as admin the unflagged, first-ranked variant of each slot (flagged and lower-ranked ones stay pending for review)"
python manage.py approve_variants --user admin --collection demo
say "publishing demo release 1.0.0 (NCIMP layout, tidy data, data card, Croissant, Hugging Face layout, citation, checksums)"
python manage.py create_release --release 1.0.0 --languages en,pt --collections demo --user admin \
    --title "Idiomaticity Workbench demo" \
    --limitations "A demo: a handful of compounds, for trying the workbench, not for research." --publish --exist-ok

say "starting a probe run of demo release 1.0.0 with the bundled MiniLM (the worker computes it once serving)"
python manage.py run_probes --release 1.0.0 --model minilm --if-missing >/dev/null || say "WARNING: no probe run started"

# The port is checked right before serving (scripts/serve.sh): the set-up above takes minutes.
exec bash scripts/serve.sh
