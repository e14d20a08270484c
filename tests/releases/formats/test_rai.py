"""The responsible-use facts of a release: from its campaigns, its reference scores and the curator's words."""

from __future__ import annotations

import dataclasses

from releases.formats import build_files
from releases.formats.rai import BASE_BIASES, DEMOGRAPHICS, INTENDED_USE, PROTOCOL, responsible_ai
from releases.snapshot import CampaignSource, LanguageSource, ScoreInfo
from tests.releases.formats.test_release_card import with_campaign


def reference_only(snapshot):
    languages = tuple(LanguageSource(lang.language, lang.imported) for lang in snapshot.scores.languages)
    return dataclasses.replace(snapshot, scores=ScoreInfo(source="reference", languages=languages), agreement=())


def test_a_crowd_campaign_says_where_its_ratings_came_from_what_they_cost_and_that_people_consented(
    release_snapshot, release_meta
):
    facts = responsible_ai(release_snapshot, release_meta)
    assert (
        "English: Campaign `demo-token` (token level): 320 ratings from 3 people through Prolific; paid 0.15 per "
        "rating (the study's currency); every person counted gave informed consent in the study; 8 ratings per item."
    ) in facts.collection
    assert (
        "Portuguese: compounds, sentences and reference scores imported from NCIMP (He et al. 2024)."
        in facts.collection
    )
    assert facts.collection_types == ("Secondary data analysis", "Crowdsourcing", "Manual human curation")
    assert facts.annotation_platforms == ("Prolific",)
    assert facts.annotation_analysis.startswith("Filtering policy `attention-checks` (drop_straightliners=True,")
    assert "1 annotator left out" in facts.annotation_analysis
    assert "en compound (interval): Krippendorff's alpha 0.612" in facts.annotation_analysis
    assert facts.annotation_protocol == PROTOCOL and facts.demographics == DEMOGRAPHICS
    assert facts.machine_annotation == "" and facts.simulated == ""


def test_the_curators_words_come_first_and_the_datas_facts_follow(release_snapshot, release_meta):
    facts = responsible_ai(release_snapshot, release_meta)
    assert facts.intended_use == f"Probing sentence encoders. {INTENDED_USE}"
    assert facts.biases == f"Hand-picked examples. {BASE_BIASES}"
    assert facts.limitations == "Two compounds only. Languages: English, Portuguese; 2 compounds."
    bare = responsible_ai(release_snapshot, dataclasses.replace(release_meta, intended_use="", limitations=""))
    assert bare.intended_use == INTENDED_USE
    assert bare.limitations == "Languages: English, Portuguese; 2 compounds."


def test_a_release_of_reference_scores_collected_no_ratings(release_snapshot, release_meta):
    facts = responsible_ai(reference_only(release_snapshot), release_meta)
    assert facts.annotation_platforms == ()
    assert "Crowdsourcing" not in facts.collection_types
    assert facts.annotation_analysis.startswith("Reference scores as published")
    assert "no new ratings were collected" in facts.limitations


def test_simulated_and_local_ratings_are_named_as_such(release_snapshot, release_meta):
    local = CampaignSource("demo-token", "token", 0, 6, 207, platforms=("local",), allocation="adaptive")
    facts = responsible_ai(with_campaign(release_snapshot, local), release_meta)
    assert "6 SIMULATED annotators" in facts.collection
    assert "adaptive allocation" in facts.collection
    assert "pay not recorded" in facts.collection and "consent not recorded" in facts.collection
    assert "Crowdsourcing" not in facts.collection_types
    assert facts.simulated.startswith("This release includes SIMULATED ratings")
    assert facts.simulated in facts.limitations


def test_the_card_shows_every_fact(release_snapshot, release_meta):
    card = build_files(release_snapshot, release_meta)["README.md"].decode()
    facts = responsible_ai(release_snapshot, release_meta)
    section = card.split("## Responsible use", 1)[1].split("\n## ", 1)[0]
    for text in (
        facts.collection,
        facts.annotation_protocol,
        facts.annotation_analysis,
        facts.demographics,
        facts.intended_use,
        facts.limitations,
        facts.biases,
        facts.personal_information,
    ):
        assert text in section
    assert "**Machine annotation.**" not in section  # only when a release carries machine-made ratings
    assert "Creators: Jane Doe (University of Sheffield) [ORCID 0000-0002-1825-0097]" in card
