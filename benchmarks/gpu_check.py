"""Both probe families on one GPU: a ~1B-parameter LLaMA built from config, in bf16, on the full public release.

Usage: benchmarks/gpu_check.sh (which skips, saying so, without a CUDA device), or
       .venv/bin/python benchmarks/gpu_check.py [--model llama-1b] [--device cuda] [--dtype bfloat16]
       [--batch-size 64] [--limit N] [--save]

One model folder (``likelihood_throughput.SHAPES``: TinyLlama's widths, 16 layers, a byte-pair
vocabulary trained on the release's texts; no download) serves both families, after the process's
first GPU work (``first_gpu_work_s``: CUDA's context and kernels, paid once by a worker):

- similarity: registered as a ``transformer`` (its last hidden state pooled), ``run_probes --inline``
  cold, then cold again in the same process (``repeat_cold_s``: on an H200 the first took twice the
  second, for reasons not found yet), against bare ``AutoModel`` forward passes over the run's unique
  texts in the same batches;
- likelihood: registered as a ``causal_lm``, ``run_probes --inline`` cold (``likelihood_runs.measure``:
  the cold run, the bare causal forward over every text it scored, warm in a new process), then
  again with ``share_prefixes`` (the same scores; whether running common beginnings once pays on a GPU);
- both in one pass: a cold likelihood run with ``"similarity": {"layers": [-1]}`` (each text through
  the causal LM once for both families), against the two families' cold runs apart.

For each: texts/s of the run and of the bare forward, ``fraction_of_limit`` and
``outside_model_share`` (the run's time outside the model). The last line is one JSON object with
the commit and the device's name. ``--device cpu --model tiny-llama --dtype float32 --limit 5``
runs the same path on a CPU in a minute (how the script is checked where there is no GPU).
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

import likelihood_runs  # noqa: E402 (a sibling, through sys.path)
from likelihood_throughput import build_models, release_texts  # noqa: E402
from probe_throughput import forget_vectors, run_seconds, setup  # noqa: E402

from benchmarks.record import commit, emit, save_flag  # noqa: E402


def similarity(name: str, path: Path, args) -> dict:
    """A similarity run of the model as a transformer encoder, cold, then again, against its bare forward over the same texts."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from probing.actions import register_model
    from probing.run.loading import release_probes
    from releases.models import Release

    config = {"batch_size": args.batch_size, "dtype": args.dtype, "device": args.device, "layers": [-1]}
    register_model(f"{name}-encoder", "transformer", str(path), config=config)
    likelihood_runs.forget_scores()
    started = time.perf_counter()
    run = likelihood_runs.run_probes("1.0.0", model=f"{name}-encoder")
    command = time.perf_counter() - started
    probes = release_probes(Release.objects.get(version="1.0.0"))
    texts = sorted({item.text for item in probes.items(probes.compounds)})
    tokenizer = AutoTokenizer.from_pretrained(path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    # Read in the run's dtype, then moved, as the transformer backend reads it.
    model = AutoModel.from_pretrained(path, dtype=args.dtype).eval().to(args.device)
    lengths = [len(ids) for ids in tokenizer(texts)["input_ids"]]
    ordered = [texts[i] for i in sorted(range(len(texts)), key=lambda i: (lengths[i], i))]
    started = time.perf_counter()
    with torch.inference_mode():
        for start in range(0, len(ordered), args.batch_size):
            encoded = tokenizer(ordered[start : start + args.batch_size], padding=True, return_tensors="pt")
            model(**{k: v.to(args.device) for k, v in encoded.items() if k != "token_type_ids"})
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    limit = time.perf_counter() - started
    cold = run_seconds(run)
    # The same cold run again (vectors and release forgotten): what the first run in the process paid once.
    forget_vectors()
    likelihood_runs.forget_scores()
    repeat = run_seconds(likelihood_runs.run_probes("1.0.0", model=f"{name}-encoder"))
    print(
        f"similarity: run {cold:.2f} s (command {command:.2f} s; repeated {repeat:.2f} s), "
        f"bare forward {limit:.2f} s, {len(texts)} texts"
    )
    return {
        "texts": len(texts),
        "cold_s": round(cold, 3),
        "repeat_cold_s": round(repeat, 3),
        "repeat_fraction_of_limit": round(limit / repeat, 3),
        "limit_s": round(limit, 3),
        "texts_per_s": round(len(texts) / cold, 1),
        "limit_texts_per_s": round(len(texts) / limit, 1),
        "fraction_of_limit": round(limit / cold, 3),
        "outside_model_share": round(1 - limit / cold, 3),
    }


def both_in_one_pass(name: str, args, figures: dict) -> dict:
    """One cold likelihood run that also computes the similarity measures (layer -1, as ``similarity`` pools),
    against the two cold runs of the families apart (``repeat_cold_s``: the similarity run after the first)."""
    from shared_pass import forget_all

    config = {"batch_size": args.batch_size, "dtype": args.dtype, "device": args.device}
    forget_all()
    shared = run_seconds(likelihood_runs.run_probes("1.0.0", {**config, "similarity": {"layers": [-1]}}, model=name))
    separate = figures["similarity"]["repeat_cold_s"] + figures["likelihood"]["cold_s"]
    print(f"both families in one pass: run {shared:.2f} s, apart {separate:.2f} s", flush=True)
    return {"shared_s": round(shared, 3), "separate_s": round(separate, 3), "speedup": round(separate / shared, 2)}


def first_gpu_work(path: Path, args) -> float:
    """Seconds of this process's first work on the GPU: CUDA's context and the model's kernels loaded, with the
    model read and one forward pass. A worker pays this once, not each run: paid here before the timings (the bare
    forward passes are timed warm too), it is reported apart rather than charged to the first family's run."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=args.dtype).eval().to(args.device)
    with torch.inference_mode():
        model(**tokenizer(["A first pass warms the device."], return_tensors="pt").to(args.device))
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    del model
    return time.perf_counter() - started


def profile_cold_runs(name: str, args, out: Path) -> None:
    """One more cold run of each family under cProfile (after the figures, which it would slow): where the time goes."""
    import cProfile
    import io
    import pstats

    report = io.StringIO()
    config = {"batch_size": args.batch_size, "dtype": args.dtype, "device": args.device}
    for label, model, family_config in (("similarity", f"{name}-encoder", None), ("likelihood", name, config)):
        forget_vectors()
        likelihood_runs.forget_scores()
        profiler = cProfile.Profile()
        profiler.enable()
        run = likelihood_runs.run_probes("1.0.0", family_config, model=model)
        profiler.disable()
        report.write(f"=== {label}: cold run {run_seconds(run):.2f} s under the profiler\n")
        stats = pstats.Stats(profiler, stream=report)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(25)
    out.write_text(report.getvalue(), encoding="utf-8")
    print(f"profiles of the cold runs: {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--model", default="llama-1b")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--limit", type=int, help="keep the first N compounds per language")
    parser.add_argument("--profile", type=Path, help="then profile a cold run of each family into this text file")
    save_flag(parser)
    args = parser.parse_args()
    args.repeat = 1  # one cold run per family: the script must fit in eight minutes
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_check: no CUDA device on this machine: skipped (run it on a machine with a GPU)")
        return
    device_name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    measured, started = commit(), time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as folder:
        os.environ["WORKBENCH_MODEL_DIRS"] = os.path.realpath(folder)
        teardown = setup(args.data, args.limit)
        try:
            texts = release_texts(args.data, args.limit)
            path = build_models(texts, Path(folder), [args.model])[args.model]
            print(f"built {args.model} in {time.perf_counter() - started:.0f} s", flush=True)
            figures = {
                "first_gpu_work_s": round(first_gpu_work(path, args), 2),
                "similarity": similarity(args.model, path, args),
                "likelihood": likelihood_runs.measure(args.model, path, args),
            }
            figures["both_in_one_pass"] = both_in_one_pass(args.model, args, figures)
            args.share_prefixes = True  # the same run with each group's common beginning run once
            figures["likelihood_shared_prefixes"] = likelihood_runs.measure(args.model, path, args)
            if args.profile:
                args.share_prefixes = False
                profile_cold_runs(args.model, args, args.profile)
        finally:
            teardown()
    scope = f"first {args.limit} compounds per language" if args.limit else "full release"
    emit(
        "gpu_check",
        {
            "scope": scope,
            "model": args.model,
            "device": device_name,
            "dtype": args.dtype,
            "batch_size": args.batch_size,
            "total_s": round(time.perf_counter() - started, 1),
            **figures,
        },
        save=args.save,
        measured=measured,
    )


if __name__ == "__main__":
    main()
