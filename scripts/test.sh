#!/usr/bin/env bash
# Every check CI runs: install, lint, format, the import contracts (.importlinter), migrations,
# the lock files against the top-level requirements (offline), the docs site (mkdocs --strict),
# then the tests on 2 workers against the PostgreSQL and Redis that scripts/services.py finds or starts.
#
#   bash scripts/test.sh [PYTEST ARGS...]      e.g.  bash scripts/test.sh -k settings
#
# All steps run even when one fails, so one run shows every problem; the exit code is non-zero
# when any failed. PYTEST_WORKERS (default 2) sets pytest-xdist's -n.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"

# Runs under scripts/services.py, with DATABASE_URL and REDIS_URL set for this run.
# shellcheck disable=SC2016  # expanded by the inner bash, not here
checks='
failed=()
step() {
    local name=$1
    shift
    printf "\n==> %s\n" "$name"
    "$@" || failed+=("$name")
}
step "ruff check" ruff check .
step "ruff format --check" ruff format --check .
step "import contracts (lint-imports)" lint-imports --no-cache
step "makemigrations --check" python manage.py makemigrations --check --dry-run
step "lock up to date" python scripts/requirements_lock.py check
step "docs (mkdocs build --strict)" env NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet --site-dir "$(mktemp -d)"
printf "\n==> pytest -n %s\n" "${PYTEST_WORKERS:-2}"
status=0
pytest -n "${PYTEST_WORKERS:-2}" "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "test: pytest collected no tests: that is a failure" >&2
fi
[ "$status" -eq 0 ] || failed+=("pytest (exit $status)")
if [ "${#failed[@]}" -gt 0 ]; then
    echo "test: FAILED:" >&2
    printf "test:   - %s\n" "${failed[@]}" >&2
    exit 1
fi
'
exec python scripts/services.py -- bash -c "$checks" scripts/test.sh "$@"
