"""Probe-engine throughput on the public Portuguese NCIMP naturalistic slot 1, with the bundled MiniLM on CPU.

Usage: .venv/bin/python benchmarks/probe_throughput.py [--data PATH/TO/shared/data] [--limit N] [--batch-size 32]

The public files are imported and published as a release (a throwaway database: DATABASE_URL
if set, else SQLite in a scratch folder); its slot-1 minimal pairs are then embedded four ways:

  (a) the engine, cold cache: unique texts, length-sorted batches, one pass per text for both levels;
  (b) the engine again, warm cache;
  (c) a naive per-pair baseline like the research code: batch size 1, the original re-embedded for
      every pair, one forward pass per level;
  (d) the limit: the model's bare batched forward passes over the unique texts (no pooling, no spans).

(a) and (c) compute both levels' cosine similarities for every pair. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup_release(data: Path):
    os.environ["WORKBENCH_VAR_DIR"] = tempfile.mkdtemp(prefix="workbench-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases

        setup_databases(verbosity=0, interactive=False)
    else:
        call_command("migrate", verbosity=0)
    call_command("import_ncimp", str(data / "ncimp" / "PT"), "--language", "pt", stdout=StringIO())
    from datasets.formats.release import snapshot_from_files
    from datasets.releases.actions import create_release, release_files

    release = create_release("1.0.0", languages=["pt"], publish=True)
    snapshot, _ = snapshot_from_files(release_files(release))
    return snapshot


def cosine(a, b) -> float:
    import numpy as np

    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / denominator) if denominator else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--limit", type=int, help="Only the first N compounds.")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    snapshot = setup_release(Path(args.data))

    import torch

    from probing.embedding.base import EmbedConfig, bundled_minilm_path, load_backend
    from probing.engine import MemoryCache, embed_all
    from probing.probes import pairs_from_snapshot

    torch.set_num_threads(os.cpu_count() or 1)
    compounds = sorted({c.text for c in snapshot.compounds if c.language == "pt"})[: args.limit]
    pairs = [
        p
        for p in pairs_from_snapshot(snapshot, languages=["pt"], compounds=compounds)
        if p.sentence_id == "naturalistic-1"
    ]
    unique = list(dict.fromkeys(item for p in pairs for item in (p.original, p.variant)))
    print(f"{len(compounds)} compounds, {len(pairs)} pairs, {len(unique)} unique texts (PT NCIMP naturalistic slot 1)")

    backend = load_backend("sentence_transformers", str(bundled_minilm_path()))
    config = EmbedConfig(batch_size=args.batch_size)
    embed_all(backend, unique[:8], config)  # load weights and warm up kernels outside the timings

    def similarities(vectors) -> list[tuple[float, float | None]]:
        out = []
        for p in pairs:
            o, x = vectors[p.original], vectors[p.variant]
            nc = cosine(o.span, x.span) if o.span is not None and x.span is not None else None
            out.append((cosine(o.sentence, x.sentence), nc))
        return out

    cache = MemoryCache()
    started = time.perf_counter()
    vectors, stats = embed_all(backend, [i for p in pairs for i in (p.original, p.variant)], config, cache=cache)
    engine_sims = similarities(vectors)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    vectors, warm_stats = embed_all(backend, [i for p in pairs for i in (p.original, p.variant)], config, cache=cache)
    similarities(vectors)
    warm = time.perf_counter() - started
    assert warm_stats.embedded == 0, warm_stats

    one = EmbedConfig(batch_size=1)
    started = time.perf_counter()
    naive_sims = []
    for p in pairs:
        level_values = []
        for level in ("sentence", "nc"):  # one pass per level, the original re-embedded every time
            o = backend.embed_batch([p.original], one)[0]
            x = backend.embed_batch([p.variant], one)[0]
            a, b = (o.sentence, x.sentence) if level == "sentence" else (o.span, x.span)
            level_values.append(cosine(a, b) if a is not None and b is not None else None)
        naive_sims.append(tuple(level_values))
    naive = time.perf_counter() - started
    worst = max(abs(a - b) for (a, _), (b, _) in zip(engine_sims, naive_sims, strict=True))
    print(f"engine vs naive: largest sentence-level difference {worst:.2e}")

    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(bundled_minilm_path()))
    model = AutoModel.from_pretrained(str(bundled_minilm_path())).eval()
    texts = sorted({item.text for item in unique}, key=lambda t: len(tokenizer.tokenize(t)))
    started = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(texts), args.batch_size):
            batch = tokenizer(texts[i : i + args.batch_size], padding=True, truncation=True, return_tensors="pt")
            model(**batch)
    limit = time.perf_counter() - started

    rows = [
        ("(a) engine, cold cache", cold, stats.embedded),
        ("(b) engine, warm cache", warm, warm_stats.embedded),
        ("(c) naive per pair", naive, 4 * len(pairs)),
        ("(d) limit: bare batched forward", limit, len(texts)),
    ]
    print(f"{'run':<34} {'seconds':>9} {'forward texts':>14} {'pairs/s':>9}")
    for label, seconds, n in rows:
        print(f"{label:<34} {seconds:>9.2f} {n:>14} {len(pairs) / seconds:>9.1f}")
    print(
        json.dumps(
            {
                "pairs": len(pairs),
                "unique_texts": len(unique),
                "engine_cold_s": round(cold, 3),
                "engine_warm_s": round(warm, 4),
                "naive_s": round(naive, 3),
                "limit_s": round(limit, 3),
                "speedup_vs_naive": round(naive / cold, 2),
                "fraction_of_limit": round(limit / cold, 3),
                "warm_speedup": round(cold / warm, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
