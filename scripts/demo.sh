#!/usr/bin/env bash
# The workbench on this machine: install, migrate, load the demo data, then run the web server,
# a Celery worker and Celery beat until Ctrl-C.
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
VAR_DIR="${WORKBENCH_VAR_DIR:-var}"
LOG_DIR="$VAR_DIR/log"
mkdir -p "$LOG_DIR"

# Settings errors (a bad DATABASE_URL, no SECRET_KEY with DEBUG off...) show up here, once.
DEBUG_ON="$(python -c 'import django; django.setup(); from django.conf import settings; print(int(settings.DEBUG))')"

if python - "$PORT" <<'EOF'; then
import socket, sys
with socket.socket() as s:
    sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)
EOF
    echo "demo: ERROR: port $PORT is in use; choose another with PORT=8001 make demo" >&2
    exit 1
fi

say "migrating the database"
python manage.py migrate --noinput

say "loading the demo data"
python manage.py load_demo
say "generating the demo's minimal-pair variants (WordNet, MyThes, wordfreq; curator decisions kept)"
python manage.py generate_variants --language en
python manage.py generate_variants --language pt
say "opening the demo campaigns"
CAMPAIGNS=$(python manage.py create_demo_campaigns --base-url "http://127.0.0.1:$PORT")
printf '%s\n' "$CAMPAIGNS"
say "adding SIMULATED ratings to the demo campaigns (labelled simulated), so the reports have data"
python manage.py simulate_ratings demo-token demo-type

say "checking the demo superuser"
# admin / admin only with DEBUG on; with DEBUG off a random password, printed here once.
python manage.py create_demo_admin

say "approving the demo's unflagged variants as admin (flagged ones stay pending for review)"
python manage.py approve_variants --user admin --collection demo
say "publishing demo release 1.0.0 (NCIMP layout, tidy data, data card, checksums)"
python manage.py create_release --release 1.0.0 --languages en,pt --collections demo --user admin \
    --title "Idiomaticity Workbench demo" --publish --exist-ok

ADMIN_PASSWORD="the password printed above"
if [ "$DEBUG_ON" = 1 ]; then
    ADMIN_PASSWORD=admin
    WEB=(python manage.py runserver "127.0.0.1:$PORT")
else
    say "DEBUG is off: collecting static files, serving with gunicorn"
    python manage.py collectstatic --noinput -v 0
    WEB=(gunicorn config.wsgi --bind "127.0.0.1:$PORT" --workers 2 --access-logfile -)
fi

# --- the processes ------------------------------------------------------------------------
# Each child gets its own session (setsid) so that stopping it also stops what it started
# (runserver's autoreloader, gunicorn's and celery's workers).
PIDS=()
NAMES=()
start() {
    local name=$1
    shift
    setsid "$@" >"$LOG_DIR/$name.log" 2>&1 </dev/null &
    PIDS+=($!)
    NAMES+=("$name")
}

stopping=0
# shellcheck disable=SC2317  # called from the traps
stop_all() {
    [ "$stopping" = 1 ] && return
    stopping=1
    trap - INT TERM
    [ "${#PIDS[@]}" -eq 0 ] && return
    say "stopping ${NAMES[*]}"
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    for _ in $(seq 1 100); do # up to 10 s for a warm shutdown
        local alive=0
        for pid in "${PIDS[@]}"; do
            kill -0 -- "-$pid" 2>/dev/null && alive=1
        done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for pid in "${PIDS[@]}"; do
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    say "stopped"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap stop_all EXIT

start worker celery -A config worker -l info --concurrency 2
start beat celery -A config beat -l info
start web "${WEB[@]}"

# Wait until the web server answers (or a child dies).
up=0
for _ in $(seq 1 300); do
    if python - "$PORT" <<'EOF'; then
import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=2)
except urllib.error.HTTPError:
    pass  # any HTTP answer means the server is up
except OSError:
    sys.exit(1)
EOF
        up=1
        break
    fi
    for i in "${!PIDS[@]}"; do
        if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
            echo "demo: ERROR: ${NAMES[$i]} exited at start; the end of $LOG_DIR/${NAMES[$i]}.log:" >&2
            tail -n 20 "$LOG_DIR/${NAMES[$i]}.log" >&2
            exit 1
        fi
    done
    sleep 0.2
done
[ "$up" = 1 ] || say "WARNING: the web server has not answered yet; see $LOG_DIR/web.log"

say "probing demo release 1.0.0 with the bundled MiniLM on the worker (the report fills in within minutes)"
python manage.py run_probes --release 1.0.0 --model minilm --if-missing >/dev/null || say "WARNING: no probe run started"

cat <<EOF

  Idiomaticity Workbench: http://127.0.0.1:$PORT/
  Admin:                  http://127.0.0.1:$PORT/admin/   (login admin / $ADMIN_PASSWORD)
  API:                    http://127.0.0.1:$PORT/api/   (OpenAPI schema: /api/schema/)
  Logs:                   $LOG_DIR/web.log, $LOG_DIR/worker.log, $LOG_DIR/beat.log

  Rate as a crowd worker (Prolific-style link; any PROLIFIC_PID is a new worker):
    http://127.0.0.1:$PORT/annotate/demo-token/start/?PROLIFIC_PID=demo-worker&STUDY_ID=demo&SESSION_ID=1
  Rate as a local annotator: log in, then open http://127.0.0.1:$PORT/annotate/demo-type/start/
  Curate (campaigns, dashboards, exports): http://127.0.0.1:$PORT/curate/
  Review variants:  http://127.0.0.1:$PORT/review/     Build jobs: http://127.0.0.1:$PORT/build/jobs/
  Releases:         http://127.0.0.1:$PORT/releases/   (demo release 1.0.0, downloadable with checksums)
  Probing:          http://127.0.0.1:$PORT/probing/    (MiniLM on release 1.0.0; start other runs there)

  Ctrl-C stops everything.

EOF

# Run until Ctrl-C, or until one of the processes stops by itself.
set +e
wait -n "${PIDS[@]}"
status=$?
for i in "${!PIDS[@]}"; do
    if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
        echo "demo: ${NAMES[$i]} stopped (exit $status); the end of $LOG_DIR/${NAMES[$i]}.log:" >&2
        tail -n 20 "$LOG_DIR/${NAMES[$i]}.log" >&2
    fi
done
exit 1
