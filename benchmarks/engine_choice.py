"""Why the fast engine is ONNX Runtime: eager PyTorch, torch.compile and the onnx engine on the bundled MiniLM.

Usage: .venv/bin/python benchmarks/engine_choice.py [--batches 8] [--repeat 2]

In one process, on the same padded batches of 32 texts (random words of docs/probing.md, 6 to 30
each, fixed seed): the eager fp32 forward, ``torch.compile(model, dynamic=True)`` (inductor; its
first pass, which compiles, timed apart) and the onnx engine (``probing/embedding/onnx_engine.py``,
exported and checked first). Prints each one's wall and CPU seconds per repetition and the largest
difference of its last hidden state from the eager one on the real tokens; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    import torch
    from transformers import AutoModel, AutoTokenizer

    from probing.embedding.base import bundled_minilm_path
    from probing.embedding.onnx_engine import open_encoder

    torch.set_num_threads(os.cpu_count() or 1)
    source = str(bundled_minilm_path())
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModel.from_pretrained(source).eval()
    words = (ROOT / "docs" / "probing.md").read_text(encoding="utf-8").split()
    rng = random.Random(0)
    batches = [
        tokenizer(
            [" ".join(rng.choices(words, k=rng.randint(6, 30))) for _ in range(32)], padding=True, return_tensors="pt"
        )
        for _ in range(args.batches)
    ]
    fast = open_encoder(model, tokenizer, {"name": "engine-choice"}, Path(tempfile.mkdtemp(prefix="engines-")))
    compiled = torch.compile(model, dynamic=True)

    def last(forward) -> list:
        with torch.inference_mode():
            return [forward(**batch, output_hidden_states=True).hidden_states[-1] for batch in batches]

    runs = {
        "eager": lambda: last(model),
        "compiled": lambda: last(compiled),
        "onnx": lambda: [fast.hidden_states(dict(batch), [-1])[-1] for batch in batches],
    }
    started = time.perf_counter()
    runs["compiled"]()
    figures: dict = {"compile_first_pass_s": round(time.perf_counter() - started, 2)}
    reference = runs["eager"]()
    for name, run in runs.items():
        got = run()
        figures[f"{name}_max_abs"] = max(
            float((a - b).abs()[batch["attention_mask"].bool()].max())
            for a, b, batch in zip(got, reference, batches, strict=True)
        )
    for _ in range(args.repeat):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU (load average {os.getloadavg()[0]:.2f})", flush=True)
            figures[f"{name}_s"] = min(figures.get(f"{name}_s", float("inf")), round(wall, 3))
            figures.setdefault(f"{name}_cpu_s", []).append(round(cpu, 3))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
