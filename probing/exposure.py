"""What visitors who are not curators see of models and runs: the numbers and their provenance, not the machinery.

Pure (no Django). Anyone reads probe runs, as anyone reads the published releases they measure;
but where a model loads from (its source, and options such as ``base_url`` and ``api_key_env``),
which machines ran it (host names), who started a run and its error messages (paths, exception
text) are for curators. Provenance is filtered by allow-lists, so a key added later stays hidden
until someone decides it is public.
"""

from __future__ import annotations

from collections.abc import Mapping

PUBLIC_PROVENANCE = (
    "release",
    "model",
    "model_identity",
    "config",
    "vector_key",
    "probes",
    "code_version",
    "packages",
    "workers",
)
PUBLIC_MODEL = ("name", "kind", "queue", "origin")  # origin: the bundled model's upstream and licence
# A backend's identity: what the vector cache is keyed on (an openai model's base_url is not shown).
PUBLIC_IDENTITY = (
    "kind", "name", "revision", "weights_sha256", "dim", "lowercase", "engine", "variant", "package", "quantisation"
)  # fmt: skip
PUBLIC_WORKER = ("code_version", "packages", "shards")


def _only(data: object, keys: tuple[str, ...]) -> object:
    return {key: data[key] for key in keys if key in data} if isinstance(data, Mapping) else data


def public_identity(identity: Mapping | None) -> dict | None:
    return _only(identity, PUBLIC_IDENTITY) if identity is not None else None


def public_provenance(provenance: Mapping | None) -> dict:
    """A run's provenance without the model's source and options, and without host names."""
    shown = dict(_only(provenance or {}, PUBLIC_PROVENANCE))
    if "model" in shown:
        shown["model"] = _only(shown["model"], PUBLIC_MODEL)
    if "model_identity" in shown:
        shown["model_identity"] = public_identity(shown["model_identity"])
    if isinstance(shown.get("workers"), list):
        shown["workers"] = [_only(worker, PUBLIC_WORKER) for worker in shown["workers"]]
    return shown


def public_progress(progress: Mapping) -> dict:
    return {**progress, "error": ""} if "error" in progress else dict(progress)


def public_run(data: Mapping) -> dict:
    """A run as the API, the JSON report or a page shows it, without username, error, hosts or model internals.

    Works on the API's run (``created_by``, ``error``, ``provenance``, ``progress``, ``report``) and
    on ``probing.report.build.run_report`` (``provenance``, ``progress``).
    """
    shown = dict(data)
    if "created_by" in shown:
        shown["created_by"] = None
    if "error" in shown:
        shown["error"] = ""
    if "provenance" in shown:
        shown["provenance"] = public_provenance(shown["provenance"])
    if isinstance(shown.get("progress"), Mapping):
        shown["progress"] = public_progress(shown["progress"])
    if isinstance(shown.get("report"), Mapping):
        shown["report"] = public_run(shown["report"])
    return shown


def public_model(data: Mapping) -> dict:
    """A registered model without its source and options (paths, hosts, key variables)."""
    return {**data, **({"source": ""} if "source" in data else {}), **({"options": {}} if "options" in data else {})}
