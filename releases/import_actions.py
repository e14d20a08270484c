"""Importing an exported release (folder or zip) into a collection: the release's writes that go into the dataset.

The checksums are verified before anything is read, and the import is one transaction. Records
converted from a release say which of its files they came from (the importer's provenance).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

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
from releases.actions import jsonable
from releases.formats import ReleaseIntegrityError, snapshot_from_files, verify_files
from releases.formats import release_files as read_release_files
from releases.formats.datapackage import score_info_dict
from releases.formats.manifest import ReadLimits, read_directory
from releases.models import ZIP_NAME, ReleaseError
from releases.snapshot import COMPOUND_DATA_FIELDS, ReleaseCompound, Snapshot

IMPORTER = "import_release"
COMPOUNDS_FILE = "tidy/compounds.jsonl"
PAIRS_FILE = "tidy/pairs.jsonl"


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
            options={"version": meta.version, "scores": jsonable(score_info_dict(snapshot.scores))},
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
