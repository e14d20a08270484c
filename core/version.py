"""Which code is running (pure: no Django): recorded in release metadata and probe-run provenance."""

from __future__ import annotations

import subprocess
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]


def code_version(default: str = "unknown") -> str:
    """``git describe`` of the checkout ("-dirty" with uncommitted changes), or ``default`` outside git."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return default
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else default
