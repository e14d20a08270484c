"""datapackage.json as a Data Package v2: frictionless validates every table of a release, and its bounds bite.

A release folder is written from ``build_files`` and validated by frictionless itself (the peer: it reads
every CSV, JSON Lines and Parquet table against its schema). Releases made before v2 keep their v1
datapackage.json in the database: ``datapackage_v1.json`` beside this file is one, as the code wrote it
then (its resources cut to three and their schemas left out: nothing reads them back).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import frictionless
import pytest

from datasets import vocabulary
from releases.formats import build_files
from releases.formats.datapackage import DATAPACKAGE_V2, snapshot_parts
from releases.formats.manifest import with_manifest
from releases.formats.meta import Creator, ReleaseMeta, meta_from_datapackage
from releases.snapshot import Agreement, CampaignSource, LanguageSource, ScoreInfo
from tests.releases.formats.test_machine_ratings_files import INVALID, answer
from tests.releases.formats.test_release_files import write_folder

V1_FILE = Path(__file__).with_name("datapackage_v1.json")
TABLE_SUFFIXES = (".csv", ".jsonl", ".parquet")


def with_machine_ratings(snapshot):
    answers = (answer(sentence=("naturalistic", 2), **INVALID), answer(), answer(sample=2, annotator="tiny · 2"))
    return dataclasses.replace(snapshot, machine_ratings=answers)


def reference_only(snapshot):
    """No campaign, no agreement, no machine-made ratings: the scores the compounds were imported with."""
    return dataclasses.replace(snapshot, scores=ScoreInfo(source="reference"), agreement=())


def validate(tmp_path, snapshot, meta) -> tuple[frictionless.Report, dict]:
    files = with_manifest(build_files(snapshot, meta), meta)
    folder = write_folder(tmp_path / "release", files)
    return frictionless.validate(str(folder / "datapackage.json")), json.loads(files["datapackage.json"])


def package_of(snapshot, meta) -> dict:
    return json.loads(build_files(snapshot, meta)["datapackage.json"])


def fields_of(package: dict, path: str) -> dict[str, dict]:
    resource = next(r for r in package["resources"] if r["path"] == path)
    return {f["name"]: f for f in resource["schema"]["fields"]}


def errors_by_resource(report: frictionless.Report) -> dict[str, set[tuple[str, str]]]:
    return {
        task.name: {(error.type, getattr(error, "field_name", "")) for error in task.errors}
        for task in report.tasks
        if not task.valid
    }


@pytest.mark.parametrize("variant", [with_machine_ratings, reference_only], ids=["campaigns+machine", "reference"])
def test_frictionless_validates_every_table_of_a_release(tmp_path, release_snapshot, release_meta, variant):
    report, package = validate(tmp_path, variant(release_snapshot), release_meta)

    assert report.valid, report.flatten(["taskNumber", "type", "fieldName", "note"])
    tables = {r["name"]: r for r in package["resources"] if r.get("type") == "table"}
    data_files = {r["name"] for r in package["resources"] if r["path"].endswith(TABLE_SUFFIXES)}
    assert set(tables) == data_files
    assert any(r["format"] == "parquet" for r in tables.values())
    table_tasks = [task for task in report.tasks if task.type == "table"]
    assert len(table_tasks) == len(tables)
    assert len(report.tasks) == len(package["resources"])
    for task in table_tasks:
        # Read against the declared schema, not one frictionless guessed.
        assert task.stats["fields"] == len(tables[task.name]["schema"]["fields"]), task.name
    machine_tables = {name for name in tables if "machine_ratings" in name}
    assert bool(machine_tables) == (variant is with_machine_ratings)


def test_the_descriptor_is_a_data_package_v2_that_v1_readers_still_read(release_snapshot, release_meta):
    creator = Creator("Jane Doe", "Univ", "0000-0002-1825-0097")
    meta = dataclasses.replace(release_meta, creators=(creator,), doi="10.5281/zenodo.1234567", url="https://x.org/1")
    package = package_of(release_snapshot, meta)

    assert next(iter(package)) == "$schema"
    assert package["$schema"] == DATAPACKAGE_V2 == "https://datapackage.org/profiles/2.0/datapackage.json"
    assert "profile" not in package
    assert (package["id"], package["homepage"]) == ("https://doi.org/10.5281/zenodo.1234567", "https://x.org/1")
    assert package["contributors"][0]["roles"] == ["creator"] and "English" in package["keywords"]
    resources = {r["path"]: r for r in package["resources"]}
    for path, resource in resources.items():
        assert "$schema" not in resource and "$schema" not in resource.get("schema", {})
        if path.endswith(".csv"):
            assert (resource["type"], resource["profile"]) == ("table", "tabular-data-resource")
        elif path.endswith((".jsonl", ".parquet")):
            assert resource["type"] == "table" and "profile" not in resource
        else:
            assert "type" not in resource and "profile" not in resource
    assert "bytes" not in resources["tidy/pairs.parquet"] and resources["tidy/pairs.jsonl"]["bytes"]


def test_the_scales_and_classes_are_ordered_categories_and_the_means_are_bounded(release_snapshot, release_meta):
    package = package_of(with_machine_ratings(release_snapshot), release_meta)

    for path in ("tidy/machine_ratings.jsonl", "tidy/machine_ratings.parquet"):
        answer_field = fields_of(package, path)["compound_score"]
        assert answer_field["type"] == "integer" and answer_field["categoriesOrdered"] is True
        assert [c["value"] for c in answer_field["categories"]] == [0, 1, 2, 3, 4, 5]
        assert answer_field["categories"][0]["label"] == "not literal at all"
        assert answer_field["constraints"] == {"minimum": 0, "maximum": 5}
        expected = fields_of(package, path)["compound_expected"]
        assert "categories" not in expected and expected["constraints"] == {"minimum": 0, "maximum": 5}
    for path in ("tidy/pairs.jsonl", "tidy/pairs.parquet", "tidy/compounds.jsonl", "hf/compounds/en.parquet"):
        fields = fields_of(package, path)
        classes = fields["compositionality_class"]
        assert classes["categoriesOrdered"] is True
        assert [c["value"] for c in classes["categories"]] == list(vocabulary.CLASSES)
        assert classes["constraints"] == {"enum": list(vocabulary.CLASSES)}
        # A mean of 0-5 answers is a float: bounded, not a category.
        assert fields["type_score"]["type"] == "number" and "categories" not in fields["type_score"]
        assert fields["type_score"]["constraints"] == {"minimum": 0, "maximum": 5}
    scores = fields_of(package, "human_compositionality_scores.csv")
    for name in ("ClassType", "ClassToken"):
        assert [c["value"] for c in scores[name]["categories"]] == ["NC", "PC", "C"]
        assert scores[name]["categoriesOrdered"] is True
    assert scores["CompositionalityTokenSents"]["constraints"] == {"minimum": 0, "maximum": 5}
    assert fields_of(package, "tidy/pairs.jsonl")["rank"]["constraints"] == {"minimum": 1}


def test_frictionless_reports_a_score_off_the_scale_and_an_unknown_class(tmp_path, release_snapshot, release_meta):
    english = next(c for c in release_snapshot.compounds if c.language == "en")
    broken = dataclasses.replace(english, compositionality_class="half_idiomatic", type_score=7.0)
    compounds = tuple(broken if c is english else c for c in release_snapshot.compounds)
    snapshot = dataclasses.replace(release_snapshot, compounds=compounds, machine_ratings=(answer(head_score=7),))

    report, _ = validate(tmp_path, snapshot, release_meta)

    assert not report.valid
    wrong = {("constraint-error", "compositionality_class"), ("constraint-error", "type_score")}
    assert errors_by_resource(report) == {
        "human_compositionality_scores.csv": {("constraint-error", "CompositionalityType")},
        "hf-scores-en.parquet": {("constraint-error", "CompositionalityType")},
        "tidy-compounds.jsonl": wrong,
        "tidy-pairs.jsonl": wrong,
        "tidy-pairs.parquet": wrong,
        "hf-compounds-en.parquet": wrong,
        "hf-pairs-en.parquet": wrong,
        "tidy-machine_ratings.jsonl": {("constraint-error", "head_score")},
        "tidy-machine_ratings.parquet": {("constraint-error", "head_score")},
        "hf-machine_ratings-en.parquet": {("constraint-error", "head_score")},
    }


# What datapackage_v1.json records, written out (the fixtures have grown since it was written).
V1_META = ReleaseMeta(
    version="1.2.0",
    title="Idiomaticity probes",
    description="Minimal pairs for probing idiomaticity.",
    licence="CC-BY-4.0",
    citation="Doe, J. (2025). Idiomaticity probes 1.2.0.",
    created="2025-03-01",
    code_version="abc1234",
    creators=(Creator("Jane Doe", "Univ", "0000-0002-1825-0097"),),
    url="https://example.org/releases/1.2.0/",
    doi="10.5281/zenodo.1234567",
    intended_use="Probing.",
)
V1_SCORES = ScoreInfo(
    source="campaign",
    campaigns=("demo-token",),
    policy={"name": "attention-checks", "min_pass_rate": 0.8, "drop_straightliners": True},
    aggregation="mean",
    languages=(
        LanguageSource(
            "en",
            ("import_nctti",),
            (CampaignSource("demo-token", "token", 3, 0, 320, (("pid-9", "speeder (median 0.5 s per item < 3 s)"),)),),
        ),
        LanguageSource("pt", ("import_ncimp",)),
    ),
)
V1_AGREEMENT = (
    Agreement("en", "compound", "interval", 0.612, 0.55, 0.67, 40, 320, "campaign demo-token"),
    Agreement("pt", "compound", "interval", None, None, None, 1, 2, "campaign demo-token"),
)


def test_a_v1_datapackage_of_an_older_release_reads_as_its_v2_successor(release_snapshot):
    v1 = {"datapackage.json": V1_FILE.read_bytes()}
    assert json.loads(v1["datapackage.json"])["profile"] == "data-package"
    same = dataclasses.replace(release_snapshot, languages=("en", "pt"), scores=V1_SCORES, agreement=V1_AGREEMENT)
    v2 = {"datapackage.json": build_files(same, V1_META)["datapackage.json"]}

    assert meta_from_datapackage(v1) == meta_from_datapackage(v2) == V1_META
    languages, scores, agreement = snapshot_parts(v1)
    assert (languages, scores, agreement) == snapshot_parts(v2) == (("en", "pt"), V1_SCORES, V1_AGREEMENT)
    assert scores.policy == V1_SCORES.policy
