"""Whether a path lies inside folders an administrator allows, judged on its real path.

Pure (no Django): used for the folders models load from and the folders corpora are read from.
Every symlink is followed first (``os.path.realpath``), so a link inside an allowed folder that
points outside it is outside, and ``..`` cannot climb out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def real_path(path: str | os.PathLike) -> Path:
    """The absolute path with every symlink and ``..`` resolved (the file need not exist)."""
    return Path(os.path.realpath(os.fspath(path)))


def is_inside(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or lies below it (both real paths)."""
    return path == folder or folder in path.parents


def inside_any(path: str | os.PathLike, folders: Iterable[str | os.PathLike]) -> Path | None:
    """The real path of ``path`` when it lies inside one of ``folders`` (themselves resolved); None otherwise."""
    real = real_path(path)
    return real if any(is_inside(real, real_path(folder)) for folder in folders) else None
