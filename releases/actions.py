"""Making, publishing, exporting and importing releases: every write that concerns a Release.

A release is built completely when created: the snapshot is collected, written to files
(``releases.formats``) and stored with their checksums, in one transaction. Every read
of its files goes through ``Release.verified_files()``, so an export or a download never hands
out a file that differs from the manifest.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Collection
from dataclasses import asdict
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from core.version import code_version as shared_code_version
from releases.collect import check_request, collect_snapshot, raise_nothing_to_release
from releases.doi_actions import deposit_members, files_with_doi, previous_doi
from releases.formats import (
    ReleaseMeta,
    build_files,
    build_manifest,
    build_zip,
)
from releases.formats.datapackage import score_info_dict
from releases.formats.hf import HF_DIR, hf_folder
from releases.formats.meta import Creator
from releases.models import (
    MANIFEST,
    SEMVER,
    ZIP_NAME,
    Release,
    ReleaseError,
    ReleaseFile,
    sha256_hex,
)
from releases.signals import release_published

MEDIA_TYPES = {
    ".csv": "text/csv",
    ".jsonl": "application/jsonl",
    ".json": "application/json",
    ".md": "text/markdown",
    ".parquet": "application/vnd.apache.parquet",
    ".zip": "application/zip",
}


@transaction.atomic
def create_release(
    version: str,
    languages: list[str] | None = None,
    user=None,
    publish: bool = False,
    collections: list[str] | None = None,
    campaigns: list[str] | None = None,
    policy: str | None = None,
    title: str = "",
    description: str = "",
    citation: str = "",
    licence: str = "",
    machine_annotators: bool = False,
    creators: list[str] | None = None,
    intended_use: str = "",
    limitations: str = "",
    biases: str = "",
) -> Release:
    """Collect, build and store release ``version`` (a draft unless ``publish``); ReleaseError when it cannot.

    ``machine_annotators``: the release also carries the machine-made ratings of ``campaigns``, in a
    table of their own (never in the scores); without it, it is the same whether or not they exist.
    ``creators``: one ``Name | affiliation | ORCID`` line each; ``intended_use``, ``limitations`` and
    ``biases``: the curator's words for the card's responsible-use section (the data's facts follow them).
    """
    try:
        authors = tuple(Creator.parse(line) for line in creators or () if line.strip())
    except ValueError as error:
        raise ReleaseError(f"creators: {error}") from None
    _check_version(version)
    snapshot = collect_snapshot(
        languages, collections=collections, campaigns=campaigns, policy=policy, machine_annotators=machine_annotators
    )
    if not snapshot.compounds:
        raise_nothing_to_release(snapshot.languages, collections)
    defaults = ReleaseMeta(version=version)
    meta = ReleaseMeta(
        version=version,
        title=title or defaults.title,
        description=description,
        licence=licence or defaults.licence,
        citation=citation,
        created=timezone.localdate().isoformat(),
        code_version=_code_version(),
        creators=authors,
        url=release_url(version),
        previous_doi=previous_doi(version),
        intended_use=intended_use.strip(),
        limitations=limitations.strip(),
        biases=biases.strip(),
    )
    files = build_files(snapshot, meta)
    files[MANIFEST] = build_manifest(files, meta)
    zipped = build_zip(files)
    manifest = files[MANIFEST]
    try:
        with transaction.atomic():
            release = Release.objects.create(
                version=version,
                title=meta.title,
                description=description,
                licence=meta.licence,
                citation=citation,
                creators=[asdict(c) for c in authors],
                intended_use=meta.intended_use,
                limitations=meta.limitations,
                biases=meta.biases,
                languages=list(snapshot.languages),
                scores=jsonable(score_info_dict(snapshot.scores)),
                counts=snapshot.counts(),
                manifest=json.loads(manifest),
                checksum=sha256_hex(manifest),
                zip_sha256=sha256_hex(zipped),
                created_by=user,
            )
    except IntegrityError:
        # Another curator took the version between our check and our insert.
        raise ReleaseError(f"release {version} exists already: choose another version") from None
    ReleaseFile.objects.bulk_create(
        [_file(release, path, data) for path, data in sorted({**files, ZIP_NAME: zipped}.items())]
    )
    if publish:
        publish_release(release, user)
    return release


def release_url(version: str) -> str:
    """The release's page on this site, when the site says where it is served (``WORKBENCH_PUBLIC_URL``)."""
    base = settings.WORKBENCH_PUBLIC_URL.rstrip("/")
    return f"{base}{reverse('release', args=[version])}" if base else ""


def check_release(
    version: str,
    languages: list[str] | None = None,
    collections: list[str] | None = None,
    campaigns: list[str] | None = None,
    policy: str | None = None,
    machine_annotators: bool = False,
) -> None:
    """The ReleaseError ``create_release`` would raise before building anything, from a few small queries."""
    _check_version(version)
    check_request(
        languages, collections=collections, campaigns=campaigns, policy=policy, machine_annotators=machine_annotators
    )


def _check_version(version: str) -> None:
    if not SEMVER.match(version or ""):
        raise ReleaseError(f"version {version!r}: use a semantic version MAJOR.MINOR.PATCH, such as 1.0.0")
    if existing := Release.objects.filter(version=version).first():
        raise ReleaseError(
            f"release {version} exists already ({existing.status}): a correction is a new version, such as "
            f"{_next_patch(version)}"
        )


@transaction.atomic
def publish_release(release: Release, user=None) -> Release:
    """Freeze a draft: checked once more, then published (from then on nothing about it can change)."""
    # The conditional UPDATE makes two concurrent publishes one publish and one clear error.
    release.verified_files(include_zip=True)
    now = timezone.now()
    done = Release.objects.filter(pk=release.pk, status=Release.Status.DRAFT).update(
        status=Release.Status.PUBLISHED, published_at=now, published_by=user
    )
    if not done:
        raise ReleaseError(f"release {release.version} is published already")
    release.refresh_from_db()
    release_published.send(sender=Release, release=release)
    return release


def release_files(release: Release, only: Collection[str] | None = None) -> dict[str, bytes]:
    """The release folder (data files, README, datapackage.json, manifest.json…), verified; ``only`` some of them.

    Once the release has a DOI, its metadata files are those that name it (``doi_actions.files_with_doi``).
    """
    if only is None:
        return files_with_doi(release)
    files = files_with_doi(release) if release.doi else release.verified_files(only=only)
    return {path: data for path, data in files.items() if path in only or path == MANIFEST}


def release_zip(release: Release) -> bytes:
    """The release as one zip, verified against ``zip_sha256`` (or, with a DOI, against its DOI record)."""
    return files_with_doi(release, include_zip=True)[ZIP_NAME]


def export_release(release: Release, out_dir: Path | str) -> list[dict]:
    """Write the verified files and ``release.zip`` (not in the manifest) into ``out_dir``: [{path, sha256, size}]."""
    return _write_folder(files_with_doi(release, include_zip=True), out_dir)


def export_hf(release: Release, out_dir: Path | str) -> list[dict]:
    """Write the release's hf/ folder (its Hugging Face dataset card and a Parquet file per config), verified, into
    ``out_dir``: a folder ``datasets.load_dataset`` reads and the Hub takes as it is. [{path, sha256, size}]."""
    if not (files := hf_folder(files_with_doi(release))):
        raise ReleaseError(f"release {release.version} has no {HF_DIR}/ folder: it was made before releases had one")
    return _write_folder(files, out_dir)


def export_deposit(release: Release, out_dir: Path | str) -> list[dict]:
    """Write what a Zenodo (DataCite) deposit uploads into ``out_dir``: the zip, CITATION.cff and zenodo.json."""
    return _write_folder(deposit_members(release), out_dir)


def _write_folder(files: dict[str, bytes], out_dir: Path | str) -> list[dict]:
    """Write ``files`` into ``out_dir``, a new or empty folder: [{path, sha256, size}]."""
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ReleaseError(f"{out}: not an empty folder (a release is exported into a new or empty one)")
    written = []
    for path, data in sorted(files.items()):
        target = out.joinpath(*_safe_parts(path))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append({"path": path, "sha256": sha256_hex(data), "size": len(data)})
    return written


def _file(release: Release, path: str, data: bytes) -> ReleaseFile:
    media_type = MEDIA_TYPES.get(PurePosixPath(path).suffix) or mimetypes.guess_type(path)[0] or ""
    return ReleaseFile(
        release=release, path=path, sha256=sha256_hex(data), size=len(data), media_type=media_type, content=data
    )


def _safe_parts(path: str) -> tuple[str, ...]:
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise ReleaseError(f"{path!r}: not a relative path inside a release")
    return parts


def jsonable(value):
    """Tuples become lists, as a JSON field stores them."""
    if isinstance(value, dict):
        return {k: jsonable(x) for k, x in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(x) for x in value]
    return value


def _next_patch(version: str) -> str:
    major, minor, patch = (int(part) for part in version.split("."))
    return f"{major}.{minor}.{patch + 1}"


def _code_version() -> str:
    return shared_code_version("")
