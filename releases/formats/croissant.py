"""croissant.json: a release in Croissant 1.1 with its Responsible-AI fields (pure: no Django import).

Croissant (MLCommons) is schema.org's Dataset plus what a loader needs. Every file of the release (but
croissant.json itself and manifest.json, which are written after it) is a FileObject with its sha256;
the typed Hugging Face tables (``hf/<table>/<language>.parquet``, ``releases.formats.hf``) are one FileSet
and one RecordSet per table, their fields typed from the Parquet schema, described and keyed as the hf
module says. The Responsible-AI fields (the RAI 1.0 vocabulary, ``rai:``) are written from
``releases.formats.rai.responsible_ai``, as the card's "Responsible use" section is, so the two never
disagree; machine-made and simulated ratings are labelled in the name, description and RAI fields, as on
the card. A release whose curator named no creator is credited as deposits credit it
(``releases.formats.deposit.NO_CREATORS``, an Organization).

mlcroissant 1.1.1 validates it and loads every RecordSet from a release folder offline
(tests/releases/formats/test_croissant.py). Keys are sorted (order means nothing in JSON-LD), lists keep
their order (files by path, fields as the tables' columns), indented by two spaces: the same release
gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json

from releases.formats import hf
from releases.formats.datapackage import describe_file
from releases.formats.deposit import NO_CREATORS, PAPERS, abstract, keywords
from releases.formats.machine import MACHINE_NOTE
from releases.formats.manifest import MANIFEST
from releases.formats.meta import CROISSANT, Creator, ReleaseMeta, normalise_doi
from releases.formats.rai import ResponsibleAI, responsible_ai
from releases.formats.score_sources import simulated_note
from releases.snapshot import Snapshot

CONFORMS_TO = ["http://mlcommons.org/croissant/1.1", "http://mlcommons.org/croissant/RAI/1.0"]
# The JSON-LD context of Croissant 1.1, as mlcroissant 1.1.1 writes it for a 1.1 dataset (its
# rdf.make_context): in 1.1, name and description may be language maps; ``rai`` is the RAI vocabulary.
CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "description": {"@container": "@language"},
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "name": {"@container": "@language"},
    "parentField": "cr:parentField",
    "path": "cr:path",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
# Media types as mlcroissant reads them (its EncodingFormat): it loads JSON Lines and Parquet only under
# these names, not under application/jsonl or application/vnd.apache.parquet.
ENCODING_FORMATS = {
    ".csv": "text/csv",
    ".jsonl": "application/jsonlines",
    ".parquet": "application/x-parquet",
    ".json": "application/json",
    ".md": "text/markdown",
    ".cff": "application/yaml",
}
# Arrow types (their string form) as Croissant's atomic data types.
DATA_TYPES = {
    "string": "sc:Text",
    "large_string": "sc:Text",
    "bool": "sc:Boolean",
    **{f"{sign}int{bits}": "sc:Integer" for sign in ("", "u") for bits in (8, 16, 32, 64)},
    "float": "sc:Float",
    "double": "sc:Float",
}


def encoding_format(path: str) -> str:
    return ENCODING_FORMATS.get("." + path.rsplit(".", 1)[-1], "application/octet-stream")


def file_object(path: str, data: bytes) -> dict:
    """A FileObject: the file's relative path, media type, size and sha256."""
    entry = {
        "@type": "cr:FileObject",
        "@id": path,
        "name": path,
        "contentUrl": path,
        "contentSize": f"{len(data)} B",
        "encodingFormat": encoding_format(path),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    if text := describe_file(path):
        entry["description"] = text
    return entry


def _file_set_id(table: str) -> str:
    return f"{hf.HF_DIR}/{table}"


def file_set(table: str) -> dict:
    """The FileSet of one hf table: its Parquet files, one per language."""
    return {
        "@type": "cr:FileSet",
        "@id": _file_set_id(table),
        "name": _file_set_id(table),
        "description": f"The {table} table, one Parquet file per language.",
        "encodingFormat": ENCODING_FORMATS[".parquet"],
        "includes": f"{hf.HF_DIR}/{table}/*.parquet",
    }


def _data_type(where: str, kind) -> str:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if str(kind) not in DATA_TYPES:
        raise ValueError(f"{where}: Arrow type {kind} has no Croissant data type here")
    return DATA_TYPES[str(kind)]


def field_id(table: str, column: str) -> str:
    """A field's @id: mlcroissant refuses whitespace in one (the scores table's "MWE Synonym Overlap")."""
    return f"{table}/{column}".replace(" ", "_")


def field(table: str, column, description: str) -> dict:
    """A Field reading one Parquet column: an atomic type, a list of them, or a list of records (sub-fields)."""
    import pyarrow as pa

    uid, kind = field_id(table, column.name), column.type
    source = {"fileSet": {"@id": _file_set_id(table)}, "extract": {"column": column.name}}
    entry: dict = {"@type": "cr:Field", "@id": uid, "name": column.name, "description": description}
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        entry |= {"isArray": True, "arrayShape": "-1"}
        kind = kind.value_type
    if not pa.types.is_struct(kind):
        return entry | {"dataType": _data_type(f"{table}.{column.name}", kind), "source": source}
    # A list of records: one sub-field per member, read from the column with a JSON path.
    entry["subField"] = [
        {
            "@type": "cr:Field",
            "@id": f"{uid}/{member.name}",
            "name": member.name,
            "description": f"The {member.name} of each item of {column.name}.",
            "dataType": _data_type(f"{table}.{column.name}.{member.name}", member.type),
            "source": source | {"transform": {"jsonPath": member.name}},
        }
        for member in kind
    ]
    return entry


def record_set(table: str, schema) -> dict:
    """The RecordSet of one hf table: a field per column, typed from ``schema``, keyed as the hf module says."""
    descriptions = hf.COLUMN_DESCRIPTIONS[table]
    return {
        "@type": "cr:RecordSet",
        "@id": table,
        "name": table,
        "description": hf.TABLE_DESCRIPTIONS[table],  # the machine-made table's says so first
        "key": [{"@id": field_id(table, column)} for column in hf.TABLE_KEYS[table]],
        "field": [field(table, column, descriptions[column.name]) for column in schema],
    }


def _schema(data: bytes):
    import pyarrow.parquet as pq

    return pq.read_schema(io.BytesIO(data))


def tables(files: dict[str, bytes]) -> tuple[list[dict], list[dict]]:
    """(FileSets, RecordSets) of the release's hf tables; a table's files must share one schema."""
    file_sets, record_sets = [], []
    for table, paths in hf.hf_table_paths(files).items():
        schemas = [_schema(files[path]) for path in sorted(paths)]
        if any(not schema.equals(schemas[0]) for schema in schemas[1:]):
            raise ValueError(f"{hf.HF_DIR}/{table}: its Parquet files differ in schema")
        file_sets.append(file_set(table))
        record_sets.append(record_set(table, schemas[0]))
    return file_sets, record_sets


def rai_fields(facts: ResponsibleAI) -> dict:
    """The RAI properties, each the same text as its line in the card's "Responsible use" section.

    Names as the Croissant RAI 1.0 vocabulary and mlcroissant 1.1.1 define them (rai:annotatorDemographics,
    not dataAnnotationDemographics). rai:dataCollection takes one text; the others may take several.
    """
    fields = {
        "rai:dataCollection": facts.collection,
        "rai:dataCollectionType": list(facts.collection_types),
        "rai:dataAnnotationProtocol": facts.annotation_protocol,
        "rai:dataAnnotationPlatform": list(facts.annotation_platforms),
        "rai:dataAnnotationAnalysis": facts.annotation_analysis,
        "rai:annotatorDemographics": facts.demographics,
        "rai:dataPreprocessingProtocol": facts.preprocessing,
        "rai:machineAnnotationTools": facts.machine_annotation,
        "rai:dataUseCases": facts.intended_use,
        "rai:dataLimitations": facts.limitations,
        "rai:dataBiases": facts.biases,
        "rai:personalSensitiveInformation": facts.personal_information,
    }
    # Nothing to say (no campaign's platform, no machine-made rating): the property is left out.
    return {key: value for key, value in fields.items() if value}


def creator(person: Creator) -> dict:
    """A schema.org Person: name, affiliation (an Organization) and ORCID iD (sameAs)."""
    entry: dict = {"@type": "sc:Person", "name": person.name}
    if person.affiliation:
        entry["affiliation"] = {"@type": "sc:Organization", "name": person.affiliation}
    if person.orcid:
        entry["sameAs"] = f"https://orcid.org/{person.orcid}"
    return entry


def _doi_url(doi: str) -> str:
    try:
        return f"https://doi.org/{normalise_doi(doi)}"
    except ValueError:
        return doi  # as the curator wrote it


def description(snapshot: Snapshot, meta: ReleaseMeta) -> str:
    """The deposit's abstract (with its simulated-ratings note), then the machine-made ratings' note."""
    parts = [abstract(snapshot, meta)]
    if snapshot.machine_ratings is not None:
        parts.append(MACHINE_NOTE)
    return " ".join(parts)


def build_croissant(files: dict[str, bytes], snapshot: Snapshot, meta: ReleaseMeta) -> bytes:
    """croissant.json describing ``files`` (every file of the release but itself and the manifest)."""
    snapshot = snapshot.sorted()
    file_sets, record_sets = tables(files)
    licence = meta.licence_entry()
    simulated = " (includes simulated ratings)" if simulated_note(snapshot.scores) else ""
    dataset = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": f"{meta.title}{simulated}",
        "description": description(snapshot, meta),
        "version": meta.version,
        "license": licence.get("path") or licence["name"],
        "creator": [creator(c) for c in meta.creators] or [{"@type": "sc:Organization", "name": NO_CREATORS}],
        "keywords": keywords(snapshot),
        "inLanguage": list(snapshot.languages),
        # The papers whose design the release follows (sc:citation: works this one cites).
        "citation": [paper.reference for paper in PAPERS],
        **({"citeAs": meta.citation.strip()} if meta.citation.strip() else {}),
        **({"datePublished": meta.created} if meta.created else {}),
        **({"url": meta.url or meta.doi_url} if meta.url or meta.doi_url else {}),
        **({"identifier": meta.doi_url, "sameAs": [meta.doi_url]} if meta.doi else {}),
        # The version before this one: this release is a modification of it.
        **({"isBasedOn": _doi_url(meta.previous_doi)} if meta.previous_doi else {}),
        **rai_fields(responsible_ai(snapshot, meta)),
        "distribution": [
            file_object(path, data) for path, data in sorted(files.items()) if path not in (CROISSANT, MANIFEST)
        ]
        + file_sets,
        "recordSet": record_sets,
    }
    return (json.dumps(dataset, ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")
