"""A release's DOI, entered after its deposit, and the files readers get once it is there.

A repository (Zenodo, any DataCite member) mints the DOI when the release is deposited, so the DOI
comes after the files were made. The files do not change: the release's data files, its manifest
and its zip stay as they were stored (a published release is frozen). ``record_doi`` builds the
metadata files again from the release's own verified files with the DOI in their metadata (the card,
datapackage.json, croissant.json, CITATION.cff, the deposit metadata, the Hub card), checks that every
data file comes out byte-identical, and keeps them, a new manifest and a new zip in ``ReleaseDOI``.
``files_with_doi`` hands readers the release with them in place.
"""

from __future__ import annotations

import io
import zipfile
import zlib

from django.db import IntegrityError, transaction

from releases.formats import (
    MANIFEST,
    ReleaseIntegrityError,
    build_files,
    build_manifest,
    build_zip,
    is_data_file,
    snapshot_from_files,
    verify_files,
)
from releases.formats.deposit import CITATION_CFF, ZENODO_JSON
from releases.formats.meta import normalise_doi
from releases.models import ZIP_NAME, Release, ReleaseDOI, ReleaseDOIFile, ReleaseError, sha256_hex, version_key

# The deposit bundle: what a curator uploads to Zenodo (the zip, how to cite it, the deposit's metadata).
DEPOSIT_BUNDLE = (ZIP_NAME, CITATION_CFF, ZENODO_JSON)


def previous_doi(version: str) -> str:
    """The DOI of the newest published version before ``version`` that has one ("" when none has)."""
    key = version_key(version)
    earlier = [
        (version_key(version), doi)
        for version, doi in ReleaseDOI.objects.filter(release__status=Release.Status.PUBLISHED).values_list(
            "release__version", "doi"
        )
        if version_key(version) < key
    ]
    return max(earlier)[1] if earlier else ""


def rebuilt_with_doi(files: dict[str, bytes], doi: str, previous: str = "") -> dict[str, bytes]:
    """The release's files (manifest.json included) with the DOI in every metadata file; data files unchanged.

    ReleaseIntegrityError when the files cannot be rebuilt to the same data (they would not be this release).
    """
    snapshot, meta = snapshot_from_files(files)
    rebuilt = build_files(snapshot, meta.with_doi(doi, previous))
    data = {path: content for path, content in files.items() if is_data_file(path)}
    changed = sorted(p for p in set(data) | {p for p in rebuilt if is_data_file(p)} if data.get(p) != rebuilt.get(p))
    if changed:
        raise ReleaseIntegrityError([f"{path}: not the same data once rebuilt with the DOI" for path in changed])
    out = {**data, **{path: content for path, content in rebuilt.items() if not is_data_file(path)}}
    out[MANIFEST] = build_manifest(out, meta.with_doi(doi, previous))
    return out


@transaction.atomic
def record_doi(release: Release, doi: str, user=None) -> ReleaseDOI:
    """Store the DOI of ``release``'s deposit and its metadata files rebuilt with it; ReleaseError when it cannot.

    A release gets one DOI, and a DOI names one release. The release row and its files stay untouched.
    """
    try:
        doi = normalise_doi(doi)
    except ValueError as error:
        raise ReleaseError(str(error)) from None
    Release.objects.select_for_update().filter(pk=release.pk).first()  # one DOI at a time per release
    if ReleaseDOI.objects.filter(release=release).exists():
        raise ReleaseError(f"release {release.version} has its DOI already ({release.doi_record.doi})")
    previous = previous_doi(release.version)
    files = rebuilt_with_doi(release.verified_files(), doi, previous)
    metadata = {path: content for path, content in files.items() if not is_data_file(path)}
    metadata[ZIP_NAME] = build_zip(files)
    try:
        with transaction.atomic():
            record = ReleaseDOI.objects.create(release=release, doi=doi, previous_doi=previous, recorded_by=user)
    except IntegrityError:
        other = ReleaseDOI.objects.filter(doi=doi).values_list("release__version", flat=True).first()
        raise ReleaseError(f"DOI {doi} names release {other} already: a DOI names one version") from None
    ReleaseDOIFile.objects.bulk_create(
        ReleaseDOIFile(record=record, path=path, sha256=sha256_hex(content), size=len(content), content=content)
        for path, content in sorted(metadata.items())
    )
    release.doi_record = record
    return record


def files_with_doi(release: Release, include_zip: bool = False) -> dict[str, bytes]:
    """The release's verified files as readers get them: with the DOI's metadata files once it has a DOI."""
    record = ReleaseDOI.objects.filter(release=release).first()
    if record is None:
        return release.verified_files(include_zip=include_zip)
    stored = release.verified_files()
    overlay = {}
    for path, sha256, size, content in record.files.values_list("path", "sha256", "size", "content"):
        data = bytes(content)
        if sha256_hex(data) != sha256 or len(data) != size:
            raise ReleaseIntegrityError([f"release {release.version}: {path} (with its DOI) does not match its sha256"])
        overlay[path] = data
    zipped = overlay.pop(ZIP_NAME, None)
    files = {path: data for path, data in stored.items() if is_data_file(path)} | overlay
    verify_files(files)
    if include_zip:
        if zipped is None or not _zip_holds(zipped, files):
            raise ReleaseIntegrityError(
                [f"release {release.version}: {ZIP_NAME} (with its DOI) does not hold its files"]
            )
        files[ZIP_NAME] = zipped
    return files


def _zip_holds(zipped: bytes, files: dict[str, bytes]) -> bool:
    """Whether the zip's members are exactly ``files`` (names, sizes and CRC-32s; nothing decompressed)."""
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        members = {info.filename: (info.file_size, info.CRC) for info in archive.infolist()}
    return members == {path: (len(data), zlib.crc32(data)) for path, data in files.items()}


def deposit_members(release: Release) -> dict[str, bytes]:
    """What a deposit uploads, by the names it uploads them under: release-VERSION.zip, CITATION.cff, zenodo.json."""
    files = files_with_doi(release, include_zip=True)
    return {
        (f"release-{release.version}.zip" if path == ZIP_NAME else path.rsplit("/", 1)[-1]): files[path]
        for path in DEPOSIT_BUNDLE
    }


def deposit_bundle(release: Release) -> bytes:
    """One zip of what a deposit takes: the release zip, CITATION.cff and deposit/zenodo.json."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in deposit_members(release).items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()
