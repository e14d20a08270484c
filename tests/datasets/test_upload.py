"""A curator brings their own compounds and sentences: upload, a dry-run preview naming every bad row, then the
import (datasets/uploads.py, upload_views.py)."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from datasets.models import Collection, Compound, ImportRun, Sentence

pytestmark = pytest.mark.django_db

GOOD = (
    "compound,sentence,class\n"
    'eager beaver,"She is a real eager beaver at work.",idiomatic\n'
    'eager beaver,"Those eager beavers stayed late.",\n'
    "research lab,The research lab opened in May.,compositional\n"
)
BAD = GOOD + "rat race,Nobody here says it.,\n"


def upload(client, text: str, name: str = "mine.csv", **fields):
    data = {"format": "table", "language": "en", "collection": "mine", **fields}
    data["files"] = SimpleUploadedFile(name, text.encode(), content_type="text/csv")
    return client.post(reverse("datasets_upload"), data)


def written() -> tuple[int, int, int]:
    return Compound.objects.count(), Sentence.objects.count(), ImportRun.objects.count()


def test_a_bad_row_is_shown_with_its_line_and_reason_and_nothing_is_written(curator_client):
    response = upload(curator_client, BAD)
    assert response.status_code == 302
    preview = curator_client.get(response.url)
    assert preview.status_code == 400
    html = preview.content.decode()
    assert re.search(
        r"<td>mine\.csv</td><td class=\"num\">5</td><td>sentence</td><td>the sentence does not contain &#x27;rat race&#x27;</td>",
        html,
    )
    assert 'id="confirm-import"' not in html
    assert written() == (0, 0, 0)


def test_the_preview_counts_what_would_be_made_and_the_import_makes_it(curator_client):
    preview = curator_client.get(upload(curator_client, GOOD).url)
    assert preview.status_code == 200
    tallies = preview.context["summary"].tallies
    assert (tallies["compounds"].created, tallies["sentences"].created) == (2, 3)
    assert written() == (0, 0, 0)  # a dry run
    done = curator_client.post(preview.request["PATH_INFO"])
    assert done.status_code == 302 and done.url == f"{reverse('home')}?collection=mine"
    assert written() == (2, 3, 1)
    beaver = Compound.objects.get(text="eager beaver", collection=Collection.objects.get(slug="mine"))
    assert (beaver.modifier, beaver.head, beaver.compositionality_class) == ("eager", "beaver", "idiomatic")
    assert curator_client.get(preview.request["PATH_INFO"]).status_code == 404  # used once, then gone


def test_a_discarded_upload_writes_nothing(curator_client):
    preview_url = upload(curator_client, GOOD).url
    curator_client.post(preview_url, {"discard": "1"})
    assert written() == (0, 0, 0) and curator_client.get(preview_url).status_code == 404


def test_names_a_format_does_not_read_are_refused(curator_client):
    response = upload(curator_client, GOOD, name="../../etc/passwd.csv", format="nctti")
    assert response.status_code == 400 and "not a file NCTTI" in response.content.decode()


def test_another_session_cannot_see_or_import_an_upload(curator_client, client, django_user_model):
    from tests.building.review_factories import make_curator

    preview_url = upload(curator_client, GOOD).url
    client.force_login(make_curator("bob"))
    assert client.get(preview_url).status_code == 404
    assert client.post(preview_url).status_code == 404
    assert written() == (0, 0, 0)


def test_the_public_nctti_files_upload_as_a_folder(curator_client, shared_data):
    files = [
        SimpleUploadedFile(name, (shared_data / "nctti" / name).read_bytes())
        for name in ("data_en.tsv", "sentids_en.csv")
    ]
    response = curator_client.post(
        reverse("datasets_upload"), {"format": "nctti", "language": "en", "collection": "nctti", "files": files}
    )
    preview = curator_client.get(response.url)
    assert preview.status_code == 200 and preview.context["summary"].tallies["compounds"].created == 280
