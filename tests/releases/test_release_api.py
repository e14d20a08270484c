"""The releases API: list, detail with the manifest, downloads, diff; curators create and publish; nothing changes.

Alice is a curator, Bob an annotator. Release 1.0.0 is published; 1.1.0 is a draft made after
the olive oil's score changed.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import encode_multipart

from datasets.models import Compound
from releases.actions import create_release
from releases.models import Release, ReleaseFile
from tests.building.review_factories import make_annotator
from tests.datasets.factories import make_dataset

pytestmark = pytest.mark.django_db

RELEASE = "/api/releases/1.0.0/"
DRAFT = "/api/releases/1.1.0/"


@pytest.fixture
def releases(alice) -> dict:
    data = make_dataset()
    published = create_release("1.0.0", ["en", "pt"], user=alice, publish=True, title="First")
    Compound.objects.filter(pk=data["olive"].pk).update(type_score=3.9)
    draft = create_release("1.1.0", ["en", "pt"], user=alice)
    return {"published": published, "draft": draft}


def login(client, role: str, alice):
    if role == "curator":
        client.force_login(alice)
    elif role == "annotator":
        client.force_login(make_annotator("bob"))
    return client


def stored_state() -> list:
    """Every release and every file as stored, to show that a refused request changed nothing."""
    releases = list(Release.objects.order_by("version").values())
    files = list(ReleaseFile.objects.order_by("release__version", "path").values_list("release_id", "path", "sha256"))
    contents = [
        hashlib.sha256(bytes(c)).hexdigest()
        for c in ReleaseFile.objects.order_by("pk").values_list("content", flat=True)
    ]
    return [releases, files, contents]


def test_the_api_root_lists_releases(client):
    assert "releases" in client.get("/api/", HTTP_ACCEPT="application/json").json()


def test_anyone_lists_published_releases(client, releases):
    body = client.get("/api/releases/").json()

    assert body["count"] == 1
    release = body["results"][0]
    assert release["version"] == "1.0.0"
    assert release["status"] == "published"
    assert release["title"] == "First"
    assert release["languages"] == ["en", "pt"]
    assert release["checksum"] == releases["published"].checksum
    assert release["created_by"] is None and release["published_by"] is None  # who made it is for curators
    assert release["counts"]["en"]["compounds"] == 2
    assert release["url"] == "http://testserver/api/releases/1.0.0/"
    assert release["zip_url"] == "http://testserver/api/releases/1.0.0/zip/"
    assert "manifest" not in release


def test_curators_list_drafts_after_published_releases(client, releases, alice):
    client.force_login(alice)
    assert [r["version"] for r in client.get("/api/releases/").json()["results"]] == ["1.0.0", "1.1.0"]
    assert client.get(DRAFT).json()["status"] == "draft"


def test_drafts_are_not_found_by_others(client, releases, alice):
    for role in ("anonymous", "annotator"):
        login(client, role, alice)
        assert client.get(DRAFT).status_code == 404
        assert client.get(DRAFT + "files/README.md").status_code == 404
        assert client.get("/api/releases/1.0.0/diff/1.1.0/").status_code == 404


def test_detail_includes_the_manifest_and_file_links(client, releases):
    release = releases["published"]

    body = client.get(RELEASE).json()

    assert body["manifest"] == release.manifest
    assert body["manifest"]["version"] == "1.0.0"
    listed = {row["path"]: row for row in body["manifest"]["files"]}
    files = {row["path"]: row for row in body["files"]}
    assert set(files) == set(listed) | {"manifest.json"}
    readme = files["README.md"]
    assert readme["sha256"] == listed["README.md"]["sha256"]
    assert readme["media_type"] == "text/markdown"
    assert readme["url"] == "http://testserver/api/releases/1.0.0/files/README.md"


def test_a_file_downloads_verified(client, releases):
    stored = ReleaseFile.objects.get(release=releases["published"], path="tidy/compounds.jsonl")

    response = client.get(RELEASE + "files/tidy/compounds.jsonl")

    assert response.status_code == 200
    assert response.content == bytes(stored.content)
    assert hashlib.sha256(response.content).hexdigest() == stored.sha256
    assert response["Content-Disposition"] == 'attachment; filename="compounds.jsonl"'
    assert client.get(RELEASE + "files/tidy/nothing.jsonl").status_code == 404


def test_the_zip_downloads(client, releases):
    response = client.get(RELEASE + "zip/")
    assert response.status_code == 200
    assert hashlib.sha256(response.content).hexdigest() == releases["published"].zip_sha256


def test_diff_of_two_releases(client, releases, alice):
    client.force_login(alice)

    body = client.get("/api/releases/1.0.0/diff/1.1.0/").json()

    assert (body["old"], body["new"]) == ("1.0.0", "1.1.0")
    assert body["summary"]["compounds"] == {"old": 3, "new": 3, "added": 0, "removed": 0, "changed": 1}
    assert body["scores"]["type_score"]["largest"] == [
        {"language": "en", "compound": "olive oil", "old": 4.8, "new": 3.9, "change": -0.9}
    ]
    assert client.get("/api/releases/1.0.0/diff/9.9.9/").status_code == 404


def test_a_tampered_release_answers_409_with_the_reason(client, releases, alice):
    client.force_login(alice)
    ReleaseFile.objects.filter(release=releases["draft"], path="README.md").update(content=b"forged")

    for path in (
        DRAFT + "files/README.md",
        DRAFT + "files/EN/neutral.csv",
        DRAFT + "zip/",
        "/api/releases/1.0.0/diff/1.1.0/",
    ):
        response = client.get(path)
        assert response.status_code == 409, path
        assert "README.md" in response.json()["detail"]
        assert b"forged" not in response.content
    assert client.post(DRAFT + "publish/").status_code == 409
    assert Release.objects.get(version="1.1.0").status == "draft"


def test_a_curator_creates_a_draft_and_publishes_it(client, releases, alice):
    client.force_login(alice)

    created = client.post(
        "/api/releases/", {"version": "2.0.0", "languages": ["en"], "title": "Second"}, content_type="application/json"
    )

    assert created.status_code == 201, created.content
    assert created.json()["status"] == "draft"
    assert created.json()["manifest"]["version"] == "2.0.0"
    published = client.post("/api/releases/2.0.0/publish/")
    assert published.status_code == 200
    assert published.json()["status"] == "published"
    assert published.json()["published_by"] == "alice"
    assert Release.objects.get(version="2.0.0").is_published


def test_a_curator_creates_a_published_release(client, releases, alice):
    client.force_login(alice)
    body = {"version": "2.0.0", "languages": ["pt"], "publish": True, "collections": ["default"]}

    response = client.post("/api/releases/", body, content_type="application/json")

    assert response.status_code == 201, response.content
    assert (response.json()["status"], response.json()["languages"]) == ("published", ["pt"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"version": "1.0.0", "languages": ["en"]}, "version"),
        ({"version": "2.0", "languages": ["en"]}, "version"),
        ({"version": "2.0.0", "languages": []}, "languages"),
        ({"version": "2.0.0", "languages": ["en"], "campaigns": ["nope"]}, "campaigns"),
        ({"version": "2.0.0", "languages": ["en"], "policy": "strict"}, "policy"),
        ({"version": "2.0.0", "languages": ["en"], "collections": ["nope"]}, "detail"),
    ],
)
def test_bad_requests_to_create_say_why(client, releases, alice, body, field):
    client.force_login(alice)
    response = client.post("/api/releases/", body, content_type="application/json")
    assert response.status_code == 400
    assert field in response.json()
    assert Release.objects.count() == 2


@pytest.mark.parametrize("role", ["anonymous", "annotator"])
def test_only_curators_create_and_publish(client, releases, alice, role):
    login(client, role, alice)
    before = stored_state()

    created = client.post("/api/releases/", {"version": "2.0.0", "languages": ["en"]}, content_type="application/json")
    published = client.post(DRAFT + "publish/")

    assert (created.status_code, published.status_code) == (403, 403)
    assert stored_state() == before


BOUNDARY = "release-upload"


def upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("neutral.csv", b"compound,sentence\nforged,row\n", content_type="text/csv")


# (method, path, body, format) of every request that would change published release 1.0.0.
MUTATIONS = [
    ("put", RELEASE, {"version": "1.0.0", "title": "Changed"}, "json"),
    ("patch", RELEASE, {"title": "Changed"}, "json"),
    ("delete", RELEASE, None, None),
    ("post", RELEASE, {"title": "Changed"}, "json"),
    ("put", RELEASE + "files/EN/neutral.csv", None, "upload"),
    ("post", RELEASE + "files/EN/neutral.csv", None, "upload"),
    ("patch", RELEASE + "files/EN/neutral.csv", None, "upload"),
    ("delete", RELEASE + "files/EN/neutral.csv", None, None),
    ("post", RELEASE + "files/EN/extra.csv", None, "upload"),
    ("put", RELEASE + "zip/", None, "upload"),
    ("delete", RELEASE + "zip/", None, None),
    ("put", RELEASE + "publish/", None, None),
]


@pytest.mark.parametrize("role", ["anonymous", "annotator", "curator"])
@pytest.mark.parametrize(("method", "path", "body", "kind"), MUTATIONS)
def test_every_change_to_a_published_release_is_refused(client, releases, alice, role, method, path, body, kind):
    login(client, role, alice)
    before = stored_state()

    if kind == "upload":
        data = encode_multipart(BOUNDARY, {"file": upload(), "path": "EN/neutral.csv"})
        response = getattr(client, method)(path, data, content_type=f"multipart/form-data; boundary={BOUNDARY}")
    elif kind == "json":
        response = getattr(client, method)(path, json.dumps(body), content_type="application/json")
    else:
        response = getattr(client, method)(path)

    assert response.status_code == 405, (method, path, response.content)
    assert "create a new version" in response.json()["detail"]
    assert stored_state() == before


@pytest.mark.parametrize(("role", "status"), [("anonymous", 403), ("annotator", 403), ("curator", 409)])
def test_publishing_or_recreating_a_published_release_is_refused(client, releases, alice, role, status):
    login(client, role, alice)
    before = stored_state()

    publish = client.post(RELEASE + "publish/")
    recreate = client.post("/api/releases/", {"version": "1.0.0", "languages": ["en"], "file": upload()})

    assert publish.status_code == status
    assert recreate.status_code == (400 if role == "curator" else 403)
    if role == "curator":
        assert "already published" in publish.json()["detail"]
        assert "already exists" in recreate.json()["version"][0]
    assert stored_state() == before


@pytest.mark.parametrize(("role", "shown"), [("anonymous", None), ("annotator", None), ("curator", "alice")])
def test_only_curators_see_who_made_and_published_a_release(client, releases, alice, role, shown):
    login(client, role, alice)
    release = client.get(RELEASE).json()
    assert (release["created_by"], release["published_by"]) == (shown, shown)
    for page in ("/releases/", "/releases/1.0.0/"):
        assert ("alice" in client.get(page).content.decode()) is (shown is not None), page


def test_curators_record_a_doi_through_the_api_once(client, releases, alice):
    assert client.get(RELEASE).json()["doi"] == ""
    assert client.post(RELEASE + "doi/", {"doi": "10.5281/zenodo.42"}).status_code == 403  # anonymous
    client.force_login(alice)
    bad = client.post(RELEASE + "doi/", {"doi": "zenodo 42"}, content_type="application/json")
    assert bad.status_code == 400 and "is not a DOI" in bad.json()["doi"][0]
    assert client.post(RELEASE + "doi/", {}, content_type="application/json").json() == {
        "doi": ["This field is required."]
    }
    done = client.post(RELEASE + "doi/", {"doi": "https://doi.org/10.5281/zenodo.42"}, content_type="application/json")
    assert done.status_code == 200 and done.json()["doi"] == "10.5281/zenodo.42"
    again = client.post(RELEASE + "doi/", {"doi": "10.5281/zenodo.43"}, content_type="application/json")
    assert again.status_code == 400 and "has its DOI already" in again.json()["doi"][0]
    readme = client.get(RELEASE + "files/README.md").content.decode()
    assert "DOI: [10.5281/zenodo.42]" in readme


def test_curators_name_the_creators_and_their_words_when_creating(client, releases, alice):
    client.force_login(alice)
    body = {
        "version": "2.0.0",
        "languages": ["en"],
        "creators": ["Jane Doe | Sheffield | 0000-0002-1825-0097"],
        "intended_use": "Probing encoders.",
    }
    created = client.post("/api/releases/", body, content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["creators"] == [
        {"name": "Jane Doe", "affiliation": "Sheffield", "orcid": "0000-0002-1825-0097"}
    ]
    assert created.json()["intended_use"] == "Probing encoders."
    refused = client.post(
        "/api/releases/", {**body, "version": "2.0.1", "creators": ["Jane | x | 123"]}, content_type="application/json"
    )
    assert refused.status_code == 400 and "is not an ORCID" in refused.json()["creators"][0]
