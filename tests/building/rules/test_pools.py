"""Pools of random compounds: the defaults, uploaded files and their frequencies."""

import pytest

from building.rules.nc_rand.pools import (
    ADJECTIVE_NOUN,
    NOUN_NOUN,
    PoolFileError,
    attested,
    compound_pool,
    default_pool,
    modifier_kind,
    natural_for,
    read_pool_file,
    split_compound,
    with_frequencies,
)
from building.rules.nc_rand.random_match import MatchingPool


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def test_a_list_file_gives_one_compound_per_line_skipping_comments_and_blanks(tmp_path):
    path = write(tmp_path, "pool.txt", "# my pool\n\npolice car\n  front   man \n# more\nalta-costura\npé de moleque\n")
    assert read_pool_file(path) == ["police car", "front man", "alta-costura", "pé de moleque"]


def test_a_csv_file_gives_its_compound_column(tmp_path):
    path = write(tmp_path, "pool.csv", '\ufeffid,Compound,note\n1,police car,x\n2,"front man","a, b"\n')
    assert read_pool_file(path) == ["police car", "front man"]


def test_a_compound_header_makes_a_csv_whatever_the_suffix(tmp_path):
    assert read_pool_file(write(tmp_path, "pool.txt", "compound\npolice car\n")) == ["police car"]


def test_a_one_word_line_is_refused_with_file_and_line(tmp_path):
    path = write(tmp_path, "pool.txt", "police car\n# fine so far\nfrontman\n")
    with pytest.raises(PoolFileError, match=r"pool\.txt:3: 'frontman': a compound needs two or more words"):
        read_pool_file(path)


def test_a_bad_csv_row_is_refused_with_its_line(tmp_path):
    path = write(tmp_path, "pool.csv", "compound,n\npolice car,1\n\n42 7,2\n")
    with pytest.raises(PoolFileError, match=r"pool\.csv:4: '42 7': every word needs a letter"):
        read_pool_file(path)


def test_a_csv_without_a_compound_column_is_refused(tmp_path):
    with pytest.raises(PoolFileError, match=r"pool\.csv:1: the CSV header has no 'compound' column"):
        read_pool_file(write(tmp_path, "pool.csv", "text,n\npolice car,1\n"))


def test_undecodable_bytes_are_refused_with_their_line(tmp_path):
    path = write(tmp_path, "pool.txt", b"police car\ncaf\xe9 au lait\n")
    with pytest.raises(PoolFileError, match=r"pool\.txt:2: bytes that are not UTF-8"):
        read_pool_file(path)


def test_an_empty_or_missing_file_is_refused(tmp_path):
    with pytest.raises(PoolFileError, match="no compounds in the file"):
        read_pool_file(write(tmp_path, "pool.txt", "# nothing\n\n"))
    with pytest.raises(PoolFileError, match="cannot be read"):
        read_pool_file(tmp_path / "nowhere.txt")


def test_english_puts_the_head_last_and_portuguese_first():
    assert split_compound("front man", "en") == ("front", "man")
    assert split_compound("água doce", "pt") == ("doce", "água")
    assert split_compound("pé de moleque", "pt-BR") == ("moleque", "pé")
    assert split_compound("alta-costura", "pt") == ("costura", "alta")


def test_pools_keep_each_compound_once_first_spelling_first():
    assert compound_pool(["Front man", "police car"], ["front  man", "arcade game"]) == [
        "Front man",
        "police car",
        "arcade game",
    ]


def test_frequencies_are_attached_to_the_compound_and_both_words():
    frequency = {"police car": 3.0, "police": 90.0, "car": 210.0, "water": 300.0}.get
    candidates = with_frequencies(["police car", "water ouzel", "frontman"], lambda text: frequency(text, 0.0))
    # "water ouzel" has no compound or head frequency: kept, its low f_avg sorts it first.
    assert [(c.text, c.words, c.f_avg) for c in candidates] == [
        ("water ouzel", ("water", "ouzel"), 100.0),
        ("police car", ("police", "car"), 101.0),
    ]


def test_frequencies_are_asked_once_per_text():
    asked = []
    with_frequencies(["police car", "police dog", "car park"], lambda text: asked.append(text) or 1.0)
    assert sorted(asked) == sorted(set(asked)) and asked.count("police") == 1


