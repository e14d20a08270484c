"""Plurals, articles and Portuguese genders of replacement phrases."""

import pytest

from building.rules.grammar.inflection import article, guess_gender, pluralise


@pytest.mark.parametrize(
    ("word", "expected"),
    [("hour", "an"), ("university", "a"), ("FBI agent", "an"), ("envoy", "an"), ("hard worker", "a"), ("", "a")],
)
def test_article_follows_sound(word, expected):
    assert article(word) == expected


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("hard worker", "hard workers"),
        ("forepart woman", "forepart women"),
        ("man of war", "men of war"),
        ("police car", "police cars"),
        ("CEO", "CEOs"),
    ],
)
def test_english_plurals_change_the_head(phrase, expected):
    assert pluralise(phrase, "en") == (expected, ())


def test_an_english_word_without_a_distinct_plural_is_flagged():
    text, flags = pluralise("information", "en")
    assert text == "information"
    assert flags and flags[0].startswith("plural:")


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("aviso fingido", "avisos fingidos"),
        ("água doce", "águas doces"),
        ("pé de moleque", "pés de moleque"),
        ("alta-costura", "altas-costuras"),
        ("beija-flor", "beija-flores"),
        ("pé-de-moleque", "pés-de-moleque"),
        ("animal doméstico", "animais domésticos"),
        ("papel útil", "papéis úteis"),
        ("túnel", "túneis"),
        ("barril", "barris"),
        ("fóssil", "fósseis"),
        ("lençol azul", "lençóis azuis"),
        ("homem bom", "homens bons"),
        ("flor", "flores"),
        ("raiz", "raízes"),
        ("gás natural", "gases naturais"),
        ("país", "países"),
        ("lápis", "lápis"),
        ("ônibus escolar", "ônibus escolares"),
        ("pão", "pães"),
        ("mão", "mãos"),
        ("órgão", "órgãos"),
        ("ação", "ações"),
        ("fogão a lenha", "fogões a lenha"),
        ("Água Doce", "Águas Doces"),
    ],
)
def test_portuguese_plurals_agree_up_to_the_preposition(phrase, expected):
    assert pluralise(phrase, "pt") == (expected, ())


@pytest.mark.parametrize(
    ("word", "expected"), [("chorão", "chorões"), ("hífen", "hifens"), ("elétron", "elétrons"), ("show", "shows")]
)
def test_uncertain_portuguese_plurals_are_flagged(word, expected):
    text, flags = pluralise(word, "pt")
    assert text == expected
    assert len(flags) == 1 and flags[0].startswith("plural:")


@pytest.mark.parametrize(
    ("noun", "expected"),
    [
        ("água doce", "f"),
        ("fluido açucarado", "m"),
        ("aviso fingido", "m"),
        ("alarme falso", "m"),  # -e says nothing; the adjective does
        ("alarme", None),
        ("cidade", "f"),
        ("viagem", "f"),
        ("problema", "m"),
        ("dia", "m"),
        ("mão", "f"),
        ("coração", "m"),
        ("estação", "f"),
        ("costume", "m"),
        ("águas doces", "f"),
        ("peixe-espada", None),
        ("dentista", None),
    ],
)
def test_guess_gender(noun, expected):
    assert guess_gender(noun) == expected


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError):
        pluralise("car", "fr")


def test_portuguese_adjectives_show_their_gender_and_lemma():
    from building.rules.grammar.inflection import pt_adjective_gender, pt_adjective_lemma, pt_inflect_adjective

    assert [pt_adjective_gender(w) for w in ("alcoólica", "falsos", "doce", "solar")] == ["f", "m", None, None]
    assert pt_adjective_lemma("alcoólicas") == "alcoólico" and pt_adjective_lemma("doce") == "doce"
    assert pt_inflect_adjective("etílico", "f") == "etílica" and pt_inflect_adjective("doce", "f") == "doce"


def test_an_adjective_that_disagrees_with_its_new_head_is_flagged():
    from building.rules.grammar.inflection import pt_agreement_flags

    assert pt_agreement_flags("líquido", "alcoólica") == (
        "agreement: 'alcoólica' may need the masculine to agree with 'líquido'",
    )
    assert pt_agreement_flags("bebida", "espirituosa") == ()
    assert pt_agreement_flags("água", "doce") == ()
