"""The machine-made ratings of a release that opted in: their table, the card's section, datapackage.json, reading back.

Built by hand without a database (the campaigns' answers collected from one: tests/releases/test_machine_ratings.py).
"""

from __future__ import annotations

import dataclasses
import io
import json

import pyarrow.parquet as pq
import pytest

from releases.diff import diff_snapshots
from releases.formats import build_files, read_release, snapshot_from_files
from releases.formats.machine import MACHINE_JSONL, MACHINE_PARQUET, public_identity
from releases.formats.manifest import with_manifest
from releases.snapshot import MachineRating
from tests.releases.formats.test_release_card import same_columns
from tests.releases.formats.test_release_files import write_folder

IDENTITY = {"kind": "causal_lm", "name": "tiny-llama", "weights_sha256": "ab" * 32, "dim": 32000}
SETTINGS = {"temperature": 0.0, "seed": 7, "max_tokens": 200}


def answer(compound: str = "eager beaver", **fields) -> MachineRating:
    defaults = {
        "language": "en",
        "compound": compound,
        "campaign": "demo-token",
        "level": "token",
        "sentence": ("naturalistic", 1),
        "annotator": "tiny-llama · reddy-en · sample 1",
        "model": "tiny-llama",
        "model_kind": "causal_lm",
        "model_identity": IDENTITY,
        "template": "reddy-en",
        "template_version": 2,
        "settings": SETTINGS,
        "sample": 1,
        "head_score": 4,
        "modifier_score": 1,
        "compound_score": 2,
        "expected": (3.812345, 1.2, None),
        "paraphrases": ("keen worker",),
    }
    return MachineRating(**(defaults | fields))


INVALID = {"valid": False, "error": "head: 7 is outside 0-5", "head_score": None, "modifier_score": None}
INVALID |= {"compound_score": None, "expected": (None, None, None), "paraphrases": ()}


@pytest.fixture
def with_machine(release_snapshot):
    answers = (answer(sentence=("naturalistic", 2), **INVALID), answer(), answer(sample=2, annotator="tiny · 2"))
    return dataclasses.replace(release_snapshot, machine_ratings=answers)


