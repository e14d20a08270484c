"""Load test of the annotation flow: K simulated annotators over HTTP against gunicorn + PostgreSQL.

Usage: .venv/bin/python benchmarks/annotation_load.py [--annotators 50] [--seconds 30]
       [--database-url postgres://postgres@127.0.0.1:5432/workbench_bench] [--workers 4]
       [--nctti ../shared/data/nctti]

It creates (drops first) the benchmark database, migrates it, loads the demo data and an
open token-level campaign (N = annotators, no training) over every English sentence of NCTTI
(840 items, imported from --nctti when the folder is there) or else of the demo (144 items),
starts gunicorn, and lets each annotator enter through a Prolific-style link and consent (all of
them before the timed run starts: ``enrol_cpu_ms_per_annotator`` is that part's server CPU), then
fetch-submit-next until time is up, spending --think seconds (mean; uniform 0.5-1.5 times
it) on each item as a person reading the sentence would. Every submit-and-next (POST plus the redirected GET of
the next item) is timed. Each annotator keeps one connection open, as a browser does (gunicorn's
``keepalive``), and sends its cookies. At the end the database is checked against what the clients sent.

Server CPU per cycle is the gunicorn workers' CPU time (utime + stime in /proc/<pid>/stat) and
that of the PostgreSQL backends serving the benchmark database (found by the database name in
their process title; connections are persistent, so the same backends serve the whole run),
each taken over the timed run and divided by the submit-and-next cycles.
Each annotator rates an item at most once: ``ran_out`` counts the annotators who had rated
every item before time was up (a run where many ran out measures a dwindling crowd, not the
server). The machine is shared: the load averages (``uptime``) at the start and end are
printed with the figures.
The last line is one JSON object with the figures, the run's ``scope`` (annotators, think time,
workers) and the code measured (``commit``, "-dirty" with uncommitted changes: benchmarks/record.py);
``--save`` appends it to benchmarks/results/annotation_load.jsonl for the README's table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from crowd_client import CrowdClient, item_token  # noqa: E402  (scripts/, after the path above)

PYTHON = sys.executable
SLUG = "bench"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, input=stdin, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{out.stderr[-2000:]}")
    return out.stdout


def prepare(env: dict, database_url: str, annotators: int, nctti: Path | None, allocation: str = "fixed") -> None:
    import psycopg2

    parsed = urllib.parse.urlparse(database_url)
    name = parsed.path.lstrip("/")
    admin = psycopg2.connect(
        dbname="postgres",
        user=parsed.username or "postgres",
        host=parsed.hostname,
        port=parsed.port or 5432,
        password=parsed.password,
    )
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cur.execute(f'CREATE DATABASE "{name}"')
    admin.close()
    manage(env, "migrate", "-v0")
    manage(env, "load_demo")
    collection = "demo"
    if nctti is not None:
        manage(env, "import_nctti", str(nctti), "--languages", "en", "--collection", "bench")
        collection = "bench"
    manage(
        env,
        "shell",
        "-c",
        (
            "from annotation.models import Campaign; from annotation.setup_actions import add_items; from annotation.curate.study_setup import item_targets;"
            "from datasets.models import Collection;"
            f"c = Campaign.objects.create(name='Benchmark', slug='{SLUG}', collection=Collection.objects.get(slug='{collection}'),"
            f" language='en', ratings_per_item={annotators}, seed=1, status='open', consent_text='Benchmark consent.',"
            # adaptive: every item gets 3 to N ratings, until its interval is narrower than 1.5 points
            f" allocation='{allocation}', min_ratings_per_item={min(3, annotators)}, precision=1.5);"
            "add_items(c, item_targets(c))"
        ),
    )


class Annotator(threading.Thread):
    """One simulated annotator: a crowd client (scripts/crowd_client.py) that enrols, then rates until time is up."""

    def __init__(self, base: str, worker: int, think: float, go: threading.Barrier):
        super().__init__(daemon=True)
        self.base, self.worker, self.think, self.go = base, worker, think, go
        self.deadline = 0.0  # set by the main thread once every annotator has enrolled
        self.pause = random.Random(worker)
        self.client = CrowdClient(base, SLUG)
        self.latencies: list[float] = []
        self.sent = 0
        self.errors: list[str] = []
        self.ran_out = False

    def run(self) -> None:
        url, page = "", ""
        try:
            url, page = self.client.enrol(f"bench-{self.worker}", "bench", str(self.worker))
        except (urllib.error.URLError, OSError, AttributeError) as exc:
            self.errors.append(f"enrolment: {type(exc).__name__}: {exc}")
        self.go.wait()  # every annotator has enrolled: the timed run starts for all at once
        if self.errors:
            return
        try:
            while time.monotonic() < self.deadline:
                if item_token(page) is not None:
                    # Reading the sentence and answering: think time around the mean, never 0.
                    time.sleep(self.pause.uniform(0.5, 1.5) * self.think)
                    if time.monotonic() >= self.deadline:
                        break
                    answers = {
                        "head_score": "3",
                        "modifier_score": "2",
                        "compound_score": "1",
                        "paraphrase_1": f"paraphrase {self.worker}",
                    }
                    started = time.perf_counter()
                    url, page = self.client.rate(page, answers)
                    self.latencies.append((time.perf_counter() - started) * 1000)
                    self.sent += 1
                else:
                    self.ran_out = True  # done or full page: nothing left for this annotator
                    break
        except (urllib.error.URLError, OSError, AttributeError) as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds; 0 once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def gunicorn_workers(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def postgres_backends(database: str) -> list[int]:
    """PostgreSQL backends connected to ``database`` (their title: "postgres: ... USER DATABASE HOST(PORT) ...")."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith("postgres: ") and f" {database} " in title:
            found.append(int(entry.name))
    return found


