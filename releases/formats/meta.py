"""What a release says about itself, apart from its data (pure: no Django import)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields, replace

DEFAULT_LICENCE = "CC-BY-4.0"
# Data files depend on the snapshot only: their checksums survive an import-export round trip and a DOI.
DATA_FILE_SUFFIXES = (".csv", ".jsonl", ".parquet")


def is_data_file(path: str) -> bool:
    return path.endswith(DATA_FILE_SUFFIXES)


# SPDX identifiers we can link to; any other licence is named as given.
LICENCES = {
    "CC-BY-4.0": ("Creative Commons Attribution 4.0", "https://creativecommons.org/licenses/by/4.0/"),
    "CC-BY-SA-4.0": (
        "Creative Commons Attribution-ShareAlike 4.0",
        "https://creativecommons.org/licenses/by-sa/4.0/",
    ),
    "CC-BY-NC-4.0": (
        "Creative Commons Attribution-NonCommercial 4.0",
        "https://creativecommons.org/licenses/by-nc/4.0/",
    ),
    "CC0-1.0": ("Creative Commons Zero 1.0", "https://creativecommons.org/publicdomain/zero/1.0/"),
    "ODC-BY-1.0": ("Open Data Commons Attribution 1.0", "https://opendatacommons.org/licenses/by/1-0/"),
}


DOI = re.compile(r"^10\.\d{4,9}/\S+$")


def normalise_doi(text: str) -> str:
    """A DOI as ``10.NNNN/suffix`` from itself, ``doi:…`` or a doi.org link; ValueError when it is none."""
    doi = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", (text or "").strip(), flags=re.IGNORECASE)
    if not DOI.match(doi):
        raise ValueError(f"{text!r} is not a DOI: write it as 10.5281/zenodo.1234567 or https://doi.org/10.5281/…")
    return doi


@dataclass(frozen=True)
class Creator:
    """An author of a release as deposits and Croissant name them: a name, optionally affiliation and ORCID iD."""

    name: str
    affiliation: str = ""
    orcid: str = ""  # 0000-0002-1825-0097, without the https://orcid.org/ prefix

    @classmethod
    def parse(cls, line: str) -> Creator:
        """``Name | affiliation | ORCID`` (the last two optional), as the release form takes one per line."""
        parts = [part.strip() for part in line.split("|")]
        name, affiliation, orcid = (parts + ["", ""])[:3]
        orcid = re.sub(r"^https?://orcid\.org/", "", orcid)
        if not name:
            raise ValueError(f"{line!r}: a creator needs a name (Name | affiliation | ORCID)")
        if orcid and not re.fullmatch(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]", orcid):
            raise ValueError(f"{orcid!r} is not an ORCID iD (0000-0002-1825-0097)")
        return cls(name, affiliation, orcid)

    def line(self) -> str:
        parts = [self.name, self.affiliation, self.orcid]
        while not parts[-1]:
            parts.pop()
        return " | ".join(parts)


@dataclass(frozen=True)
class ReleaseMeta:
    """The version, title, authors and terms of a release; ``created`` is an ISO date (YYYY-MM-DD).

    ``url`` is the release's page, ``doi`` the DOI a repository gave its deposit (entered after the
    deposit: ``with_doi``), ``previous_doi`` the DOI of the version before it. ``intended_use``,
    ``limitations`` and ``biases`` are the curator's words for the card's responsible-use section,
    which adds the facts the data itself shows (``releases.formats.rai``).
    """

    version: str
    title: str = "Noun compound idiomaticity dataset"
    description: str = ""
    licence: str = DEFAULT_LICENCE
    citation: str = ""
    created: str = ""
    code_version: str = ""
    creators: tuple[Creator, ...] = field(default=())
    url: str = ""
    doi: str = ""
    previous_doi: str = ""
    intended_use: str = ""
    limitations: str = ""
    biases: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ReleaseMeta:
        names = {f.name for f in fields(cls)} - {"creators"}
        values = {k: ("" if data[k] is None else str(data[k])) for k in names if k in data}
        creators = tuple(
            Creator(**c) if isinstance(c, dict) else Creator.parse(str(c)) for c in data.get("creators") or ()
        )
        return cls(**values, creators=creators)

    def with_doi(self, doi: str, previous_doi: str = "") -> ReleaseMeta:
        """The same metadata with the deposit's DOI (and the previous version's, when known)."""
        return replace(self, doi=normalise_doi(doi) if doi else "", previous_doi=previous_doi or self.previous_doi)

    @property
    def doi_url(self) -> str:
        return f"https://doi.org/{self.doi}" if self.doi else ""

    def licence_entry(self) -> dict:
        """The licence as a Frictionless ``licenses`` entry."""
        title, path = LICENCES.get(self.licence, (self.licence, ""))
        entry = {"name": self.licence, "title": title}
        if path:
            entry["path"] = path
        return entry


DATAPACKAGE = "datapackage.json"
CROISSANT = "croissant.json"  # written by releases.formats.croissant, last of all but the manifest


def meta_from_datapackage(files: dict[str, bytes]) -> ReleaseMeta:
    """The release's metadata as its datapackage.json records it."""
    if DATAPACKAGE not in files:
        raise ValueError(f"{DATAPACKAGE} is missing: the release's metadata is unknown")
    package = json.loads(files[DATAPACKAGE].decode("utf-8"))
    licences = package.get("licenses") or [{}]
    doi = package.get("id", "")
    return ReleaseMeta(
        version=str(package.get("version", "")),
        title=package.get("title", ""),
        description=package.get("description", ""),
        licence=licences[0].get("name", ""),
        citation=package.get("citation", ""),
        created=re.sub(r"^(\d{4}-\d{2}-\d{2})T00:00:00Z$", r"\1", package.get("created", "")),
        code_version=package.get("code_version", ""),
        creators=tuple(
            Creator(c.get("title", ""), c.get("organization", ""), c.get("orcid", ""))
            for c in package.get("contributors") or ()
        ),
        url=package.get("homepage", ""),
        doi=normalise_doi(doi) if doi else "",
        previous_doi=package.get("previous_doi", ""),
        intended_use=package.get("intended_use", ""),
        limitations=package.get("limitations", ""),
        biases=package.get("biases", ""),
    )
