"""datapackage.json: a Frictionless Data Package v2 describing every file and column (pure: no Django import).

Every CSV, JSON Lines and Parquet file is a table (``"type": "table"``) with its Table Schema
(``table_schema``), so ``frictionless validate datapackage.json`` reads each one against it. Releases
made before v2 hold a v1 datapackage.json (``"profile"`` keys, no ``$schema``): everything this
module and ``meta.meta_from_datapackage`` read back is in both.

Besides the standard properties it records what the data files cannot: the release's
languages, where its scores come from (``scores``) and the agreement between annotators
(``agreement``), so that ``read_release`` rebuilds the whole snapshot. A release that carries
machine-made ratings says so in ``machine_ratings`` (their models, templates, settings and counts);
one without them has no such key. Keys are written in a fixed order, resources sorted by path,
indented by two spaces.
"""

from __future__ import annotations

import hashlib
import json
import re

from datasets import vocabulary
from datasets.formats import ncimp_columns as nc
from datasets.formats.ncimp_columns import SCORES_FILE
from releases.formats import deposit, machine, tidy
from releases.formats.deposit import keywords
from releases.formats.hf_tables import HF_DIR, describe_hf_file
from releases.formats.meta import CROISSANT, DATAPACKAGE, Creator, ReleaseMeta
from releases.formats.score_sources import language_sentence
from releases.formats.table_schema import table_schema
from releases.snapshot import Agreement, CampaignSource, LanguageSource, ScoreInfo, Snapshot

DATAPACKAGE_V2 = "https://datapackage.org/profiles/2.0/datapackage.json"
CSV_DIALECT = {
    "delimiter": ",",
    "lineTerminator": "\n",
    "quoteChar": '"',
    "doubleQuote": True,
    "header": True,
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.casefold()).strip("-") or "release"


_FORMATS = {
    ".csv": ("csv", "text/csv"),
    ".jsonl": ("jsonl", "application/jsonl"),
    ".parquet": ("parquet", "application/vnd.apache.parquet"),
    ".md": ("md", "text/markdown"),
}


def describe_file(path: str) -> str:
    """One line saying what a file of the release holds."""
    if path == SCORES_FILE:
        return "Human compositionality scores per compound and NCIMP file, like the public table."
    if path == tidy.PAIRS_JSONL:
        return "One row per minimal pair: sentence, variant, spans and scores (JSON Lines)."
    if path == tidy.PAIRS_PARQUET:
        return "The same rows as tidy/pairs.jsonl, in Parquet."
    if path == tidy.COMPOUNDS_JSONL:
        return "One row per compound: scores, frequencies, sentences and paraphrases (JSON Lines)."
    if path == machine.MACHINE_JSONL:
        return "MACHINE-MADE ratings: one row per answer of a language model, labelled annotator_origin machine "
        "with its model, template and settings; never part of the scores (JSON Lines)."
    if path == machine.MACHINE_PARQUET:
        return f"The same machine-made rows as {machine.MACHINE_JSONL}, in Parquet."
    if path == "README.md":
        return "The data card."
    if path == CROISSANT:
        return (
            "Croissant 1.1 metadata with the Responsible-AI fields: every file with its sha256, and the hf/ tables "
            "as record sets an ML loader reads (mlcroissant)."
        )
    if path.startswith(f"{HF_DIR}/"):
        return describe_hf_file(path)
    if path == deposit.CITATION_CFF:
        return "How to cite this release (Citation File Format 1.2.0)."
    if path == deposit.ZENODO_JSON:
        return "The metadata of a Zenodo (DataCite) deposit of this release: creators, licence, related papers."
    if path.endswith(nc.NEUTRAL_FILE):
        return f"{vocabulary.language_name(path.split('/')[0].lower())} neutral minimal pairs, NCIMP layout."
    if "/naturalistics_examplesent" in path:
        slot = path.rsplit("examplesent", 1)[1].split(".")[0]
        language = vocabulary.language_name(path.split("/")[0].lower())
        return f"{language} naturalistic minimal pairs of sentence {slot}, NCIMP layout."
    return ""


def resource(path: str, data: bytes) -> dict:
    """A Data Resource: a table (``type``, v2) with its schema, or a file."""
    suffix = "." + path.rsplit(".", 1)[-1]
    fmt, mediatype = _FORMATS.get(suffix, (suffix[1:], "application/octet-stream"))
    schema = table_schema(path)
    out: dict = {
        "name": slug(path.replace("/", "-")),
        "path": path,
        **({"type": "table"} if schema is not None else {}),
        # v1 readers (frictionless-r 1.x among them) read a schema only from a "tabular-data-resource",
        # which v1 allows for CSV alone; v2 readers take "type" and ignore "profile" beside "$schema".
        # "data-resource", the v1 default, says nothing: it is left out.
        **({"profile": "tabular-data-resource"} if fmt == "csv" else {}),
        "description": describe_file(path),
        "format": fmt,
        "mediatype": mediatype,
    }
    if fmt != "parquet":
        out["encoding"] = "utf-8"
        # Not for Parquet: frictionless 5.21 opens it with pyarrow, counts no bytes and reports any
        # declared count as wrong. The hash pins the file; manifest.json gives its size.
        out["bytes"] = len(data)
    out["hash"] = "sha256:" + hashlib.sha256(data).hexdigest()
    if fmt == "csv":
        out["dialect"] = dict(CSV_DIALECT)
    if schema is not None:
        out["schema"] = schema
    return out