def cpu_snapshot(pids: list[int]) -> dict[int, float]:
    return {pid: cpu_seconds(pid) for pid in pids}


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds between two snapshots; a process that started in between counts from zero."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--save", action="store_true", help="Also append the JSON line to benchmarks/results/.")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds an annotator spends on an item before submitting (0: hammer)",
    )
    parser.add_argument(
        "--allocation",
        choices=["fixed", "adaptive"],
        default="fixed",
        help="the campaign's allocation (adaptive: 3 to N ratings an item, precision 1.5; docs/adaptive-allocation.md)",
    )
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/workbench_bench")
    parser.add_argument(
        "--cache-url",
        default="redis://127.0.0.1:6379/14",
        help="the shared cache, as docs/deployment.md sets CACHE_URL (emptied first); 'locmem://' for none",
    )
    parser.add_argument(
        "--nctti",
        type=Path,
        default=ROOT.parent / "shared" / "data" / "nctti",
        help="NCTTI folder whose English sentences are the items (the demo's when it is not there)",
    )
    args = parser.parse_args()
    nctti = args.nctti if (args.nctti / "data_en.tsv").exists() else None

    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "DEBUG": "false",
        "SECRET_KEY": "b" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LOG_LEVEL": "WARNING",
        "CACHE_URL": args.cache_url,
    }
    if args.cache_url.startswith("redis"):
        import redis

        redis.Redis.from_url(args.cache_url).flushdb()
    prepare(env, args.database_url, args.annotators, nctti, args.allocation)
    manage(env, "collectstatic", "--noinput", "-v0")
    server = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "gunicorn",
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(args.workers),
            # The rest (gthread, 4 threads, preload_app, keep-alive) from gunicorn.conf.py, as in production.
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        load_before = load_average()
        database = urllib.parse.urlparse(args.database_url).path.lstrip("/")
        go = threading.Barrier(args.annotators + 1)
        clients = [Annotator(base, i, args.think, go) for i in range(args.annotators)]
        # Enrolment (study link, consent, instructions, first item) is measured apart from the cycles.
        enrol_web, enrol_db = cpu_snapshot(gunicorn_workers(server.pid)), cpu_snapshot(postgres_backends(database))
        for client in clients:
            client.start()
        while go.n_waiting < args.annotators and any(client.is_alive() for client in clients):
            time.sleep(0.05)
        web_before = cpu_snapshot(gunicorn_workers(server.pid))
        db_before = cpu_snapshot(postgres_backends(database))
        enrol_cpu = cpu_used(enrol_web, web_before) + cpu_used(enrol_db, db_before)
        deadline = time.monotonic() + args.seconds
        for client in clients:
            client.deadline = deadline
        started = time.monotonic()
        go.wait()
        for client in clients:
            client.join(timeout=args.seconds + 60)
        elapsed = time.monotonic() - started
        web_cpu = cpu_used(web_before, cpu_snapshot(gunicorn_workers(server.pid)))
        db_cpu = cpu_used(db_before, cpu_snapshot(postgres_backends(database)))
        load_after = load_average()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    latencies = [x for c in clients for x in c.latencies]
    sent = sum(c.sent for c in clients)
    errors = [e for c in clients for e in c.errors]
    stored = json.loads(
        manage(
            env,
            "shell",
            "-c",
            (
                "import json; from annotation.models import Item, Rating;"
                f"qs = Rating.objects.filter(item__campaign__slug='{SLUG}');"
                "print(json.dumps({'ratings': qs.count(), 'distinct': qs.values('item', 'annotator').distinct().count(),"
                f" 'items': Item.objects.filter(campaign__slug='{SLUG}').count()}}))"
            ),
        )
        .strip()
        .splitlines()[-1]
    )
    for error in errors[:5]:
        print("error:", error)
    cycles = max(1, len(latencies))
    result = {
        "annotators": args.annotators,
        "think_s": args.think,
        "workers": args.workers,
        "ratings": stored["ratings"],
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "ratings_per_s": round(sent / elapsed, 1),
        "errors": len(errors),
        "lost": max(0, sent - stored["ratings"]),
        "duplicated": stored["ratings"] - stored["distinct"] + max(0, stored["ratings"] - sent),
        "items": stored["items"],
        "ran_out": sum(c.ran_out for c in clients),
        # The cycles only: enrolment (link, consent, first item) is before the timed run, and apart.
        "enrol_cpu_ms_per_annotator": round(enrol_cpu * 1000 / args.annotators, 1),
        "web_cpu_ms_per_cycle": round(web_cpu * 1000 / cycles, 1),
        "db_cpu_ms_per_cycle": round(db_cpu * 1000 / cycles, 1),
        "server_cpu_ms_per_cycle": round((web_cpu + db_cpu) * 1000 / cycles, 1),
        "load_before": load_before,
        "load_after": load_after,
    }
    sys.path.insert(0, str(ROOT))  # the line names the code it measured (benchmarks/table.py)
    from benchmarks.record import emit

    cache = "Redis cache" if args.cache_url.startswith("redis") else "no shared cache"
    scope = f"{args.annotators} annotators, think {args.think:g} s, {args.workers} workers, {cache}"
    if args.allocation != "fixed":
        scope += f", {args.allocation} allocation"
    emit("annotation_load", {"scope": scope, **result}, save=args.save)


if __name__ == "__main__":
    main()
