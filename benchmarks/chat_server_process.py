"""The chat server of ``benchmarks/machine_annotators.py``, in a process of its own.

Usage (as the benchmark starts it): .venv/bin/python benchmarks/chat_server_process.py FOLDER [--threads 1]

The tests' server (``tests/llm_server.py``) wrapping the tiny chat LLaMA (``tests/annotator_model.py``,
built in FOLDER): constrained JSON answers with the digits' log-probabilities, generated for real, torch on
``--threads`` threads. It prints its /v1 address and stops when its stdin closes. Apart, so that the
benchmark process's CPU is the platform's alone. ``MODEL`` is the name the benchmark registers it under
(an ``openai_chat`` model), ``SERVED`` the name it answers to, ``KEY_ENV`` the API key's variable.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
MODEL, SERVED = "bench-chat", "tiny-chat"
KEY_ENV = "BENCH_CHAT_KEY"


def serve(folder: Path, threads: int) -> None:
    """This process (or ``machine_annotators.py --serve``): build the tiny chat LLaMA in ``folder``, serve it, print its /v1 address; stop when stdin closes."""
    import torch

    from tests.annotator_model import tiny_chat_llama
    from tests.llm_server import LanguageModelServer

    torch.set_num_threads(threads)
    server = LanguageModelServer(tiny_chat_llama(folder)).start()
    print(server.base_url, flush=True)
    sys.stdin.read()
    server.stop()


def start_server(folder: Path, threads: int, env: dict) -> tuple[subprocess.Popen, str]:
    """This file as a process serving the tiny chat LLaMA (built in ``folder``): (the process, its /v1 address)."""
    process = subprocess.Popen(
        [str(PYTHON), __file__, str(folder), "--threads", str(threads)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    for line in process.stdout:  # the tokenizer's trainer prints blank lines first
        if line.startswith("http"):
            return process, line.strip()
    process.kill()
    raise SystemExit(f"the chat server did not start (exit {process.wait()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="Where the tiny chat LLaMA is built.")
    parser.add_argument("--threads", type=int, default=1, help="torch threads.")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # tests.* (run as a script, this folder comes first)
    serve(args.folder, args.threads)


if __name__ == "__main__":
    main()
