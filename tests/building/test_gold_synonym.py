"""The gold synonym: the most frequent type-level paraphrase unless a curator picks another (recorded)."""

from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from building.variants.gold_synonyms import derive_gold_synonyms
from datasets import vocabulary
from datasets.models import Collection, Compound, Paraphrase

pytestmark = pytest.mark.django_db


def test_derivation_takes_the_most_frequent_normalised_paraphrase(shared_data):
    call_command("import_nctti", str(shared_data / "nctti"), "--languages", "en", stdout=StringIO())
    assert derive_gold_synonyms(language="en") > 200
    car_park = Compound.objects.get(key="car park")
    assert (car_park.gold_synonym, car_park.gold_synonym_source) == ("parking lot", vocabulary.GOLD_FROM_PARAPHRASES)
    assert derive_gold_synonyms(language="en") == 0  # idempotent
    # The crowd's most frequent paraphrase of "loose woman" is a slur: never the release's NC_Syn.
    loose = Compound.objects.get(key="loose woman")
    assert loose.gold_synonym not in ("", "slut")
    assert "left out as offensive: slut" in loose.gold_synonym_evidence["reason"]


def test_file_values_and_curator_picks_are_kept(client):
    call_command("load_demo", stdout=StringIO())
    beaver = Compound.objects.get(key="eager beaver")
    assert beaver.gold_synonym_source == vocabulary.GOLD_FROM_FILE
    assert derive_gold_synonyms(collection="demo") == 0

    cora = User.objects.create_user("cora")
    cora.groups.add(Group.objects.get(name="curators"))
    client.force_login(cora)
    response = client.post(f"/compounds/{beaver.pk}/gold-synonym/", {"gold_synonym": "  keen   worker "})
    assert response.status_code == 302
    beaver.refresh_from_db()
    assert (beaver.gold_synonym, beaver.gold_synonym_source, beaver.gold_synonym_set_by) == (
        "keen worker",
        vocabulary.GOLD_FROM_CURATOR,
        cora,
    )
    assert beaver.gold_synonym_set_at is not None
    call_command("load_demo", stdout=StringIO())  # re-importing the file does not undo the pick
    beaver.refresh_from_db()
    assert beaver.gold_synonym == "keen worker"
    page = client.get(f"/compounds/{beaver.pk}/").content.decode()
    assert "picked by a curator: cora" in page


def test_only_curators_may_pick(client):
    call_command("load_demo", stdout=StringIO())
    beaver = Compound.objects.get(key="eager beaver")
    assert client.post(f"/compounds/{beaver.pk}/gold-synonym/", {"gold_synonym": "x"}).status_code == 302  # login
    client.force_login(User.objects.create_user("anna"))
    assert client.post(f"/compounds/{beaver.pk}/gold-synonym/", {"gold_synonym": "x"}).status_code == 403
    beaver.refresh_from_db()
    assert beaver.gold_synonym == "enthusiastic person"
    assert "Set gold synonym" not in client.get(f"/compounds/{beaver.pk}/").content.decode()


def test_the_pick_counts_singular_and_plural_together_and_the_curator_sees_why(client):
    abalo = Compound.objects.create(
        collection=Collection.named("test"), language="pt", text="abalo sísmico", modifier="sísmico", head="abalo"
    )
    for text, frequency in [("terremoto", 2), ("Terremotos", 1), ("sismo", 2), ("tremor de terra", 1)]:
        Paraphrase.objects.create(compound=abalo, level=vocabulary.TYPE_LEVEL, text=text, frequency=frequency)
    assert derive_gold_synonyms(language="pt") == 1
    abalo.refresh_from_db()
    assert (abalo.gold_synonym, abalo.gold_synonym_source) == ("terremoto", vocabulary.GOLD_FROM_PARAPHRASES)
    evidence = abalo.gold_synonym_evidence
    assert evidence["reason"] == "most frequent paraphrase: 3 proposals (terremoto, terremotos counted together)"
    assert [c["text"] for c in evidence["candidates"]] == ["terremoto", "sismo", "tremor de terra"]
    assert derive_gold_synonyms(language="pt") == 0  # idempotent

    cora = User.objects.create_user("cora")
    cora.groups.add(Group.objects.get_or_create(name="curators")[0])
    client.force_login(cora)
    page = client.get(f"/compounds/{abalo.pk}/").content.decode()
    assert "counted together" in page and "Runners-up" in page and "sismo" in page
