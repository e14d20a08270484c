"""CITATION.cff and the Zenodo deposit metadata of a release, and the metadata they are written from."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml

from releases.formats import build_files, read_release
from releases.formats.deposit import CITATION_CFF, NO_CREATORS, PAPERS, ZENODO_JSON, citation_cff, zenodo_metadata
from releases.formats.manifest import with_manifest
from releases.formats.meta import Creator, normalise_doi
from releases.snapshot import CampaignSource
from tests.releases.formats.test_release_card import with_campaign
from tests.releases.formats.test_release_files import write_folder


def cff(snapshot, meta) -> dict:
    return yaml.safe_load(citation_cff(snapshot, meta))


def test_citation_cff_names_the_release_its_authors_and_the_papers(release_snapshot, release_meta):
    document = cff(release_snapshot, release_meta)
    assert document["cff-version"] == "1.2.0"
    assert document["type"] == "dataset"
    assert (document["title"], document["version"], document["date-released"]) == (
        "Idiomaticity probes",
        "1.2.0",
        "2025-03-01",
    )
    assert document["license"] == "CC-BY-4.0"
    assert document["url"] == "https://workbench.example.org/releases/1.2.0/"
    assert document["authors"] == [
        {
            "family-names": "Doe",
            "given-names": "Jane",
            "affiliation": "University of Sheffield",
            "orcid": "https://orcid.org/0000-0002-1825-0097",
        },
        {"family-names": "Sousa", "given-names": "Ana"},
    ]
    assert "doi" not in document  # none entered yet
    assert "English" in document["keywords"] and "Portuguese" in document["keywords"]
    dois = [reference.get("doi") for reference in document["references"]]
    assert "10.18653/v1/2021.acl-long.212" in dois


def test_the_deposit_names_the_doi_once_entered_and_the_version_before_it(release_snapshot, release_meta):
    meta = release_meta.with_doi("https://doi.org/10.5281/zenodo.777", previous_doi="10.5281/zenodo.555")
    assert cff(release_snapshot, meta)["doi"] == "10.5281/zenodo.777"
    metadata = zenodo_metadata(release_snapshot, meta)
    assert metadata["doi"] == "10.5281/zenodo.777"
    assert metadata["related_identifiers"][0] == {
        "identifier": "10.5281/zenodo.555",
        "relation": "isNewVersionOf",
        "resource_type": "dataset",
        "scheme": "doi",
    }
    assert {"identifier": "10.18653/v1/2021.acl-long.212", "relation": "isDerivedFrom", "scheme": "doi"} in metadata[
        "related_identifiers"
    ]


def test_zenodo_metadata_uses_zenodos_field_names(release_snapshot, release_meta):
    metadata = zenodo_metadata(release_snapshot, release_meta)
    assert metadata["upload_type"] == "dataset"
    assert metadata["license"] == "cc-by-4.0"
    assert metadata["publication_date"] == "2025-03-01"
    assert metadata["creators"] == [
        {"name": "Doe, Jane", "affiliation": "University of Sheffield", "orcid": "0000-0002-1825-0097"},
        {"name": "Sousa, Ana"},
    ]
    assert metadata["description"] == "Minimal pairs for probing idiomaticity."
    assert metadata["references"] == [paper.reference for paper in PAPERS]
    assert {
        "identifier": release_meta.url,
        "relation": "isIdenticalTo",
        "resource_type": "dataset",
        "scheme": "url",
    } in (metadata["related_identifiers"])


def test_a_release_without_creators_is_credited_to_its_curators(release_snapshot, release_meta):
    meta = dataclasses.replace(release_meta, creators=())
    assert cff(release_snapshot, meta)["authors"] == [{"name": NO_CREATORS}]
    assert zenodo_metadata(release_snapshot, meta)["creators"] == [{"name": NO_CREATORS}]


def test_simulated_ratings_are_named_in_the_deposits_description(release_snapshot, release_meta):
    simulated = with_campaign(release_snapshot, CampaignSource("demo-token", "token", 0, 6, 207))
    assert "SIMULATED" in zenodo_metadata(simulated, release_meta)["description"]
    assert "SIMULATED" in cff(simulated, release_meta)["abstract"]
    assert "SIMULATED" not in zenodo_metadata(release_snapshot, release_meta)["description"]
    machine = dataclasses.replace(release_snapshot, machine_ratings=())
    assert "MACHINE-MADE ratings" in zenodo_metadata(machine, release_meta)["description"]
    assert "MACHINE-MADE" not in zenodo_metadata(release_snapshot, release_meta)["description"]


def test_yaml_special_text_survives_citation_cff(release_snapshot, release_meta):
    tricky = dataclasses.replace(
        release_meta, title='Probes: "eager beaver" # 2\nnew line', creators=(Creator("O'Brien, Seán"),)
    )
    document = cff(release_snapshot, tricky)
    assert document["title"] == 'Probes: "eager beaver" # 2\nnew line'
    assert document["authors"] == [{"family-names": "O'Brien", "given-names": "Seán"}]


def test_every_release_carries_both_files_and_reads_its_metadata_back(tmp_path, release_snapshot, release_meta):
    meta = release_meta.with_doi("10.5281/zenodo.777", "10.5281/zenodo.555")
    files = build_files(release_snapshot, meta)
    assert json.loads(files[ZENODO_JSON])["metadata"]["doi"] == "10.5281/zenodo.777"
    assert yaml.safe_load(files[CITATION_CFF])["doi"] == "10.5281/zenodo.777"
    _, read_back = read_release(write_folder(tmp_path / "release", with_manifest(files, meta)))
    assert read_back == meta  # creators, url, DOI and the curator's words survive datapackage.json


@pytest.mark.parametrize(
    ("given", "doi"),
    [
        ("10.5281/zenodo.1234567", "10.5281/zenodo.1234567"),
        ("https://doi.org/10.5281/zenodo.1234567", "10.5281/zenodo.1234567"),
        ("doi:10.18653/v1/2021.acl-long.212", "10.18653/v1/2021.acl-long.212"),
        (" http://dx.doi.org/10.1000/xyz ", "10.1000/xyz"),
    ],
)
def test_a_doi_is_taken_in_the_forms_people_paste(given, doi):
    assert normalise_doi(given) == doi


@pytest.mark.parametrize("given", ["", "zenodo.1234567", "10.12/short-prefix", "https://example.org/10.5281/x"])
def test_what_is_not_a_doi_is_refused(given):
    with pytest.raises(ValueError, match="is not a DOI"):
        normalise_doi(given)


def test_creator_lines_parse_as_the_form_takes_them():
    assert Creator.parse("Jane Doe | Sheffield | https://orcid.org/0000-0002-1825-0097") == Creator(
        "Jane Doe", "Sheffield", "0000-0002-1825-0097"
    )
    assert Creator.parse("Ana Sousa") == Creator("Ana Sousa")
    assert Creator.parse("Ana Sousa |  | 0000-0002-1825-009X").line() == "Ana Sousa |  | 0000-0002-1825-009X"
    assert Creator.parse(Creator("Jane Doe", "Sheffield").line()) == Creator("Jane Doe", "Sheffield")
    with pytest.raises(ValueError, match="not an ORCID"):
        Creator.parse("Jane Doe | Sheffield | 1234")
    with pytest.raises(ValueError, match="needs a name"):
        Creator.parse(" | Sheffield")
