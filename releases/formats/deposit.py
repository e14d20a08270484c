"""What a repository that mints DOIs asks for with a release: CITATION.cff and Zenodo's deposit metadata
(pure: no Django import).

A deposit on Zenodo (or any DataCite repository) is the release zip plus its metadata. ``CITATION.cff``
(Citation File Format 1.2.0, read by GitHub, Zenodo and reference managers) says how to cite the
release; ``deposit/zenodo.json`` is the ``metadata`` object of Zenodo's deposit API (which Zenodo maps
to DataCite): creators, title, description, licence, version, keywords and related identifiers: the
papers the release follows and, when known, the DOI of the version before it. Both name the release's
DOI once a curator has entered it (``ReleaseMeta.with_doi``).

Both files are written by hand in a fixed order so the same metadata gives the same bytes; every
YAML scalar is a JSON string, which YAML reads as the same text whatever it holds.
"""

from __future__ import annotations

import json

from datasets import vocabulary
from releases.formats.machine import MACHINE_NOTE
from releases.formats.meta import Creator, ReleaseMeta
from releases.formats.score_sources import simulated_note
from releases.snapshot import Snapshot

CITATION_CFF = "CITATION.cff"
ZENODO_JSON = "deposit/zenodo.json"
DEPOSIT_FILES = (CITATION_CFF, ZENODO_JSON)
# Who a release is credited to when its curator named no one (a deposit needs at least one creator).
NO_CREATORS = "Idiomaticity Workbench curators"


class Paper:
    """A paper the release's design follows: its reference text and, where known, its DOI or page."""

    def __init__(self, reference: str, doi: str = "", url: str = "", relation: str = "isDerivedFrom") -> None:
        self.reference, self.doi, self.url, self.relation = reference, doi, url, relation


# Identifiers as the papers themselves print them (../shared/seeds); none is guessed.
PAPERS = (
    Paper(
        "He, W., Garcia, M., Idiart, M., Kramer Vieira, T., Scarton, C., Villavicencio, A. (2024). Investigating "
        "Idiomaticity in Word Representations. Computational Linguistics.",
        relation="isDocumentedBy",
    ),
    Paper(
        "Garcia, M., Kramer Vieira, T., Scarton, C., Idiart, M., Villavicencio, A. (2021). Assessing the "
        "Representations of Idiomaticity in Vector Models with a Noun Compound Dataset Labeled at Type and Token "
        "Levels. Proceedings of ACL-IJCNLP 2021, pages 2730-2741.",
        doi="10.18653/v1/2021.acl-long.212",
    ),
    Paper(
        "Garcia, M., Kramer Vieira, T., Scarton, C., Idiart, M., Villavicencio, A. (2021). Probing for "
        "idiomaticity in vector space models. Proceedings of EACL 2021, pages 3551-3564.",
        url="https://eprints.whiterose.ac.uk/170754/",
    ),
    Paper(
        "Reddy, S., McCarthy, D., Manandhar, S. (2011). An Empirical Study on Compositionality in Compound "
        "Nouns. Proceedings of IJCNLP 2011, pages 210-218.",
        relation="references",
    ),
)


def keywords(snapshot: Snapshot) -> list[str]:
    """The release's keywords (deposit, Data Package, Croissant): the field's terms and its languages by name."""
    names = [vocabulary.language_name(lang) for lang in snapshot.languages]
    return ["noun compounds", "idiomaticity", "compositionality", "minimal pairs", *names]


def _split_name(name: str) -> tuple[str, str]:
    """(given, family) of a person's name: the last word is the family name ("Ana Sousa" → Ana, Sousa);
    "Family, Given" is taken as written."""
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return given, family
    given, _, family = name.strip().rpartition(" ")
    return given, family


def _creators(meta: ReleaseMeta) -> tuple[Creator, ...]:
    return meta.creators or (Creator(NO_CREATORS),)


