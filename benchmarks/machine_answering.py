"""Part 1 of ``benchmarks/machine_annotators.py``: how fast machine annotators answer, and the platform's CPU per item.

Over a token-level campaign, each round runs (a) ``manage.py annotate_with_model --inline`` in a fresh
process, (b) the bare ``openai`` client asking the same requests, (c) the same job warm in this process,
(d) (c) again from the response cache; ``answering`` returns the best of each and the figures derived
from them (what the platform costs beyond a bare client). The benchmark's docstring says what each
figure means; the chat server is ``chat_server_process``'s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.chat_server_process import KEY_ENV, MODEL, PYTHON, ROOT, SERVED, start_server

ANSWERS_SLUG, WARM_SLUG = "bench-answers", "bench-warm"
WARM_ITEMS = 4


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def manage(env: dict, *args: str) -> dict:
    """``manage.py ARGS`` in a fresh process: {wall_s, cpu_s, stdout}; its own rusage (``os.wait4``)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen([str(PYTHON), "manage.py", *args], cwd=ROOT, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0), err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{stderr[-3000:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "stdout": stdout}


def answers_campaigns(nctti: Path, items: int) -> tuple:
    """Two open token-level campaigns: ``items`` regular items (NCTTI's English sentences, else the demo's), and
    ``WARM_ITEMS`` others, answered once before any timing (a worker that has answered before)."""
    from django.core.management import call_command

    from annotation.curate.study_setup import item_targets
    from annotation.models import Campaign
    from annotation.setup_actions import add_items
    from datasets.models import Collection

    with open(os.devnull, "w") as quiet:
        call_command("load_demo", stdout=quiet)
        collection = "demo"
        if (nctti / "data_en.tsv").exists():
            call_command("import_nctti", str(nctti), "--languages", "en", "--collection", "bench", stdout=quiet)
            collection = "bench"
    campaigns = []
    for slug, first, last in ((ANSWERS_SLUG, 0, items), (WARM_SLUG, items, items + WARM_ITEMS)):
        campaign = Campaign.objects.create(
            name=slug,
            slug=slug,
            collection=Collection.objects.get(slug=collection),
            language="en",
            level=Campaign.Level.TOKEN,
            status=Campaign.Status.OPEN,
        )
        add_items(campaign, item_targets(campaign)[first:last])
        campaigns.append(campaign)
    return tuple(campaigns)


def job_messages(campaign) -> list[tuple[int, list[dict]]]:
    """(item id, messages) of every regular item in the job's order, built as ``annotators.actions`` builds them."""
    from annotation.curate.study_setup import example_of, item_compound_texts
    from annotation.models import Item
    from annotation.reads import item_sentences
    from annotators import prompts

    template = prompts.TEMPLATES[prompts.DEFAULT_TEMPLATE.get(campaign.language.split("-")[0], "reddy-en")]
    own = [example_of(row) for row in campaign.worked_examples.all()]
    asked = sorted(item_compound_texts(campaign))
    found = []
    items = campaign.items.filter(role=Item.Role.REGULAR).select_related("compound", "sentence")
    for item in items.order_by("order_key", "pk"):
        head, modifier = prompts.words_of(item.compound.text)
        shown = prompts.ItemText(
            item.compound.text,
            item.compound.head or head,
            item.compound.modifier or modifier,
            tuple(s.text for s in item_sentences(item)),
        )
        found.append((item.pk, prompts.messages(template, shown, campaign.level, own, asked)))
    return found


def forget(campaign, responses: bool = True) -> None:
    """No answers of ``campaign`` (its jobs gone too) and, with ``responses``, an empty response cache."""
    from annotation.models import MachineAnswer
    from annotators.models import AnnotationJob, CachedResponse

    MachineAnswer.objects.filter(item__campaign=campaign).delete()
    AnnotationJob.objects.filter(campaign=campaign).delete()
    if responses:
        CachedResponse.objects.all().delete()


def figures_of(items: int, wall: float, cpu: float) -> dict:
    return {
        "items": items,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "items_per_s": round(items / wall, 2),
        "cpu_ms_per_item": round(cpu / items * 1000, 3),
    }


def bare_pass(base_url: str, messages: list[tuple[int, list[dict]]], settings: dict, workers: int):
    """The bare client: the job's requests, ``workers`` at a time; (figures, each item's answer text)."""
    import openai

    from annotators.answers import ANSWER_SCHEMA

    client = openai.OpenAI(api_key=os.environ[KEY_ENV], base_url=base_url, max_retries=0, timeout=60)
    extra = {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "reddy_answer", "schema": ANSWER_SCHEMA, "strict": True},
        },
        "logprobs": True,
        "top_logprobs": 6,
    }

    def ask(chat: list[dict]) -> str:
        response = client.chat.completions.create(
            model=SERVED,
            messages=chat,
            temperature=float(settings["temperature"]),
            seed=int(settings["seed"]),
            max_tokens=int(settings["max_tokens"]),
            **extra,
        )
        return response.choices[0].message.content or ""

    started, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        texts = list(pool.map(ask, [chat for _, chat in messages]))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return figures_of(len(messages), wall, cpu), {item: text for (item, _), text in zip(messages, texts, strict=True)}


