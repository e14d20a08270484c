"""Portuguese synonyms from MyThes thesauri: small files written here, then Debian's own."""

import pytest

from building.lexicon.base import LexiconFormatError, LexiconUnavailable
from building.lexicon.mythes import MyThesLexicon, default_portuguese_thesauri

PT_PT = """UTF-8
água|2
   (s.) |líquido|linfa|chuva
   (adj.) |aquoso
Alarme|1
   (s.m.) |rebate|sinal de perigo|aviso
doce|2
   (adj.) |açucarado|Doce|suave
   (-) |meigo
cerca viva|1
   (s.) |sebe
guarda-chuva|1
   (s.) |sombrinha|perturbar-se|pára-vento|anti-sepsia
"""

PT_BR = """UTF-8
água|2
(Sinônimo)chuva|chuva|água|aguaceiro
(Sinônimo)líquido|líquido|água|fluido
"""


def thesaurus(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_nouns_come_in_meaning_order_without_the_word_itself(tmp_path):
    lexicon = MyThesLexicon(thesaurus(tmp_path, "th.dat", PT_PT))
    assert [(s.lemma, s.sense_rank, s.count) for s in lexicon.synonyms("água", "n")] == [
        ("líquido", 1, 0),
        ("linfa", 1, 0),
        ("chuva", 1, 0),
    ]
    assert [s.lemma for s in lexicon.synonyms("água", "a")] == ["aquoso"]


def test_lookup_ignores_case_and_labels_like_s_m_mean_a_noun(tmp_path):
    lexicon = MyThesLexicon(thesaurus(tmp_path, "th.dat", PT_PT))
    # "sinal de perigo" is not one word, so it cannot replace one.
    assert [s.lemma for s in lexicon.synonyms("alarme", "n")] == ["rebate", "aviso"]
    assert [s.lemma for s in lexicon.synonyms("ÁGUA", "n")][:1] == ["líquido"]


def test_unlabelled_meanings_serve_any_part_of_speech(tmp_path):
    lexicon = MyThesLexicon(thesaurus(tmp_path, "th.dat", PT_PT))
    assert [(s.lemma, s.sense_rank) for s in lexicon.synonyms("doce", "a")] == [
        ("açucarado", 1),
        ("suave", 1),
        ("meigo", 2),
    ]
    assert [(s.lemma, s.sense_rank) for s in lexicon.synonyms("doce", "n")] == [("meigo", 1)]
    assert lexicon.usage("doce", "a") == 2 and lexicon.usage("doce", "n") == 1 and lexicon.usage("xyz", "n") == 0


def test_merged_files_keep_each_synonym_once_at_its_best_rank_earlier_file_first(tmp_path):
    lexicon = MyThesLexicon(thesaurus(tmp_path, "pt.dat", PT_PT), thesaurus(tmp_path, "br.dat", PT_BR))
    found = [(s.lemma, s.sense_rank) for s in lexicon.synonyms("água", "n")]
    assert found == [("líquido", 1), ("linfa", 1), ("chuva", 1), ("aguaceiro", 1), ("fluido", 2)]
    assert lexicon.name == "MyThes pt + br"


def test_a_list_of_paths_works_like_several_arguments(tmp_path):
    paths = [thesaurus(tmp_path, "pt.dat", PT_PT), thesaurus(tmp_path, "br.dat", PT_BR)]
    assert MyThesLexicon(paths).synonyms("água", "n") == MyThesLexicon(*paths).synonyms("água", "n")


def test_the_encoding_line_is_honoured(tmp_path):
    path = thesaurus(tmp_path, "latin.dat", PT_PT.replace("UTF-8", "ISO8859-1", 1), encoding="latin-1")
    assert [s.lemma for s in MyThesLexicon(path).synonyms("água", "n")] == ["líquido", "linfa", "chuva"]


def test_two_word_entries_are_nominal_pairs_not_phrases_or_prefixed_words(tmp_path):
    text = PT_PT + "por certo|1\n   (-) |decerto\n"
    lexicon = MyThesLexicon(thesaurus(tmp_path, "th.dat", text))
    assert lexicon.two_word_entries() == ["cerca viva", "guarda-chuva", "pára-vento"]


def test_a_broken_entry_line_names_the_file_and_line(tmp_path):
    path = thesaurus(tmp_path, "bad.dat", "UTF-8\nágua|1\n   (s.) |líquido\nno count here\n   (s.) |x\n")
    with pytest.raises(LexiconFormatError, match=r"bad\.dat:4: expected an entry line"):
        MyThesLexicon(path).synonyms("água", "n")


def test_an_entry_announcing_more_meanings_than_the_file_has_is_an_error(tmp_path):
    path = thesaurus(tmp_path, "short.dat", "UTF-8\nágua|3\n   (s.) |líquido\n")
    with pytest.raises(LexiconFormatError, match=r"short\.dat:2: entry 'água' announces 3 meanings past the end"):
        MyThesLexicon(path).load()


def test_undecodable_bytes_are_reported_with_their_line(tmp_path):
    path = tmp_path / "mixed.dat"
    path.write_bytes("UTF-8\nágua|1\n   (s.) |líquido\n".encode() + b"caf\xe9|1\n")
    with pytest.raises(LexiconFormatError, match=r"mixed\.dat:4: bytes that are not UTF-8"):
        MyThesLexicon(path).load()


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(LexiconUnavailable, match="does not exist"):
        MyThesLexicon(tmp_path / "nowhere.dat")


def test_without_debian_thesauri_the_error_names_the_packages(tmp_path):
    with pytest.raises(LexiconUnavailable, match="install the Debian package mythes-pt-pt or mythes-pt-br"):
        default_portuguese_thesauri(tmp_path)


def test_debian_thesauri_give_portuguese_nouns_synonyms(portuguese_thesaurus):
    water = [s.lemma for s in portuguese_thesaurus.synonyms("água", "n")]
    alarm = [s.lemma for s in portuguese_thesaurus.synonyms("alarme", "n")]
    assert "chuva" in water[:10] and "água" not in water
    assert {"rebate", "aviso"} <= set(alarm[:10])
    assert all(" " not in lemma for lemma in water + alarm)


def test_debian_thesauri_give_adjectives_for_a_modifier_like_doce(portuguese_thesaurus):
    sweet = [s.lemma for s in portuguese_thesaurus.synonyms("doce", "a")]
    assert {"suave", "meigo"} <= set(sweet) and "gulodice" not in sweet


def test_debian_thesauri_yield_two_word_compounds(portuguese_thesaurus):
    pairs = portuguese_thesaurus.two_word_entries()
    assert {"cerca viva", "vaso sanitário", "palavra-chave"} <= set(pairs)
    assert "por certo" not in pairs and "um pouco" not in pairs
