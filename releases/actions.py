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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.version import code_version as shared_code_version
from datasets import vocabulary
from datasets.formats.records import (
    CompoundRecord,
    InputError,
    ParaphraseRecord,
    ParseResult,
    SentenceRecord,
    Source,
    VariantRecord,
)
from datasets.importing import ImportSummary, import_records
from releases.collect import check_request, collect_snapshot, raise_nothing_to_release
from releases.formats import (
    ReleaseIntegrityError,
    ReleaseMeta,
    build_files,
    build_manifest,
    build_zip,
    snapshot_from_files,
    verify_files,
)
from releases.formats import release_files as read_release_files
from releases.formats.datapackage import score_info_dict
from releases.formats.manifest import ReadLimits, read_directory
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
from releases.snapshot import COMPOUND_DATA_FIELDS, ReleaseCompound, Snapshot

IMPORTER = "import_release"
MEDIA_TYPES = {
    ".csv": "text/csv",
    ".jsonl": "application/jsonl",
    ".json": "application/json",
    ".md": "text/markdown",
    ".parquet": "application/vnd.apache.parquet",
    ".zip": "application/zip",
}
# Where records converted from a release say they came from (the importer's provenance).
COMPOUNDS_FILE = "tidy/compounds.jsonl"
PAIRS_FILE = "tidy/pairs.jsonl"


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
) -> Release:
    """Collect, build and store release ``version`` (a draft unless ``publish``); ReleaseError when it cannot.

    ``machine_annotators``: the release also carries the machine-made ratings of ``campaigns``, in a
    table of their own (never in the scores); without it, it is the same whether or not they exist.
    """
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
                languages=list(snapshot.languages),
                scores=_jsonable(score_info_dict(snapshot.scores)),
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
    """The release folder (data files, README, datapackage.json, manifest.json), verified; ``only`` some of them."""
    return release.verified_files(only=only)


def release_zip(release: Release) -> bytes:
    """The release as one zip, verified against ``zip_sha256``."""
    return release.verified_files(include_zip=True)[ZIP_NAME]


def export_release(release: Release, out_dir: Path | str) -> list[dict]:
    """Write the verified files and ``release.zip`` (not in the manifest) into ``out_dir``: [{path, sha256, size}]."""
    files = release.verified_files(include_zip=True)
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


@dataclass
class ImportedRelease:
    version: str
    collection: str
    summary: ImportSummary
    # Machine-made ratings the release carried: not imported (they answered campaigns of the workbench that
    # made the release, which this database does not have); None when the release carried none.
    machine_ratings_left_out: int | None = None


def import_release(path: Path | str, collection: str | None = None) -> ImportedRelease:
    """Import an exported release (folder or zip) into ``collection`` (default release-MAJOR-MINOR-PATCH).

    The checksums are verified before anything is read; the import is one transaction, so a bad
    file leaves nothing behind. Imported variants keep their status and get origin "imported".
    Machine-made ratings, when the release carries them, are read and verified but not imported: they
    are answers to another workbench's campaigns (``machine_ratings_left_out`` counts them).
    """
    source = Path(path)
    if not source.exists():
        raise ReleaseError(f"{source}: no such file or folder")
    try:
        snapshot, meta = snapshot_from_files(_verified_files(source))
    except ReleaseIntegrityError as exc:
        raise ReleaseError(f"{source}: checksum verification failed, nothing imported: {exc}") from None
    except ValueError as exc:
        raise ReleaseError(f"{source}: nothing imported: {exc}") from None
    slug = collection or default_collection(meta.version)
    try:
        summary = import_records(
            snapshot_records(snapshot),
            importer=IMPORTER,
            source_dir=str(source.resolve()),
            collection=slug,
            options={"version": meta.version, "scores": _jsonable(score_info_dict(snapshot.scores))},
        )
    except InputError as exc:
        raise ReleaseError(f"{source}: nothing imported: {exc}") from None
    machine = None if snapshot.machine_ratings is None else len(snapshot.machine_ratings)
    return ImportedRelease(version=meta.version, collection=slug, summary=summary, machine_ratings_left_out=machine)


