"""Both probe families of a causal LM: one run that shares the forward pass, against two runs that do not.

Usage: .venv/bin/python benchmarks/shared_pass.py [--data ../shared/data] [--limit N] [--repeat 2]
       [--models tiny-llama,llama-6l] [--dtype float32] [--device cpu] [--save]

The public NCIMP release (PT, EN neutral) is imported into a throwaway database and published
(``probe_throughput.setup``); the causal models of ``likelihood_throughput.py`` are built from
configs and registered twice: as ``causal_lm`` (likelihood runs) and as ``transformer`` (the same
folder as an encoder, similarity runs). For each model, alternated ``--repeat`` times, every cache
emptied before each:

(a) separate: ``run_probes --inline`` of the likelihood run, then of the similarity run of the
    same weights (layers -4..-1, the embedding defaults): the sum of the two runs' seconds;
(b) shared: one ``run_probes --inline`` of the likelihood run with ``"similarity": true``: both
    families from one pass per text; ``speedup`` = (a) / (b), fastest of each;
(c) warm, in a new process: ``manage.py run_probes --inline`` of the shared run on another
    release of the same data, every score and vector cached (run seconds and command wall time).

The last line is one JSON object with the commit (``--save`` appends it to benchmarks/results/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from likelihood_runs import forget_scores, measure_models, model_arguments  # noqa: E402 (siblings, through sys.path)
from probe_throughput import forget_vectors, fresh_process_run, run_probes, run_seconds  # noqa: E402

from benchmarks.record import commit, emit, save_flag  # noqa: E402


def forget_all() -> None:
    """A cold worker: no cached scores or vectors, no release read, no model opened."""
    forget_vectors()
    forget_scores()


def measure(name: str, path: Path, args) -> dict:
    from probing.actions import register_model

    config = {"batch_size": args.batch_size, "dtype": args.dtype, "device": args.device}
    register_model(name, "causal_lm", str(path))
    register_model(f"{name}-encoder", "transformer", str(path))
    shared_config = {**config, "similarity": True}
    separate, shared = [], []
    for _ in range(args.repeat):  # alternated: both see the same machine (it is shared)
        forget_all()
        likelihood = run_seconds(run_probes("1.0.0", config, model=name))
        similarity = run_seconds(run_probes("1.0.0", config, model=f"{name}-encoder"))
        separate.append(likelihood + similarity)
        forget_all()
        run = run_probes("1.0.0", shared_config, model=name)
        shared.append(run_seconds(run))
        print(
            f"{name}: separate {separate[-1]:.2f} s (likelihood {likelihood:.2f} + similarity {similarity:.2f}), "
            f"shared {shared[-1]:.2f} s ({run.texts_embedded} texts scored)",
            flush=True,
        )
    warm, wall = fresh_process_run("1.0.1", name, shared_config)
    return {
        "texts": run.texts_total,
        "separate_s": round(min(separate), 3),
        "shared_s": round(min(shared), 3),
        "speedup": round(min(separate) / min(shared), 2),
        "fresh_warm_s": round(run_seconds(warm), 3),
        "fresh_warm_command_s": round(wall, 2),
        "fresh_warm_texts_scored": warm.texts_embedded,
        "samples": {"separate": [round(x, 3) for x in separate], "shared": [round(x, 3) for x in shared]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_arguments(parser)
    save_flag(parser)
    args = parser.parse_args()
    measured = commit()
    figures = measure_models(args, measure)
    emit(
        "shared_pass",
        {
            "scope": f"first {args.limit} compounds per language" if args.limit else "full release",
            "batch_size": args.batch_size,
            "dtype": args.dtype,
            "device": args.device,
            **figures,
        },
        save=args.save,
        measured=measured,
    )


if __name__ == "__main__":
    main()
