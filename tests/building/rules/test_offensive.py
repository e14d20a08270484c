"""Nothing offensive is proposed: WordNet's usage domains and the languages' offensive-word lists."""

from __future__ import annotations

import pytest

from building.counts.frequency import per_million
from building.rules.synonyms.lookup import lookup_synonyms, without_offensive
from building.rules.synonyms.offensive import OffensiveWords, word_list
from building.rules.synonyms.words_syn import SynonymQuery, head_synonyms, lone_synonyms, modifier_synonyms, words_syn

# What the generator proposed before issue 17, from English WordNet senses.
OLD_GENERATOR_PRODUCED = {
    ("guinea pig", "guinea", "pig"): ["wop hog", "dago hog", "ginzo hog", "greaseball hog"],
    ("sparkling water", "sparkling", "water"): ["starry piss", "sparkling piss", "sparkling pee"],
}


def every_candidate(lexicon, compound: str, modifier: str, head: str) -> list[str]:
    offensive = word_list("en") | OffensiveWords.of(lexicon.offensive_words())
    found = without_offensive(lookup_synonyms(lexicon, modifier, head, "en"), offensive)
    query = SynonymQuery(
        compound=compound,
        modifier=modifier,
        head=head,
        modifier_synonyms=found.modifier,
        head_synonyms=found.head,
        frequency=lambda text: per_million(text, "en"),
        limit=1000,
    )
    made = [*words_syn(query), *modifier_synonyms(query), *head_synonyms(query)]
    made += lone_synonyms(query, "modifier") + lone_synonyms(query, "head")
    return [r.text for r in made]


@pytest.mark.parametrize("compound", list(OLD_GENERATOR_PRODUCED))
def test_the_old_generators_offensive_variants_are_never_proposed(wordnet_lexicon, compound):
    candidates = every_candidate(wordnet_lexicon, *compound)
    assert candidates, "the compound still gets variants"
    for offensive in OLD_GENERATOR_PRODUCED[compound]:
        assert offensive not in candidates
    words = {word for text in candidates for word in text.split()}
    assert not words & {"wop", "dago", "ginzo", "greaseball", "piss", "pee"}


def test_slur_senses_give_no_synonyms_but_the_words_other_senses_stay(wordnet_lexicon):
    guinea = [s.lemma for s in wordnet_lexicon.synonyms("guinea", "n")]
    assert not {"wop", "dago", "ginzo", "greaseball"} & set(guinea)
    water = [s.lemma for s in wordnet_lexicon.synonyms("water", "n")]
    assert "H2O" in water and "urine" in water and not {"piss", "pee"} & set(water)
    offensive = wordnet_lexicon.offensive_words()
    assert {"wop", "dago", "piss"} <= offensive
    assert not {"boy", "queen", "guinea", "water"} & offensive  # a slur sense leaves a common word usable


def test_the_random_pool_has_no_slur_or_vulgar_entries(wordnet_lexicon):
    entries = set(wordnet_lexicon.two_word_entries())
    assert "police car" in entries
    assert not {"white trash", "red man", "yellow man", "piece of ass"} & entries


def test_the_word_lists_cover_both_languages_ignoring_case_accents_and_plural():
    portuguese = word_list("pt")
    assert portuguese.blocks("Caralho") and portuguese.blocks("caralhos") and portuguese.blocks("um filho da puta")
    assert not portuguese.blocks("água doce") and not portuguese.blocks("filho")
    assert word_list("en").blocks("bullshit") and not word_list("en").blocks("guinea pig")
    assert word_list("pt-BR").blocks("merda") and not word_list("xx").blocks("anything")
