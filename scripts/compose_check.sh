#!/usr/bin/env bash
# The compose stack, for real (issue 35): build the image, start web, worker, beat, db and redis with
# `docker compose -f docker/compose.yml`, then check through HTTP and `docker compose exec` only that
# migrations are applied, production settings pass `check --deploy`, the demo is loaded, a release is
# published and verifies, a probe run scheduled by beat is done by the worker container (not the
# web's), a crowd rating is saved over HTTP; then `down` and `up` again, and all of it is still there.
#
#   bash scripts/compose_check.sh        (or: make compose-check)
#
# Needs a Docker daemon this user may use and Docker Compose v2 (the `docker compose` plugin or a
# v2 `docker-compose`). Where Docker Hub cannot be reached, the base images are built here from
# Debian's packages (debootstrap of bookworm, as root; docker/bases/) and given to the same
# Dockerfile and compose.yml by docker/compose.local-bases.yml; where the PyTorch index cannot be
# reached, the locked torch wheel is served to the build from this host (its sha256 is checked).
# The stack runs as compose project "workbench-check" (its own containers and volumes, removed at
# the end), so it never touches a "workbench" deployment on the same daemon.
#
# Environment: KEEP=1 leaves the stack up; LOCAL_BASES=1 or 0 forces or forbids the Debian-built
# bases; TORCH_WHEEL_DIR (default /opt/wheels) holds the torch wheel; EXTRA_CA_DIR (default
# /usr/local/share/ca-certificates) the site's certificate authorities for the Debian-built Python
# base; DEBIAN_MIRROR; PORT (default: a free port). The output is kept in var/compose-check/last.txt.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
WORK="$ROOT/var/compose-check"
PROJECT=workbench-check
mkdir -p "$WORK"
exec > >(tee "$WORK/last.txt") 2>&1

