"""Portuguese agreement rewritten from the Hunspell pt_PT dictionary: inside the replacement and around it."""

import pytest

from building.rules.grammar.agreement import agree_phrase, head_index
from building.rules.grammar.realise import Realised, neutral, realise


def replace(sentence: str, occurrence: str, replacement: str, morphology, **kwargs) -> Realised:
    start = sentence.index(occurrence)
    return realise(sentence, (start, start + len(occurrence)), replacement, "pt", morphology=morphology, **kwargs)


def replaced(made: Realised) -> str:
    return made.text[made.span[0] : made.span[1]]


def test_a_feminine_head_synonym_rewrites_the_article_and_both_adjectives(pt_morphology):
    sentence = "São incomuns em Goiana os grandes abalos sísmicos ou terremotos ."
    made = replace(sentence, "abalos sísmicos", "trepidação sísmico", pt_morphology, compound="abalo sísmico")
    assert made.text == "São incomuns em Goiana as grandes trepidações sísmicas ou terremotos ."
    assert replaced(made) == "trepidações sísmicas"
    assert made.flags == ()


def test_a_masculine_head_keeps_the_sentence_as_it_was(pt_morphology):
    sentence = "São incomuns em Goiana os grandes abalos sísmicos ou terremotos ."
    made = replace(sentence, "abalos sísmicos", "tremor sísmico", pt_morphology, compound="abalo sísmico")
    assert made.text == "São incomuns em Goiana os grandes tremores sísmicos ou terremotos ."


def test_exame_clinico_with_a_feminine_head_becomes_analise_clinica(pt_morphology):
    made = replace("Ele fez um exame clínico completo.", "exame clínico", "análise clínico", pt_morphology)
    assert made.text == "Ele fez uma análise clínica completa."
    assert replaced(made) == "análise clínica"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Entrou num círculo vicioso.", "Entrou numa roda viciosa."),
        ("Falou do círculo vicioso.", "Falou da roda viciosa."),
        ("Este círculo vicioso acabou.", "Esta roda viciosa acabou."),
        ("Pelos seus círculos viciosos antigos.", "Pelas suas rodas viciosas antigas."),
        ("Todos os círculos viciosos.", "Todas as rodas viciosas."),
    ],
)
def test_circulo_vicioso_takes_the_feminine_of_roda_before_and_after(pt_morphology, sentence, expected):
    occurrence = "círculos viciosos" if "círculos" in sentence else "círculo vicioso"
    made = replace(sentence, occurrence, "roda vicioso", pt_morphology, compound="círculo vicioso")
    assert made.text == expected


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("do", "da"),
        ("no", "na"),
        ("ao", "à"),
        ("aos", "às"),
        ("pelo", "pela"),
        ("num", "numa"),
        ("dum", "duma"),
        ("neste", "nesta"),
        ("naquele", "naquela"),
        ("esse", "essa"),
        ("aquele", "aquela"),
        ("meu", "minha"),
        ("seu", "sua"),
        ("um", "uma"),
    ],
)
def test_contractions_and_determiners_take_the_new_gender(pt_morphology, before, after):
    occurrence = "exames clínicos" if before.endswith("s") else "exame clínico"
    made = replace(f"Falou {before} {occurrence} ontem.", occurrence, "análise clínico", pt_morphology)
    assert made.text.split()[1] == after


def test_the_feminine_goes_back_to_the_masculine(pt_morphology):
    made = replace("Chegou à casa grande.", "casa grande", "castelo grande", pt_morphology)
    assert made.text == "Chegou ao castelo grande."


def test_what_comes_before_a_contraction_or_an_article_is_another_phrase(pt_morphology):
    made = replace("O carro do exame clínico.", "exame clínico", "análise clínico", pt_morphology)
    assert made.text == "O carro da análise clínica."
    made = replace("Foi criado um círculo vicioso.", "círculo vicioso", "roda vicioso", pt_morphology)
    assert made.text == "Foi criado uma roda viciosa."


def test_sao_after_the_compound_is_the_verb(pt_morphology):
    made = replace("Os círculos viciosos são comuns.", "círculos viciosos", "roda vicioso", pt_morphology)
    assert made.text == "As rodas viciosas são comuns."


def test_a_word_the_dictionary_does_not_know_is_flagged_not_rewritten(pt_morphology):
    made = replace("Ele fez um exame clínico completo.", "exame clínico", "xulambação clínico", pt_morphology)
    assert made.text == "Ele fez um xulambação clínico completo."
    assert any("'xulambação' is not a noun in the Portuguese dictionary" in flag for flag in made.flags)


def test_an_unknown_adjective_is_flagged_and_kept(pt_morphology):
    phrase = agree_phrase("análise xulambístico", pt_morphology, plural=False)
    assert phrase.text == "análise xulambístico"
    assert phrase.gender == "f"
    assert any("'xulambístico'" in flag for flag in phrase.flags)


def test_the_head_is_the_noun_or_the_word_the_caller_names(pt_morphology):
    assert head_index("alta temporada".split(), pt_morphology) == 1
    assert head_index("plano baixa".split(), pt_morphology) == 0
    assert head_index("trepidação clínico".split(), pt_morphology) == 0  # derived from "trepidar"
    assert head_index("xulambação clínico".split(), pt_morphology) is None
    assert head_index("plano baixa".split(), pt_morphology, head="plano") == 0
    assert agree_phrase("plano baixa", pt_morphology, plural=True, head="plano").text == "planos baixos"


def test_a_noun_modifier_with_both_genders_agrees(pt_morphology):
    assert agree_phrase("tarefa escravo", pt_morphology, plural=False).text == "tarefa escrava"


def test_brazilian_spellings_are_found_and_kept(pt_morphology):
    assert agree_phrase("análise econômico", pt_morphology, plural=True).text == "análises econômicas"


def test_the_neutral_sentence_reads_the_gender_from_the_dictionary(pt_morphology):
    made = neutral("análise clínico", "pt", pattern="short", plural=False, morphology=pt_morphology)
    assert made.text == "Esta é uma análise clínica"
    made = neutral("análise clínico", "pt", pattern="short", plural=True, morphology=pt_morphology)
    assert made.text == "Estas são análises clínicas"


@pytest.mark.parametrize("phrase", ["pão e manteiga", "sal ou pimenta", "carne e osso"])
def test_a_conjunction_is_no_dictionary_miss_and_its_conjunct_stays(pt_morphology, phrase):
    singular = agree_phrase(phrase, pt_morphology, plural=False)
    plural = agree_phrase(phrase, pt_morphology, plural=True)

    head, conjunction, other = phrase.split()
    assert singular.text == phrase and singular.flags == ()  # nothing to change, nothing to check
    assert plural.text.split()[1:] == [conjunction, other] and plural.text.split()[0] != head
    assert plural.flags == (f"agreement: '{other}' after '{conjunction}' kept as it is; check its number",)
    assert not any("dictionary" in flag for flag in (*singular.flags, *plural.flags))


def test_an_article_in_a_phrase_is_kept_and_named_only_when_the_number_changes(pt_morphology):
    assert agree_phrase("o pão", pt_morphology, plural=False).flags == ()
    plural = agree_phrase("o pão", pt_morphology, plural=True)
    assert plural.text == "o pães"
    assert plural.flags == ("agreement: 'o' kept as it is; check it agrees with 'pão' in the plural",)
    assert head_index("o pão".split(), pt_morphology) == 1
