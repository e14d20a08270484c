"""NC_WordsSyn, the single-side synonym variants and the generic ones."""

import pytest

from building.counts.frequency import per_million
from building.lexicon.base import Synonym
from building.rules.synonyms.generic import generic_replacements, generic_variants
from building.rules.synonyms.layout import WordNotInCompound, locate
from building.rules.synonyms.lookup import lookup_synonyms
from building.rules.synonyms.words_syn import SynonymQuery, head_synonyms, lone_synonyms, modifier_synonyms, words_syn
from datasets import vocabulary

FREQUENCY = {"forepart": 0.5, "battlefront": 2.0, "figurehead": 1.0, "serviceman": 3.0, "human": 200.0, "homo": 4.0}


def frequency(word):
    return FREQUENCY.get(word, 0.0)


def options(*pairs):
    return [Synonym(lemma, rank, 0) for lemma, rank in pairs]


FRONT = options(("forepart", 1), ("battlefront", 2), ("figurehead", 5))
MAN = options(("serviceman", 2), ("human", 4), ("homo", 4))


def front_man(**changes) -> SynonymQuery:
    args = dict(
        compound="front man",
        modifier="front",
        head="man",
        modifier_synonyms=FRONT,
        head_synonyms=MAN,
        frequency=frequency,
        resource="test",
    )
    return SynonymQuery(**{**args, **changes})


def test_words_syn_ranks_by_sense_rank_sum_then_word_frequency_new_words_first():
    found = words_syn(front_man())
    # Sums: forepart+serviceman 3, battlefront+serviceman 4, then forepart+human and forepart+homo
    # tie at 5, where human (200 per million) beats homo (4). Pairs that bring a new modifier
    # and a new head come first (battlefront human 6, figurehead homo 9), then the rest in rank order.
    assert [r.text for r in found] == [
        "forepart serviceman",
        "battlefront human",
        "figurehead homo",
        "battlefront serviceman",
        "forepart human",
    ]
    assert {r.kind for r in found} == {vocabulary.SYNONYM_BOTH}


def test_words_syn_records_which_synonyms_and_senses_it_used():
    first = words_syn(front_man())[0]
    assert first.details["resource"] == "test" and first.details["sense_rank_sum"] == 3
    assert first.details["modifier"] == {
        "word": "front",
        "synonym": "forepart",
        "sense_rank": 1,
        "count": 0,
        "frequency": 0.5,
    }
    assert first.details["head"]["synonym"] == "serviceman"


def test_words_syn_never_gives_back_the_original_words_or_a_repeat():
    found = words_syn(
        front_man(
            modifier_synonyms=options(("Front", 1), ("man", 1), ("forepart", 1), ("fore-part", 2), ("FOREPART", 2)),
            head_synonyms=options(("front", 1), ("human", 1), ("mán", 1)),
        )
    )
    assert [r.text for r in found] == ["forepart human", "fore-part human"]


def test_a_lower_case_word_is_not_replaced_by_a_proper_noun():
    found = words_syn(front_man(head_synonyms=options(("Oregonian", 1), ("human", 2))))
    assert [r.text for r in found] == ["forepart human", "battlefront human", "figurehead human"]


def test_portuguese_words_are_replaced_in_place_head_first():
    found = words_syn(
        SynonymQuery(
            compound="água doce",
            modifier="doce",
            head="água",
            modifier_synonyms=options(("açucarado", 1)),
            head_synonyms=options(("fluido", 1)),
            frequency=frequency,
        )
    )
    assert [r.text for r in found] == ["fluido açucarado"]


def test_longer_and_hyphenated_compounds_keep_their_other_words():
    layout = locate("pé de moleque", "moleque", "pé")
    assert layout.replace(modifier="garoto", head="base") == "base de garoto"
    assert locate("alta-costura", "alta", "costura").replace(head="moda") == "alta-moda"
    assert locate("Água Doce", "doce", "agua").replace(head="fluido") == "fluido Doce"


def test_a_word_missing_from_the_compound_is_an_error_that_says_which():
    with pytest.raises(WordNotInCompound, match="the head 'beaver' is not a word of 'eager beavers'"):
        words_syn(front_man(compound="eager beavers", modifier="eager", head="beaver"))
    with pytest.raises(WordNotInCompound, match="the modifier 'front' is not a word of 'frontman'"):
        generic_variants("frontman", "front", "man", "en")


def test_a_repeated_word_gives_the_head_its_last_occurrence():
    assert locate("bye bye", "bye", "bye").replace(head="farewell") == "bye farewell"


def test_single_side_variants_replace_one_word_and_keep_the_other():
    assert [r.text for r in modifier_synonyms(front_man())] == [
        "forepart man",
        "battlefront man",
        "figurehead man",
    ]
    heads = head_synonyms(front_man())
    assert [r.text for r in heads] == ["front serviceman", "front human", "front homo"]
    assert heads[0].kind == vocabulary.SYNONYM_HEAD and heads[0].details["head"]["synonym"] == "serviceman"


def test_lone_synonyms_stand_alone_and_say_which_side():
    modifiers = lone_synonyms(front_man(limit=2), "modifier")
    assert [(r.kind, r.text) for r in modifiers] == [
        (vocabulary.MODIFIER_SYNONYM_ONLY, "forepart"),
        (vocabulary.MODIFIER_SYNONYM_ONLY, "battlefront"),
    ]
    assert [r.text for r in lone_synonyms(front_man(), "head")] == ["serviceman", "human", "homo"]
    with pytest.raises(ValueError, match="side must be"):
        lone_synonyms(front_man(), "both")