class QueryCounter:
    """Queries and new connections of every thread, while ``active`` (an execute wrapper on each new connection)."""

    def __init__(self) -> None:
        self.queries = self.connections = 0
        self.active = False
        self.lock = threading.Lock()

    def __call__(self, execute, sql, params, many, context):
        if self.active:
            with self.lock:
                self.queries += 1
        return execute(sql, params, many, context)

    def connected(self, sender, connection, **kwargs) -> None:
        if self.active:
            with self.lock:
                self.connections += 1
        if self not in connection.execute_wrappers:
            connection.execute_wrappers.append(self)


def job_pass(campaign, model, settings: dict, counter: QueryCounter | None = None):
    """``create_job`` + ``run_inline`` in this process: (figures, the finished job)."""
    from annotators.actions import create_job, run_inline

    started, cpu = time.perf_counter(), time.process_time()
    if counter is not None:
        counter.active = True
    job = run_inline(create_job(campaign, model, settings=settings))
    if counter is not None:
        counter.active = False
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if job.status != job.Status.DONE or job.invalid:
        raise SystemExit(f"job {job.pk}: {job.status}, {job.invalid} invalid answers: {job.error}")
    return figures_of(job.answered, wall, cpu), job


def command_pass(env: dict, campaign, concurrency: int):
    from annotators.models import AnnotationJob

    config = json.dumps({"concurrency": concurrency})
    done = manage(
        env, "annotate_with_model", "--campaign", campaign.slug, "--model", MODEL, "--inline", "--config", config
    )
    job = AnnotationJob.objects.get(pk=int(done["stdout"].split()[-1]))
    if job.status != job.Status.DONE or job.invalid or job.requests != job.answered:
        raise SystemExit(f"job {job.pk}: {job.status}, {job.invalid} invalid, {job.requests} requests: {job.error}")
    return figures_of(job.answered, done["wall_s"], done["cpu_s"])


