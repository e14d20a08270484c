"""The Hugging Face layout of a release: hf/, a folder ``datasets.load_dataset`` reads as it is (pure: no Django import).

    hf/<table>/<language>.parquet   one file per table and language with rows in it (``hf_tables``: compounds,
                                    sentences, pairs, scores, and machine_ratings in a release that opted in)
    hf/README.md                    the dataset card: YAML front matter the Hub reads, then the data card

Each file is a config named ``<table>-<language>`` (``pairs-en``) with a single split, ``train``;
the first language's ``pairs`` is the default (the next language's, when it has no pairs). The Parquet files are data files: like tidy/pairs.parquet
they are written from the snapshot alone (``tidy.parquet_bytes``: explicit schema, no pandas metadata,
one row group), so the same data gives the same bytes. hf/README.md carries the release's metadata.

The front matter is written here, by hand, in a fixed order with every string double-quoted: the
same release gives the same bytes, and any YAML reader (the Hub's, PyYAML's) reads it.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping

from datasets import vocabulary
from releases.formats.card import README
from releases.formats.hf_tables import (
    COLUMN_DESCRIPTIONS,
    HF_DIR,
    HF_README,
    PAIRS,
    TABLE_DESCRIPTIONS,
    TABLE_KEYS,
    TABLES,
    config_name,
    hf_path_parts,
    table_rows,
    table_schema,
)
from releases.formats.meta import LICENCES, ReleaseMeta
from releases.formats.tidy import parquet_bytes
from releases.snapshot import Snapshot

__all__ = [
    "COLUMN_DESCRIPTIONS",
    "HF_DIR",
    "HF_README",
    "TABLES",
    "TABLE_DESCRIPTIONS",
    "TABLE_KEYS",
    "config_name",
    "hf_data_files",
    "hf_folder",
    "hf_readme",
    "hf_table_paths",
]

SPLIT = "train"

# The Hub's licence ids for the SPDX ids a release may carry (meta.LICENCES and a few more).
HUB_LICENCES = {
    "CC-BY-4.0": "cc-by-4.0",
    "CC-BY-SA-4.0": "cc-by-sa-4.0",
    "CC-BY-NC-4.0": "cc-by-nc-4.0",
    "CC-BY-NC-SA-4.0": "cc-by-nc-sa-4.0",
    "CC-BY-3.0": "cc-by-3.0",
    "CC0-1.0": "cc0-1.0",
    "ODC-BY-1.0": "odc-by",
    "ODbL-1.0": "odbl",
    "PDDL-1.0": "pddl",
    "MIT": "mit",
    "Apache-2.0": "apache-2.0",
}
# The Hub's size buckets: (upper bound, name); a table of n rows falls in the first bucket with n < bound.
SIZE_CATEGORIES = [(10**3, "n<1K"), (10**4, "1K<n<10K"), (10**5, "10K<n<100K"), (10**6, "100K<n<1M")]
SIZE_CATEGORIES += [(10**7, "1M<n<10M"), (10**8, "10M<n<100M"), (10**9, "100M<n<1B"), (10**10, "1B<n<10B")]
SIZE_CATEGORIES += [(10**11, "10B<n<100B"), (10**12, "100B<n<1T")]
TAGS = ["noun-compounds", "idiomaticity", "compositionality", "minimal-pairs", "multiword-expressions"]
# Not a crowd: people who rated through local accounts of the workbench are the team's experts, as the
# responsible-use section counts them (releases.formats.rai: "Manual human curation").
LOCAL_PLATFORMS = {"local"}


def hf_data_files(snapshot: Snapshot) -> dict[str, bytes]:
    """hf/<table>/<language>.parquet for every table the snapshot carries and every language it has rows in.

    A table without rows in a language gets no file, hence no config: ``datasets`` cannot load an empty split.
    """
    snapshot = snapshot.sorted()
    files = {}
    for table, rows in table_rows(snapshot).items():
        for language in snapshot.languages:
            if mine := [row for row in rows if row["language"] == language]:
                files[f"{HF_DIR}/{table}/{language.lower()}.parquet"] = parquet_bytes(mine, table_schema(table))
    return files


def hf_table_paths(files: Mapping[str, bytes] | list[str]) -> dict[str, list[str]]:
    """Table → its Parquet paths among ``files`` (sorted by language), tables in ``TABLES`` order."""
    found: dict[str, list[str]] = {}
    for path in sorted(files):
        if parts := hf_path_parts(path):
            found.setdefault(parts[0], []).append(path)
    return {table: found[table] for table in TABLES if table in found}


def hf_folder(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The files of a release's hf/ folder, named from inside it (README.md, pairs/en.parquet …); {} when none."""
    prefix = f"{HF_DIR}/"
    return {path.removeprefix(prefix): data for path, data in sorted(files.items()) if path.startswith(prefix)}


