"""Checksums of a release's files, its zip, and their verification (pure: no Django import).

``manifest.json`` lists every other file with its sha256 and size; ``verify_files`` checks a
set of files against it and names every file that was changed, removed or added afterwards.
The zip is deterministic: sorted names, the fixed date 1980-01-01 00:00, permissions 0644,
DEFLATE at level 9, no extra fields, so the same files always give the same zip.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

from datasets.formats.release.meta import ReleaseMeta, meta_from_datapackage

MANIFEST = "manifest.json"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class ReleaseIntegrityError(ValueError):
    """A release's files do not match its manifest; ``problems`` lists one line per file."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = f" (and {len(problems) - 1} more: {'; '.join(problems[1:4])}{' …' if len(problems) > 4 else ''})"
        super().__init__(problems[0] + (more if len(problems) > 1 else ""))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build_manifest(files: dict[str, bytes], meta: ReleaseMeta) -> bytes:
    """manifest.json for ``files`` (any manifest.json among them is left out)."""
    listed = [{"path": path, "sha256": sha256(data), "bytes": len(data)} for path, data in sorted(files.items())]
    manifest = {
        "version": meta.version,
        "created": meta.created,
        "files": [f for f in listed if f["path"] != MANIFEST],
    }
    return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def with_manifest(files: dict[str, bytes], meta: ReleaseMeta | None = None) -> dict[str, bytes]:
    """``files`` plus their manifest, built from ``meta`` or from the files' datapackage.json."""
    if MANIFEST in files:
        return dict(files)
    return {**files, MANIFEST: build_manifest(files, meta or meta_from_datapackage(files))}


def build_zip(files: dict[str, bytes], meta: ReleaseMeta | None = None) -> bytes:
    """One zip of ``files`` and their manifest.json."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in sorted(with_manifest(files, meta).items()):
            info = zipfile.ZipInfo(path, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so that the permissions below are read as such
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buffer.getvalue()


def _short(digest: str) -> str:
    return digest[:12] + "…"


def verify_files(files: dict[str, bytes]) -> None:
    """Raise ``ReleaseIntegrityError`` unless every file matches manifest.json, and no file is missing or extra."""
    if MANIFEST not in files:
        raise ReleaseIntegrityError([f"{MANIFEST} is missing: the files cannot be verified"])
    try:
        listed = {f["path"]: f for f in json.loads(files[MANIFEST].decode("utf-8"))["files"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise ReleaseIntegrityError([f"{MANIFEST} is not a valid manifest ({exc})"]) from None
    problems = []
    for path, entry in sorted(listed.items()):
        if path not in files:
            problems.append(f"{path}: listed in the manifest but missing")
            continue
        digest = sha256(files[path])
        if digest != entry.get("sha256"):
            problems.append(
                f"{path}: sha256 is {_short(digest)} but the manifest says {_short(str(entry.get('sha256')))}: "
                "the file was changed after the release was made"
            )
        elif len(files[path]) != entry.get("bytes"):
            problems.append(f"{path}: {len(files[path])} bytes but the manifest says {entry.get('bytes')}")
    for path in sorted(set(files) - set(listed) - {MANIFEST}):
        problems.append(f"{path}: not listed in the manifest: it was added after the release was made")
    if problems:
        raise ReleaseIntegrityError(problems)


def read_directory(path: Path) -> dict[str, bytes]:
    """Every file under ``path``, by its relative POSIX path."""
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def read_zip(data: bytes) -> dict[str, bytes]:
    """Every file of a release zip; a single top folder around them is dropped."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        files = {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}
    if MANIFEST not in files:
        tops = {name.split("/", 1)[0] for name in files}
        if len(tops) == 1 and f"{next(iter(tops))}/{MANIFEST}" in files:
            prefix = next(iter(tops)) + "/"
            files = {name[len(prefix) :]: data for name, data in files.items()}
    return files


def verify_directory(path: Path | str) -> dict[str, bytes]:
    """The files of a release folder, verified against its manifest.json."""
    path = Path(path)
    if not path.is_dir():
        raise ReleaseIntegrityError([f"{path}: not a folder"])
    files = read_directory(path)
    verify_files(files)
    return files