def answering(args, env: dict) -> dict:
    from django.db import connection
    from django.db.backends.signals import connection_created

    from annotation.models import MachineAnswer
    from annotators import config
    from annotators.asking import request_key
    from annotators.models import CachedResponse
    from probing.actions import register_model

    campaign, warm = answers_campaigns(args.nctti, args.items)
    messages = job_messages(campaign)
    say(f"campaign {campaign.slug}: {len(messages)} regular items")
    server, base_url = start_server(args.scratch / "models" / "chat-llama", args.server_threads, env)
    try:
        options = {"base_url": base_url, "api_key_env": KEY_ENV, "model": SERVED}
        model = register_model(MODEL, "openai_chat", SERVED, options=options)
        settings = config.resolve({"concurrency": args.concurrency})
        counter = QueryCounter()
        connection_created.connect(counter.connected, weak=False)
        connection.close()  # this thread's next connection is counted too
        # Untimed, as a running worker: the client libraries imported, a job answered (another campaign's items).
        bare_pass(base_url, messages[:1], settings, 1)
        job_pass(warm, model, settings)
        samples: dict[str, list[dict]] = {"command": [], "bare": [], "job": [], "cached": []}
        for round_ in range(1, args.repeat + 1):
            forget(campaign)
            samples["command"].append(command_pass(env, campaign, args.concurrency))
            say(f"round {round_} (a) command: {samples['command'][-1]}")
            forget(campaign)
            bare, texts = bare_pass(base_url, messages, settings, args.concurrency)
            samples["bare"].append(bare)
            say(f"round {round_} (b) bare client: {bare}")
            forget(campaign)
            counter.queries = counter.connections = 0
            figures, job = job_pass(campaign, model, settings, counter)
            identity = {"kind": "openai_chat", "name": SERVED, "base_url": base_url.rstrip("/"), "revision": SERVED}
            keys = {request_key(identity, chat, settings, 0) for _, chat in messages}
            stored = set(CachedResponse.objects.values_list("key", flat=True))
            same_requests = keys == stored
            raw = dict(MachineAnswer.objects.filter(item__campaign=campaign).values_list("item_id", "raw_text"))
            same_answers = sum(raw.get(item) == text for item, text in texts.items())
            samples["job"].append(
                figures
                | {"db_queries": counter.queries, "db_connections": counter.connections, "cached_rows": len(stored)}
            )
            say(f"round {round_} (c) job in this process: {samples['job'][-1]}; same requests as (b): {same_requests}")
            forget(campaign, responses=False)
            cached, job = job_pass(campaign, model, settings)
            # Every answer should come from the cache: a request sent again is a product bug, kept in the line.
            samples["cached"].append(cached | {"requests": job.requests, "from_cache": job.cached})
            if job.requests:
                say(f"(d) asked the server {job.requests} times although (c) cached {len(stored)} responses")
            say(f"round {round_} (d) job from the cache: {samples['cached'][-1]}")
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    best = {
        label: {
            **min(runs, key=lambda r: r["wall_s"]),
            "items_per_s": max(r["items_per_s"] for r in runs),
            "cpu_ms_per_item": min(r["cpu_ms_per_item"] for r in runs),
        }
        for label, runs in samples.items()
    }
    items = len(messages)
    bare_ms = best["bare"]["cpu_ms_per_item"]
    return {
        "items": items,
        "concurrency": args.concurrency,
        "source": "nctti en" if campaign.collection.slug == "bench" else "demo",
        "command": best["command"],
        "bare": best["bare"],
        "job": best["job"],
        "cached": best["cached"],
        "platform_cpu_ms_per_item": round(best["job"]["cpu_ms_per_item"] - bare_ms, 3),
        "command_platform_cpu_ms_per_item": round(best["command"]["cpu_ms_per_item"] - bare_ms, 3),
        # The fresh process's CPU beyond the same job warm: interpreter, Django, imports, the model opened.
        "command_startup_cpu_s": round(best["command"]["cpu_s"] - best["job"]["cpu_s"], 2),
        "items_per_s_ratio": round(best["job"]["items_per_s"] / best["bare"]["items_per_s"], 3),
        "command_items_per_s_ratio": round(best["command"]["items_per_s"] / best["bare"]["items_per_s"], 3),
        "cached_items_per_s": best["cached"]["items_per_s"],
        "cached_cpu_ms_per_item": best["cached"]["cpu_ms_per_item"],
        "cache_misses": sum(run["requests"] for run in samples["cached"]),
        "db_queries_per_item": round(best["job"]["db_queries"] / items, 2),
        "db_connections": best["job"]["db_connections"],
        "same_requests": same_requests,
        "same_answers": f"{same_answers}/{items}",
        "samples": samples,
    }
