"""Putting a replacement in a sentence: number, capitals, English articles, Portuguese agreement flags."""

import pytest

from building.rules.grammar.realise import Realised, neutral, realise


def at(sentence: str, compound_as_it_occurs: str) -> tuple[int, int]:
    start = sentence.index(compound_as_it_occurs)
    return start, start + len(compound_as_it_occurs)


def replace(sentence: str, occurrence: str, replacement: str, language: str = "en", **kwargs) -> Realised:
    return realise(sentence, at(sentence, occurrence), replacement, language, **kwargs)


def replaced(made: Realised) -> str:
    return made.text[made.span[0] : made.span[1]]


# --- English --------------------------------------------------------------------------------


def test_it_rewrites_an_to_a_and_shifts_the_span():
    made = replace("He is an eager beaver at work.", "eager beaver", "hard worker")
    assert made.text == "He is a hard worker at work."
    assert replaced(made) == "hard worker"
    assert made.flags == ()


def test_it_rewrites_a_to_an_before_a_vowel_sound():
    made = replace("He was a front man.", "front man", "envoy")
    assert made.text == "He was an envoy."
    assert replaced(made) == "envoy"


def test_it_keeps_the_capital_of_a_sentence_initial_article():
    made = replace("A front man spoke.", "front man", "envoy")
    assert made.text == "An envoy spoke."
    assert made.span == (3, 8)


def test_the_article_follows_sound_not_spelling():
    assert replace("It was an eager beaver.", "eager beaver", "hour glass").text == "It was an hour glass."
    assert replace("It was an eager beaver.", "eager beaver", "university teacher").text == (
        "It was a university teacher."
    )
    assert replace("He met a police officer.", "police officer", "FBI agent").text == "He met an FBI agent."


def test_only_the_word_right_before_the_span_is_touched():
    sentence = "John Paul II was an effective front man for the catholic church."
    made = replace(sentence, "front man", "representative")
    assert made.text == "John Paul II was an effective representative for the catholic church."
    assert replaced(made) == "representative"
    made = replace(sentence, "front man", "forepart woman")
    assert made.text == "John Paul II was an effective forepart woman for the catholic church."


def test_a_plural_occurrence_gets_a_plural_replacement():
    made = replace("They are eager beavers at work.", "eager beavers", "hard worker", compound="eager beaver")
    assert made.text == "They are hard workers at work."
    assert replaced(made) == "hard workers"


def test_the_plural_is_detected_without_the_lemma():
    assert replace("They are eager beavers at work.", "eager beavers", "hard worker").text == (
        "They are hard workers at work."
    )


def test_irregular_plurals_come_from_inflect():
    made = replace("The front men of both bands met.", "front men", "forepart woman", compound="front man")
    assert replaced(made) == "forepart women"


def test_a_sentence_initial_occurrence_capitalises_the_replacement():
    made = replace("Eager beavers are busy in spring.", "Eager beavers", "hard worker")
    assert made.text == "Hard workers are busy in spring."
    made = replace("He left. Front man of the year was Bob.", "Front man", "envoy")
    assert made.text == "He left. Envoy of the year was Bob."


def test_a_lowercase_replacement_stays_lowercase_mid_sentence_and_names_keep_their_capitals():
    assert replace("He met a police officer.", "police officer", "hard worker").text == "He met a hard worker."
    made = replace("He met a police officer.", "police officer", "Eiffel Tower")
    assert made.text == "He met an Eiffel Tower."
    assert any(flag.startswith("capital:") for flag in made.flags)


def test_an_acronym_in_the_occurrence_does_not_capitalise_the_replacement():
    assert replace("He met an FBI agent.", "FBI agent", "police officer").text == "He met a police officer."


def test_the_given_number_wins_and_a_clashing_determiner_is_flagged():
    made = replace("These front men played.", "front men", "envoy", plural=False)
    assert made.text == "These envoy played."
    assert made.flags == ("agreement: 'These' before 'envoy' suggests a plural; check the number",)
    made = replace("He was a front man.", "front man", "envoy", plural=True)
    assert made.text == "He was a envoys."
    assert made.flags[0].startswith("article:")


def test_a_replacement_without_a_distinct_plural_is_flagged():
    made = replace("They were eager beavers.", "eager beavers", "sheep")
    assert made.text == "They were sheep."
    assert made.flags[0].startswith("plural:")


def test_an_occurrence_after_punctuation_keeps_the_words_before():
    made = replace("He was a, front man.", "front man", "envoy")
    assert made.text == "He was a, envoy."


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        realise("short", (3, 10), "envoy", "en")
    with pytest.raises(ValueError):
        realise("a front man", (2, 11), "  ", "en")
    with pytest.raises(ValueError):
        realise("a front man", (2, 11), "envoy", "de")


# --- Portuguese -----------------------------------------------------------------------------


