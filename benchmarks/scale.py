"""How cost grows: probing, releases and a campaign's report at ten times the public data and a million ratings.

Usage: .venv/bin/python benchmarks/scale.py [--scale 10] [--ratings 1000000] [--items-per-annotator 100]
       [--model input_embeddings|minilm] [--report-timeout 300] [--only campaign] [--quick] [--save] [--keep]

A throwaway PostgreSQL database (``workbench_scale_<pid>`` on DATABASE_URL's server) receives, with
the project's own commands run as a user runs them (each a fresh ``manage.py`` process, whose wall
time, CPU seconds and peak RSS are measured):

1. the public NCIMP folders (``import_ncimp`` PT with the scores table, EN), released as 1.0.0
   (``create_release --publish``), probed (``run_probes --inline``) and exported (``export_release``);
2. ``--scale`` times that data (``benchmarks/synthetic.py``: the public rows, then copies whose
   words are swapped for other words of the same files by a seeded permutation, so every text and
   compound is new), imported over it, released as 2.0.0, probed on an emptied vector cache, exported;
3. token-level campaigns over every Portuguese sentence of 2.0.0 with ``--ratings`` / 100,
   ``--ratings`` / 30 and ``--ratings`` ratings (``benchmarks/scale_campaign.py``, loaded with COPY),
   each annotator rating ``--items-per-annotator`` items; ``campaign_report`` (which bootstraps its
   agreement table, 1,000 resamples) and ``agreement_report --resamples 1000`` are timed on each, the
   largest under ``--report-timeout``; the steps of the agreement table are timed in this process on
   the two smaller campaigns, and each step's growth exponent (1.0 is linear) is printed.

The probe model is by default ``input_embeddings`` over the bundled MiniLM's vocabulary (a cheap
real backend: what it measures is the pipeline's cost per text, release read, shards, cache,
metrics, not a transformer's forward passes, which ``probe_throughput.py`` measures); ``--model
minilm`` probes with the bundled transformer instead. ``--quick``: scale 2 and 20,000 ratings. The
last line is one JSON object with every figure and the commit (``--save`` appends it to
``benchmarks/results/scale.jsonl``). ``--only campaign`` measures step 3 alone: the Portuguese public
and scaled sentences are imported (the campaign's items, the same as 2.0.0's), no release is built or probed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.record import commit, emit, save_flag  # noqa: E402
from benchmarks.scale_campaign import add_campaign, agreement_pieces  # noqa: E402  (loaded now: the code measured)
from benchmarks.synthetic import write_ncimp_copies  # noqa: E402

PYTHON = ROOT / ".venv" / "bin" / "python"
MODEL_NAME = "scale-model"


def exponent(small: tuple[float, float], large: tuple[float, float]) -> float | None:
    """How a cost grows between two (size, seconds) points: 1.0 linear, 2.0 quadratic; None if undefined."""
    (n1, t1), (n2, t2) = small, large
    if min(n1, n2, t1, t2) <= 0 or n1 == n2:
        return None
    return round(math.log(t2 / t1) / math.log(n2 / n1), 2)


class Manage:
    """``manage.py`` commands in fresh processes on the benchmark's database, each measured."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, *args: str, timeout: float | None = None, may_fail: bool = False) -> dict:
        """Run ``manage.py ARGS``: {wall_s, cpu_s, peak_rss_mb, stdout, timed_out, error}.

        A failure stops the benchmark, unless ``may_fail``: then ``error`` is its last line (a step
        that runs out of memory at the largest size is a result, not a crash of the benchmark).
        """
        out = tempfile.TemporaryFile()
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(PYTHON), "manage.py", *args], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
        )
        timed_out = False
        while True:  # os.wait4 (not Popen.wait): this child's own rusage, its peak RSS, not the largest child's
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if timeout is not None and time.perf_counter() - started > timeout:
                timed_out = True
                process.kill()
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        failed = process.returncode != 0 and not timed_out
        if failed and not may_fail:
            raise SystemExit(f"manage.py {' '.join(args)} failed ({process.returncode}):\n{text[-3000:]}")
        result = {
            "wall_s": round(wall, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024),  # Linux gives kilobytes
            "stdout": text,
            "timed_out": timed_out,
            "error": text.strip().splitlines()[-1][:300] if failed and text.strip() else None,
        }
        state = f"stopped after {timeout:.0f} s" if timed_out else f"failed: {result['error']}" if failed else "done"
        print(
            f"manage.py {' '.join(args)[:90]}: {state}, {wall:.1f} s wall, {result['cpu_s']:.1f} s CPU, "
            f"peak RSS {result['peak_rss_mb']} MB (load average {os.getloadavg()[0]:.2f})",
            flush=True,
        )
        return result