started=$(date +%s)
step_name="" step_started=0
step() { step_name="$*" step_started=$(date +%s); }
ok() { printf 'ok   %-74s %5ss\n' "$step_name${1:+: $1}" $(($(date +%s) - step_started)); }
fail() {
    printf 'FAIL %s: %s\n' "$step_name" "$*"
    exit 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# json_get EXPR: EXPR over the JSON object on stdin (as d), printed as text, or as JSON when not a string.
json_get() {
    python3 -c 'import json, sys; v = eval(sys.argv[1], {"d": json.load(sys.stdin)}); print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))' "$1"
}

# --- what this host has ------------------------------------------------------------------------
step "Docker daemon and Compose v2"
docker info >/dev/null 2>&1 || fail "no Docker daemon answers (start dockerd, or add this user to the docker group)"
if docker compose version >/dev/null 2>&1; then
    COMPOSE_BIN=(docker compose)
elif command -v docker-compose >/dev/null && docker-compose version --short 2>/dev/null | grep -q '^2'; then
    COMPOSE_BIN=(docker-compose)
else
    fail "Docker Compose v2 is needed (docker-compose 1.x cannot read compose.yml's top-level name)"
fi
ok "$("${COMPOSE_BIN[@]}" version --short), daemon $(docker version -f '{{.Server.Version}}')"

FILES=(-f docker/compose.yml)
export SECRET_KEY PORT="${PORT:-$(free_port)}"
SECRET_KEY="$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')"
BASE="http://127.0.0.1:$PORT"
compose() { "${COMPOSE_BIN[@]}" -p "$PROJECT" "${FILES[@]}" "$@"; }
in_web() { compose exec -T web "$@"; }
state() { in_web python - "${1:-state}" <scripts/compose_check_state.py; }

index_pid=""
cleanup() {
    status=$?
    [ -n "$index_pid" ] && kill "$index_pid" 2>/dev/null
    if [ "$status" -ne 0 ]; then
        echo "--- the stack's last log lines ---"
        compose logs --tail 40 2>&1 || true
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "KEEP=1: the stack is up at $BASE (docker compose -p $PROJECT ${FILES[*]} down -v to remove it)"
    else
        compose down -v --remove-orphans >/dev/null 2>&1 || true
    fi
    echo "total $(($(date +%s) - started))s; output in var/compose-check/last.txt"
}
trap cleanup EXIT

# --- base images --------------------------------------------------------------------------------
step "base images"
local_bases="${LOCAL_BASES:-}"
if [ -z "$local_bases" ]; then
    if timeout 60 docker pull -q python:3.11-slim-bookworm >/dev/null 2>&1; then local_bases=0; else local_bases=1; fi
fi
if [ "$local_bases" = 1 ]; then
    if ! docker image inspect workbench-bases/debian:bookworm >/dev/null 2>&1; then
        [ "$(id -u)" = 0 ] || fail "debootstrap needs root (or load an image tagged workbench-bases/debian:bookworm)"
        command -v debootstrap >/dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
        rm -rf "$WORK/rootfs"
        debootstrap --variant=minbase bookworm "$WORK/rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
            >"$WORK/debootstrap.log" 2>&1 || fail "debootstrap failed (var/compose-check/debootstrap.log)"
        tar -C "$WORK/rootfs" --numeric-owner -c . | docker import - workbench-bases/debian:bookworm >/dev/null
        rm -rf "$WORK/rootfs"
    fi
    context="$WORK/bases-context"
    # Times kept (cp -p, touch -r): the classic builder's cache then knows the files, the base keeps its
    # id, and BuildKit reuses the image's dependency layers from the run before.
    rm -rf "$context" && cp -rp docker/bases "$context" && mkdir -p "$context/extra-ca"
    touch -r docker/bases "$context/extra-ca"
    find "${EXTRA_CA_DIR:-/usr/local/share/ca-certificates}" -maxdepth 1 -name '*.crt' \
        -exec cp -p {} "$context/extra-ca/" \; 2>/dev/null || true
    # The classic builder where the buildx plugin is missing (compose builds with BuildKit itself).
    docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0
    for base in python:3.11-bookworm postgres:15 redis:7; do
        docker build -q -t "workbench-bases/$base" -f "$context/${base%%:*}.Dockerfile" "$context" \
            >>"$WORK/bases.log" 2>&1 || fail "building workbench-bases/$base (var/compose-check/bases.log)"
    done
    unset DOCKER_BUILDKIT
    FILES+=(-f docker/compose.local-bases.yml)
    ok "built from Debian bookworm packages (Docker Hub unreachable)"
else
    ok "Docker Hub's"
fi

# --- torch for the build ------------------------------------------------------------------------
step "torch wheel for the build"
if curl -sf -m 20 -o /dev/null https://download.pytorch.org/whl/cpu/torch/; then
    ok "from the PyTorch index"
else
    pin="$(awk '/^torch==/ { print $1 }' requirements/lock/ml.txt)"
    wheel="$(find "${TORCH_WHEEL_DIR:-/opt/wheels}" -maxdepth 1 -name "torch-${pin#torch==}-cp311-*x86_64.whl" | head -1)"
    [ -n "$wheel" ] || fail "the PyTorch index is unreachable and no $pin wheel is in ${TORCH_WHEEL_DIR:-/opt/wheels}"
    bridge="$(ip -4 -o addr show docker0 | awk '{ split($4, a, "/"); print a[1] }')"
    [ -n "$bridge" ] || fail "no docker0 bridge address to serve the wheel on"
    index_port="$(free_port)"
    rm -rf "$WORK/torch-index" && mkdir -p "$WORK/torch-index/torch"
    ln -s "$wheel" "$WORK/torch-index/torch/"
    python3 -m http.server --bind "$bridge" "$index_port" --directory "$WORK/torch-index" >/dev/null 2>&1 &
    index_pid=$!
    export WORKBENCH_TORCH_INDEX_URL="http://$bridge:$index_port/" WORKBENCH_TORCH_TRUSTED_HOST="$bridge"
    [ "$local_bases" = 1 ] || FILES+=(-f docker/compose.local-bases.yml)
    ok "$(basename "$wheel") served on the Docker bridge"
fi

# --- build and start ----------------------------------------------------------------------------
step "image built (docker/Dockerfile)"
compose build web >"$WORK/build.log" 2>&1 || fail "the build failed (var/compose-check/build.log)"
ok "$(docker image inspect workbench:latest -f '{{.Size}}' | awk '{ printf "%.0f MB", $1 / 1e6 }')"

step "stack up: db, redis healthy; web migrated, demo loaded, healthy; worker, beat running"
compose up -d --wait --wait-timeout 900 >"$WORK/up.log" 2>&1 || fail "not healthy (var/compose-check/up.log)"
ok

step "migrations applied"
in_web python manage.py migrate --check --noinput >/dev/null || fail "unapplied migrations"
ok

step "check --deploy"
plain="$(in_web python manage.py check --deploy 2>&1 || true)"
warnings="$(grep -o 'security\.W[0-9]*' <<<"$plain" | sort -u | tr '\n' ' ')"
[ "$warnings" = "security.W004 security.W008 security.W012 security.W016 " ] ||
    fail "plain HTTP should warn only of the four HTTPS settings, got: $warnings"
in_web env WORKBENCH_HTTPS=true SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto SECURE_HSTS_PRELOAD=true \
    python manage.py check --deploy --fail-level WARNING >/dev/null || fail "not clean behind TLS"
ok "plain HTTP: only the 4 HTTPS warnings; behind TLS: clean"

step "/healthz, gunicorn workers, static files, JSON logs with request ids"
health="$(curl -sf "$BASE/healthz")" || fail "/healthz did not answer 200"
home="$(curl -sf "$BASE/")" || fail "/ did not answer 200"
static="$(grep -o '/static/[^"]*\.css' <<<"$home" | head -1)"
static_bytes="$( ([ -n "$static" ] && curl -sf "$BASE$static") | wc -c)"
[ "$static_bytes" -gt 0 ] || fail "static file ${static:-(none on /)} not served"
# gunicorn's processes (argv[0] or argv[1] is gunicorn), less the master.
workers="$(in_web python -c "import pathlib; print(sum(any(a.split(b'/')[-1] == b'gunicorn' for a in p.read_bytes().split(b'\0')[:2]) for p in pathlib.Path('/proc').glob('[0-9]*/cmdline')) - 1)")"
request_id="compose-check-$(date +%s)"
curl -s -o /dev/null -H "X-Request-ID: $request_id" "$BASE/no-such-page/"  # a 404: django.request logs it
sleep 1
compose logs --no-log-prefix --no-color web 2>/dev/null | grep -F "\"$request_id\"" | tail -1 |
    python3 -c 'import json, sys; line = sys.stdin.read(); assert json.loads(line[line.index("{"):])["level"]' ||
    fail "no JSON log line with the request's id"
ok "$health; $workers gunicorn workers; $static ($static_bytes bytes)"

step "demo loaded by the web's entry point"
compounds="$(state | json_get 'd["compounds"]')"
[ "$compounds" -gt 0 ] || fail "no compounds"
ok "$compounds compounds"

step "variants generated and approved, campaigns opened, release 1.0.0 published (exec)"
{
    in_web python manage.py generate_variants --language en
    in_web python manage.py generate_variants --language pt
    in_web python manage.py create_demo_campaigns --base-url "$BASE"
    in_web python manage.py create_demo_admin
    in_web python manage.py approve_variants --user admin --collection demo
    in_web python manage.py create_release --release 1.0.0 --languages en,pt --collections demo --user admin \
        --title "Compose check" --publish
} >"$WORK/release.log" 2>&1 || fail "var/compose-check/release.log"
ok

step "release 1.0.0 over HTTP, its files verify"
curl -sf -o /dev/null "$BASE/releases/1.0.0/" || fail "/releases/1.0.0/ did not answer 200"
croissant_sha="$(curl -sf "$BASE/releases/1.0.0/files/croissant.json" | sha256sum | cut -c1-64)"
[ "$(state | json_get 'd["releases"]["1.0.0"]')" = '{"published": true, "verified": true}' ] || fail "not verified"
ok "croissant.json sha256 ${croissant_sha:0:12}"

step "a probe run scheduled by beat, done by the worker container"
state every-minute >/dev/null
worker_host="$(compose exec -T worker python -c 'import socket; print(socket.gethostname())')"
web_host="$(in_web python -c 'import socket; print(socket.gethostname())')"
for _ in $(seq 1 100); do
    runs="$(state | json_get '[r for r in d["probe_runs"] if r["release"] == "1.0.0"]')"
    if [ "$runs" != "[]" ] && ! grep -qE '"(pending|running)"' <<<"$runs"; then break; fi
    sleep 6
done
grep -q '"done"' <<<"$runs" || fail "no run done in 10 minutes: $runs"
! grep -qE '"(pending|running|failed)"' <<<"$runs" || fail "not every run is done: $runs"
compose logs beat 2>/dev/null | grep -q "Sending due task nightly probe runs" || fail "beat did not send the task"
hosts="$(json_get 'sorted({h for r in d for h in r["hosts"]})' <<<"$runs")"
[ "$hosts" = "[\"$worker_host\"]" ] || fail "shards done by $hosts, not the worker container $worker_host (web: $web_host)"
curl -sf "$BASE/api/probing/runs/" | grep -q '"status": *"done"' || fail "the API shows no run done"
ok "$(json_get 'len(d)' <<<"$runs") run(s), shards by worker $worker_host"

step "a crowd rating submitted over HTTP (study link, consent, rating)"
python3 scripts/crowd_client.py "$BASE" demo-token compose-check-1 >"$WORK/crowd.json" || fail "the crowd flow failed"
[ "$(state | json_get 'd["crowd_ratings"]')" = '{"compose-check-1": 1}' ] || fail "the rating was not saved"
ok "item $(json_get 'd["item"]' <"$WORK/crowd.json")"

step "down, up again: everything still there (volumes)"
before="$(state | json_get '(d["compounds"], d["crowd_ratings"], d["releases"], d["probe_runs"])')"
compose down >>"$WORK/up.log" 2>&1
compose up -d --wait --wait-timeout 900 >>"$WORK/up.log" 2>&1 || fail "not healthy after the restart"
after="$(state | json_get '(d["compounds"], d["crowd_ratings"], d["releases"], d["probe_runs"])')"
[ "$before" = "$after" ] || fail "before: $before; after: $after"
[ "$(curl -sf "$BASE/releases/1.0.0/files/croissant.json" | sha256sum | cut -c1-64)" = "$croissant_sha" ] ||
    fail "croissant.json changed"
ok "same compounds, ratings, releases, runs; same croissant.json bytes"
