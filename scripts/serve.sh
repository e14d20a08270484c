#!/usr/bin/env bash
# Serve what the database holds: the web server, a Celery worker and Celery beat, until Ctrl-C or TERM.
#
#   bash scripts/serve.sh          (make serve; make demo sets the demo up, then runs this)
#
# The port is chosen right before serving: PORT (8000) if it is free, else the next free one, said
# so. INT, TERM or HUP to this script (or to the process group make runs it in) stops every
# process it started, with what they started; so does any way it exits.
#
# Environment: PORT (8000), DEBUG (true: runserver; off: collectstatic + gunicorn), WORKBENCH_VAR_DIR
# (var/: logs in var/log), and whatever config/settings.py reads (DATABASE_URL, CELERY_BROKER_URL...).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# A closed terminal or pipe must not stop this script before it has stopped its children.
say() { printf 'serve: %s\n' "$*" 2>/dev/null || true; }

export PATH="$PWD/.venv/bin:$PATH"
export DJANGO_SETTINGS_MODULE=config.settings
VAR_DIR="${WORKBENCH_VAR_DIR:-var}"
LOG_DIR="$VAR_DIR/log"
mkdir -p "$LOG_DIR"
WANTED="${PORT:-8000}"

DEBUG_ON="$(python -c 'import django; django.setup(); from django.conf import settings; print(int(settings.DEBUG))')"
if [ "$DEBUG_ON" != 1 ]; then
    say "DEBUG is off: collecting static files, serving with gunicorn"
    python manage.py collectstatic --noinput -v 0
fi

# --- the port: checked now, right before serving --------------------------------------------
PORT="$(python - "$WANTED" <<'EOF'
import socket, sys
wanted = int(sys.argv[1])
for port in range(wanted, wanted + 50):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
else:
    sys.exit(f"no free port from {wanted} to {wanted + 49}")
EOF
)"
if [ "$PORT" != "$WANTED" ]; then
    say "port $WANTED is in use: serving on port $PORT instead (PORT=... chooses another)"
fi
if [ "$DEBUG_ON" = 1 ]; then
    WEB=(python manage.py runserver "127.0.0.1:$PORT")
else
    WEB=(gunicorn config.wsgi --bind "127.0.0.1:$PORT" --access-logfile -)
fi

# --- the processes ------------------------------------------------------------------------
# Each child gets its own session (setsid), so that stopping it also stops what it started
# (runserver's autoreloader, gunicorn's and celery's workers), and a signal to make's process
# group reaches this script only: it stops them all, in order.
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
    [ "$stopping" = 1 ] && return 0
    stopping=1
    set +e
    trap '' INT TERM HUP
    [ "${#PIDS[@]}" -eq 0 ] && return 0
    say "stopping ${NAMES[*]}"
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null
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
        kill -KILL -- "-$pid" 2>/dev/null
    done
    wait 2>/dev/null
    say "stopped"
    return 0
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap 'stop_all; exit 129' HUP
trap stop_all EXIT

# The worker under a loop that starts it again when it ends by itself after running a while: a worker
# whose consumer went silent after a Redis restart ends itself (config/worker_watchdog.py). One that
# ends within 30 s failed to start: the loop ends with it, and that is reported below. Stopping kills
# the loop too.
start worker bash -c 'while :; do
    started=$SECONDS
    celery -A config worker -l info --concurrency 2
    status=$?
    [ $((SECONDS - started)) -lt 30 ] && exit "$status"
    echo "serve: the worker ended (status $status) after $((SECONDS - started)) s; starting it again"
    sleep 1
done'
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
            echo "serve: ERROR: ${NAMES[$i]} exited at start; the end of $LOG_DIR/${NAMES[$i]}.log:" >&2
            tail -n 20 "$LOG_DIR/${NAMES[$i]}.log" >&2
            exit 1
        fi
    done
    sleep 0.2
done
[ "$up" = 1 ] || say "WARNING: the web server has not answered yet; see $LOG_DIR/web.log"

ADMIN_LOGIN="admin / admin"
[ "$DEBUG_ON" = 1 ] || ADMIN_LOGIN="admin / the password printed when the demo was set up"
cat <<EOF 2>/dev/null || true

  Idiomaticity Workbench: http://127.0.0.1:$PORT/
  Admin:                  http://127.0.0.1:$PORT/admin/   (login $ADMIN_LOGIN)
  API:                    http://127.0.0.1:$PORT/api/   (OpenAPI schema: /api/schema/)
  Logs:                   $LOG_DIR/web.log, $LOG_DIR/worker.log, $LOG_DIR/beat.log

  Curate (campaigns, their study links and a worker's preview): http://127.0.0.1:$PORT/curate/
  Rate as a crowd worker (Prolific-style link; any PROLIFIC_PID is a new worker):
    http://127.0.0.1:$PORT/annotate/demo-token/start/?PROLIFIC_PID=demo-worker&STUDY_ID=demo&SESSION_ID=1
  Review variants:  http://127.0.0.1:$PORT/review/     Build jobs: http://127.0.0.1:$PORT/build/jobs/
  Releases:         http://127.0.0.1:$PORT/releases/
  Probing:          http://127.0.0.1:$PORT/probing/

  Ctrl-C stops everything.

EOF

# Run until a signal, or until one of the processes stops by itself.
set +e
wait -n "${PIDS[@]}"
status=$?
for i in "${!PIDS[@]}"; do
    if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
        echo "serve: ${NAMES[$i]} stopped (exit $status); the end of $LOG_DIR/${NAMES[$i]}.log:" >&2
        tail -n 20 "$LOG_DIR/${NAMES[$i]}.log" >&2
    fi
done
exit 1
