"""The Hugging Face layout of a release (hf/): every config loads with ``datasets`` as the release's own tables hold
the data, its dataset card's YAML says what the Hub needs, and the same data gives the same bytes.

Hugging Face's ``datasets`` runs in a subprocess (``tests/peers.py``): inside pytest the workbench's own
``datasets`` app shadows it.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from datasets.formats.ncimp_columns import SCORES_COLUMNS, SCORES_FILE
from datasets.overlap import synonym_overlap
from releases.formats import build_files
from releases.formats.datapackage import describe_file
from releases.formats.hf import (
    COLUMN_DESCRIPTIONS,
    HF_README,
    TABLE_DESCRIPTIONS,
    TABLE_KEYS,
    TABLES,
    hf_data_files,
    hf_folder,
    hf_table_paths,
    size_category,
)
from releases.formats.hf_tables import table_rows, table_schema
from releases.formats.machine import MACHINE_PARQUET
from releases.formats.tidy import COMPOUNDS_JSONL, PAIRS_PARQUET
from releases.snapshot import CampaignSource, LanguageSource, ScoreInfo, Snapshot, word_count
from tests.peers import run_peer
from tests.releases.formats.conftest import eager_beaver
from tests.releases.formats.test_machine_ratings_files import INVALID, answer

LOADER = r"""
import json, re, sys
import datasets

folder = sys.argv[1]
out = {}
for name in datasets.get_dataset_config_names(folder):
    table = datasets.load_dataset(folder, name, split="train")
    out[name] = {
        "types": {f.name: re.sub(r"list<(item|element): ", "list<", str(f.type)) for f in table.data.schema},
        "rows": table.to_list(),
    }
default = datasets.load_dataset(folder, split="train")
out["(default)"] = {"config": default.info.config_name, "rows": default.num_rows}
print(json.dumps(out))
"""


def load_every_config(folder: Path, tmp_path: Path) -> dict:
    """What Hugging Face's ``datasets`` loads from ``folder``: config → {types, rows}, and "(default)"."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf-cache"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    done = run_peer(LOADER, str(folder), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def write_hf(folder: Path, files: dict[str, bytes]) -> Path:
    for path, data in hf_folder(files).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    return folder


def front_matter(files: dict[str, bytes]) -> dict:
    text = files[HF_README].decode("utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.fixture
def with_machine(release_snapshot) -> Snapshot:
    answers = (answer(sentence=("naturalistic", 2), **INVALID), answer(), answer(sample=2, annotator="tiny · 2"))
    return dataclasses.replace(release_snapshot, machine_ratings=answers)


# What the release's own tables hold, per language, as a reader of each one types it.
STRING, DOUBLE, INT = "string", "double", "int32"
NUMBERS = ("type_score", "token_score", "head_score", "modifier_score", "frequency", "modifier_frequency")
NUMBERS += ("head_frequency", "pmi", "ppmi")
PARAPHRASES = "list<struct<level: string, slot: int32, text: string, frequency: int32>>"


def parquet_table(files: dict[str, bytes], path: str, language: str) -> tuple[dict, list[dict]]:
    table = pq.read_table(io.BytesIO(files[path]))
    types = {f.name: re.sub(r"list<(item|element): ", "list<", str(f.type)) for f in table.schema}
    return types, [row for row in table.to_pylist() if row["language"] == language]


def compounds_table(files: dict[str, bytes], language: str) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in files[COMPOUNDS_JSONL].decode().splitlines()]
    rows = []
    for c in lines:
        if c["language"] == language:
            row = {"compound": c["text"], **{k: v for k, v in c.items() if k not in ("text", "sentences")}}
            if row["synonym_overlap"] is None:
                row["synonym_overlap"] = synonym_overlap(c["text"], c["gold_synonym"])
            rows.append(row)
    types = {name: DOUBLE if name in NUMBERS else STRING for name in rows[0]}
    return types | {"synonym_overlap": INT, "paraphrases": PARAPHRASES}, rows


