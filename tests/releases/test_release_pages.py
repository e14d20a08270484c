"""The release pages: list, detail, downloads, diff, and a curator creating and publishing releases.

Alice is a curator, Bob an annotator; everyone else is an anonymous visitor. Release 1.0.0 is
published; 1.1.0 is a draft made after Alice changed the olive oil's score, approved a variant
and added a compound.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest
from django.urls import reverse

from datasets import vocabulary
from datasets.models import Compound, Variant
from releases.actions import create_release
from releases.models import Release, ReleaseFile
from tests.building.review_factories import make_annotator
from tests.datasets.factories import make_collection, make_compound, make_dataset, make_sentence

pytestmark = pytest.mark.django_db

TITLE = "Beavers <&> oil"


@pytest.fixture
def releases(alice) -> dict:
    data = make_dataset()
    published = create_release("1.0.0", ["en", "pt"], user=alice, publish=True, title=TITLE)
    Compound.objects.filter(pk=data["olive"].pk).update(type_score=3.9)
    Variant.objects.filter(pk=data["synonym"].pk).update(status=vocabulary.APPROVED)
    make_sentence(make_compound("ivory tower", type_score=0.5), "Dave lives in an ivory tower.")
    draft = create_release("1.1.0", ["en", "pt"], user=alice, title="Second")
    return {"published": published, "draft": draft, "data": data}


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def test_anyone_sees_published_releases_but_no_draft(client, releases):
    response = client.get(url("releases"))

    assert response.status_code == 200
    assert [r.version for r in response.context["releases"]] == ["1.0.0"]
    page = response.content.decode()
    assert url("release_zip", "1.0.0") in page
    assert releases["published"].checksum[:12] in page
    assert "Create a release" not in page
    assert client.get(url("release", "1.1.0")).status_code == 404
    assert client.get(url("release_zip", "1.1.0")).status_code == 404
    assert client.get(url("release_file", "1.1.0", "README.md")).status_code == 404


def test_curators_see_published_releases_first_then_drafts(curator_client, releases):
    create_release("1.0.1", ["pt"], publish=True)

    response = curator_client.get(url("releases"))

    assert [r.version for r in response.context["releases"]] == ["1.0.1", "1.0.0", "1.1.0"]
    assert "Create a release" in response.content.decode()


def test_the_nav_links_to_the_releases(client):
    assert f'href="{url("releases")}"' in client.get(url("home")).content.decode()


def test_release_page_shows_metadata_counts_files_and_the_escaped_data_card(client, releases):
    release = releases["published"]

    response = client.get(url("release", "1.0.0"))

    assert response.status_code == 200
    page = response.content.decode()
    assert release.checksum in page
    assert [row["language"] for row in response.context["counts"]["rows"]] == ["en", "pt"]
    english = response.context["counts"]["rows"][0]
    assert (english["compounds"], english["sentences"]) == (2, 4)
    assert english["classes"] == [1, 0, 1, 0]  # idiomatic, partly, compositional, unclassified
    assert response.context["counts"]["kinds"] == [
        (vocabulary.HEAD_ONLY, dict(vocabulary.VARIANT_KIND_CHOICES)[vocabulary.HEAD_ONLY])
    ]
    paths = [row["path"] for row in response.context["files"]]
    assert "manifest.json" in paths and "README.md" in paths and "release.zip" not in paths
    assert url("release_file", "1.0.0", "tidy/pairs.jsonl") in page
    readme = ReleaseFile.objects.get(release=release, path="README.md").content
    assert TITLE in bytes(readme).decode()
    assert "Beavers &lt;&amp;&gt; oil" in page
    assert TITLE not in page
    assert "Publish 1.0.0" not in page


def test_a_file_downloads_verified_as_an_attachment(client, releases):
    stored = ReleaseFile.objects.get(release=releases["published"], path="EN/neutral.csv")

    response = client.get(url("release_file", "1.0.0", "EN/neutral.csv"))

    assert response.status_code == 200
    assert response.content == bytes(stored.content)
    assert response["Content-Type"] == "text/csv"
    assert response["Content-Disposition"] == 'attachment; filename="neutral.csv"'
    assert client.get(url("release_file", "1.0.0", "EN/missing.csv")).status_code == 404


def test_the_manifest_downloads_and_lists_every_file(client, releases):
    manifest = json.loads(client.get(url("release_file", "1.0.0", "manifest.json")).content)
    listed = {row["path"] for row in manifest["files"]}
    stored = set(releases["published"].files.values_list("path", flat=True))
    assert listed == stored - {"manifest.json", "release.zip"}


def test_the_zip_holds_every_file(client, releases):
    release = releases["published"]

    response = client.get(url("release_zip", "1.0.0"))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="release-1.0.0.zip"'
    assert hashlib.sha256(response.content).hexdigest() == release.zip_sha256
    names = set(zipfile.ZipFile(io.BytesIO(response.content)).namelist())
    assert names == set(release.files.values_list("path", flat=True)) - {"release.zip"}


def test_diff_page_and_json(curator_client, releases):
    response = curator_client.get(url("release_diff", "1.0.0", "1.1.0"))

    assert response.status_code == 200
    summary = response.context["diff"]["summary"]
    assert summary["compounds"] == {"old": 3, "new": 4, "added": 1, "removed": 0, "changed": 1}
    assert summary["variants"]["added"] == 1
    assert summary["type_scores_changed"] == 1
    page = response.content.decode()
    assert "ivory tower" in page and "olive oil" in page
    body = curator_client.get(url("release_diff_json", "1.0.0", "1.1.0")).json()
    assert body == curator_client.get(url("release_diff", "1.0.0", "1.1.0"), {"format": "json"}).json()
    assert (body["old"], body["new"]) == ("1.0.0", "1.1.0")
    assert [row["compound"] for row in body["compounds"]["added"]] == ["ivory tower"]
    assert body["compounds"]["changed"] == [
        {"language": "en", "compound": "olive oil", "changes": {"type_score": {"old": 4.8, "new": 3.9}}}
    ]
    assert [(row["compound"], row["kind"]) for row in body["variants"]["added"]] == [
        ("eager beaver", vocabulary.SYNONYM_NC)
    ]
    assert body["scores"]["type_score"]["largest"][0]["change"] == -0.9


def test_the_compare_form_puts_the_older_version_first(curator_client, releases):
    response = curator_client.get(url("release_diff_choose", "1.1.0"), {"other": "1.0.0"})
    assert response.status_code == 302
    assert response["Location"] == url("release_diff", "1.0.0", "1.1.0")


def test_a_diff_with_a_draft_is_hidden_from_visitors(client, releases):
    assert client.get(url("release_diff", "1.0.0", "1.1.0")).status_code == 404
    assert client.get(url("release_diff_json", "1.0.0", "1.1.0")).status_code == 404


def test_a_visitor_diffs_two_published_releases(client, releases, alice):
    create_release("2.0.0", ["en"], publish=True)

    body = client.get(url("release_diff", "1.0.0", "2.0.0"), {"format": "json"}).json()

    assert body["summary"]["languages"] == {"added": [], "removed": ["pt"]}
    assert [row["compound"] for row in body["compounds"]["removed"]] == ["guarda chuva"]


def test_a_curator_creates_a_draft_through_the_form(curator_client, alice, post_release_form):
    make_dataset()

    response = post_release_form(
        {"version": "0.1.0", "languages": ["en"], "title": "Trial", "citation": "Alice et al."}
    )

    release = Release.objects.get(version="0.1.0")
    assert response.status_code == 302 and response["Location"].startswith("/releases/jobs/")
    opened = curator_client.get(response["Location"])
    assert opened.status_code == 302 and opened["Location"] == url("release", "0.1.0")
    assert (release.status, release.languages, release.title, release.created_by) == ("draft", ["en"], "Trial", alice)
    assert "Publish 0.1.0" in curator_client.get(url("release", "0.1.0")).content.decode()


def test_the_form_takes_the_creators_and_the_curators_words_and_names_a_bad_line(curator_client, post_release_form):
    make_dataset()
    bad = post_release_form({"version": "0.2.0", "languages": ["en"], "creators": "Jane Doe\nAna | Porto | 12"})
    assert bad.status_code == 400 and "Line 2: &#x27;12&#x27; is not an ORCID iD" in bad.content.decode()
    post_release_form(
        {
            "version": "0.2.0",
            "languages": ["en"],
            "creators": "Jane Doe | Sheffield\n\nAna Sousa",
            "limitations": "English only.",
        }
    )
    release = Release.objects.get(version="0.2.0")
    assert release.creators == [
        {"name": "Jane Doe", "affiliation": "Sheffield", "orcid": ""},
        {"name": "Ana Sousa", "affiliation": "", "orcid": ""},
    ]
    page = curator_client.get(url("release", "0.2.0")).content.decode()
    assert 'id="creators">Jane Doe <span class="muted">(Sheffield)</span>; Ana Sousa</dd>' in page
    assert "<strong>Limitations.</strong> English only." in page


def test_publishing_from_the_form_asks_first_and_says_what_freezes(curator_client, post_release_form):
    make_dataset()

    built = post_release_form({"version": "1.0.0", "languages": ["en", "pt"], "publish": "on"})
    asked = curator_client.get(built["Location"])

    html = asked.content.decode()
    assert asked.status_code == 200 and "Publish 1.0.0?" in html and "freezes this release for ever" in html
    assert "can never change, nor be deleted" in html and 'id="confirm-sources"' in html
    assert not Release.objects.get(version="1.0.0").is_published
    curator_client.post(url("release_publish", "1.0.0"), {"confirm": "yes"})
    assert Release.objects.get(version="1.0.0").is_published


def test_the_form_suggests_the_next_version(curator_client, releases):
    html = curator_client.get(url("releases")).content.decode()
    assert 'name="version" value="1.2.0"' in html and "the next is 1.2.0" in html


def test_an_existing_version_is_refused_with_a_clear_error(curator_client, releases):
    response = curator_client.post(url("releases"), {"version": "1.0.0", "languages": ["en"]})

    assert response.status_code == 400
    assert "Release 1.0.0 already exists" in response.content.decode()
    assert Release.objects.count() == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"version": "1.0", "languages": ["en"]}, "semantic version"),
        ({"version": "3.0.0"}, "This field is required"),
        ({"version": "3.0.0", "languages": ["en"], "collection": "nope"}, "Select a valid choice"),
    ],
)
def test_form_errors_are_shown(curator_client, releases, body, message):
    response = curator_client.post(url("releases"), body)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Release.objects.count() == 2


def test_nothing_to_release_is_reported(curator_client, releases):
    make_collection("empty", "Empty")

    response = curator_client.post(url("releases"), {"version": "3.0.0", "languages": ["en"], "collection": "empty"})

    assert response.status_code == 400
    assert "Nothing to release" in response.content.decode()
    assert not Release.objects.filter(version="3.0.0").exists()


def test_a_curator_publishes_a_draft(curator_client, releases, alice):
    asked = curator_client.post(url("release_publish", "1.1.0"))
    assert asked.status_code == 200 and "Yes, publish 1.1.0" in asked.content.decode()
    assert Release.objects.get(version="1.1.0").status == "draft"

    response = curator_client.post(url("release_publish", "1.1.0"), {"confirm": "yes"})

    assert response.status_code == 302
    draft = Release.objects.get(version="1.1.0")
    assert draft.is_published
    assert draft.published_by == alice
    again = curator_client.post(url("release_publish", "1.1.0"), {"confirm": "yes"}, follow=True)
    assert "published already" in again.content.decode()


@pytest.mark.parametrize(
    ("name", "args", "body"),
    [
        ("releases", (), {"version": "9.0.0", "languages": ["en"], "publish": "on"}),
        ("release_publish", ("1.1.0",), {"confirm": "yes"}),
    ],
)
def test_only_curators_create_and_publish(client, releases, name, args, body):
    anonymous = client.post(url(name, *args), body)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("login"))
    client.force_login(make_annotator("bob"))
    assert client.post(url(name, *args), body).status_code == 403
    assert Release.objects.filter(version="9.0.0").exists() is False
    assert Release.objects.get(version="1.1.0").status == "draft"


def test_a_tampered_release_shows_an_integrity_error_and_never_its_data(curator_client, releases):
    draft = releases["draft"]
    ReleaseFile.objects.filter(release=draft, path="tidy/pairs.jsonl").update(content=b'{"forged": true}\n')

    pages = [
        url("release", "1.1.0"),
        url("release_file", "1.1.0", "tidy/pairs.jsonl"),
        url("release_file", "1.1.0", "README.md"),
        url("release_zip", "1.1.0"),
        url("release_diff", "1.0.0", "1.1.0"),
        url("release_diff_json", "1.0.0", "1.1.0"),
    ]
    for page in pages:
        response = curator_client.get(page)
        assert response.status_code == 409, page
        body = response.content.decode()
        assert "Integrity error" in body
        assert "tidy/pairs.jsonl" in body
        assert "forged" not in body
    assert curator_client.post(url("release_publish", "1.1.0")).status_code == 409
    assert Release.objects.get(version="1.1.0").status == "draft"


def test_unknown_releases_are_not_found(client, releases):
    assert client.get(url("release", "9.9.9")).status_code == 404
    assert client.get(url("release_diff", "1.0.0", "9.9.9")).status_code == 404
    assert client.get(url("release_diff_choose", "1.0.0"), {"other": "nope"}).status_code == 404


def test_the_data_card_is_html_and_a_script_in_it_is_inert(client, alice):
    make_dataset()
    create_release("1.0.0", ["en"], user=alice, publish=True, description="<script>alert('card')</script> **bold**")

    page = client.get(url("release", "1.0.0")).content.decode()

    card = page.split('class="card data-card"', 1)[1]
    assert "<h1>" in card or "<h2>" in card  # Markdown headings, not a <pre> of Markdown source
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert" in card
    assert 'class="readme"' not in page


def test_the_probe_kind_table_has_a_row_per_kind(client, releases):
    response = client.get(url("release", "1.0.0"))
    kinds = response.context["counts"]["kind_rows"]
    assert [row["kind"] for row in kinds] == [vocabulary.HEAD_ONLY]
    assert kinds[0]["counts"] == [row["variants"][0] for row in response.context["counts"]["rows"]]


def test_the_policy_line_never_shows_python_none(client, releases):
    assert "None" not in client.get(url("release", "1.0.0")).content.decode()


def test_consecutive_versions_link_to_their_diff_and_each_release_picks_a_version(curator_client, releases):
    create_release("1.0.1", ["pt"], publish=True)

    listing = curator_client.get(url("releases")).content.decode()
    assert url("release_diff", "1.0.0", "1.0.1") in listing
    assert url("release_diff", "1.0.1", "1.1.0") in listing
    assert url("release_diff", "1.0.0", "1.1.0") not in listing  # only neighbours

    page = curator_client.get(url("release", "1.0.1")).content.decode()
    picker = page.split('class="version-picker', 1)[1].split("</nav>", 1)[0]
    assert url("release", "1.0.0") in picker and url("release", "1.1.0") in picker
    assert '<strong aria-current="page">1.0.1</strong>' in picker
    assert url("release_diff", "1.0.0", "1.0.1") in picker


def test_the_diff_page_rounds_numbers_and_names_classes(curator_client, alice):
    data = make_dataset()
    create_release("1.0.0", ["en", "pt"], user=alice, publish=True)
    Compound.objects.filter(pk=data["olive"].pk).update(
        type_score=3.8000000000000003, compositionality_class=vocabulary.PARTLY
    )
    create_release("1.1.0", ["en", "pt"], user=alice, publish=True)

    response = curator_client.get(url("release_diff", "1.0.0", "1.1.0"))

    page = response.content.decode()
    assert "3.8000000000000003" not in page and "→ 3.8<" in page
    assert "Partly compositional" in page and "partly_compositional" not in page
    json_body = curator_client.get(url("release_diff_json", "1.0.0", "1.1.0")).json()
    changes = json_body["compounds"]["changed"][0]["changes"]
    assert changes["type_score"]["new"] == 3.8000000000000003  # the download keeps the exact value