def test_the_english_default_pool_holds_wordnet_noun_compounds_and_the_dataset(wordnet_lexicon):
    entries = wordnet_lexicon.two_word_entries()
    assert {"police car", "front man"} <= set(entries) and entries == sorted(set(entries))
    assert all(len(entry.split()) == 2 and entry.replace(" ", "").isalpha() for entry in entries)
    pool = default_pool(wordnet_lexicon, ["eager beaver", "police car"])
    assert pool[:2] == ["eager beaver", "police car"] and pool.count("police car") == 1


def test_the_portuguese_default_pool_adds_thesaurus_compounds(portuguese_thesaurus):
    pool = default_pool(portuguese_thesaurus, ["água doce", "pé de moleque"])
    assert pool[:2] == ["água doce", "pé de moleque"] and "cerca viva" in pool
    matched = MatchingPool(with_frequencies(pool, lambda text: 1.0, "pt"))
    assert len(matched) == len(pool)


def test_random_compounds_are_hyphenated_only_for_a_hyphenated_target(portuguese_thesaurus):
    pool = MatchingPool(
        with_frequencies(default_pool(portuguese_thesaurus, []), lambda text: 1.0 if " " in text else 1.1, "pt")
    )
    choices = ("a", "n")
    spaced = natural_for(
        "abalo sísmico", modifier_kind(portuguese_thesaurus, "sísmico", choices), portuguese_thesaurus, choices
    )
    found = pool.frequency_matched("abalo sísmico", ["sísmico", "abalo"], 1.1, n=20, accept=spaced)
    assert len(found) == 20 and not any("-" in c.text for c in found)
    assert not any("-" in c.text for c in pool.unmatched("abalo sísmico", ["sísmico", "abalo"], n=20, accept=spaced))
    hyphenated = natural_for("alta-costura", None, portuguese_thesaurus, choices)
    found = pool.frequency_matched("alta-costura", ["alta", "costura"], 1.0, n=5, accept=hyphenated)
    assert len(found) == 5 and all("-" in c.text and " " not in c.text for c in found)


def test_an_adjective_noun_target_gets_adjective_noun_random_compounds(wordnet_lexicon):
    choices = ("n", "a")
    assert modifier_kind(wordnet_lexicon, "eager", choices) == ADJECTIVE_NOUN
    assert modifier_kind(wordnet_lexicon, "police", choices) == NOUN_NOUN
    assert modifier_kind(wordnet_lexicon, "xqzzy", choices) is None
    accept = natural_for("eager beaver", ADJECTIVE_NOUN, wordnet_lexicon, choices)
    pool = MatchingPool(with_frequencies(["police car", "red wine", "old man", "alta-costura"], lambda text: 1.0))
    assert [c.text for c in pool.frequency_matched("eager beaver", ["eager", "beaver"], 1.0, accept=accept)] == [
        "old man",
        "red wine",
    ]


def test_the_pool_keeps_real_phrases_of_the_frequency_source():
    frequency = {"police car": 3.0, "police": 90.0, "car": 210.0, "water": 300.0, "water ouzel": 0.1}.get
    candidates = with_frequencies(["police car", "water ouzel"], lambda text: frequency(text, 0.0))
    # "ouzel" is a word the source does not know: out, once enough real phrases remain.
    real, narrowed = attested(candidates, minimum=1)
    assert narrowed and [c.text for c in real] == ["police car"]


def test_a_corpus_phrase_is_real_only_when_it_occurs_in_the_corpus():
    counts = {"police": 90.0, "car": 210.0, "dog": 50.0, "police dog": 2.0}
    candidates = with_frequencies(["police car", "police dog"], lambda text: counts.get(text, 0.0))
    assert [c.text for c in attested(candidates, minimum=1)[0]] == ["police dog"]


def test_too_few_real_phrases_keep_the_whole_pool():
    candidates = with_frequencies(["police car", "water ouzel"], lambda text: 1.0 if text != "ouzel" else 0.0)
    kept, narrowed = attested(candidates, minimum=2)
    assert not narrowed and len(kept) == 2