def sentences_table(files: dict[str, bytes], language: str) -> tuple[dict, list[dict]]:
    rows = []
    for c in (json.loads(line) for line in files[COMPOUNDS_JSONL].decode().splitlines()):
        for s in c["sentences"] if c["language"] == language else []:
            span = s["span"] or [None, None]
            rows.append(
                {
                    **{"language": language, "compound": c["text"], "sentence_id": s["id"], "kind": s["kind"]},
                    **{"slot": s["slot"], "text": s["text"], "span_start": span[0], "span_end": span[1]},
                    **{"plural": s["plural"], "token_score": s["token_score"]},
                    "length": s["length"] if s["length"] is not None else word_count(s["text"]),
                }
            )
    types = {name: STRING for name in rows[0]} | {"slot": INT, "span_start": INT, "span_end": INT}
    return types | {"plural": "bool", "token_score": DOUBLE, "length": INT}, rows


def scores_table(files: dict[str, bytes], language: str) -> tuple[dict, list[dict]]:
    kinds = {name: kind for name, (kind, _) in SCORES_COLUMNS.items()}
    cast = {"number": float, "integer": int, "string": str}
    rows = [
        {name: None if cell == "" else cast[kinds[name]](cell) for name, cell in row.items()}
        for row in csv.DictReader(io.StringIO(files[SCORES_FILE].decode("utf-8")))
        if row["language"] == language
    ]
    return {name: {"number": DOUBLE, "integer": INT, "string": STRING}[kind] for name, kind in kinds.items()}, rows


def release_table(files: dict[str, bytes], table: str, language: str) -> tuple[dict, list[dict]]:
    """(column types, rows) of ``table`` in ``language`` as the release's own files give them."""
    if table == "pairs":
        return parquet_table(files, PAIRS_PARQUET, language)
    if table == "machine_ratings":
        return parquet_table(files, MACHINE_PARQUET, language)
    return {"compounds": compounds_table, "sentences": sentences_table, "scores": scores_table}[table](files, language)


def test_every_config_loads_with_hugging_face_datasets_as_the_release_tables_hold_it(
    tmp_path, with_machine, release_meta
):
    files = build_files(with_machine, release_meta)
    loaded = load_every_config(write_hf(tmp_path / "hf", files), tmp_path)

    default = loaded.pop("(default)")
    assert default == {"config": "pairs-en", "rows": len(loaded["pairs-en"]["rows"])}
    expected_configs = {f"{t}-{lang}" for t in TABLES for lang in ("en", "pt")} - {"machine_ratings-pt"}
    assert set(loaded) == expected_configs
    for name, got in loaded.items():
        table, language = name.rsplit("-", 1)
        types, rows = release_table(files, table, language)
        assert got["rows"] == rows, name
        assert got["types"] == types, name
        assert list(got["types"]) == list(COLUMN_DESCRIPTIONS[table]), name
    assert len(loaded["pairs-en"]["rows"]) == 19 and len(loaded["scores-pt"]["rows"]) == 4
    assert [row["sentence_id"] for row in loaded["sentences-en"]["rows"]] == [
        "naturalistic-1",
        "naturalistic-2",
        "neutral_long-1",
        "neutral_short-1",
        "neutral_short-2",
    ]


