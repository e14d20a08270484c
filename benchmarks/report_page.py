"""The report page of a full-release run: server time and queries, and how big a layer sweep's cache would be.

Usage: .venv/bin/python benchmarks/report_page.py [--data PATH/TO/shared/data] [--limit N] [--layers N] [--repeat N]

The public NCIMP (Portuguese folder with its human scores, English neutral) is imported into a
throwaway database and published, as ``probe_throughput.py`` does (10,244 pairs). A tiny random
BERT (hidden size 32, ``--layers`` layers; from the tests' model builder, so nothing is downloaded
and the run takes seconds) probes it with a layer sweep of every layer (``run_probes --inline``),
so the report has the full release's rows and a "Layer by layer" section: the page renders what a
real model's page renders, only the numbers differ. A second run without a sweep on the same
release gives the comparison page its two runs.

Printed: the report's stored size, then for each page the best server time of ``--repeat``
requests through Django's test client (view, queries, template) and its number of queries; then
the cache a sweep of a 40-layer, 5,120-dimension model (41 hidden states with the embeddings)
would need over this release's texts and spans (``probing.run.cache.cache_bytes``). The last line is
one JSON object. Goal: every page under 1 s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from probe_throughput import run_probes, setup  # noqa: E402  (a sibling script, found through sys.path)

from benchmarks.record import emit, save_flag  # noqa: E402

BIG_MODEL = {"hidden_states": 41, "dim": 5120}  # 40 layers and the embeddings, LLaMA-2-13B's shape


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data"))
    parser.add_argument("--limit", type=int, help="Only the first N compounds per language.")
    parser.add_argument("--layers", type=int, default=12, help="Layers of the tiny BERT (default 12, BERT-base's).")
    parser.add_argument("--repeat", type=int, default=5, help="Requests per page; the best counts (default 5).")
    save_flag(parser)
    args = parser.parse_args()
    teardown = setup(Path(args.data), args.limit)
    try:
        figures = measure(args)
    finally:
        teardown()
    emit("report_page", figures, save=args.save)


def measure(args) -> dict:
    from django.conf import settings
    from django.urls import reverse

    from probing.models import EmbeddingModel
    from probing.run.cache import cache_bytes
    from probing.run.loading import release_probes
    from releases.models import Release
    from tests.tiny_models import save_tiny_bert, words_of

    probes = release_probes(Release.objects.get(version="1.0.0"))
    items = probes.items(probes.compounds)
    pairs = sum(len(probes.pairs.get(k, ())) for k in probes.compounds)
    texts = len({item.text for item in items})
    spans = sum(item.span is not None for item in items)
    sweep16 = cache_bytes(items, BIG_MODEL["dim"], BIG_MODEL["hidden_states"], "float16")
    sweep32 = cache_bytes(items, BIG_MODEL["dim"], BIG_MODEL["hidden_states"], "float32")
    combination = cache_bytes(items, BIG_MODEL["dim"])
    print(f"{len(probes.compounds)} compounds, {pairs} pairs, {texts} unique texts, {len(items)} cache rows")
    print(f"({spans} with a span vector)")
    print(
        f"sweep of a 40-layer, 5,120-dimension model over them: {sweep16 / 1e9:.2f} GB in float16 "
        f"({sweep32 / 1e9:.2f} GB in float32), of which {combination / 1e9:.2f} GB the float32 combination"
    )

    folder = Path(settings.WORKBENCH_MODEL_DIRS[0]) / "tiny-bert"
    save_tiny_bert(folder, words_of(item.text for item in items), layers=args.layers)
    EmbeddingModel.objects.create(
        name="tiny-bert",
        kind=EmbeddingModel.Kind.TRANSFORMER,
        source=str(folder),
        # The tiny BERT has 64 positions: a longer sentence is cut there, as max_length cuts a real model's.
        config={"batch_size": 64, "max_length": 64},
    )
    started = time.perf_counter()
    sweep = run_probes("1.0.0", {"sweep": "all", "sweep_storage": "float16"}, model="tiny-bert")
    plain = run_probes("1.0.0", model="tiny-bert")
    print(f"two runs of the tiny BERT (one a {args.layers + 1}-layer sweep): {time.perf_counter() - started:.1f} s")
    stored = len(json.dumps(sweep.report))
    print(
        f"stored report of the sweep: {stored / 1e6:.1f} MB of JSON, {len(sweep.report['per_compound'])} compound rows"
    )

    run_page = reverse("probe_run", args=[sweep.pk])
    pages = {
        "run": run_page,
        "run, every rho, BH": f"{run_page}?all=1&correction=bh",
        "run, compounds page 3": f"{run_page}?page=3&sort=-sim_syn",
        "run without sweep": reverse("probe_run", args=[plain.pk]),
        "compare": f"{reverse('probe_compare')}?runs={sweep.pk},{plain.pk}",
    }
    timings = {}
    print(f"{'page':<24} {'server ms':>10} {'CPU ms':>8} {'queries':>8} {'KB':>8}")
    for label, url in pages.items():
        seconds, cpu, queries, size = page_time(url, args.repeat)
        timings[label] = {"s": round(seconds, 3), "cpu_s": round(cpu, 3), "queries": queries}
        print(f"{label:<24} {seconds * 1000:>10.0f} {cpu * 1000:>8.0f} {queries:>8} {size / 1000:>8.0f}")
    return {
        "compounds": len(probes.compounds),
        "pairs": pairs,
        "unique_texts": texts,
        "cache_rows": len(items),
        "span_vectors": spans,
        "sweep_40x5120_float16_bytes": sweep16,
        "sweep_40x5120_float32_bytes": sweep32,
        "layers": len(sweep.report["layers"]["index"]),
        "report_json_bytes": stored,
        "page_s": timings,
    }


def page_time(url: str, repeat: int) -> tuple[float, float, int, int]:
    """The best server time of ``repeat`` GETs of ``url`` (Django's test client), in wall and CPU seconds; its
    queries and its bytes. On a shared machine the wall time follows the others' load; this process's CPU
    time (the database server's not included) hardly does."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client, best, best_cpu = Client(HTTP_HOST="localhost"), float("inf"), float("inf")
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            started, cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            best, best_cpu = min(best, time.perf_counter() - started), min(best_cpu, time.process_time() - cpu)
        assert response.status_code == 200, (url, response.status_code)
    return best, best_cpu, len(queries), len(response.content)


if __name__ == "__main__":
    main()