def database(url: str, name: str) -> tuple[str, callable]:
    """A new database ``name`` on ``url``'s server: its URL and a function that drops it."""
    import psycopg2

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))

    def execute(sql: str) -> None:
        connection = psycopg2.connect(admin)
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute(sql)
        connection.close()

    execute(f'DROP DATABASE IF EXISTS "{name}"')
    execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}")), lambda: execute(
        f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
    )


def probe(manage: Manage, version: str) -> dict:
    """``run_probes --inline`` on an emptied vector cache: seconds per text, the process's peak RSS, cache bytes."""
    from django.db import connection

    from probing.models import CachedVectors, ProbeRun

    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {CachedVectors._meta.db_table}")
    done = manage("run_probes", "--release", version, "--model", MODEL_NAME, "--inline")
    run_id = [line for line in done["stdout"].splitlines() if line.strip().isdigit()][-1]  # stderr is merged in
    run = ProbeRun.objects.get(pk=int(run_id))
    if run.status != ProbeRun.Status.DONE:
        raise SystemExit(f"probe run {run.pk} on {version}: {run.status} {run.error}")
    seconds = (run.finished_at - run.started_at).total_seconds()
    texts = run.texts_total
    return {
        "texts": texts,
        "run_s": round(seconds, 2),
        "s_per_text": seconds / texts,
        "wall_s": done["wall_s"],
        "cpu_s": done["cpu_s"],
        "peak_rss_mb": done["peak_rss_mb"],
        "cache_mb": round((run.report.get("stats") or {}).get("cache_bytes", 0) / 1e6, 1),
    }


def release(manage: Manage, version: str, scratch: Path) -> dict:
    """Build and publish ``version``, then export it; the pairs it holds and both steps' costs."""
    from releases.models import Release

    built = manage("create_release", "--release", version, "--publish")
    exported = manage("export_release", "--release", version, "--out", str(scratch / f"export-{version}"))
    counts = Release.objects.get(version=version).counts or {}

    def total(key: str) -> int:  # variants are counted per kind
        values = [c.get(key) or 0 for c in counts.values()]
        return sum(sum(v.values()) if isinstance(v, dict) else int(v) for v in values)

    shutil.rmtree(scratch / f"export-{version}", ignore_errors=True)
    return {
        "pairs": total("variants"),
        "compounds": total("compounds"),
        "create_s": built["wall_s"],
        "export_s": exported["wall_s"],
        "export_peak_rss_mb": exported["peak_rss_mb"],
    }


