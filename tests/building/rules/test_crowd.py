"""Candidate words read from the crowd's paraphrases, by where they stand."""

from building.rules.synonyms.crowd import crowd_proposals, places, support_index, word_key
from building.rules.synonyms.scoring import Proposal


def test_portuguese_puts_the_head_first_and_english_last_or_before_a_preposition():
    assert places("naves espaciais", "pt") == {"head": "naves", "modifier": "espaciais"}
    assert places("bebida com gás", "pt") == {"head": "bebida"}
    assert places("parking area", "en") == {"head": "area", "modifier": "parking"}
    assert places("area for parking", "en") == {"head": "area"}
    assert places("sismo", "pt") == {}


def test_proposals_are_singular_most_proposed_first_and_never_the_compounds_own_words():
    paraphrases = [("naves voadoras", 1), ("nave espacial", 3), ("disco espacial", 2)]
    assert crowd_proposals(paraphrases, modifier="voador", head="disco", language="pt") == [
        Proposal("modifier", "espacial", "crowd"),  # 3 + 2 proposals
        Proposal("head", "nave", "crowd"),  # 1 + 3
    ]


def test_support_counts_the_proposals_that_contain_a_word_number_and_accents_aside():
    index = support_index([("naves espaciais", 2), ("nave", 1), ("objeto", 4)], "pt")
    assert index[word_key("Nave", "pt")] == 3 and word_key("espacial", "pt") in index