def _rows(data: bytes) -> int:
    import pyarrow.parquet as pq

    return pq.read_metadata(io.BytesIO(data)).num_rows


def _configs(files: Mapping[str, bytes]) -> list[tuple[str, str, str, int]]:
    """(config name, table, path inside hf/, rows) of every Parquet file of hf/."""
    out = []
    for table, paths in hf_table_paths(files).items():
        for path in paths:
            language = hf_path_parts(path)[1]
            out.append((config_name(table, language), table, path.removeprefix(f"{HF_DIR}/"), _rows(files[path])))
    return out


def hub_licence(licence: str) -> dict[str, str]:
    """The front matter's licence: the Hub's id for a known SPDX id, else ``other`` with its name and link."""
    if licence in HUB_LICENCES:
        return {"license": HUB_LICENCES[licence]}
    name = re.sub(r"[^a-z0-9.-]+", "-", licence.casefold()).strip("-") or "unspecified"
    link = LICENCES.get(licence, ("", ""))[1] or "README.md"  # the card's Licence section names it
    return {"license": "other", "license_name": name, "license_link": link}


def size_category(rows: int) -> str:
    """The Hub's size bucket of a table of ``rows`` rows (n<1K, 1K<n<10K …)."""
    return next((name for bound, name in SIZE_CATEGORIES if rows < bound), "n>1T")


def annotations_creators(snapshot: Snapshot) -> list[str]:
    """Who made the release's annotations (scores, classes, machine ratings), in the Hub's words.

    crowdsourced: a campaign's people came through a crowd platform; expert-generated: through local accounts
    (or no platform recorded); machine-generated: simulated annotators' ratings count, or models' answers are
    included; found: reference scores that came with the imported datasets (and, with no source recorded, the
    scores of a release from before sources were).
    """
    found = set()
    for language in snapshot.scores.languages:
        counted = [c for c in language.campaigns if c.contributed]
        for campaign in counted:
            if campaign.people:
                crowd = set(campaign.platforms) - LOCAL_PLATFORMS
                found.add("crowdsourced" if crowd else "expert-generated")
            if campaign.simulated:
                found.add("machine-generated")
        # Compounds no campaign rated keep the reference scores they were imported with.
        if language.imported:
            found.add("found")
    if snapshot.machine_ratings:
        found.add("machine-generated")
    return sorted(found) or ["found"]


def language_creators(snapshot: Snapshot) -> list[str]:
    """Who wrote the release's text, in the Hub's words.

    found: naturalistic sentences come from corpora and published datasets; expert-generated: neutral sentences
    are the dataset authors' templates; machine-generated: variants are generated by rules and models (then
    approved or edited by curators).
    """
    sentences = [s for c in snapshot.compounds for s in c.sentences]
    found = set()
    if any(s.kind == vocabulary.NATURALISTIC for s in sentences):
        found.add("found")
    if any(s.kind != vocabulary.NATURALISTIC for s in sentences):
        found.add("expert-generated")
    if any(s.variants for s in sentences):
        found.add("machine-generated")
    return sorted(found) or ["found"]