def campaign_figures(manage: Manage, sizes: list[int], items_per_annotator: int, timeout: float) -> dict:
    """The campaigns of step 3: each size's report and agreement seconds, and the agreement steps' growth."""
    figures: dict = {"sizes": sizes, "runs": []}
    pieces = []
    for size in sizes:
        campaign, load_s = add_campaign(f"scale-{size}", "pt", size, items_per_annotator)
        limit = timeout if size == sizes[-1] else None
        report = manage("campaign_report", "--campaign", campaign.slug, timeout=limit, may_fail=True)
        agreement = manage(
            "agreement_report", "--campaign", campaign.slug, "--resamples", "1000", timeout=limit, may_fail=True
        )
        row = {
            "ratings": size,
            "annotators": campaign.annotators.count(),
            "items": campaign.items.count(),
            "load_s": round(load_s, 1),
            "report_s": None if report["timed_out"] or report["error"] else report["wall_s"],
            "agreement_s": None if agreement["timed_out"] or agreement["error"] else agreement["wall_s"],
            "report_cpu_s": report["cpu_s"],
            "agreement_cpu_s": agreement["cpu_s"],
            "report_peak_rss_mb": report["peak_rss_mb"],
            "agreement_peak_rss_mb": agreement["peak_rss_mb"],
            "report_outcome": "timed out" if report["timed_out"] else report["error"] or "done",
            "agreement_outcome": "timed out" if agreement["timed_out"] else agreement["error"] or "done",
        }
        if size != sizes[-1]:
            row["pieces_s"] = agreement_pieces(campaign)
            pieces.append((size, row["pieces_s"]))
        print(json.dumps(row), flush=True)
        figures["runs"].append(row)
    (n1, p1), (n2, p2) = pieces[0], pieces[-1]
    first, second = figures["runs"][0], figures["runs"][-2]
    for key in ("report_s", "agreement_s"):
        p1[key], p2[key] = first[key], second[key]
    growth = {k: exponent((n1, p1[k]), (n2, p2[k])) for k in p1 if k.endswith("_s")}
    figures["growth_exponents"] = growth
    # What each step would cost at the largest size if it kept growing so (the largest run may have been stopped).
    figures["extrapolated_largest_s"] = {
        k: round(p2[k] * (sizes[-1] / n2) ** e, 1) for k, e in growth.items() if e is not None and p2[k]
    }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "ncimp"), help="The NCIMP folder.")
    parser.add_argument("--scale", type=int, default=10, help="Copies of the public release (default 10).")
    parser.add_argument("--ratings", type=int, default=1_000_000, help="Ratings of the largest campaign.")
    parser.add_argument("--items-per-annotator", type=int, default=100, help="Items each annotator rates.")
    parser.add_argument("--model", choices=["input_embeddings", "minilm"], default="input_embeddings")
    parser.add_argument("--report-timeout", type=float, default=300, help="Seconds the largest report may take.")
    parser.add_argument("--skip-probe", action="store_true", help="Only the releases and the campaign.")
    parser.add_argument("--only", choices=["campaign"], help="Only the campaigns (step 3): no release, no probe.")
    parser.add_argument("--quick", action="store_true", help="Scale 2 and 20,000 ratings.")
    parser.add_argument("--keep", action="store_true", help="Keep the database (its name is printed).")
    save_flag(parser)
    args = parser.parse_args()
    if args.quick:
        args.scale, args.ratings = 2, 20_000
    load_before, measured = os.getloadavg(), commit()  # the code run, whatever changes while it runs
    scratch = Path(tempfile.mkdtemp(prefix="workbench-scale-"))
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/workbench")
    name = f"workbench_scale_{os.getpid()}"
    url, drop = database(url, name)
    env = {**os.environ, "DATABASE_URL": url, "WORKBENCH_VAR_DIR": str(scratch / "var")}
    os.environ.update(DATABASE_URL=url, WORKBENCH_VAR_DIR=env["WORKBENCH_VAR_DIR"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    manage = Manage(env)
    try:
        figures = measure(args, manage, Path(args.data), scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if args.keep:
            print(f"database kept: {url}")
        else:
            from django.db import connections

            connections.close_all()
            drop()
    load_after = os.getloadavg()
    figures["load_average"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after]}
    figures["cpus"] = os.cpu_count()
    emit("scale", figures, save=args.save, measured=measured)


def measure(args, manage: Manage, data: Path, scratch: Path) -> dict:
    import django

    manage("migrate", "-v0")
    django.setup()
    model_args = ["--kind", "input_embeddings", "--source", "bundled:minilm"]
    if args.model == "minilm":
        model_args = ["--kind", "sentence_transformers", "--source", "bundled:minilm"]
    if args.only == "campaign":
        return campaign_only(args, manage, data, scratch)
    manage("register_model", "--name", MODEL_NAME, *model_args)
    manage("import_ncimp", str(data / "PT"), "--language", "pt")
    manage("import_ncimp", str(data / "EN"), "--language", "en")
    one = release(manage, "1.0.0", scratch)
    copies = scratch / "ncimp"
    write_ncimp_copies(data, copies, args.scale, seed=0)
    imported = [manage("import_ncimp", str(copies / f), "--language", f.lower())["wall_s"] for f in ("PT", "EN")]
    big = release(manage, "2.0.0", scratch)
    figures: dict = {"scale": args.scale, "model": args.model, "release_1x": one, "release_scaled": big}
    figures["import_scaled_s"] = round(sum(imported), 2)
    if not args.skip_probe:
        small, large = probe(manage, "1.0.0"), probe(manage, "2.0.0")
        figures["probe_1x"], figures["probe_scaled"] = small, large
        figures["s_per_text_1x"] = round(small["s_per_text"], 6)
        figures["s_per_text_10x"] = round(large["s_per_text"], 6)
        figures["per_text_growth"] = round(large["s_per_text"] / small["s_per_text"] - 1, 3)
        figures["probe_peak_rss_mb"] = large["peak_rss_mb"]
        figures["probe_peak_rss_1x_mb"] = small["peak_rss_mb"]
    figures["export_10x_s"] = big["export_s"]
    figures["export_1x_s"] = one["export_s"]
    return {**figures, **campaigns(args, manage)}


def campaigns(args, manage: Manage) -> dict:
    """Step 3's figures: the campaigns at each size, and the largest one's report and agreement seconds."""
    sizes = sorted({max(args.ratings // 100, 1000), max(args.ratings // 30, 3000), args.ratings})
    campaign = campaign_figures(manage, sizes, args.items_per_annotator, args.report_timeout)
    largest = campaign["runs"][-1]
    return {
        "campaign": campaign,
        "ratings": largest["ratings"],
        "report_1m_s": largest["report_s"],
        "agreement_1m_s": largest["agreement_s"],
        "report_timeout_s": args.report_timeout,
    }


def campaign_only(args, manage: Manage, data: Path, scratch: Path) -> dict:
    """``--only campaign``: the Portuguese sentences of 1.0.0 and 2.0.0 imported, then step 3 alone."""
    manage("import_ncimp", str(data / "PT"), "--language", "pt")
    copies = scratch / "ncimp"
    write_ncimp_copies(data, copies, args.scale, seed=0)
    manage("import_ncimp", str(copies / "PT"), "--language", "pt")
    return {"scale": args.scale, "only": "campaign", **campaigns(args, manage)}


if __name__ == "__main__":
    main()
