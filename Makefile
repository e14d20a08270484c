# Quick start: `make demo` (the app with demo data at http://127.0.0.1:8000/) and `make test`.
.PHONY: install demo serve test ci lint format lock run-worker compose-check

install:  ## create .venv, install Debian + Python requirements (quick when done)
	bash scripts/install.sh

demo:  ## migrate, load demo data, run web + Celery worker + beat (PORT=8000, or the next free port)
	bash scripts/demo.sh

serve:  ## serve what the database holds (after make demo): web + Celery worker + beat, no set-up
	bash scripts/install.sh && bash scripts/serve.sh

test:  ## ruff, migrations check, pytest -n 2 against PostgreSQL/Redis (ARGS="-k foo")
	bash scripts/test.sh $(ARGS)

ci:  ## what CI runs
	bash .ci/run

lint:  ## ruff check + format check + the import contracts
	bash scripts/install.sh && .venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports --no-cache

format:  ## apply ruff's formatting and safe fixes
	bash scripts/install.sh && .venv/bin/ruff format . && .venv/bin/ruff check --fix .

lock:  ## refresh requirements/lock/*.txt from requirements/*.txt with pip-compile (needs PyPI; ARGS="-P django")
	bash scripts/install.sh && .venv/bin/python scripts/requirements_lock.py update $(ARGS)

run-worker:  ## a Celery worker in the foreground
	bash scripts/install.sh && .venv/bin/celery -A config worker -l info --concurrency 2

compose-check:  ## docker/compose.yml for real on a Docker daemon: build, up, checks over HTTP and exec, down, up (not in make test)
	bash scripts/compose_check.sh
