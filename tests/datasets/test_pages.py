"""The overview page and the compound page (curators only): content, filters, escaping and query counts."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from datasets import vocabulary
from tests.datasets.factories import (
    make_compound,
    make_dataset,
    make_sentence,
    make_unavailable_sentence,
    make_variant,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client, alice):
    """The working dataset is for curators only (issue 14): these tests read it as Alice, a curator."""
    client.force_login(alice)
    return client


def compound_names(response) -> list[str]:
    return [compound.text for group in response.context["page_groups"] for compound in group["compounds"]]


def test_empty_database_says_how_to_load_data(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "python manage.py load_demo" in body
    assert "import_nctti DIR" in body
    assert '<meta name="viewport"' in body
    assert 'href="/api/schema/"' in body


def test_home_shows_counts_per_collection_and_language(client):
    make_dataset()
    make_compound("ivory tower", collection="demo")
    response = client.get(reverse("home"))
    assert response.status_code == 200
    english, portuguese, demo = response.context["summary"]
    assert (english["collection"], english["language"]) == ("default", "en")
    assert english["language_name"] == "English"
    assert english["compounds"] == 2
    assert english["by_class"] == [("NC", 1), ("PC", 0), ("C", 1)]
    assert english["sentences"] == 5
    assert english["unavailable"] == 1
    assert english["variants"] == 3
    assert portuguese["language"] == "pt"
    assert portuguese["by_class"] == [("NC", 0), ("PC", 1), ("C", 0)]
    assert (portuguese["sentences"], portuguese["unavailable"], portuguese["variants"]) == (1, 0, 0)
    assert (demo["collection"], demo["collection_name"], demo["language"]) == ("demo", "Demo", "en")
    assert (demo["compounds"], demo["sentences"], demo["variants"]) == (1, 0, 0)
    body = response.content.decode()
    assert "Portuguese" in body
    assert 'href="?collection=demo&amp;language=en#compounds"' in body


def test_home_lists_compounds_grouped_by_language_with_links(client):
    data = make_dataset()
    response = client.get(reverse("home"))
    assert [group["language"] for group in response.context["page_groups"]] == ["en", "pt"]
    assert compound_names(response) == ["eager beaver", "olive oil", "guarda chuva"]
    assert reverse("compound", args=[data["beaver"].pk]) in response.content.decode()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"language": "pt"}, ["guarda chuva"]),
        ({"class": vocabulary.COMPOSITIONAL}, ["olive oil"]),
        ({"class": vocabulary.IDIOMATIC, "language": "en"}, ["eager beaver"]),
        ({"q": "BEAV"}, ["eager beaver"]),
        ({"q": "oil", "language": "pt"}, []),
    ],
)
def test_home_filters(client, query, expected):
    make_dataset()
    response = client.get(reverse("home"), query)
    assert compound_names(response) == expected


def test_home_filter_by_collection(client):
    make_dataset()
    make_compound("eager beaver", collection="demo")
    response = client.get(reverse("home"), {"collection": "demo"})
    assert compound_names(response) == ["eager beaver"]
    assert response.context["page_groups"][0]["collection"].slug == "demo"
    both = client.get(reverse("home"), {"q": "eager"})
    assert [(c.collection.slug, c.text) for g in both.context["page_groups"] for c in g["compounds"]] == [
        ("default", "eager beaver"),
        ("demo", "eager beaver"),
    ]


def test_home_filter_unclassified(client):
    make_dataset()
    make_compound("thing thing", compositionality_class=None)
    response = client.get(reverse("home"), {"class": "none"})
    assert compound_names(response) == ["thing thing"]


def test_home_invalid_filter_is_reported_and_ignored(client):
    make_dataset()
    response = client.get(reverse("home"), {"language": "xx", "q": "olive"})
    assert response.status_code == 200
    assert "language" in response.context["form"].errors
    assert compound_names(response) == ["olive oil"]


def test_home_paginates_by_fifty(client):
    for number in range(53):
        make_compound(f"word{number:02d} thing", compositionality_class=None)
    first = client.get(reverse("home"))
    assert len(compound_names(first)) == 50
    assert first.context["page"].paginator.num_pages == 2
    body = first.content.decode()
    assert "?page=2" in body
    second = client.get(reverse("home"), {"page": 2})
    assert compound_names(second) == ["word50 thing", "word51 thing", "word52 thing"]


def test_pagination_links_keep_the_filters(client):
    for number in range(51):
        make_compound(f"word{number:02d} thing", language="pt")
    response = client.get(reverse("home"), {"language": "pt", "class": vocabulary.IDIOMATIC})
    assert "?language=pt&amp;class=idiomatic&amp;page=2" in response.content.decode()


def test_compound_page_shows_the_compound(client):
    data = make_dataset()
    beaver = data["beaver"]
    response = client.get(reverse("compound", args=[beaver.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    for text in [
        "eager beaver",
        "enthusiast",
        "hard worker",
        "en_nctti.csv:7",
        "Idiomatic",
        "1.20",
        "1,234",
        "Default",
    ]:
        assert text in body
    labels = [group["label"] for group in response.context["sentence_groups"]]
    kind_labels = dict(vocabulary.SENTENCE_KIND_CHOICES)
    assert labels == [kind_labels[vocabulary.NATURALISTIC], kind_labels[vocabulary.NEUTRAL_SHORT]]
    assert "Neutral (short: This is a/an &lt;NC&gt;)" in body


def test_compound_page_highlights_each_occurrence(client):
    data = make_dataset()
    body = client.get(reverse("compound", args=[data["beaver"].pk])).content.decode()
    assert 'Carol is such an <mark class="nc">eager beaver</mark> that she starts at six.' in body
    assert 'The <mark class="nc">eager beavers</mark> stayed late.' in body
    assert body.count('<mark class="nc">') == 3


def test_compound_page_escapes_sentence_text(client):
    compound = make_compound("hot dog")
    make_sentence(compound, '<script>alert("x")</script> Frank ate a hot dog & <b>chips</b>.')
    body = client.get(reverse("compound", args=[compound.pk])).content.decode()
    assert "<script>alert" not in body
    assert "<b>chips" not in body
    assert (
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Frank ate a "
        '<mark class="nc">hot dog</mark> &amp; &lt;b&gt;chips&lt;/b&gt;.'
    ) in body


def test_compound_page_escapes_the_highlighted_span_and_variants(client):
    compound = make_compound("<i>x</i> y")
    sentence = make_sentence(compound, "Grace wrote <i>x</i> y here.")
    make_variant(sentence, "<img src=z>")
    body = client.get(reverse("compound", args=[compound.pk])).content.decode()
    assert '<mark class="nc">&lt;i&gt;x&lt;/i&gt; y</mark>' in body
    assert '<mark class="rep">&lt;img src=z&gt;</mark>' in body
    assert "<img src=z>" not in body and "<i>x</i>" not in body


def test_unavailable_sentence_shows_its_pointer(client):
    data = make_dataset()
    body = client.get(reverse("compound", args=[data["beaver"].pk])).content.decode()
    pattern = rf'<li class="sentence unavailable" id="sentence-{data["pointer"].pk}">.*?</li>'
    item = re.search(pattern, body, re.S)
    assert item, "the unavailable sentence is not marked as such"
    assert "not available (corpus pointer)" in item.group(0)
    assert "ukWaC doc 1234" in item.group(0)
    assert "<mark" not in item.group(0)


def test_compound_page_shows_token_paraphrases_and_variants(client):
    data = make_dataset()
    body = client.get(reverse("compound", args=[data["beaver"].pk])).content.decode()
    first = re.search(rf'id="sentence-{data["first"].pk}">.*?</li>\s*<li', body, re.S).group(0)
    assert "keen person" in first
    assert '<details class="variants">' in first
    assert "2 variants" in first
    # Probe kinds in the vocabulary's order (synonym of the compound before head only), not alphabetical.
    assert first.index("Synonym of the compound (NC_Syn)") < first.index("Head only (NC_Comp)")
    assert "Synonym of the compound (NC_Syn)" in first
    assert 'Carol is such an <mark class="rep">enthusiast</mark> that she starts at six.' in first
    assert "Approved" in first


def test_compound_page_404(client):
    assert client.get(reverse("compound", args=[999999])).status_code == 404


def test_compound_page_query_count_is_constant(client, django_assert_max_num_queries):
    compound = make_compound("rat race")
    for slot in range(1, 4):
        sentence = make_sentence(compound, f"Heidi left the rat race in year {slot}.", slot=slot)
        for rank in range(1, 6):
            make_variant(sentence, f"random compound {rank}", kind=vocabulary.RANDOM_FREQ, rank=rank)
    make_unavailable_sentence(compound, kind=vocabulary.NEUTRAL_LONG, slot=1)
    with django_assert_max_num_queries(5 + 3):  # 3 for the curator's session, user and group
        response = client.get(reverse("compound", args=[compound.pk]))
    assert response.status_code == 200
    assert response.content.decode().count('<mark class="rep">') == 15


def test_header_shows_login_link_or_user_with_logout_form():
    client = Client()
    response = client.get(reverse("home"))
    assert f'href="{reverse("login")}?next=/"' in response.content.decode()
    user = get_user_model().objects.create_user("ivan", password="correct horse battery")
    client.force_login(user)
    body = client.get(reverse("home")).content.decode()
    assert "ivan" in body
    assert f'<form class="logout" method="post" action="{reverse("logout")}">' in body
    assert "csrfmiddlewaretoken" in body


def test_login_and_logout(client):
    get_user_model().objects.create_user("judy", password="correct horse battery")
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "judy", "password": "correct horse battery"})
    assert response.status_code == 302 and response.url == reverse("home")
    assert "judy" in client.get(reverse("home")).content.decode()
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_login_rejects_a_wrong_password(client):
    get_user_model().objects.create_user("mallory", password="correct horse battery")
    response = client.post(reverse("login"), {"username": "mallory", "password": "wrong"})
    assert response.status_code == 200
    assert "didn't match" in response.content.decode()
