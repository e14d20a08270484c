#!/bin/sh
# Container entry point: optional one-off steps, then the command (gunicorn, celery ...).
#   WORKBENCH_MIGRATE=1     python manage.py migrate --noinput
#   WORKBENCH_LOAD_DEMO=1   python manage.py load_demo (after migrating)
set -eu

enabled() {
    case "$1" in 1 | true | yes | on) return 0 ;; *) return 1 ;; esac
}

if enabled "${WORKBENCH_MIGRATE:-0}"; then
    echo "entrypoint: python manage.py migrate"
    python manage.py migrate --noinput
fi
if enabled "${WORKBENCH_LOAD_DEMO:-0}"; then
    echo "entrypoint: python manage.py load_demo"
    python manage.py load_demo
fi

exec "$@"
