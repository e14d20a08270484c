"""Peer libraries named like one of the workbench's apps (Hugging Face's ``datasets``), run in a subprocess.

scripts/install.sh installs them in ``.venv/peers``, outside site-packages: installed there,
transformers and sentence-transformers would find them and import the workbench's ``datasets`` app in
their place. A test that compares with one runs its code here: ``python -I`` (the checkout off
``sys.path``) with ``.venv/peers`` first on it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PEERS = Path(sys.prefix) / "peers"


def run_peer(
    code: str, *args: str, cwd: Path, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess:
    """Run ``code`` (its argv: ``args``) with the peers importable and the checkout not."""
    prelude = f"import sys; sys.path.insert(0, {str(PEERS)!r})\n"
    return subprocess.run(
        [sys.executable, "-I", "-c", prelude + code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
