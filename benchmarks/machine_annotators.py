"""Machine annotators: items answered per second and the platform's CPU per item, and the report with their answers.

Usage: .venv/bin/python benchmarks/machine_annotators.py [--items 100] [--concurrency 8] [--repeat 1]
       [--report-ratings 10000] [--report-models 2] [--nctti ../shared/data/nctti] [--only answers|report]
       [--profile] [--save] [--keep]

A throwaway PostgreSQL database (``workbench_annotators_<pid>`` on DATABASE_URL's server, dropped at
the end unless ``--keep``) is migrated and given the demo and the English NCTTI sentences
(``import_nctti``, when ``--nctti`` is there). The chat server is the tests' (``tests/llm_server.py``)
wrapping the tiny chat LLaMA (``tests/annotator_model.py``): constrained JSON answers with the digits'
log-probabilities, generated for real. It runs in its own process (``chat_server_process.py``, torch on
``--server-threads`` threads), so that this process's CPU is the platform's alone; it is registered as an
``openai_chat`` model on 127.0.0.1, as an administrator allows it (``WORKBENCH_MODEL_API_HOSTS``,
``WORKBENCH_MODEL_API_KEY_ENVS``).

1. Answering: a token-level campaign of ``--items`` regular items (English NCTTI sentences, else the
   demo's), asked at ``--concurrency`` requests in flight. Each round (``--repeat``) runs, in this order,
   every pass on an emptied response cache (CachedResponse rows and the campaign's MachineAnswer rows
   deleted) except the last:
   (a) the user's path in a fresh process: ``manage.py annotate_with_model --campaign … --model …
       --inline --config '{"concurrency": 8}'``, its wall time and its own CPU (``os.wait4``: start-up,
       imports and the job);
   (b) the baseline: the bare ``openai`` client asking the server the same messages (built with
       ``annotators.prompts.messages`` as the job builds them) with the job's request (the answer's
       JSON schema as ``response_format``, ``logprobs``, ``top_logprobs`` 6, temperature 0, seed 0,
       ``max_tokens``) from a ThreadPoolExecutor of ``--concurrency`` threads, nothing stored;
   (c) the same job warm in this process (``create_job`` + ``run_inline``; before any round this process
       answered a job of ``WARM_ITEMS`` other items, as a running worker has), this process's CPU
       (``time.process_time``: every thread);
   (d) (c) again with every answer in the response cache (only the MachineAnswer rows deleted); a request
       it sends anyway is counted in ``cache_misses`` (0: the same request is never paid twice).
   ``platform_cpu_ms_per_item`` = ((c) CPU − (b) CPU) / items: what the platform spends per item beyond
   a bare client's own work (goal ≤ 5 ms); ``command_platform_cpu_ms_per_item`` is the same for (a),
   start-up included (``command_startup_cpu_s``: its CPU beyond (c)'s). ``items_per_s_ratio`` is (c)'s items/s over (b)'s. Each figure is the best round
   (most items/s, least CPU per item); every round is under ``samples``. ``same_requests`` says
   that (b)'s requests have the response-cache keys (c) wrote (the same model identity, messages and
   settings), ``same_answers`` how many of (b)'s answers equal (c)'s raw texts (greedy: all of them).
   The database server's own CPU is not counted (another process); ``db_queries_per_item`` and
   ``db_connections`` are the queries and new connections (c) made, every thread's.

2. The report: a synthetic token-level campaign (``--report-ratings`` / 2 items, or more for fewer machine
   annotators: compounds with three sentences each, classes and type scores) with ``--report-ratings`` human ratings (annotators of 100
   items each, ``benchmarks/synthetic.rating_plan``; half with a paraphrase), bulk-created. The curator's
   report, ``campaign_report(campaign, save_run=False)`` under no filter policy, is timed (median of 3,
   after one untimed run: a warm web worker) before and after ``--report-ratings`` machine answers are
   added (``--report-models`` machine annotators, samples of one model, answering ``--report-ratings`` /
   ``--report-models`` items each: valid answers with digit distributions and paraphrases, 1% invalid with
   their raw text); the machine section alone (``annotation.reports.machine.machine_section``) too.
   Goal: the report with the machine answers under 2 s. ``--profile`` (or a missed goal) prints where its
   time goes and keeps the largest project functions in the line (``report_profile``).

The last line is one JSON object with the commit (``--save`` appends it to
``benchmarks/results/machine_annotators.jsonl``); progress goes to stderr.

This file is the command line; part 1 is ``benchmarks/machine_answering.py``, part 2
``benchmarks/machine_report.py``, the chat server's process ``benchmarks/chat_server_process.py``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.chat_server_process import KEY_ENV, serve  # noqa: E402
from benchmarks.machine_answering import answering, manage, say  # noqa: E402
from benchmarks.machine_report import reporting  # noqa: E402
from benchmarks.record import commit, emit, save_flag  # noqa: E402
from benchmarks.scale import database  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100, help="Regular items of the answered campaign.")
    parser.add_argument("--concurrency", type=int, default=8, help="Requests in flight (the job's setting).")
    parser.add_argument("--repeat", type=int, default=1, help="Rounds of (a)-(d); the best of each is kept.")
    parser.add_argument("--server-threads", type=int, default=1, help="torch threads of the chat server.")
    parser.add_argument("--nctti", type=Path, default=ROOT.parent / "shared" / "data" / "nctti")
    parser.add_argument("--report-ratings", type=int, default=10_000, help="Human ratings, and machine answers.")
    parser.add_argument("--report-models", type=int, default=2, help="Machine annotators sharing the answers.")
    parser.add_argument("--only", choices=["answers", "report"])
    parser.add_argument("--profile", action="store_true", help="Profile the report with the machine answers.")
    parser.add_argument("--keep", action="store_true", help="Keep the database (its name is printed).")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    save_flag(parser)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.server_threads)
    measured, load_before = commit(), os.getloadavg()
    args.scratch = Path(tempfile.mkdtemp(prefix="workbench-annotators-"))
    (args.scratch / "models").mkdir()
    url, drop = database(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/workbench_bench"),
        f"workbench_annotators_{os.getpid()}",
    )
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "WORKBENCH_VAR_DIR": str(args.scratch / "var"),
        "WORKBENCH_MODEL_DIRS": os.path.realpath(args.scratch / "models"),
        "WORKBENCH_MODEL_API_HOSTS": "127.0.0.1",
        "WORKBENCH_MODEL_API_KEY_ENVS": KEY_ENV,
        KEY_ENV: "sk-local-bench",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # As a deployed worker runs: DEBUG off (with it on, Django keeps every query's SQL).
        "DEBUG": "false",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-" + "k" * 50,
    }
    os.environ.update(env)
    figures: dict = {}
    try:
        manage(env, "migrate", "-v0")
        import django

        django.setup()
        if args.only != "report":
            figures["answering"] = answering(args, env)
        if args.only != "answers":
            figures["report"] = reporting(args)
    finally:
        shutil.rmtree(args.scratch, ignore_errors=True)
        if args.keep:
            say(f"database kept: {url}")
        else:
            from django.db import connections

            connections.close_all()
            drop()
    answering_figures, report_figures = figures.get("answering", {}), figures.get("report", {})
    # What the run asked for (the table's rows are of the default run): the items answered are in "answering".
    scope = (
        f"{args.items} items at concurrency {args.concurrency}; report of {args.report_ratings:,} human and "
        f"{args.report_ratings:,} machine ratings"
    )
    line = {"scope": scope, **figures}
    if answering_figures:
        line["platform_cpu_ms_per_item"] = answering_figures["platform_cpu_ms_per_item"]
        line["items_per_s_ratio"] = answering_figures["items_per_s_ratio"]
    if report_figures:
        line["report_with_machine_s"] = report_figures["with_machine_s"]
    line["load_average"] = {
        "before": [round(x, 2) for x in load_before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    emit("machine_annotators", line, save=args.save, measured=measured)


if __name__ == "__main__":
    main()
