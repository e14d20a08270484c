"""The data card, datapackage.json and the human scores table of a release."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json

from datasets.formats.ncimp_columns import SCORES_COLUMNS
from releases.formats import build_files
from releases.formats.datapackage import snapshot_parts
from releases.formats.scores import length_cell, overlap_cell
from releases.snapshot import CampaignSource, ScoreInfo


def table(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


def same_columns(parquet: dict, jsonl: dict) -> bool:
    """A Parquet table's resource describes its JSON Lines twin's columns, as frictionless reads Parquet.

    That is: a list column is ``any`` (frictionless hands it over as a numpy array), and a nullable number
    counts NaN as missing (pandas' null of a number); releases.formats.table_schema says why.
    """

    def as_jsonl(field: dict) -> dict:
        field = {key: value for key, value in field.items() if key != "missingValues"}
        return {**field, "type": "array"} if field["type"] == "any" else field

    return [as_jsonl(f) for f in parquet["schema"]["fields"]] == jsonl["schema"]["fields"]


def test_the_card_says_what_is_in_the_release(release_snapshot, release_meta):
    card = build_files(release_snapshot, release_meta)["README.md"].decode()
    assert card.startswith("# Idiomaticity probes\n\nVersion 1.2.0, created 2025-03-01, built by workbench abc1234.")
    assert "| English (en) | 1 | 1 | 0 | 0 | 0 | 5 | 19 |" in card
    assert "| Portuguese (pt) | 1 | 0 | 0 | 1 | 0 | 3 | 7 |" in card
    assert "| `random_freq` | 4 | 1 |" in card
    assert "| en | compound | interval | 0.612 | [0.550, 0.670] | 40 | 320 | campaign demo-token |" in card
    assert "Filtering policy: `attention-checks` (drop_straightliners=True, min_pass_rate=0.8)." in card
    assert (
        "- English (en): campaign `demo-token` (token level): 320 ratings by 3 people; left out: annotator 4: speeder "
        "(median 0.5 s per item < 3 s); aggregated (mean); compounds no campaign rated keep their reference scores "
        "imported with NCTTI (Garcia et al. 2021, ACL)." in card
    )
    assert (
        "- Portuguese (pt): reference scores imported with NCIMP (He et al. 2024) "
        "(no campaign of this release rated it)." in card
    )
    assert "SIMULATED" not in card and "includes simulated ratings" not in card
    assert "Creative Commons Attribution 4.0 (`CC-BY-4.0`)" in card
    assert "Doe, J. (2025). Idiomaticity probes 1.2.0." in card
    assert "sha256sum -c" in card
    assert "## Normalisations" in card
    for path in ("EN/neutral.csv", "tidy/pairs.parquet", "human_compositionality_scores.csv", "manifest.json"):
        assert f"- `{path}`: " in card


def test_reference_scores_get_a_sentence_instead_of_agreement(release_snapshot, release_meta):
    reference = dataclasses.replace(release_snapshot, scores=ScoreInfo(source="reference"), agreement=())
    card = build_files(reference, release_meta)["README.md"].decode()
    assert "reference scores with no ratings behind them here, so no agreement was computed" in card
    assert "Filtering policy: none" in card


def test_datapackage_describes_every_file_and_column(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    package = json.loads(files["datapackage.json"])
    assert package["$schema"] == "https://datapackage.org/profiles/2.0/datapackage.json"
    assert (package["name"], package["version"], package["created"]) == (
        "idiomaticity-probes",
        "1.2.0",
        "2025-03-01T00:00:00Z",
    )
    assert package["licenses"][0]["name"] == "CC-BY-4.0"
    resources = {r["path"]: r for r in package["resources"]}
    assert set(resources) == set(files) - {"datapackage.json", "croissant.json"}  # croissant.json lists it
    for path, resource in resources.items():
        # frictionless counts no bytes of a Parquet file: its size is in manifest.json (datapackage.resource).
        assert resource.get("bytes") == (None if path.endswith(".parquet") else len(files[path]))
        assert resource["hash"] == "sha256:" + hashlib.sha256(files[path]).hexdigest()
        assert resource["format"] and resource["mediatype"] and resource["description"]
    for path in [p for p in files if p.endswith(".csv")]:
        header = next(csv.reader(io.StringIO(files[path].decode())))
        fields = resources[path]["schema"]["fields"]
        assert [f["name"] for f in fields] == header
        assert all(f["type"] and f["description"] for f in fields)
    first_pair = json.loads(files["tidy/pairs.jsonl"].decode().splitlines()[0])
    assert [f["name"] for f in resources["tidy/pairs.jsonl"]["schema"]["fields"]] == list(first_pair)
    assert same_columns(resources["tidy/pairs.parquet"], resources["tidy/pairs.jsonl"])
    first_compound = json.loads(files["tidy/compounds.jsonl"].decode().splitlines()[0])
    assert [f["name"] for f in resources["tidy/compounds.jsonl"]["schema"]["fields"]] == list(first_compound)
    tags = [f for f in resources["EN/neutral.csv"]["schema"]["fields"] if f["name"] == "head only plural_tag"]
    assert "booleans over its whitespace tokens" in tags[0]["description"]


def test_the_scores_table_has_the_public_columns_and_a_row_per_file(release_snapshot, release_meta):
    rows = table(build_files(release_snapshot, release_meta)["human_compositionality_scores.csv"])
    assert list(rows[0]) == list(SCORES_COLUMNS)
    assert list(SCORES_COLUMNS) == [
        "language",
        "experiment_type",
        "file",
        "compound",
        "ClassType",
        "ClassToken",
        "CompositionalityType",
        "CompositionalityToken",
        "CompositionalityTokenSents",
        "MWE Synonym Overlap",
        "naturalistics_sentence_length",
        "Type",
    ]
    assert [(r["language"], r["file"]) for r in rows] == [
        ("en", "EN/naturalistics_examplesent1.csv"),
        ("en", "EN/naturalistics_examplesent2.csv"),
        ("en", "EN/naturalistics_examplesent3.csv"),
        ("en", "EN/neutral.csv"),
        ("pt", "PT/naturalistics_examplesent1.csv"),
        ("pt", "PT/naturalistics_examplesent2.csv"),
        ("pt", "PT/naturalistics_examplesent3.csv"),
        ("pt", "PT/neutral.csv"),
    ]
    first, second, third, neutral = rows[:4]
    assert first["ClassType"] == "NC" and first["ClassToken"] == "NC"
    assert (first["CompositionalityType"], first["CompositionalityToken"]) == ("1.2346", "1.0")
    assert first["CompositionalityTokenSents"] == "1.15"
    assert first["naturalistics_sentence_length"] == "10"  # the comma and the full stop do not count
    assert first["MWE Synonym Overlap"] == "0"
    assert (first["experiment_type"], first["Type"]) == ("Naturalistic", "EN-Nat")
    assert second["CompositionalityToken"] == "1.3"
    assert (third["CompositionalityToken"], third["naturalistics_sentence_length"]) == ("", "")
    assert (neutral["experiment_type"], neutral["Type"], neutral["naturalistics_sentence_length"]) == (
        "Neutral",
        "EN-Neut",
        "0",
    )
    assert neutral["CompositionalityToken"] == neutral["CompositionalityTokenSents"]
    pt = rows[6]
    # A sentence's token score keeps the public table's 15 significant digits; compound scores have 4 decimals.
    assert (pt["ClassType"], pt["ClassToken"], pt["CompositionalityToken"]) == ("C", "", "4.33333333333333")
    assert pt["MWE Synonym Overlap"] == "0"


def test_synonym_overlap_counts_shared_words_unless_a_published_value_is_stored(release_snapshot):
    beaver = next(c for c in release_snapshot.compounds if c.language == "en")
    assert overlap_cell(dataclasses.replace(beaver, gold_synonym="Busy-Beaver")) == "1"
    assert overlap_cell(dataclasses.replace(beaver, gold_synonym="eager beavers")) == "1"  # "beavers" is not "beaver"
    assert overlap_cell(beaver) == "0"
    assert overlap_cell(dataclasses.replace(beaver, gold_synonym="")) == ""
    assert overlap_cell(dataclasses.replace(beaver, gold_synonym="", synonym_overlap=2)) == "2"
    assert overlap_cell(dataclasses.replace(beaver, gold_synonym="Busy-Beaver", synonym_overlap=0)) == "0"


def test_sentence_length_is_the_published_one_when_stored(release_snapshot):
    sentence = release_snapshot.compounds[0].sentences[0]
    assert length_cell(sentence) == "10"
    assert length_cell(dataclasses.replace(sentence, length=12)) == "12"
    assert length_cell(None) == ""


def with_campaign(snapshot, campaign: CampaignSource):
    en, pt = snapshot.scores.languages
    scores = dataclasses.replace(snapshot.scores, languages=(dataclasses.replace(en, campaigns=(campaign,)), pt))
    return dataclasses.replace(snapshot, scores=scores)


def test_a_release_with_simulated_ratings_says_so_in_its_title_and_first_paragraph(release_snapshot, release_meta):
    simulated = with_campaign(release_snapshot, CampaignSource("demo-token", "token", 0, 6, 207))
    card = build_files(simulated, release_meta)["README.md"].decode()
    title, _, version, _, first = card.splitlines()[:5]
    assert title == "# Idiomaticity probes (includes simulated ratings)"
    assert first.startswith("This release includes SIMULATED ratings")
    assert "207 ratings by 6 SIMULATED annotators (demo data, not people)" in card
    package = json.loads(build_files(simulated, release_meta)["datapackage.json"])
    assert package["scores"]["simulated"] is True
    assert "SIMULATED annotators" in package["scores"]["languages"][0]["in_words"]


def test_a_campaign_whose_workers_were_all_left_out_contributed_nothing(release_snapshot, release_meta):
    excluded = (("w1", "speeder (median 0.4 s per item < 3 s)"), ("w2", "speeder (median 0.6 s per item < 3 s)"))
    nothing = with_campaign(release_snapshot, CampaignSource("demo-token", "token", 0, 0, 0, excluded))
    card = build_files(nothing, release_meta)["README.md"].decode()
    assert (
        "- English (en): campaign `demo-token` (token level) contributed nothing: every worker was left out "
        "(w1: speeder (median 0.4 s per item < 3 s); w2: speeder (median 0.6 s per item < 3 s)); its scores are "
        "the reference scores imported with NCTTI (Garcia et al. 2021, ACL)." in card
    )


def test_the_sources_survive_the_datapackage(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    _, info, _ = snapshot_parts(files)
    assert info.languages == release_snapshot.scores.languages
