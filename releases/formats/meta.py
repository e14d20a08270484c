"""What a release says about itself, apart from its data (pure: no Django import)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields

DEFAULT_LICENCE = "CC-BY-4.0"

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


@dataclass(frozen=True)
class ReleaseMeta:
    """The version, title and terms of a release; ``created`` is an ISO date (YYYY-MM-DD)."""

    version: str
    title: str = "Noun compound idiomaticity dataset"
    description: str = ""
    licence: str = DEFAULT_LICENCE
    citation: str = ""
    created: str = ""
    code_version: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ReleaseMeta:
        names = {f.name for f in fields(cls)}
        return cls(**{k: ("" if data[k] is None else str(data[k])) for k in names if k in data})

    def licence_entry(self) -> dict:
        """The licence as a Frictionless ``licenses`` entry."""
        title, path = LICENCES.get(self.licence, (self.licence, ""))
        entry = {"name": self.licence, "title": title}
        if path:
            entry["path"] = path
        return entry


DATAPACKAGE = "datapackage.json"


def meta_from_datapackage(files: dict[str, bytes]) -> ReleaseMeta:
    """The release's metadata as its datapackage.json records it."""
    if DATAPACKAGE not in files:
        raise ValueError(f"{DATAPACKAGE} is missing: the release's metadata is unknown")
    package = json.loads(files[DATAPACKAGE].decode("utf-8"))
    licences = package.get("licenses") or [{}]
    return ReleaseMeta(
        version=str(package.get("version", "")),
        title=package.get("title", ""),
        description=package.get("description", ""),
        licence=licences[0].get("name", ""),
        citation=package.get("citation", ""),
        created=re.sub(r"^(\d{4}-\d{2}-\d{2})T00:00:00Z$", r"\1", package.get("created", "")),
        code_version=package.get("code_version", ""),
    )
