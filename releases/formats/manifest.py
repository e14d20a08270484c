"""Checksums of a release's files, its zip, and their verification (pure: no Django import).

``manifest.json`` lists every other file with its sha256 and size; ``verify_files`` checks a
set of files against it and names every file that was changed, removed or added afterwards.
The zip is deterministic: sorted names, the fixed date 1980-01-01 00:00, permissions 0644,
DEFLATE at level 9, no extra fields, so the same files always give the same zip.

Reading a release someone hands us is bounded (``ReadLimits``): the archive's size, its number of
files, their declared sizes and compression ratios are checked before anything is decompressed,
and members are decompressed in small pieces. Every path, in the manifest and in the archive, must
be relative and stay inside the release (no ``..``, no absolute or drive path, no backslash); a
folder may hold no symbolic link.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from releases.formats.meta import ReleaseMeta, is_data_file, meta_from_datapackage

MANIFEST = "manifest.json"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class ReleaseIntegrityError(ValueError):
    """A release's files do not match its manifest; ``problems`` lists one line per file."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = f" (and {len(problems) - 1} more: {'; '.join(problems[1:4])}{' …' if len(problems) > 4 else ''})"
        super().__init__(problems[0] + (more if len(problems) > 1 else ""))


class UnsafeReleaseError(ValueError):
    """A release that is too large, too compressed or names paths outside itself: nothing is read."""


@dataclass(frozen=True)
class ReadLimits:
    """How much a release folder or zip may hold, checked before anything is read or decompressed."""

    max_bytes: int = 512 * 2**20  # every file together, uncompressed (and the zip itself)
    max_files: int = 1000
    max_ratio: int = 200  # uncompressed / compressed size of a member, once it is larger than ratio_floor
    ratio_floor: int = 2**20  # a small file may compress better (a repetitive CSV) without harm


DEFAULT_LIMITS = ReadLimits()
_CHUNK = 2**20
_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_release_path(path: object) -> str:
    """``path`` when it is a relative POSIX path inside the release, else UnsafeReleaseError."""
    inside = (
        isinstance(path, str)
        and bool(path)
        and not path.startswith("/")
        and not _DRIVE.match(path)
        and "\\" not in path
        and "\x00" not in path
        and all(part not in ("", ".", "..") for part in path.split("/"))
    )
    if not inside:
        raise UnsafeReleaseError(f"{path!r}: not a relative path inside the release")
    return path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build_manifest(files: dict[str, bytes], meta: ReleaseMeta) -> bytes:
    """manifest.json for ``files`` (any manifest.json among them is left out).

    Each entry says its ``role``: ``data`` files depend on the snapshot only (their checksums hold
    across versions, round trips and a DOI entered later); ``metadata`` files name the version, the
    date and the DOI, and are built again when a DOI is entered (``releases.doi``).
    """
    listed = [
        {"path": path, "sha256": sha256(data), "bytes": len(data), "role": "data" if is_data_file(path) else "metadata"}
        for path, data in sorted(files.items())
    ]
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


def verify_files(files: dict[str, bytes], only: Collection[str] | None = None) -> None:
    """Raise ``ReleaseIntegrityError`` unless every file matches manifest.json, and no file is missing or extra.

    ``only``: the files given are these (and manifest.json): each must be listed and match; the
    manifest's other files are not asked for.
    """
    if MANIFEST not in files:
        raise ReleaseIntegrityError([f"{MANIFEST} is missing: the files cannot be verified"])
    try:
        listed = {f["path"]: f for f in json.loads(files[MANIFEST].decode("utf-8"))["files"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise ReleaseIntegrityError([f"{MANIFEST} is not a valid manifest ({exc})"]) from None
    for path in listed:
        safe_release_path(path)
    problems = []
    if only is not None:
        problems += [f"{path}: not listed in the manifest" for path in sorted(set(only) - set(listed))]
        listed = {path: entry for path, entry in listed.items() if path in only}
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


def read_directory(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """Every file under ``path``, by its relative POSIX path; sizes are checked before reading."""
    found = sorted(path.rglob("*"))
    if links := [p for p in found if p.is_symlink()]:
        raise UnsafeReleaseError(
            f"{links[0].relative_to(path).as_posix()}: a symbolic link, in a release of plain files"
        )
    found = [p for p in found if p.is_file()]
    _check_sizes(len(found), sum(p.stat().st_size for p in found), limits)
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in found}


def read_zip_file(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """``read_zip`` of a file, refused unread when the zip alone is over the limit."""
    if path.stat().st_size > limits.max_bytes:
        raise UnsafeReleaseError(f"{path.name}: {path.stat().st_size} bytes, over the limit of {limits.max_bytes}")
    return read_zip(path.read_bytes(), limits)


def _check_sizes(count: int, total: int, limits: ReadLimits) -> None:
    if count > limits.max_files:
        raise UnsafeReleaseError(f"{count} files, over the limit of {limits.max_files}")
    if total > limits.max_bytes:
        raise UnsafeReleaseError(f"{total} bytes uncompressed, over the limit of {limits.max_bytes}")


def _check_members(members: list[zipfile.ZipInfo], limits: ReadLimits) -> None:
    """Names, count, declared sizes and ratios of a zip's members, before anything is decompressed."""
    for info in members:
        safe_release_path(info.filename)
    _check_sizes(len(members), sum(info.file_size for info in members), limits)
    for info in members:
        if info.file_size > limits.ratio_floor and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            raise UnsafeReleaseError(
                f"{info.filename}: compressed {info.file_size // max(info.compress_size, 1)} to 1, "
                f"over the limit of {limits.max_ratio} to 1 (a zip bomb?)"
            )


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member in pieces of 1 MiB: zipfile then never inflates more than a piece at once, and stops
    at the declared size (a member that inflates to more fails its CRC)."""
    out = bytearray()
    with archive.open(info) as member:
        while chunk := member.read(_CHUNK):
            out += chunk
    return bytes(out)


def read_zip(data: bytes, limits: ReadLimits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """Every file of a release zip; a single top folder around them is dropped."""
    if len(data) > limits.max_bytes:
        raise UnsafeReleaseError(f"the zip has {len(data)} bytes, over the limit of {limits.max_bytes}")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            _check_members(members, limits)
            files = {info.filename: _read_member(archive, info) for info in members}
    except zipfile.BadZipFile as exc:
        raise UnsafeReleaseError(f"not a readable zip ({exc})") from None
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
