"""Control characters in any text a request brings are a 400 naming the field, never a 500 (issue 26, item 4).

The audit's cases (a NUL in a release version, a file path, a diff's other version, a crowd link's
ids and a paraphrase) first, then a walk of every route of the role matrix with a NUL in each path
parameter, in a query parameter and in a form field, as an anonymous visitor, a crowd worker and a
curator; then JSON bodies and headers.
"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from annotation.models import Annotator, Rating, SuggestedParaphrase
from tests.security.test_role_matrix import PROLIFIC, expected_for, fill, routes, world  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def refused(response, field: str) -> bool:
    """A 400 whose page or JSON names ``field``."""
    if response.status_code != 400:
        return False
    if response["Content-Type"].startswith("application/json"):
        return field in json.loads(response.content)
    return f"<strong>{field}</strong>" in response.content.decode()


@pytest.mark.parametrize(
    "path",
    ["/releases/%00/", "/releases/1.0.0/files/%00", "/releases/1.0.0/diff/%00/", "/api/releases/%00/"],
)
def test_a_nul_in_a_path_is_a_400(client, path):
    assert refused(client.get(path), "path")


def test_a_nul_in_a_query_parameter_is_a_400_naming_it(client):
    assert refused(client.get("/releases/1.0.0/diff/", {"other": "\x00"}), "other")
    assert refused(client.get("/api/releases/", {"language": "e\x00n"}), "language")


def test_a_crowd_workers_nul_is_refused_and_nothing_is_stored(world):  # noqa: F811
    crowd = world["clients"]["crowd"]
    slug = world["campaign"]
    start = f"/annotate/{slug}/start/"
    fresh = Client()
    for field in ("PROLIFIC_PID", "STUDY_ID"):
        data = {**PROLIFIC, "PROLIFIC_PID": "nul-id", field: "s\x00", "agree": "1"}
        assert refused(fresh.post(start, data), field)
    assert refused(fresh.post(start, {"worker_id": "\x00", "agree": "1"}), "worker_id")
    assert not Annotator.objects.filter(external_id__startswith="nul").exists()
    before = (Rating.objects.count(), SuggestedParaphrase.objects.count())
    page = crowd.get(f"/annotate/{slug}/")
    token = re.search(r'name="token" value="([^"]+)"', page.content.decode())
    data = {"head_score": "1", "modifier_score": "2", "compound_score": "3", "paraphrase_1": "a\x00b"}
    if token:
        data["token"] = token.group(1)
    response = Client().post(f"/annotate/{slug}/", data)  # refused before the session is even read
    assert refused(response, "paraphrase_1")
    crowd.cookies.load({"csrftoken": "x"})
    assert refused(crowd.post(f"/annotate/{slug}/", data), "paraphrase_1")
    assert (Rating.objects.count(), SuggestedParaphrase.objects.count()) == before


def every_route_url(world: dict) -> list[tuple[str, str, list[str]]]:  # noqa: F811
    """(route name, its URL from the role matrix, its path parameter values)."""
    found = []
    for name, route, _ in routes():
        entry = expected_for(name)
        params = entry[1] if entry else {}
        url = fill(route, params, world)
        values = [str(world.get(v, v)) for k, v in params.items() if not k.startswith("?")]
        found.append((name, url, values))
    return found


def test_every_route_refuses_a_nul_in_each_path_parameter_a_query_and_a_form_field(world):  # noqa: F811
    curator = Client()  # no CSRF check, so a form field reaches as far as it would
    curator.cookies = world["clients"]["curator"].cookies
    clients = {"anonymous": Client(), "crowd": world["clients"]["crowd"], "curator": curator}
    wrong = []
    for name, url, values in every_route_url(world):
        path, _, query = url.partition("?")
        attempts = [(path.replace(f"/{value}", f"/{value}%00", 1), "path") for value in values if f"/{value}" in path]
        attempts.append((path + "?" + (query + "&" if query else "") + "q=%00", "q"))
        for persona, client in clients.items():
            for attempt, field in attempts:
                response = client.get(attempt)
                if not refused(response, field):
                    wrong.append(f"GET {attempt} as {persona}: {response.status_code}")
            response = client.post(path, {"note": "a\x00b", **PROLIFIC})
            if not refused(response, "note"):
                wrong.append(f"POST {path} (note=a\\x00b) as {persona}: {response.status_code} ({name})")
    assert not wrong, "\n".join(wrong)


def test_json_strings_and_keys_are_checked_and_named(world):  # noqa: F811
    curator = Client()
    curator.cookies = world["clients"]["curator"].cookies
    body = {"name": "Study", "slug": "ok", "instructions": "fine\nlines", "item_ids": [1], "extra": {"deep": "x\x00"}}
    response = curator.post("/api/annotation/campaigns/", json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and json.loads(response.content) == {
        "extra.deep": ["contains a control character (such as NUL), which is not allowed"]
    }
    response = curator.post("/api/annotation/campaigns/", '{"na\\u0000me": 1}', content_type="application/json")
    assert refused(response, "body key")


def test_headers_and_cookies_are_checked(client):
    assert refused(client.get("/", HTTP_USER_AGENT="bot\x00"), "User-Agent header")
    assert refused(client.get("/", HTTP_COOKIE="sessionid=a\x00b"), "Cookie header")
    # Tabs and line breaks are text in a form; a tab in a header is allowed.
    assert client.get("/", HTTP_USER_AGENT="a\tb").status_code == 200
