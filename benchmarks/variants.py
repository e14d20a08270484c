"""Time variant generation on NCTTI English and corpus counting on a synthetic corpus.

Usage: .venv/bin/python benchmarks/variants.py [--data PATH/TO/shared/data] [--tokens 100000000]
       [--workers 2] [--chunks 8] [--limit N]

1. Imports the 280 English NCTTI compounds (``../shared/data``) into a throwaway database
   (DATABASE_URL if set, else SQLite in a scratch folder), derives their gold synonyms and
   generates every variant (WordNet, wordfreq-matched NC_Rand, realisation, neutral).
2. Writes a synthetic corpus of ``--tokens`` tokens (Zipf-distributed words, with the
   compounds planted in it), cuts it into ``--chunks`` chunks and counts them with
   ``--workers`` processes running the same chunk function the Celery workers run.

The last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.record import emit, save_flag  # noqa: E402


def setup_django(scratch: str):
    os.environ["WORKBENCH_VAR_DIR"] = scratch
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


def generate(data: Path, limit: int | None) -> tuple[int, int, float]:
    from django.core.management import call_command

    from building.variants.generation import generate_variants
    from building.variants.gold_synonyms import derive_gold_synonyms
    from datasets.models import Compound, Variant

    call_command("import_nctti", str(data / "nctti"), "--language", "en", stdout=StringIO())
    derive_gold_synonyms(language="en")
    compounds = list(Compound.objects.filter(language="en").order_by("key"))[:limit]
    started = time.perf_counter()
    summary = generate_variants(compounds)
    seconds = time.perf_counter() - started
    print(
        f"variants: {len(compounds)} compounds, {summary.created} variants "
        f"({summary.neutral_sentences} neutral sentences) in {seconds:.1f} s "
        f"({len(compounds) / seconds:.1f} compounds/s)"
    )
    return len(compounds), Variant.objects.filter(sentence__compound__in=compounds).count(), seconds


def write_corpus(path: Path, tokens: int, compounds: list[str], seed: int = 7) -> int:
    """Zipf-distributed vocabulary of 50,000 words plus the compounds' words; returns tokens written."""
    import numpy as np

    rng = np.random.default_rng(seed)
    planted = [c.lower() for c in compounds]
    vocabulary = np.array([f"w{i}" for i in range(50_000)] + sorted({w for c in planted for w in c.split()}))
    weights = 1.0 / np.arange(1, len(vocabulary) + 1) ** 1.1
    weights /= weights.sum()
    written, line_words = 0, 20
    block = 1_000_000
    with path.open("w", encoding="utf-8") as out:
        while written < tokens:
            n = max(1, min(block, tokens - written))
            words = vocabulary[rng.choice(len(vocabulary), size=n, p=weights)].tolist()
            lines = [" ".join(words[i : i + line_words]) for i in range(0, n, line_words)]
            extra = 0
            for i in rng.choice(len(lines), size=min(len(lines), 200), replace=False):
                compound = planted[int(i) % len(planted)]  # a few real bigrams to find
                lines[i] += " " + compound
                extra += len(compound.split())
            out.write("\n".join(lines) + "\n")
            written += n + extra
    return written


def count(path: Path, compounds: list[str], workers: int, chunks: int) -> tuple[int, int, float]:
    """Count with ``workers`` processes running the chunk function the Celery task runs."""
    from building.counts.corpus.counting import Targets, count_chunk, merge
    from building.counts.corpus.readers import chunk_ranges

    targets = Targets.from_texts(compounds)
    ranges = chunk_ranges(path, "text", chunks)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(count_chunk, path, "text", targets, start, end) for start, end in ranges]
        total = merge([future.result() for future in futures])
    seconds = time.perf_counter() - started
    single = count_chunk(path, "text", targets, *ranges[0])  # a spot check of chunk independence
    assert all(total.counts.get(k, 0) >= n for k, n in single.counts.items())
    return total.tokens, len(ranges), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--tokens", type=int, default=100_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--limit", type=int, help="Only the first N compounds.")
    save_flag(parser)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="workbench-bench-")
    setup_django(scratch)
    n_compounds, n_variants, seconds_variants = generate(Path(args.data), args.limit)

    from datasets.models import Compound

    texts = list(Compound.objects.filter(language="en").values_list("text", flat=True))
    corpus = Path(scratch) / "corpus.txt"
    started = time.perf_counter()
    tokens = write_corpus(corpus, args.tokens, texts)
    print(
        f"corpus: {tokens:,} tokens, {corpus.stat().st_size / 1e6:.0f} MB written in {time.perf_counter() - started:.1f} s"
    )
    counted, chunks, seconds_count = count(corpus, texts, args.workers, args.chunks)
    assert counted == tokens, (counted, tokens)
    per_worker = counted / seconds_count / args.workers
    print(
        f"counting: {counted:,} tokens in {seconds_count:.1f} s with {args.workers} workers, {chunks} chunks: "
        f"{counted / seconds_count:,.0f} tokens/s, {per_worker:,.0f} tokens/s per worker"
    )
    corpus.unlink()
    emit(
        "variants",
        {
            "compounds": n_compounds,
            "variants": n_variants,
            "seconds_variants": round(seconds_variants, 2),
            "corpus_tokens": counted,
            "seconds_counting": round(seconds_count, 2),
            "workers": args.workers,
            "tokens_per_s": round(per_worker),
        },
        save=args.save,
    )


if __name__ == "__main__":
    main()
