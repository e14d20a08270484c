"""Scoring texts by likelihood against bare forward passes of the same model over the same texts.

Usage: .venv/bin/python benchmarks/likelihood_throughput.py [--data ../shared/data] [--limit N] [--repeat 3] [--save]

The texts are those a likelihood probe of the public NCIMP release scores: every sentence and
every variant sentence of the Portuguese folder and the English neutral file (read with the
project's own parsers, unique texts). Two causal models are built from configs (no download):
the tiny LLaMA of the tests and a 6-layer LLaMA-shaped model (hidden 256, 8 heads), each with a
byte-pair vocabulary trained on the texts. For each: (a) ``probing.likelihood.scoring
.causal_scores`` over every text (tokenisation, padding, the forward pass, each token's
log-probability, the tokens and their offsets); (b) the limit: the same batches (sorted by
length, the same size) through the bare forward pass, tokenisation included, nothing kept. The
figure is (b)/(a): the share of the limit's speed the scorer keeps (goal ≥ 0.9), with texts/s of
each; each the fastest of ``--repeat`` runs (a shared machine only ever slows a run down).

This measures the scorer alone, which the likelihood runs call; ``benchmarks/likelihood_runs.py``
measures the runs themselves (``run_probes`` as users run it: shards, cache, report).
The last line is one JSON object with the commit (``--save`` appends it to benchmarks/results/).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.record import emit, save_flag  # noqa: E402 (after the path)


def release_texts(data: Path, limit: int | None) -> list[str]:
    """The unique sentence and variant texts of the public NCIMP files (first ``limit`` compounds per language)."""
    from datasets.formats import ncimp

    parsed = [
        ncimp.parse_directory(data / "ncimp" / "PT", "pt"),
        ncimp.parse_file(data / "ncimp" / "EN" / "neutral.csv", "en"),
    ]
    texts: set[str] = set()
    for result in parsed:
        keep = None
        if limit:
            keep = set(list(dict.fromkeys(c.text for c in result.compounds))[:limit])
        for record in [*result.sentences, *result.variants]:
            if keep is not None and record.compound not in keep:
                continue
            if getattr(record, "isolated", False):
                continue
            if text := (record.fields.get("text") or "").strip():
                texts.add(text)
    return sorted(texts)


SHAPES = {
    "tiny-llama": ({"max_position_embeddings": 512}, 60),
    # 6 layers, hidden 256, 8 heads: small enough for a CPU run of the whole release.
    "llama-6l": (
        {
            "hidden_size": 256,
            "intermediate_size": 688,
            "num_hidden_layers": 6,
            "num_attention_heads": 8,
            "num_key_value_heads": 8,
            "max_position_embeddings": 512,
        },
        8000,
    ),
    # About a billion parameters, LLaMA-shaped (TinyLlama's widths, 16 layers): benchmarks/gpu_check.sh.
    "llama-1b": (
        {
            "hidden_size": 2048,
            "intermediate_size": 5632,
            "num_hidden_layers": 16,
            "num_attention_heads": 32,
            "num_key_value_heads": 4,
            "max_position_embeddings": 512,
        },
        32000,
    ),
}


def build_models(texts: list[str], folder: Path, wanted: list[str] | None = None) -> dict[str, Path]:
    """The models of ``SHAPES`` named in ``wanted`` (default: the tiny LLaMA and the 6-layer one), on the texts."""
    from tests.tiny_models import save_tiny_llama

    wanted = wanted or ["tiny-llama", "llama-6l"]
    unknown = sorted(set(wanted) - set(SHAPES))
    if unknown:
        raise SystemExit(f"unknown model(s) {', '.join(unknown)}: choose from {', '.join(SHAPES)}")
    built = {}
    for name in wanted:
        shape, vocab = SHAPES[name]
        built[name] = save_tiny_llama(folder / name, texts, causal_lm=True, vocab_size=vocab, shape=shape)
    return built


def measure(name: str, path: Path, texts: list[str], batch_size: int, repeat: int) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from probing.likelihood.scoring import causal_scores, chunks, encode, pad_id, shortest_first

    model = AutoModelForCausalLM.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    ordered = [texts[i] for i in shortest_first(encode(tokenizer, texts))]  # the scorer's batches

    def bare() -> None:
        with torch.inference_mode():
            for batch in chunks(ordered, batch_size):
                encoded = tokenizer(list(batch), return_tensors="pt", padding=True)
                model(input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"])

    if tokenizer.pad_token is None:  # the bare pass pads as the scorer does (the attention mask hides it)
        tokenizer.pad_token = tokenizer.convert_ids_to_tokens(pad_id(tokenizer))
    tokenizer.padding_side = "right"
    causal_scores(model, tokenizer, texts[:batch_size], batch_size)  # warm, as a running worker is
    scored, limits = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        causal_scores(model, tokenizer, texts, batch_size)
        scored.append(time.perf_counter() - started)
        started = time.perf_counter()
        bare()
        limits.append(time.perf_counter() - started)
    best, limit = min(scored), min(limits)
    print(f"{name}: scorer {best:.2f} s ({len(texts) / best:.0f} texts/s), bare forward {limit:.2f} s", flush=True)
    return {
        "scorer_s": round(best, 3),
        "limit_s": round(limit, 3),
        "texts_per_s": round(len(texts) / best, 1),
        "limit_texts_per_s": round(len(texts) / limit, 1),
        "fraction_of_limit": round(limit / best, 3),
        "samples": {"scorer": [round(x, 3) for x in scored], "limit": [round(x, 3) for x in limits]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, help="keep the first N compounds per language")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    save_flag(parser)
    args = parser.parse_args()
    import torch

    texts = release_texts(args.data, args.limit)
    print(f"{len(texts)} unique texts; torch threads {torch.get_num_threads()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="likelihood-bench-") as folder:
        built = build_models(texts, Path(folder))
        figures = {name: measure(name, path, texts, args.batch_size, args.repeat) for name, path in built.items()}
    scope = f"first {args.limit} compounds per language" if args.limit else "full release"
    emit(
        "likelihood_throughput",
        {"scope": scope, "texts": len(texts), "batch_size": args.batch_size, **figures},
        save=args.save,
    )


if __name__ == "__main__":
    main()
