"""Noun-adjective phrases read from sentences: the Portuguese NC_Rand pool's real phrases."""

from building.rules.nc_rand.corpus_phrases import noun_adjective_phrases


def test_agreeing_noun_adjective_pairs_come_out_in_the_singular(pt_morphology):
    found = noun_adjective_phrases(["São incomuns em Goiana os grandes abalos sísmicos ou terremotos ."], pt_morphology)
    # "grandes abalos": the adjective comes first; "incomuns em": a function word.
    assert found == ["abalo sísmico"]


def test_a_feminine_pair_keeps_its_gender_and_a_brazilian_spelling_its_accents(pt_morphology):
    found = noun_adjective_phrases(["as fichas limpas dos fenômenos atmosféricos"], pt_morphology)
    assert found == ["ficha limpa", "fenômeno atmosférico"]


def test_pairs_that_do_not_agree_or_are_not_noun_then_adjective_are_left_out(pt_morphology):
    texts = ["o carro novas chegou", "muito bonito o dia", "a cidade de São Paulo", "novos-ricos felizes"]
    assert noun_adjective_phrases(texts, pt_morphology) == []


def test_each_phrase_once_in_order_of_first_occurrence(pt_morphology):
    texts = ["um vinho tinto e uma casa branca", "os vinhos tintos"]
    assert noun_adjective_phrases(texts, pt_morphology) == ["vinho tinto", "casa branca"]