def test_generic_variants_follow_the_public_release_in_english():
    assert generic_replacements("arcade game", "arcade", "game", "en") == {
        vocabulary.GENERIC_MODIFIER: "thing game",
        vocabulary.GENERIC_HEAD: "arcade thing",
        vocabulary.GENERIC_BOTH: "thing thing",
        vocabulary.GENERIC_COMPOUND: "normal thing",
    }


def test_generic_variants_follow_the_public_release_in_portuguese():
    found = generic_variants("água doce", "doce", "água", "pt-BR")
    assert [r.text for r in found] == ["água normal", "coisa doce", "coisa normal", "coisa normal"]
    assert found[0].details == {
        "language": "pt",
        "generic": {"modifier": "normal", "head": "coisa", "compound": "coisa normal"},
    }
    with pytest.raises(ValueError, match="no generic words for language 'fr'"):
        generic_variants("eau douce", "douce", "eau", "fr")


def test_wordnet_gives_front_and_man_noun_synonyms_most_common_sense_first(wordnet_lexicon):
    front = wordnet_lexicon.synonyms("front", "n")
    man = [s.lemma for s in wordnet_lexicon.synonyms("man", "n")]
    assert [(s.lemma, s.sense_rank) for s in front[:2]] == [("forepart", 1), ("battlefront", 2)]
    assert {"serviceman", "human", "gentleman"} <= set(man) and "man" not in man
    assert all("_" not in s.lemma for s in front)


def test_wordnet_adjectives_reach_their_similar_synsets(wordnet_lexicon):
    eager = [s.lemma for s in wordnet_lexicon.synonyms("eager", "a")]
    assert {"anxious", "impatient", "overeager"} <= set(eager) and "eager" not in eager
    with pytest.raises(ValueError, match="'n' \\(noun\\) or 'a' \\(adjective\\)"):
        wordnet_lexicon.synonyms("eager", "v")


def test_a_modifier_is_looked_up_as_the_part_of_speech_it_mostly_is(wordnet_lexicon):
    # "eager" the noun is a tidal bore: the adjective is far more common.
    assert lookup_synonyms(wordnet_lexicon, "eager", "beaver", "en").modifier_pos == "a"
    lookup = lookup_synonyms(wordnet_lexicon, "front", "man", "en")
    assert lookup.modifier_pos == "n" and lookup.resource == "WordNet 3.0"
    assert lookup.modifier[0].lemma == "forepart" and lookup.head[0].lemma == "serviceman"


def test_front_man_gets_five_distinct_replacements_of_both_words(wordnet_lexicon):
    lookup = lookup_synonyms(wordnet_lexicon, "front", "man", "en")
    found = words_syn(
        SynonymQuery(
            "front man", "front", "man", lookup.modifier, lookup.head, lambda w: per_million(w, "en"), lookup.resource
        )
    )
    texts = [r.text for r in found]
    assert len(set(texts)) == 5 and "front man" not in texts
    for text in texts:
        modifier, head = text.split()
        assert modifier != "front" and head != "man"
    assert texts[0] == "forepart serviceman"


def test_agua_doce_gets_head_first_replacements_from_debian_thesauri(portuguese_thesaurus):
    lookup = lookup_synonyms(portuguese_thesaurus, "doce", "água", "pt")
    found = words_syn(
        SynonymQuery("água doce", "doce", "água", lookup.modifier, lookup.head, lambda w: per_million(w, "pt"))
    )
    heads = {s.lemma for s in lookup.head}
    modifiers = {s.lemma for s in lookup.modifier}
    assert len(found) == 5 and lookup.modifier_pos == "a"
    for r in found:
        head, modifier = r.text.split()
        assert head in heads and modifier in modifiers


def test_the_five_pairs_vary_both_words(portuguese_thesaurus):
    lookup = lookup_synonyms(portuguese_thesaurus, "doce", "água", "pt", "água doce")
    found = words_syn(
        SynonymQuery("água doce", "doce", "água", lookup.modifier, lookup.head, lambda w: per_million(w, "pt"))
    )
    heads = [r.text.split()[0] for r in found]
    modifiers = [r.text.split()[1] for r in found]
    assert len(found) == 5 and len(set(heads)) == 5 and len(set(modifiers)) == 5


def test_militar_as_a_portuguese_adjective_gets_no_verb_synonyms(portuguese_thesaurus):
    lookup = lookup_synonyms(portuguese_thesaurus, "militar", "campo", "pt", "campo militar")
    assert lookup.modifier_pos == "a"
    found = {s.lemma for s in lookup.modifier}
    assert found and not found & {"lutar", "discutir", "combater", "guerrear", "batalhar"}
    assert not any(lemma.endswith(("ar", "er", "ir")) for lemma in found)
    pairs = words_syn(SynonymQuery("campo militar", "militar", "campo", lookup.modifier, lookup.head, lambda w: 0.0))
    assert pairs and not any(r.text.split()[1] in {"lutares", "discutires", "lutar", "discutir"} for r in pairs)


def test_a_feminine_adjective_modifier_gets_adjective_synonyms_in_its_gender(portuguese_thesaurus):
    # "limpa" and "baixa" are nouns too ("a baixa"): as modifiers after their head they are adjectives.
    for compound, modifier, head, noun_senses in (
        ("ficha limpa", "limpa", "ficha", {"clareira", "alimpa"}),
        ("planta baixa", "baixa", "planta", {"depressão", "descida", "desconto"}),
    ):
        lookup = lookup_synonyms(portuguese_thesaurus, modifier, head, "pt", compound)
        found = {s.lemma for s in lookup.modifier}
        assert lookup.modifier_pos == "a"
        assert found and not found & noun_senses
        assert not any(lemma.endswith("o") for lemma in found)  # "limpo" → feminine synonyms