def score_info_dict(info: ScoreInfo) -> dict:
    return {
        "source": info.source,
        "campaigns": list(info.campaigns),
        "policy": info.policy,
        "aggregation": info.aggregation,
        "simulated": info.simulated,
        "languages": [
            {
                "language": language.language,
                "imported": list(language.imported),
                "campaigns": [
                    {
                        "slug": c.slug,
                        "level": c.level,
                        "people": c.people,
                        "simulated": c.simulated,
                        "ratings": c.ratings,
                        "excluded": [list(pair) for pair in c.excluded],
                        "platforms": list(c.platforms),
                        "pay_per_rating": c.pay_per_rating,
                        "consent": c.consent,
                        "allocation": c.allocation,
                        "ratings_per_item": c.ratings_per_item,
                    }
                    for c in language.campaigns
                ],
                "in_words": language_sentence(language, info),
            }
            for language in info.languages
        ],
    }


def score_info_from_dict(info: dict) -> ScoreInfo:
    """A ScoreInfo from what ``score_info_dict`` wrote (datapackage.json, a release's ``scores``)."""
    languages = tuple(
        LanguageSource(
            language=entry["language"],
            imported=tuple(entry.get("imported") or ()),
            campaigns=tuple(
                CampaignSource(
                    slug=c["slug"],
                    level=c["level"],
                    people=c["people"],
                    simulated=c["simulated"],
                    ratings=c["ratings"],
                    excluded=tuple(tuple(pair) for pair in c.get("excluded") or ()),
                    platforms=tuple(c.get("platforms") or ()),
                    pay_per_rating=c.get("pay_per_rating", ""),
                    consent=c.get("consent", False),
                    allocation=c.get("allocation", ""),
                    ratings_per_item=c.get("ratings_per_item", 0),
                )
                for c in entry.get("campaigns") or ()
            ),
        )
        for entry in info.get("languages") or ()
    )
    return ScoreInfo(
        source=info.get("source", "reference"),
        campaigns=tuple(info.get("campaigns") or ()),
        policy=info.get("policy") or {},
        aggregation=info.get("aggregation", "mean"),
        languages=languages,
    )


def agreement_dict(a: Agreement) -> dict:
    return {
        "language": a.language,
        "question": a.question,
        "level": a.level,
        "alpha": a.alpha,
        "low": a.low,
        "high": a.high,
        "n_items": a.n_items,
        "n_ratings": a.n_ratings,
        "source": a.source,
    }


# Metadata fields written as they are, when given (read back by meta_from_datapackage).
META_TEXTS = ("previous_doi", "intended_use", "limitations", "biases")


def contributor(creator: Creator) -> dict:
    """A Data Package contributor: the creator's name, role, organisation and ORCID iD."""
    entry = {"title": creator.name, "roles": ["creator"]}
    if creator.affiliation:
        entry["organization"] = creator.affiliation
    if creator.orcid:
        entry["path"] = f"https://orcid.org/{creator.orcid}"
        entry["orcid"] = creator.orcid
    return entry


def datapackage_datetime(created: str) -> str:
    """Frictionless wants an RFC 3339 datetime: a release date is taken at midnight UTC."""
    return f"{created}T00:00:00Z" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", created) else created


def build_datapackage(files: dict[str, bytes], snapshot: Snapshot, meta: ReleaseMeta) -> bytes:
    """datapackage.json describing ``files`` (every file but itself and the manifest)."""
    snapshot = snapshot.sorted()
    package = {
        # Only the package declares its profile: v2 gives a resource or a table schema a "$schema" of
        # its own only at the root of a descriptor, and frictionless imposes the package's on them.
        "$schema": DATAPACKAGE_V2,
        "name": slug(meta.title),
        "title": meta.title,
        "description": meta.description,
        "version": meta.version,
        "created": datapackage_datetime(meta.created),
        **({"id": meta.doi_url} if meta.doi else {}),
        **({"homepage": meta.url} if meta.url else {}),
        "licenses": [meta.licence_entry()],
        "contributors": [contributor(c) for c in meta.creators],
        "keywords": keywords(snapshot),
        "citation": meta.citation,
        "code_version": meta.code_version,
        **{name: getattr(meta, name) for name in META_TEXTS if getattr(meta, name)},
        "languages": list(snapshot.languages),
        "scores": score_info_dict(snapshot.scores),
        "agreement": [agreement_dict(a) for a in snapshot.agreement],
        **({"machine_ratings": found} if (found := machine.machine_package(snapshot)) is not None else {}),
        "resources": [
            resource(path, data) for path, data in sorted(files.items()) if path not in (DATAPACKAGE, "manifest.json")
        ],
    }
    if not package["created"]:
        del package["created"]  # an empty string is not a datetime
    # A policy's parameters may hold values JSON lacks (dates, decimals): they are written as text.
    return (json.dumps(package, ensure_ascii=False, indent=2, allow_nan=False, default=str) + "\n").encode("utf-8")


def snapshot_parts(files: dict[str, bytes]) -> tuple[tuple[str, ...], ScoreInfo, tuple[Agreement, ...]]:
    """Languages, score information and agreement as datapackage.json records them."""
    package = json.loads(files[DATAPACKAGE].decode("utf-8"))
    score_info = score_info_from_dict(package.get("scores") or {})
    agreement = tuple(Agreement(**a) for a in package.get("agreement") or ())
    return tuple(package.get("languages") or ()), score_info, agreement