def front_matter(configs: list[tuple[str, str, str, int]], snapshot: Snapshot, meta: ReleaseMeta) -> dict:
    """The dataset card's metadata, as the Hub reads it, for ``configs`` (name, table, path in hf/, rows)."""
    rows: dict[str, int] = {}
    for _, table, _, count in configs:
        rows[table] = rows.get(table, 0) + count
    names = [name for name, *_ in configs]
    # The first language's pairs; when it has none, the next language's.
    default = next((name for name, table, *_ in configs if table == PAIRS), names[0] if names else "")
    return {
        "pretty_name": meta.title,
        **hub_licence(meta.licence),
        "language": [language.lower() for language in snapshot.languages],
        "multilinguality": ["multilingual" if len(snapshot.languages) > 1 else "monolingual"],
        "size_categories": [size_category(max(rows.values(), default=0))],
        "task_categories": ["text-classification", "sentence-similarity"],
        "task_ids": ["multi-class-classification", "text-scoring", "semantic-similarity-scoring"],
        "annotations_creators": annotations_creators(snapshot),
        "language_creators": language_creators(snapshot),
        "source_datasets": ["extended" if any(lang.imported for lang in snapshot.scores.languages) else "original"],
        "tags": list(TAGS),
        "configs": [
            {
                "config_name": name,
                "data_files": [{"split": SPLIT, "path": path}],
                **({"default": True} if name == default else {}),
            }
            for name, _, path, _ in configs
        ],
    }


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar: JSON's escapes, and anything not printable escaped too (YAML refuses it raw)."""
    out = json.dumps(text, ensure_ascii=False)
    return "".join(
        c if c.isprintable() else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}" for c in out
    )


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else _quoted(str(value))


def yaml_lines(value: Mapping, indent: str = "") -> list[str]:
    """``value`` (strings, numbers and booleans in dicts and lists) as block YAML, keys in their given order."""
    lines = []
    for key, item in value.items():
        if isinstance(item, Mapping):
            lines += [f"{indent}{key}:", *yaml_lines(item, indent + "  ")]
        elif isinstance(item, list) and item:
            lines.append(f"{indent}{key}:")
            for element in item:
                if isinstance(element, Mapping):
                    inner = yaml_lines(element, indent + "  ")
                    lines += [f"{indent}- {inner[0].lstrip()}", *inner[1:]]
                else:
                    lines.append(f"{indent}- {_scalar(element)}")
        else:
            lines.append(f"{indent}{key}: {'[]' if isinstance(item, list) else _scalar(item)}")
    return lines


def _loading(configs: list[tuple[str, str, str, int]], default: str) -> list[str]:
    lines = [
        "## Loading with Hugging Face datasets",
        "",
        "The data card above describes the whole release; this folder is its `hf/` part, one config per table and "
        "language, each with a single split, `train`. Load a config from this folder, or from the Hub repository "
        "it was pushed to, with the `datasets` library:",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'table = load_dataset("path/to/this/folder", "{default}", split="train")',
        "```",
        "",
        "| Config | Table | Rows | File |",
        "|---|---|---|---|",
        *(f"| `{name}` | {table} | {rows} | `{path}` |" for name, table, path, rows in configs),
    ]
    for table in dict.fromkeys(table for _, table, _, _ in configs):
        keys = ", ".join(f"`{key}`" for key in TABLE_KEYS[table])
        lines += ["", f"### {table}", "", f"{TABLE_DESCRIPTIONS[table]} A row is identified by {keys}.", ""]
        lines += [f"- `{column}`: {text}" for column, text in COLUMN_DESCRIPTIONS[table].items()]
    return lines


def hf_readme(files: Mapping[str, bytes], snapshot: Snapshot, meta: ReleaseMeta) -> bytes:
    """hf/README.md: the front matter, the release's data card (``files[README]``) and how to load each config."""
    snapshot = snapshot.sorted()
    configs = _configs(files)
    matter = front_matter(configs, snapshot, meta)
    default = next((c["config_name"] for c in matter["configs"] if c.get("default")), "")
    text = "\n".join(["---", *yaml_lines(matter), "---", "", files[README].decode("utf-8")])
    return (text + "\n" + "\n".join(_loading(configs, default)) + "\n").encode("utf-8")
