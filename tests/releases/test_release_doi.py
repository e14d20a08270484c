"""A DOI entered after the deposit: stored with the release, named by its metadata files, its data unchanged.

Alice is a curator; release 1.0.0 is published, 1.1.0 a draft made after it.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest
import yaml
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from releases.actions import create_release, export_release, release_files, release_zip
from releases.doi_actions import deposit_bundle, files_with_doi, rebuilt_with_doi, record_doi
from releases.formats import is_data_file, read_release, verify_directory
from releases.formats.manifest import read_zip
from releases.import_actions import import_release
from releases.models import Release, ReleaseDOI, ReleaseError, ReleaseFile
from tests.datasets.factories import make_dataset

pytestmark = pytest.mark.django_db

DOI = "10.5281/zenodo.1234567"


@pytest.fixture
def releases(alice) -> dict:
    make_dataset()
    published = create_release(
        "1.0.0", ["en", "pt"], user=alice, publish=True, creators=["Jane Doe | Sheffield | 0000-0002-1825-0097"]
    )
    draft = create_release("1.1.0", ["en", "pt"], user=alice)
    return {"published": published, "draft": draft}


def stored(release: Release) -> dict[str, tuple[str, int]]:
    return {path: (sha, size) for path, sha, size in release.files.values_list("path", "sha256", "size")}


def test_rebuilding_a_release_from_its_own_files_gives_the_same_bytes(releases):
    files = releases["published"].verified_files()
    assert (
        rebuilt_with_doi(files, "") == files
    )  # every metadata file, the manifest too: nothing depends on the database


def test_a_doi_is_named_by_every_metadata_file_and_changes_no_data(releases, alice):
    release = releases["published"]
    before_files, before_row = stored(release), Release.objects.values().get(pk=release.pk)

    record_doi(release, f"https://doi.org/{DOI}", alice)

    release = Release.objects.get(pk=release.pk)
    assert release.doi == DOI
    assert stored(release) == before_files  # the published files, checksum and zip as they were
    assert Release.objects.values().get(pk=release.pk) == before_row
    old, new = release.verified_files(), release_files(release)
    assert set(old) == set(new)
    assert {p: d for p, d in new.items() if is_data_file(p)} == {p: d for p, d in old.items() if is_data_file(p)}
    changed = {path for path in new if new[path] != old[path]}
    assert changed == {p for p in new if not is_data_file(p)}  # every metadata file names the DOI
    assert f"DOI: [{DOI}](https://doi.org/{DOI})" in new["README.md"].decode()
    assert json.loads(new["datapackage.json"])["id"] == f"https://doi.org/{DOI}"
    assert yaml.safe_load(new["CITATION.cff"])["doi"] == DOI
    assert json.loads(new["deposit/zenodo.json"])["metadata"]["doi"] == DOI
    assert DOI in new["croissant.json"].decode()
    roles = {entry["path"]: entry["role"] for entry in json.loads(new["manifest.json"])["files"]}
    assert roles["tidy/pairs.jsonl"] == "data" and roles["README.md"] == "metadata"
    assert read_zip(release_zip(release)) == new


def test_an_export_with_its_doi_verifies_imports_and_keeps_its_data(releases, alice, tmp_path):
    release = releases["published"]
    record_doi(release, DOI, alice)
    export_release(release, tmp_path / "out")
    imported = import_release(tmp_path / "out")  # checks release.zip against the folder too
    (tmp_path / "out" / "release.zip").unlink()
    files = verify_directory(tmp_path / "out")
    _, meta = read_release(tmp_path / "out")
    assert (meta.doi, meta.creators[0].orcid) == (DOI, "0000-0002-1825-0097")
    again = create_release("2.0.0", ["en", "pt"], collections=[imported.collection])
    again_files = release_files(again)
    assert {p: d for p, d in files.items() if is_data_file(p)} == {
        p: d for p, d in again_files.items() if is_data_file(p)
    }


def test_the_next_version_names_the_doi_of_the_one_before(releases, alice):
    record_doi(releases["published"], DOI, alice)
    nxt = create_release("1.2.0", ["en", "pt"], user=alice)
    related = json.loads(release_files(nxt)["deposit/zenodo.json"])["metadata"]["related_identifiers"]
    assert related[0] == {"identifier": DOI, "relation": "isNewVersionOf", "resource_type": "dataset", "scheme": "doi"}
    # 1.1.0 was made before 1.0.0 had its DOI: entering its own DOI names the one before it then.
    record_doi(releases["draft"], "10.5281/zenodo.7654321", alice)
    related = json.loads(release_files(releases["draft"])["deposit/zenodo.json"])["metadata"]["related_identifiers"]
    assert related[0]["identifier"] == DOI


def test_a_doi_is_entered_once_names_one_release_and_must_be_a_doi(releases, alice):
    record_doi(releases["published"], DOI, alice)
    with pytest.raises(ReleaseError, match="has its DOI already"):
        record_doi(releases["published"], "10.5281/zenodo.9", alice)
    with pytest.raises(ReleaseError, match="names release 1.0.0 already"):
        record_doi(releases["draft"], DOI, alice)
    with pytest.raises(ReleaseError, match="is not a DOI"):
        record_doi(releases["draft"], "zenodo 1234567", alice)
    assert ReleaseDOI.objects.count() == 1


def test_a_tampered_doi_file_is_reported_not_served(releases, alice):
    record = record_doi(releases["published"], DOI, alice)
    record.files.filter(path="README.md").update(content=b"# forged")
    with pytest.raises(Exception, match="does not match its sha256"):
        files_with_doi(releases["published"])


def test_the_deposit_bundle_holds_the_zip_the_citation_and_the_metadata(releases, alice):
    release = releases["published"]
    record_doi(release, DOI, alice)
    with zipfile.ZipFile(io.BytesIO(deposit_bundle(release))) as bundle:
        assert bundle.namelist() == ["release-1.0.0.zip", "CITATION.cff", "zenodo.json"]
        inner = read_zip(bundle.read("release-1.0.0.zip"))
        assert bundle.read("CITATION.cff") == inner["CITATION.cff"]
        assert bundle.read("zenodo.json") == inner["deposit/zenodo.json"]
    assert inner == release_files(release)


@override_settings(WORKBENCH_PUBLIC_URL="https://workbench.example.org/")
def test_a_release_links_its_page_when_the_site_says_where_it_is(alice):
    make_dataset()
    release = create_release("1.0.0", ["en", "pt"], user=alice)
    document = json.loads(release_files(release)["croissant.json"])
    assert document["url"] == "https://workbench.example.org/releases/1.0.0/"
    assert json.loads(release_files(release)["datapackage.json"])["homepage"] == document["url"]


def test_the_page_links_the_publishing_files_and_a_curator_records_the_doi(releases, alice):
    client, curator_client = Client(), Client()
    curator_client.force_login(alice)
    page = client.get(reverse("release", args=["1.0.0"])).content.decode()
    for path in ("croissant.json", "hf/README.md", "CITATION.cff", "deposit/zenodo.json"):
        assert reverse("release_file", args=["1.0.0", path]) in page
    assert reverse("release_deposit", args=["1.0.0"]) in page
    assert 'id="doi-form"' not in page  # visitors see no form
    assert client.get(reverse("release_deposit", args=["1.0.0"]))["Content-Type"] == "application/zip"

    refused = client.post(reverse("release_doi", args=["1.0.0"]), {"doi": DOI})
    assert refused.status_code in (302, 403) and not ReleaseDOI.objects.exists()

    assert 'id="doi-form"' in curator_client.get(reverse("release", args=["1.0.0"])).content.decode()
    bad = curator_client.post(reverse("release_doi", args=["1.0.0"]), {"doi": "not a doi"}, follow=True)
    assert bad.status_code == 200 and "is not a DOI" in bad.content.decode()
    response = curator_client.post(reverse("release_doi", args=["1.0.0"]), {"doi": DOI}, follow=True)
    page = response.content.decode()
    assert f'href="https://doi.org/{DOI}"' in page and 'id="doi-form"' not in page
    release = releases["published"]
    served = release_files(release)
    assert hashlib.sha256(served["manifest.json"]).hexdigest() in page  # the manifest readers get
    assert f"as published, before its DOI: <code>{release.checksum}</code>" in page
    assert hashlib.sha256(release_zip(release)).hexdigest() in page and release.zip_sha256 not in page
    readme = client.get(reverse("release_file", args=["1.0.0", "README.md"])).content.decode()
    assert f"DOI: [{DOI}]" in readme
    assert ReleaseFile.objects.filter(release=releases["published"], path="README.md").get().content != readme


def test_export_release_format_deposit_writes_what_a_deposit_uploads(releases, alice, tmp_path):
    record_doi(releases["published"], DOI, alice)
    out = io.StringIO()
    call_command(
        "export_release", "--release", "1.0.0", "--out", str(tmp_path / "deposit"), "--format", "deposit", stdout=out
    )
    assert sorted(p.name for p in (tmp_path / "deposit").iterdir()) == [
        "CITATION.cff",
        "release-1.0.0.zip",
        "zenodo.json",
    ]
    assert json.loads((tmp_path / "deposit" / "zenodo.json").read_text())["metadata"]["doi"] == DOI
    assert read_zip((tmp_path / "deposit" / "release-1.0.0.zip").read_bytes()) == release_files(releases["published"])
    assert "zenodo.json" in out.getvalue()
