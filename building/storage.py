"""Files the workers read, through Django's storage API: uploads are stored by name, never by local path.

A corpus or a random-compound pool a curator uploads is saved with ``default_storage`` (the
``STORAGES["default"]`` setting: the local ``MEDIA_ROOT`` by default; an S3-compatible store through
django-storages, or a volume every machine mounts, when workers run on several machines), and a job
keeps its storage name. A worker opens it through the same API, and reads a corpus chunk by seeking
to the chunk's byte range. A "server path" (``WORKBENCH_CORPUS_ROOTS``) stays a local path: it must
exist on every worker.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import BinaryIO

from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile

from building.counts.corpus.readers import CorpusError, CorpusSource, LocalFile


class StoredFile:
    """A ``CorpusSource`` kept in the default storage under ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def size(self) -> int:
        return default_storage.size(self.name)

    def open(self) -> BinaryIO:
        return default_storage.open(self.name, "rb")

    def read(self) -> bytes:
        with self.open() as handle:
            return handle.read()

    def delete(self) -> None:
        default_storage.delete(self.name)

    def __str__(self) -> str:
        return self.name


def store_upload(upload: UploadedFile, folder: str) -> StoredFile:
    """Save an upload in the default storage under ``folder`` (a free name is chosen); the stored file."""
    name = default_storage.save(str(PurePosixPath(folder) / PurePosixPath(upload.name).name), upload)
    return StoredFile(name)


def check_stored(source: StoredFile) -> StoredFile:
    """The stored file, after checking that it exists and is not empty (CorpusError otherwise)."""
    if not default_storage.exists(source.name):
        raise CorpusError(f"no corpus file {source.name} in the storage")
    if source.size() == 0:
        raise CorpusError(f"the corpus file {source.name} is empty")
    return source


def source_of(options: dict) -> CorpusSource:
    """The corpus a job's options name: ``{"storage": name}`` (an upload) or ``{"path": path}`` (a server path)."""
    if options.get("storage"):
        return StoredFile(options["storage"])
    return LocalFile(options["path"])