def test_the_yaml_header_names_every_config_with_its_file_and_what_the_hub_asks(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    header = front_matter(files)
    folder = hf_folder(files)

    names = [c["config_name"] for c in header["configs"]]
    paths = {path for table_paths in hf_table_paths(files).values() for path in table_paths}
    assert sorted(names) == sorted(f"{p.split('/')[1]}-{p.split('/')[2].removesuffix('.parquet')}" for p in paths)
    assert len(names) == 8 and "machine_ratings-en" not in names
    for config in header["configs"]:
        assert config["data_files"] == [{"split": "train", "path": config["data_files"][0]["path"]}]
        assert config["data_files"][0]["path"] in folder
    assert [c["config_name"] for c in header["configs"] if c.get("default")] == ["pairs-en"]
    assert header["license"] == "cc-by-4.0" and "license_name" not in header
    assert header["language"] == ["en", "pt"] and header["multilinguality"] == ["multilingual"]
    assert header["pretty_name"] == "Idiomaticity probes"
    assert header["size_categories"] == ["n<1K"]
    assert header["task_categories"] == ["text-classification", "sentence-similarity"]
    assert header["source_datasets"] == ["extended"]
    assert header["language_creators"] == ["expert-generated", "found", "machine-generated"]
    card = files["README.md"].decode("utf-8")
    body = files[HF_README].decode("utf-8").split("---\n", 2)[2]
    assert body.startswith("\n" + card) and 'load_dataset("path/to/this/folder", "pairs-en", split="train")' in body
    assert "| `scores-pt` | scores | 4 | `scores/pt.parquet` |" in body


@pytest.mark.parametrize(
    ("licence", "expected"),
    [
        ("CC-BY-SA-4.0", {"license": "cc-by-sa-4.0"}),
        ("CC0-1.0", {"license": "cc0-1.0"}),
        ("ODC-BY-1.0", {"license": "odc-by"}),
        (
            "LicenseRef-Our Terms",
            {"license": "other", "license_name": "licenseref-our-terms", "license_link": "README.md"},
        ),
    ],
)
def test_the_licence_is_the_hubs_id_or_other_with_its_name(release_snapshot, release_meta, licence, expected):
    header = front_matter(build_files(release_snapshot, dataclasses.replace(release_meta, licence=licence)))
    assert {key: header[key] for key in ("license", "license_name", "license_link") if key in header} == expected


def test_the_size_category_is_the_hubs_bucket_of_the_largest_table(release_meta):
    assert [size_category(n) for n in (0, 999, 1000, 9999, 10_000, 123_456, 10**9, 10**12)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "1K<n<10K",
        "10K<n<100K",
        "100K<n<1M",
        "1B<n<10B",
        "n>1T",
    ]
    # 60 compounds, but 60 × 19 = 1140 pairs: the largest table decides.
    compounds = tuple(dataclasses.replace(eager_beaver(), text=f"eager beaver {n}") for n in range(60))
    snapshot = Snapshot(languages=("en",), compounds=compounds, scores=ScoreInfo(source="reference"))
    header = front_matter(build_files(snapshot, release_meta))
    assert header["size_categories"] == ["1K<n<10K"]
    assert header["language"] == ["en"] and header["multilinguality"] == ["monolingual"]


def campaign(platforms: tuple[str, ...], people: int = 3, simulated: int = 0) -> CampaignSource:
    return CampaignSource("demo-token", "token", people, simulated, 320, platforms=platforms)


@pytest.mark.parametrize(
    ("languages", "expected"),
    [
        # Reference scores only, as imported with a published dataset.
        ((LanguageSource("en", ("import_nctti",)), LanguageSource("pt", ("import_ncimp",))), ["found"]),
        # A crowd campaign rated every compound of a dataset made in the workbench.
        ((LanguageSource("en", (), (campaign(("prolific", "local")),)),), ["crowdsourced"]),
        # Local accounts only; the compounds no campaign rated keep their imported scores.
        ((LanguageSource("en", ("import_nctti",), (campaign(("local",)),)),), ["expert-generated", "found"]),
        # Simulated annotators are the workbench's demo data, not people.
        ((LanguageSource("en", (), (campaign((), people=0, simulated=4),)),), ["machine-generated"]),
    ],
)
def test_annotations_creators_say_who_made_the_scores(release_snapshot, release_meta, languages, expected):
    source = "campaign" if any(language.campaigns for language in languages) else "reference"
    snapshot = dataclasses.replace(release_snapshot, scores=ScoreInfo(source=source, languages=languages))
    assert front_matter(build_files(snapshot, release_meta))["annotations_creators"] == expected


def test_machine_made_ratings_make_machine_generated_annotations(with_machine, release_meta):
    assert "machine-generated" in front_matter(build_files(with_machine, release_meta))["annotations_creators"]


def test_the_same_snapshot_gives_the_same_bytes_and_the_parquet_files_carry_no_metadata(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    shuffled = dataclasses.replace(
        release_snapshot,
        compounds=tuple(
            dataclasses.replace(c, sentences=c.sentences[::-1], paraphrases=c.paraphrases[::-1])
            for c in release_snapshot.compounds[::-1]
        ),
    )
    hf = {path: data for path, data in files.items() if path.startswith("hf/")}
    assert hf == {path: data for path, data in build_files(shuffled, release_meta).items() if path.startswith("hf/")}
    assert hf_data_files(shuffled) == hf_data_files(release_snapshot) == {p: hf[p] for p in hf if p != HF_README}
    later = build_files(release_snapshot, dataclasses.replace(release_meta, version="2.0.0", created="2026-01-01"))
    assert {p: d for p, d in later.items() if p.endswith(".parquet")} == {
        p: d for p, d in files.items() if p.endswith(".parquet")
    }
    assert later[HF_README] != files[HF_README]
    for path in hf_table_paths(files)["pairs"]:
        assert pq.read_metadata(io.BytesIO(files[path])).metadata is None
        assert pq.read_metadata(io.BytesIO(files[path])).num_row_groups == 1


def test_only_a_release_with_machine_ratings_has_machine_ratings_configs(release_snapshot, with_machine, release_meta):
    assert "machine_ratings" not in hf_table_paths(build_files(release_snapshot, release_meta))
    assert hf_table_paths(build_files(with_machine, release_meta))["machine_ratings"] == [
        "hf/machine_ratings/en.parquet"
    ]
    # Opted in without answers: nothing to load (datasets cannot load an empty split), so no config.
    empty = dataclasses.replace(release_snapshot, machine_ratings=())
    assert "machine_ratings" not in hf_table_paths(build_files(empty, release_meta))


def test_every_column_of_every_table_is_described_and_every_key_names_one_row(with_machine):
    tables = table_rows(with_machine)
    assert set(tables) == set(TABLES) == set(TABLE_DESCRIPTIONS) == set(TABLE_KEYS) == set(COLUMN_DESCRIPTIONS)
    for table, rows in tables.items():
        names = table_schema(table).names
        assert names == list(COLUMN_DESCRIPTIONS[table]) == list(rows[0]), table
        assert all(text.strip() for text in COLUMN_DESCRIPTIONS[table].values()), table
        assert set(TABLE_KEYS[table]) <= set(names), table
        keys = [tuple(row[name] for name in TABLE_KEYS[table]) for row in rows]
        assert len(set(keys)) == len(keys), table


def test_datapackage_and_the_card_describe_the_hf_files(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    for path in (p for p in files if p.startswith("hf/")):
        assert describe_file(path), path
    assert describe_file("hf/pairs/pt.parquet").startswith("Hugging Face config pairs-pt (Portuguese, Parquet)")
    described = {r["path"]: r["description"] for r in json.loads(files["datapackage.json"])["resources"]}
    hf_paths = [f"hf/{path}" for path in hf_folder(files)]
    assert len(hf_paths) == 9 and all(described.get(path) for path in hf_paths)
    card = files["README.md"].decode("utf-8")
    assert "- `hf/pairs/en.parquet`: Hugging Face config pairs-en (English, Parquet)" in card


def test_any_title_reads_back_from_the_yaml_as_it_was_written(release_snapshot, release_meta):
    title = 'Idioms: "quoted", # not a comment — ação\u2028line 🙂 \x7f\x9f \\ end'
    header = front_matter(build_files(release_snapshot, dataclasses.replace(release_meta, title=title)))
    assert header["pretty_name"] == title
