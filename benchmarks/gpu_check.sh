#!/usr/bin/env bash
# Both probe families on one GPU with a ~1B-parameter LLaMA built from config in bf16, full public release
# (benchmarks/gpu_check.py says what is measured). Fits in 8 minutes on one H100; without a CUDA device
# it says so and exits 0. Extra arguments go to gpu_check.py (e.g. --save, --batch-size 128).
#
# The device machine has no network: it runs the checkout's own .venv (scripts/install.sh made it) or
# $PYTHON, with ../shared/data beside the checkout (or --data DIR). With no DATABASE_URL the benchmark
# uses the embedded SQLite default in a throwaway folder, as the demo does.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
if [ ! -x "$PYTHON" ]; then
  PYTHON="$(command -v python3)"
fi
if ! "$PYTHON" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu_check: no CUDA device on this machine (or no torch with CUDA in $PYTHON): skipped"
  exit 0
fi
"$PYTHON" -c 'import torch; print("gpu_check:", torch.cuda.get_device_name(), "torch", torch.__version__)'
exec timeout 480 "$PYTHON" benchmarks/gpu_check.py "$@"