def rows(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def test_without_the_opt_in_a_release_has_no_machine_file_word_or_key(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    assert not any("machine" in path for path in files)
    assert "machine" not in files["README.md"].decode().casefold()
    assert "machine_ratings" not in json.loads(files["datapackage.json"])


def test_the_machine_table_has_a_labelled_row_per_answer(with_machine, release_meta):
    files = build_files(with_machine, release_meta)
    table = rows(files[MACHINE_JSONL])
    assert [(r["sentence_id"], r["sample"], r["valid"]) for r in table] == [
        ("naturalistic-1", 1, True),
        ("naturalistic-1", 2, True),
        ("naturalistic-2", 1, False),
    ]
    assert {r["annotator_origin"] for r in table} == {"machine"}
    valid, _, invalid = table
    assert valid["head_expected"] == 3.812345 and valid["compound_expected"] is None
    assert json.loads(valid["model_identity"]) == IDENTITY and json.loads(valid["settings"]) == SETTINGS
    assert (valid["template"], valid["template_version"], valid["paraphrases"]) == ("reddy-en", 2, ["keen worker"])
    assert (invalid["compound_score"], invalid["error"]) == (None, "head: 7 is outside 0-5")
    assert pq.read_table(io.BytesIO(files[MACHINE_PARQUET])).to_pylist() == table


def test_the_human_files_are_the_same_with_the_machine_table(release_snapshot, with_machine, release_meta):
    without = build_files(release_snapshot, release_meta)
    opted = build_files(with_machine, release_meta)
    # The same rows in the Hugging Face layout too (tests/releases/formats/test_hf_layout.py).
    assert set(opted) - set(without) == {MACHINE_JSONL, MACHINE_PARQUET, "hf/machine_ratings/en.parquet"}
    assert {p: d for p, d in opted.items() if p in without and p.endswith((".csv", ".jsonl", ".parquet"))} == {
        p: d for p, d in without.items() if p.endswith((".csv", ".jsonl", ".parquet"))
    }


def test_the_card_says_the_ratings_are_machine_made_and_names_model_template_and_settings(with_machine, release_meta):
    card = build_files(with_machine, release_meta)["README.md"].decode()
    assert "This release also carries MACHINE-MADE ratings" in card.split("## Contents")[0]
    section = card.split("## Machine-made ratings")[1].split("## Files")[0]
    assert "**These are machine-made ratings, not human judgements.**" in section
    assert "they never enter the scores, the classes or the agreement" in section
    assert "3 answers from campaign `demo-token`, 1 of them invalid" in section
    assert (
        "| tiny-llama · reddy-en · sample 1 | `demo-token` | tiny-llama | causal_lm | dim=32000, kind=causal_lm, "
        f"name=tiny-llama, weights_sha256={'ab' * 32} | reddy-en v2 | max_tokens=200, seed=7, temperature=0.0 | 1 "
        "| 2 | 1 |" in section
    )
    assert f"- `{MACHINE_JSONL}`: MACHINE-MADE ratings" in card


def test_an_opt_in_without_answers_says_the_table_is_empty(release_snapshot, release_meta):
    files = build_files(dataclasses.replace(release_snapshot, machine_ratings=()), release_meta)
    assert files[MACHINE_JSONL] == b""
    assert "had given no answer to the released compounds: the table is empty" in files["README.md"].decode()
    assert json.loads(files["datapackage.json"])["machine_ratings"]["answers"] == 0


def test_datapackage_describes_the_machine_table_and_its_annotators(with_machine, release_meta):
    files = build_files(with_machine, release_meta)
    package = json.loads(files["datapackage.json"])
    resources = {r["path"]: r for r in package["resources"]}
    first = rows(files[MACHINE_JSONL])[0]
    assert [f["name"] for f in resources[MACHINE_JSONL]["schema"]["fields"]] == list(first)
    assert same_columns(resources[MACHINE_PARQUET], resources[MACHINE_JSONL])
    assert all(f["type"] and f["description"] for f in resources[MACHINE_JSONL]["schema"]["fields"])
    machine = package["machine_ratings"]
    assert (machine["annotator_origin"], machine["answers"], machine["invalid"]) == ("machine", 3, 1)
    assert [(a["label"], a["answers"], a["invalid"]) for a in machine["annotators"]] == [
        ("tiny-llama · reddy-en · sample 1", 2, 1),
        ("tiny · 2", 1, 0),
    ]


def test_the_machine_ratings_read_back(tmp_path, with_machine, release_meta):
    files = with_manifest(build_files(with_machine, release_meta), release_meta)
    snapshot, _ = read_release(write_folder(tmp_path / "release", files))
    assert snapshot == with_machine.sorted()
    assert build_files(snapshot, release_meta) == build_files(with_machine, release_meta)


def test_a_release_without_the_table_reads_back_without_machine_ratings(release_snapshot, release_meta):
    snapshot, _ = snapshot_from_files(build_files(release_snapshot, release_meta))
    assert snapshot.machine_ratings is None


def test_a_row_that_claims_another_origin_is_refused(with_machine, release_meta):
    files = build_files(with_machine, release_meta)
    files[MACHINE_JSONL] = files[MACHINE_JSONL].replace(b'"annotator_origin":"machine"', b'"annotator_origin":"human"')
    with pytest.raises(ValueError, match=r"tidy/machine_ratings\.jsonl:1: .*'human' is not 'machine'"):
        snapshot_from_files(files)


def test_a_public_identity_has_no_address_or_key():
    served = {
        "kind": "openai_chat",
        "name": "m",
        "base_url": "http://10.0.0.5:8000/v1",
        "revision": "m",
        "api_key": "x",
    }
    assert public_identity(served) == {"kind": "openai_chat", "name": "m", "revision": "m"}
    assert public_identity(None) == {}


def test_a_diff_says_when_the_machine_ratings_differ_and_nothing_else(release_snapshot, with_machine):
    diff = diff_snapshots(release_snapshot, with_machine)
    assert diff["machine_ratings"] == {"old": None, "new": 3, "changed": True}
    assert diff["summary"]["machine_ratings_changed"] is True and diff["summary"]["identical"] is False
    assert all(not diff["summary"][part]["changed"] for part in ("compounds", "sentences", "agreement"))
    assert diff_snapshots(with_machine, with_machine)["summary"]["identical"] is True