def _quoted(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def abstract(snapshot: Snapshot, meta: ReleaseMeta) -> str:
    """What the release is, for a deposit's description and Croissant's: simulated and machine-made ratings named."""
    languages = ", ".join(vocabulary.language_name(lang) for lang in snapshot.languages)
    text = meta.description.strip() or (
        f"Noun compounds ({languages}) with human compositionality scores and minimal-pair sentences "
        "for probing idiomaticity in language models."
    )
    notes = [simulated_note(snapshot.scores) or "", MACHINE_NOTE if snapshot.machine_ratings is not None else ""]
    return " ".join(part for part in (text, *notes) if part)


def citation_cff(snapshot: Snapshot, meta: ReleaseMeta) -> bytes:
    """CITATION.cff (Citation File Format 1.2.0) of the release."""
    lines = [
        "cff-version: 1.2.0",
        f"message: {_quoted('If you use this dataset, please cite it as below, and the papers it follows.')}",
        "type: dataset",
        f"title: {_quoted(meta.title)}",
        f"version: {_quoted(meta.version)}",
    ]
    if meta.created:
        lines.append(f"date-released: {_quoted(meta.created)}")
    if meta.doi:
        lines.append(f"doi: {_quoted(meta.doi)}")
    if meta.url:
        lines.append(f"url: {_quoted(meta.url)}")
    lines.append(f"license: {_quoted(meta.licence)}")
    lines.append(f"abstract: {_quoted(abstract(snapshot, meta))}")
    lines.append("authors:")
    for creator in _creators(meta):
        given, family = _split_name(creator.name)
        if creator.name == NO_CREATORS or not given:
            lines.append(f"  - name: {_quoted(creator.name)}")
        else:
            lines += [f"  - family-names: {_quoted(family)}", f"    given-names: {_quoted(given)}"]
        if creator.affiliation:
            lines.append(f"    affiliation: {_quoted(creator.affiliation)}")
        if creator.orcid:
            lines.append(f"    orcid: {_quoted('https://orcid.org/' + creator.orcid)}")
    lines.append("keywords:")
    lines += [f"  - {_quoted(word)}" for word in keywords(snapshot)]
    lines.append("references:")
    for paper in PAPERS:
        lines += ["  - type: article", f"    title: {_quoted(paper.reference)}", "    authors:"]
        lines.append(f"      - name: {_quoted(paper.reference.split(' (', 1)[0])}")
        if paper.doi:
            lines.append(f"    doi: {_quoted(paper.doi)}")
        if paper.url:
            lines.append(f"    url: {_quoted(paper.url)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _zenodo_creator(creator: Creator) -> dict:
    given, family = _split_name(creator.name)
    entry: dict = {"name": f"{family}, {given}" if given and creator.name != NO_CREATORS else creator.name}
    if creator.affiliation:
        entry["affiliation"] = creator.affiliation
    if creator.orcid:
        entry["orcid"] = creator.orcid
    return entry


def zenodo_metadata(snapshot: Snapshot, meta: ReleaseMeta) -> dict:
    """The ``metadata`` of a Zenodo deposit (its REST API's field names)."""
    related = [
        {"identifier": paper.doi or paper.url, "relation": paper.relation, "scheme": "doi" if paper.doi else "url"}
        for paper in PAPERS
        if paper.doi or paper.url
    ]
    if meta.previous_doi:
        related.insert(
            0,
            {
                "identifier": meta.previous_doi,
                "relation": "isNewVersionOf",
                "resource_type": "dataset",
                "scheme": "doi",
            },
        )
    if meta.url:
        related.append(
            {"identifier": meta.url, "relation": "isIdenticalTo", "resource_type": "dataset", "scheme": "url"}
        )
    metadata: dict = {
        "upload_type": "dataset",
        "title": meta.title,
        "version": meta.version,
        **({"publication_date": meta.created} if meta.created else {}),
        "creators": [_zenodo_creator(c) for c in _creators(meta)],
        "description": abstract(snapshot, meta),
        "access_right": "open",
        "license": meta.licence.lower(),
        "keywords": keywords(snapshot),
        "related_identifiers": related,
        "references": [paper.reference for paper in PAPERS],
        **({"doi": meta.doi} if meta.doi else {}),
        "notes": f"Made with the Idiomaticity Workbench {meta.code_version}".strip() + ".",
    }
    return metadata


def deposit_files(snapshot: Snapshot, meta: ReleaseMeta) -> dict[str, bytes]:
    """CITATION.cff and deposit/zenodo.json of a release."""
    zenodo = json.dumps({"metadata": zenodo_metadata(snapshot, meta)}, ensure_ascii=False, indent=2) + "\n"
    return {CITATION_CFF: citation_cff(snapshot, meta), ZENODO_JSON: zenodo.encode("utf-8")}