def test_a_gender_change_after_a_determiner_is_flagged_not_rewritten():
    made = replace("Esta é uma água doce", "água doce", "fluido açucarado", "pt")
    assert made.text == "Esta é uma fluido açucarado"
    assert replaced(made) == "fluido açucarado"
    assert made.flags == ("agreement: 'uma' before 'fluido' may need the masculine ('um')",)


def test_a_preposition_has_no_gender_to_agree():
    made = replace("As reservas de água doce acabam.", "água doce", "água potável", "pt")
    assert made.text == "As reservas de água potável acabam."
    assert made.flags == ()


def test_the_same_gender_gives_no_flag():
    made = replace("Bebi uma água doce.", "água doce", "água potável", "pt")
    assert made.flags == ()


def test_a_plural_occurrence_pluralises_noun_and_adjective():
    made = replace("Nadam em águas doces.", "águas doces", "fluido açucarado", "pt")
    assert made.text == "Nadam em fluidos açucarados."
    assert made.flags == ()
    made = replace("Nadam em águas doces.", "águas doces", "pé de moleque", "pt", compound="água doce")
    assert replaced(made) == "pés de moleque"


def test_an_adjective_after_the_span_is_flagged():
    made = replace("Toda a água doce usada acabou.", "água doce", "fluido açucarado", "pt")
    assert made.text == "Toda a fluido açucarado usada acabou."
    assert made.flags == (
        "agreement: 'a' before 'fluido' may need the masculine ('o')",
        "agreement: 'Toda' before 'fluido' may need the masculine ('Todo')",
        "agreement: 'usada' after 'fluido' may need the masculine ('usado')",
    )


def test_an_unknown_gender_is_flagged():
    made = replace("Ele deu um alarme falso.", "alarme falso", "sinal de fumo", "pt")
    assert made.text == "Ele deu um sinal de fumo."
    assert made.flags == ()  # -l: masculine
    made = replace("Ele deu um alarme falso.", "alarme falso", "pente", "pt")
    assert made.flags == ("agreement: gender of 'pente' unknown; check 'um' before it",)


def test_a_verb_after_the_span_is_not_read_as_an_adjective():
    made = replace("A água doce fica aqui.", "água doce", "fluido açucarado", "pt")
    assert made.text == "A fluido açucarado fica aqui."
    assert made.flags == ("agreement: 'A' before 'fluido' may need the masculine ('O')",)


def test_a_portuguese_sentence_start_is_capitalised():
    made = replace("Águas doces correm.", "Águas doces", "fluido açucarado", "pt")
    assert made.text == "Fluidos açucarados correm."


# --- neutral sentences ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("replacement", "pattern", "plural", "expected", "exact"),
    [
        ("arcade game", "short", False, "This is an arcade game", "arcade game"),
        ("arcade game", "short", True, "These are arcade games", "arcade games"),
        ("eager beaver", "long", False, "This is what an eager beaver is supposed to be", "eager beaver"),
        ("eager beaver", "long", True, "These are what eager beavers are supposed to be", "eager beavers"),
        ("front man", "long", True, "These are what front men are supposed to be", "front men"),
        ("hard worker", "short", False, "This is a hard worker", "hard worker"),
    ],
)
def test_english_neutral_sentences(replacement, pattern, plural, expected, exact):
    made = neutral(replacement, "en", pattern=pattern, plural=plural)
    assert made.text == expected
    assert replaced(made) == exact
    assert made.flags == ()


@pytest.mark.parametrize(
    ("replacement", "pattern", "plural", "expected", "exact"),
    [
        ("alarme falso", "short", False, "Este é um alarme falso", "alarme falso"),
        ("alarme falso", "short", True, "Estes são alarmes falsos", "alarmes falsos"),
        ("alarme falso", "long", False, "Isto é o que um alarme falso deveria ser", "alarme falso"),
        ("alarme falso", "long", True, "Isto é o que alarmes falsos deveriam ser", "alarmes falsos"),
        ("água doce", "short", False, "Esta é uma água doce", "água doce"),
        ("água doce", "short", True, "Estas são águas doces", "águas doces"),
        ("água doce", "long", False, "Isto é o que uma água doce deveria ser", "água doce"),
        ("água doce", "long", True, "Isto é o que águas doces deveriam ser", "águas doces"),
    ],
)
def test_portuguese_neutral_sentences(replacement, pattern, plural, expected, exact):
    made = neutral(replacement, "pt", pattern=pattern, plural=plural)
    assert made.text == expected
    assert replaced(made) == exact
    assert made.flags == ()


def test_a_given_gender_wins_over_the_guess():
    assert neutral("alarme falso", "pt", pattern="short", plural=False, gender="f").text == "Esta é uma alarme falso"


def test_an_unknown_gender_gives_the_masculine_with_a_flag():
    made = neutral("pente", "pt", pattern="short", plural=False)
    assert made.text == "Este é um pente"
    assert made.flags == ("agreement: gender of 'pente' unknown; used the masculine",)


def test_an_unknown_pattern_is_refused():
    with pytest.raises(ValueError):
        neutral("envoy", "en", pattern="medium", plural=False)