def _verified_files(source: Path) -> dict[str, bytes]:
    """The files of a release folder or zip, each checked against manifest.json.

    An exported folder also holds release.zip, which the manifest does not list (the zip holds
    the manifest): it is set aside, and must hold exactly the folder's files.
    """
    limits = ReadLimits(max_bytes=settings.RELEASE_IMPORT_MAX_MB * 2**20)
    if not source.is_dir():
        return read_release_files(source, limits)
    files = read_directory(source, limits)
    zipped = files.pop(ZIP_NAME, None)
    verify_files(files)
    if zipped is not None and read_release_files(source / ZIP_NAME, limits) != files:
        raise ReleaseIntegrityError([f"{ZIP_NAME}: its files differ from the folder's"])
    return files


def default_collection(version: str) -> str:
    """release-1-0-0: a slug (no dots) that names the version."""
    return "release-" + version.replace(".", "-")


def snapshot_records(snapshot: Snapshot) -> ParseResult:
    """The importer's records for everything in ``snapshot``."""
    result = ParseResult()
    for n, compound in enumerate(snapshot.compounds, start=1):
        result.rows_read += 1
        result.compounds.append(
            CompoundRecord(compound.language, compound.text, Source(COMPOUNDS_FILE, n), _compound_fields(compound))
        )
        slots = set()
        for sentence in compound.sentences:
            slots.add((sentence.kind, sentence.slot))
            span = sentence.span or (None, None)
            result.sentences.append(
                SentenceRecord(
                    compound.language,
                    compound.text,
                    sentence.kind,
                    sentence.slot,
                    Source(PAIRS_FILE),
                    {
                        "text": sentence.text,
                        "span_start": span[0],
                        "span_end": span[1],
                        "span_source": vocabulary.SPAN_FROM_TAGS if sentence.span else "",
                        "plural": sentence.plural,
                        "available": True,
                        "token_score": sentence.token_score,
                        "length": sentence.length,
                    },
                )
            )
            for variant in sentence.variants:
                vspan = variant.span or (None, None)
                result.variants.append(
                    VariantRecord(
                        compound.language,
                        compound.text,
                        sentence.kind,
                        sentence.slot,
                        variant.kind,
                        variant.rank,
                        variant.isolated,
                        Source(PAIRS_FILE),
                        {
                            "text": variant.text,
                            "span_start": vspan[0],
                            "span_end": vspan[1],
                            "span_source": vocabulary.SPAN_FROM_TAGS if variant.span else "",
                            "status": variant.status,
                            "origin": vocabulary.ORIGIN_IMPORTED,
                        },
                    )
                )
        for paraphrase in compound.paraphrases:
            if paraphrase.slot and (vocabulary.NATURALISTIC, paraphrase.slot) not in slots:
                # A token paraphrase of a sentence the release could not publish (a corpus pointer):
                # it keeps its slot through an unavailable, empty sentence, which no release includes.
                slots.add((vocabulary.NATURALISTIC, paraphrase.slot))
                result.sentences.append(
                    SentenceRecord(
                        compound.language,
                        compound.text,
                        vocabulary.NATURALISTIC,
                        paraphrase.slot,
                        Source(COMPOUNDS_FILE, n),
                        {"text": "", "available": False},
                    )
                )
            result.paraphrases.append(
                ParaphraseRecord(
                    compound.language,
                    compound.text,
                    paraphrase.level,
                    paraphrase.text,
                    paraphrase.frequency,
                    Source(COMPOUNDS_FILE, n),
                    slot=paraphrase.slot,
                )
            )
    return result


_COMPOUND_FIELDS = COMPOUND_DATA_FIELDS


def _compound_fields(compound: ReleaseCompound) -> dict:
    fields = {name: getattr(compound, name) for name in _COMPOUND_FIELDS}
    fields = {name: value for name, value in fields.items() if value is not None}
    if compound.gold_synonym:
        fields["gold_synonym_source"] = vocabulary.GOLD_FROM_FILE
    return fields


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


def _jsonable(value):
    """Tuples become lists, as a JSON field stores them."""
    if isinstance(value, dict):
        return {k: _jsonable(x) for k, x in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(x) for x in value]
    return value


def _next_patch(version: str) -> str:
    major, minor, patch = (int(part) for part in version.split("."))
    return f"{major}.{minor}.{patch + 1}"


def _code_version() -> str:
    return shared_code_version("")
