"""Likelihood runs as users start them, against bare forward passes of the same model over the same texts.

Usage: .venv/bin/python benchmarks/likelihood_runs.py [--data ../shared/data] [--limit N] [--repeat 2]
       [--models tiny-llama,llama-6l] [--dtype float32] [--device cpu] [--share-prefixes] [--save]

The public NCIMP release (PT, EN neutral) is imported into a throwaway database and published, as
``probe_throughput.py`` does. The causal models of ``likelihood_throughput.py`` are built from
configs (no download: the tests' tiny LLaMA and a 6-layer LLaMA-shaped model, byte-pair vocabularies
trained on the release's texts), registered as ``causal_lm`` and, for each:

(a) cold: ``run_probes --inline`` on an emptied score cache, the run's own seconds (first shard
    claimed to report finished), the fastest of ``--repeat``, each followed by (b);
(b) the limit: every text that run scored (each unique text once: the pairs' sentences, the
    items' question-and-answer texts, the answers alone after a start token), through the bare
    batched forward pass of the same model in the same batches (sorted by length), tokenisation
    included, nothing kept; ``fraction_of_limit`` = (b) / (a), goal ≥ 0.9, and
    ``outside_model_share`` = 1 − (b) / (a): what the run spends outside the model;
(c) warm in a new process: ``manage.py run_probes --inline`` on another release of the same data,
    every text cached: ``fresh_warm_speedup`` = (a) / (c)'s run seconds, with the command's wall time.

The last line is one JSON object with the commit (``--save`` appends it to benchmarks/results/).
``benchmarks/gpu_check.sh`` runs this with a ~1B-parameter model in bf16 on a GPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from likelihood_throughput import build_models, release_texts  # noqa: E402 (siblings, through sys.path)
from probe_throughput import fresh_process_run, run_probes, run_seconds, setup  # noqa: E402

from benchmarks.record import commit, emit, save_flag  # noqa: E402


def forget_scores() -> None:
    """A cold worker: no cached scores, the release not read yet, no model opened."""
    from django.db import connection

    from probing.models import CachedScores
    from probing.run import loading

    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {connection.ops.quote_name(CachedScores._meta.db_table)}")
    loading._releases.clear()
    loading._backends.clear()


def run_texts(release) -> tuple[list[str], list[str]]:
    """Every unique text a run of ``release`` scores: in context, and the answers alone (after a start token)."""
    from probing.run.likelihood import shard_texts
    from probing.run.loading import release_probes

    probes = release_probes(release)
    _, _, texts, alone, _ = shard_texts(probes, probes.compounds)
    return texts, alone


def bare_forward(path: Path, texts: list[str], alone: list[str], batch_size: int, dtype: str, device: str) -> float:
    """Seconds of the bare forward passes over ``texts`` and ``alone`` in the scorer's batches, tokenisation included."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from probing.likelihood.prefixes import padded
    from probing.likelihood.scoring import chunks, encode, pad_id, shortest_first, with_start_token

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).eval().to(device)  # read as the run reads it
    pad = pad_id(tokenizer)

    def passes(group: list[str], start: bool) -> None:
        encoded = encode(tokenizer, group)
        if start:
            encoded = [with_start_token(item, tokenizer) for item in encoded]
        with torch.inference_mode():
            for batch in chunks(shortest_first(encoded), batch_size):
                ids, mask = padded([encoded[i]["ids"] for i in batch], pad)
                model(input_ids=ids.to(device), attention_mask=mask.to(device))
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    passes(texts[:batch_size], False)  # warm, as a running worker is
    started = time.perf_counter()
    passes(texts, False)
    passes(alone, True)
    return time.perf_counter() - started


def measure(name: str, path: Path, args) -> dict:
    from probing.actions import register_model
    from releases.models import Release

    config = {"batch_size": args.batch_size, "dtype": args.dtype, "device": args.device}
    config["share_prefixes"] = bool(getattr(args, "share_prefixes", False))
    register_model(name, "causal_lm", str(path))
    release = Release.objects.get(version="1.0.0")
    texts, alone = run_texts(release)
    colds, limits = [], []
    for _ in range(args.repeat):  # alternated, so that both see the same machine (it is shared)
        forget_scores()
        run = run_probes("1.0.0", config, model=name)
        colds.append(run_seconds(run))
        limits.append(bare_forward(path, texts, alone, args.batch_size, args.dtype, args.device))
        print(
            f"{name}: cold run {colds[-1]:.2f} s ({run.texts_embedded} texts), bare forward {limits[-1]:.2f} s",
            flush=True,
        )
    cold, limit = min(colds), min(limits)
    warm, wall = fresh_process_run("1.0.1", name, config)
    return {
        "texts": len(texts) + len(alone),
        "cold_s": round(cold, 3),
        "limit_s": round(limit, 3),
        "texts_per_s": round((len(texts) + len(alone)) / cold, 1),
        "limit_texts_per_s": round((len(texts) + len(alone)) / limit, 1),
        "fraction_of_limit": round(limit / cold, 3),
        "outside_model_share": round(1 - limit / cold, 3),
        "fresh_warm_s": round(run_seconds(warm), 3),
        "fresh_warm_command_s": round(wall, 2),
        "fresh_warm_speedup": round(cold / run_seconds(warm), 1),
        "samples": {"cold": [round(x, 3) for x in colds], "limit": [round(x, 3) for x in limits]},
    }


def model_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of the benchmarks that build the causal models and run them on the public release."""
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, help="keep the first N compounds per language")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--models", default="tiny-llama,llama-6l", help="of tiny-llama, llama-6l, llama-1b")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="cpu")


def measure_models(args, measure_one) -> dict:
    """``measure_one(name, folder, args)`` of each model of ``--models``, built in a throwaway folder, on the
    public release imported into a throwaway database."""
    with tempfile.TemporaryDirectory(prefix="likelihood-runs-") as folder:
        # The models are built here: the administrator's list of model folders names it (and the fresh process's).
        os.environ["WORKBENCH_MODEL_DIRS"] = os.path.realpath(folder)
        teardown = setup(args.data, args.limit)
        try:
            texts = release_texts(args.data, args.limit)
            wanted = args.models.split(",")
            built = build_models(texts, Path(folder), wanted)
            return {name: measure_one(name, built[name], args) for name in wanted}
        finally:
            teardown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_arguments(parser)
    parser.add_argument("--share-prefixes", action="store_true", help="runs with share_prefixes (same scores)")
    save_flag(parser)
    args = parser.parse_args()
    measured = commit()
    figures = measure_models(args, measure)
    scope = f"first {args.limit} compounds per language" if args.limit else "full release"
    emit(
        "likelihood_runs",
        {
            "scope": scope,
            "batch_size": args.batch_size,
            "dtype": args.dtype,
            "device": args.device,
            "share_prefixes": args.share_prefixes,
            **figures,
        },
        save=args.save,
        measured=measured,
    )


if __name__ == "__main__":
    main()
