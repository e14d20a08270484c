"""Part 2 of ``benchmarks/machine_annotators.py``: the curator's report of a campaign with people's and machines' ratings.

``reporting`` synthesises a closed token-level campaign (``--report-ratings`` human ratings, bulk-created)
and times ``campaign_report`` before and after as many machine answers are added, and the machine
section alone; the goal is the report with 10,000 human and 10,000 machine ratings under 2 s (issue 31).
The benchmark's docstring says what each figure means.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.chat_server_process import MODEL, SERVED
from benchmarks.synthetic import rating_plan

ROOT = Path(__file__).resolve().parents[1]
REPORT_SLUG = "bench-report"
PROJECT_PARTS = ("annotation/", "annotators/", "core/", "datasets/")
REPORT_GOAL_S = 2.0  # the report with 10,000 human and 10,000 machine ratings (issue 31)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def report_campaign(n_ratings: int, n_items: int, seed: int = 0):
    """A closed token-level campaign of ``n_items`` synthetic sentences with ``n_ratings`` human ratings."""
    import numpy as np
    from django.utils import timezone

    from annotation.models import Annotator, Assignment, Campaign, Item, Rating, SuggestedParaphrase
    from datasets import vocabulary
    from datasets.models import Collection, Compound, Sentence

    rng = np.random.default_rng(seed)
    collection = Collection.objects.create(slug="bench-report", name="Report benchmark")
    n_compounds = -(-n_items // 3)
    compounds = []
    for i in range(n_compounds):
        modifier, head = f"mod{i}", f"head{i % 97}"
        text = f"{modifier} {head}"
        compounds.append(
            Compound(
                collection=collection,
                language="en",
                text=text,
                key=vocabulary.compound_key(text),
                modifier=modifier,
                head=head,
                compositionality_class=vocabulary.CLASSES[i % len(vocabulary.CLASSES)],
                type_score=float(rng.uniform(0, 5)),
            )
        )
    compounds = Compound.objects.bulk_create(compounds, batch_size=2000)
    sentences = []
    for compound in compounds:
        for slot in (1, 2, 3):
            before = f"In the story number {slot} the "
            text = f"{before}{compound.text} stood by the old station for a while."
            sentences.append(
                Sentence(
                    compound=compound,
                    slot=slot,
                    text=text,
                    span_start=len(before),
                    span_end=len(before) + len(compound.text),
                    token_score=float(rng.uniform(0, 5)),
                )
            )
    sentences = Sentence.objects.bulk_create(sentences[:n_items], batch_size=2000)
    campaign = Campaign.objects.create(
        name="Report benchmark",
        slug=REPORT_SLUG,
        collection=collection,
        language="en",
        level=Campaign.Level.TOKEN,
        ratings_per_item=max(1, n_ratings // n_items),
        status=Campaign.Status.CLOSED,
    )
    items = Item.objects.bulk_create(
        [Item(campaign=campaign, compound_id=s.compound_id, sentence=s, order_key=i) for i, s in enumerate(sentences)],
        batch_size=2000,
    )
    plan = rating_plan(n_ratings, len(items), min(100, len(items)), seed)
    n_annotators = int(plan["annotator"].max()) + 1
    now = timezone.now()
    annotators = Annotator.objects.bulk_create(
        [
            Annotator(
                campaign=campaign,
                platform=Annotator.Platform.PROLIFIC,
                external_id=f"bench-{i}",
                consented_at=now,
                completed_at=now,
                status=Annotator.Status.COMPLETED,
            )
            for i in range(n_annotators)
        ]
    )
    pairs = list(zip(plan["annotator"].tolist(), plan["item"].tolist(), strict=True))
    assignments = Assignment.objects.bulk_create(
        [
            Assignment(
                item=items[t],
                annotator=annotators[a],
                status=Assignment.Status.SUBMITTED,
                expires_at=now,
                submitted_at=now,
            )
            for a, t in pairs
        ],
        batch_size=2000,
    )
    ratings = Rating.objects.bulk_create(
        [
            Rating(
                assignment=assignment,
                item=assignment.item,
                annotator=assignment.annotator,
                head_score=int(h),
                modifier_score=int(m),
                compound_score=int(c),
                seconds=12.5,
            )
            for assignment, h, m, c in zip(
                assignments, plan["head"].tolist(), plan["modifier"].tolist(), plan["compound"].tolist(), strict=True
            )
        ],
        batch_size=2000,
    )
    SuggestedParaphrase.objects.bulk_create(
        [
            SuggestedParaphrase(rating=rating, position=1, text=paraphrase(rating.item.compound_id, i))
            for i, rating in enumerate(ratings)
            if i % 2 == 0
        ],
        batch_size=2000,
    )
    return campaign, items


def paraphrase(compound_id: int, n: int) -> str:
    return f"a {['kind', 'sort', 'piece', 'place'][n % 4]} of thing {compound_id}"


def add_machine_answers(campaign, items, n_answers: int, n_models: int, seed: int = 1) -> int:
    """``n_models`` machine annotators (samples of one model) answering ``n_answers`` / ``n_models`` items each."""
    import math

    import numpy as np

    from annotation.models import MachineAnnotator, MachineAnswer
    from annotators import config, prompts
    from annotators.answers import distribution

    rng = np.random.default_rng(seed)
    template = prompts.TEMPLATES["reddy-en"]
    settings = config.resolve(None)
    per_model = n_answers // n_models
    if per_model > len(items):
        raise SystemExit(f"{per_model} answers per machine annotator, but only {len(items)} items")
    made = 0
    for sample in range(1, n_models + 1):
        annotator = MachineAnnotator.objects.create(
            campaign=campaign,
            key=hashlib.sha256(f"bench {sample}".encode()).hexdigest(),
            label=f"{MODEL} · {template.name} v{template.version} · t=0 · sample {sample}",
            model_name=MODEL,
            model_kind="openai_chat",
            model_identity={"kind": "openai_chat", "name": SERVED, "base_url": "http://127.0.0.1/v1"},
            template_name=template.name,
            template_version=template.version,
            template_text=template.text,
            settings=settings,
            sample=sample,
        )
        rows = []
        for n, item in enumerate(items[:per_model]):
            common = {"annotator": annotator, "item": item, "prompt_tokens": 430, "completion_tokens": 58}
            if n % 100 == 99:  # 1% never parsed: kept with the raw text and the reason
                reason = {"raw_text": "I'd say a 4, mostly literal.", "error": "no JSON object in the answer"}
                rows.append(MachineAnswer(**common, valid=False, attempts=3, **reason))
                continue
            distributions = {
                key: distribution({str(d): math.log(p) for d, p in enumerate(rng.dirichlet(np.ones(6)))})
                for key in ("head", "modifier", "compound")
            }
            scores = {key: found["mode"] for key, found in distributions.items()}
            paraphrases = [paraphrase(item.compound_id, n + k) for k in range(1 + n % 3)]
            rows.append(
                MachineAnswer(
                    **common,
                    valid=True,
                    **{f"{key}_score": score for key, score in scores.items()},
                    distributions=distributions,
                    paraphrases=paraphrases,
                    raw_text=json.dumps({**scores, "paraphrases": paraphrases}),
                )
            )
        made += len(MachineAnswer.objects.bulk_create(rows, batch_size=2000))
    return made


def timed_median(function, repeat: int = 3) -> dict:
    """Median wall and CPU seconds (this process: the database server's work is in the wall time only) of
    ``repeat`` calls, each call's wall seconds, and the last call's value."""
    walls, cpus = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        value = function()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return {
        "s": statistics.median(walls),
        "cpu_s": statistics.median(cpus),
        "runs": [round(w, 3) for w in walls],
        "value": value,
    }


def profile_report(campaign) -> list[list]:
    """The report under cProfile: the project's functions with the most cumulative seconds (printed, and kept)."""
    import cProfile
    import io
    import pstats

    from annotation.reports.build import campaign_report

    profiler = cProfile.Profile()
    profiler.runcall(campaign_report, campaign, save_run=False)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
    stats.print_stats(40)
    say(out.getvalue())
    rows = []
    for (path, line, name), (_, _, _, cumulative, _) in stats.stats.items():
        relative = path.replace(str(ROOT) + "/", "")
        if relative.startswith(PROJECT_PARTS):
            rows.append([f"{relative}:{line} {name}", round(cumulative, 3)])
    return sorted(rows, key=lambda row: -row[1])[:12]


def reporting(args) -> dict:
    from annotation.reports.analysis_data import campaign_ratings
    from annotation.reports.build import _compounds, campaign_report
    from annotation.reports.machine import machine_section

    started = time.perf_counter()
    # Two ratings an item (every answer a model gives needs an item of its own: one model of 10,000 needs 10,000).
    n_items = max(args.report_ratings // 2, args.report_ratings // args.report_models)
    campaign, items = report_campaign(args.report_ratings, n_items)
    say(
        f"campaign {campaign.slug}: {len(items)} items, {args.report_ratings} ratings ({time.perf_counter() - started:.1f} s)"
    )

    def report() -> dict:
        return campaign_report(campaign, save_run=False)

    report()  # untimed: pandas and the analyses imported, as in a warm web worker
    baseline = timed_median(report)
    say(f"report, people only: median {baseline['s']:.3f} s ({baseline['cpu_s']:.3f} s CPU) {baseline['runs']}")
    answers = add_machine_answers(campaign, items, args.report_ratings, args.report_models)
    say(f"{answers} machine answers ({args.report_models} machine annotators)")
    machine = timed_median(report)
    say(
        f"report with the machine answers: median {machine['s']:.3f} s ({machine['cpu_s']:.3f} s CPU) {machine['runs']}"
    )
    ratings = campaign_ratings(campaign.pk)
    compounds = _compounds(ratings["compound"].unique())
    section = timed_median(lambda: machine_section(campaign, ratings, compounds))
    say(f"machine section alone: median {section['s']:.3f} s ({section['cpu_s']:.3f} s CPU) {section['runs']}")
    figures = {
        "items": len(items),
        "human_ratings": args.report_ratings,
        "annotators": campaign.annotators.count(),
        "machine_annotators": args.report_models,
        "machine_answers": answers,
        "compared_items": [entry["comparison"]["items_compared"] for entry in machine["value"]["machine_annotators"]],
        "policy": "none",
        "baseline_s": round(baseline["s"], 3),
        "with_machine_s": round(machine["s"], 3),
        "machine_added_s": round(machine["s"] - baseline["s"], 3),
        "machine_section_s": round(section["s"], 3),
        "cpu_s": {
            k: round(v["cpu_s"], 3)
            for k, v in (("baseline", baseline), ("with_machine", machine), ("machine_section", section))
        },
        "samples_s": {
            "baseline": baseline["runs"],
            "with_machine": machine["runs"],
            "machine_section": section["runs"],
        },
    }
    if args.profile or machine["s"] >= REPORT_GOAL_S:
        figures["report_profile"] = profile_report(campaign)
    return figures
