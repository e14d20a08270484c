"""Where a run's numbers come from: code version, package versions, the machine that computed them."""

from __future__ import annotations

import platform
import socket
from functools import cache
from importlib import metadata

from config.version import code_version as shared_code_version

PACKAGES = ("torch", "transformers", "sentence-transformers", "numpy", "scipy", "gensim", "openai", "celery", "django")


@cache
def code_version() -> str:
    return shared_code_version("unknown")


@cache
def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages that shape a vector (None when not installed), and Python's."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def environment() -> dict:
    """This process's code and packages, and where it runs."""
    return {"code_version": code_version(), "packages": package_versions(), "host": socket.gethostname()}
