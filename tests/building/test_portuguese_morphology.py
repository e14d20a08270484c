"""Reading a Hunspell dictionary whose entries and affix rules carry gender and number (the pt_PT format)."""

from pathlib import Path

import pytest

from building.lexicon.portuguese_morphology import ADJECTIVES, DETERMINERS, NOUNS, load_morphology

AFF = """SET UTF-8
SFX p Y 3
SFX p   0               s               [^ã][^lsmrnzx]  +N=p
SFX p   ão              ões             ão              +N=p
SFX p   m               ns              m               +N=p
SFX f Y 4
SFX f   o               a               [^ã]o           +G=f
SFX f   o               as              [^ã]o           +G=f,N=p
SFX f   0               a               [^aeiouscn]     +G=f
SFX f   0               as              [^aeiouscn]     +G=f,N=p
SFX s Y 1
SFX s   o               íssimo          [^cçg]o         +GR=sup,G=m,N=s
SFX Y Y 5
SFX Y   ar              ou              ar              +P=3,N=s,T=pp
SFX Y   r               do              ar              +G=m,N=s,T=ppa
SFX Y   r               da              ar              +G=f,N=s,T=ppa
SFX Y   r               dos             ar              +G=m,N=p,T=ppa
SFX Y   r               das             ar              +G=f,N=p,T=ppa
SFX c Y 2
SFX c   r               ção             [ae]r           +CAT=nc,G=f,N=s,FSEM=cao
SFX c   r               ções            [ae]r           +CAT=nc,G=f,N=p,FSEM=cao
"""
DIC = """8
abalo/p\t[CAT=nc,G=m,N=s]
clínico/fps\t[CAT=a_nc,G=m,N=s]
económico/fp\t[CAT=adj,N=s,G=m]
do/fp\t[CAT=cp,Prep=de,Art=o,G=m,N=s]
ao/p\t[CAT=cp,Prep=a,Art=o,G=m,N=s]
à\t[$ao$CAT=cp,Prep=a,Art=o$G=f,N=s]
meu/p\t[CAT=ppos,N=s,P=1,G=m,NP=s]
minha/p\t[CAT=ppos,N=s,P=1,NP=s,G=f]
trepidar/Yc\t[CAT=v,T=inf,TR=i]
"""


@pytest.fixture
def morphology(tmp_path: Path):
    (tmp_path / "pt_PT.aff").write_text(AFF, encoding="utf-8")
    (tmp_path / "pt_PT.dic").write_text(DIC, encoding="utf-8")
    return load_morphology(tmp_path / "pt_PT.dic")


def test_nouns_have_their_gender_and_plural(morphology):
    assert morphology.noun_gender("abalo") == "m"
    assert morphology.inflect("abalo", NOUNS, "m", "p") == "abalos"
    assert [(a.lemma, a.number) for a in morphology.analyse("abalos")] == [("abalo", "p")]


def test_adjectives_take_both_genders_and_numbers_but_not_degrees(morphology):
    assert morphology.inflect("clínico", ADJECTIVES, "f", "p") == "clínicas"
    assert morphology.inflect("Clínicas", ADJECTIVES, "m", "s") == "clínico"
    assert morphology.analyse("clinicíssimo") == []


def test_contractions_listed_apart_join_their_masculine(morphology):
    assert morphology.inflect("do", DETERMINERS, "f", "p") == "das"
    assert morphology.inflect("ao", DETERMINERS, "f", "s") == "à"
    assert morphology.inflect("à", DETERMINERS, "m", "s") == "ao"
    assert morphology.inflect("meu", DETERMINERS, "f", "p") == "minhas"


def test_derived_nouns_and_participles_come_from_the_verb(morphology):
    assert morphology.noun_gender("trepidação") == "f"
    assert morphology.inflect("trepidação", NOUNS, "f", "p") == "trepidações"
    assert morphology.inflect("trepidado", ADJECTIVES, "f", "p") == "trepidadas"
    assert morphology.analyse("trepidou") == []  # a finite verb form is not nominal


def test_a_brazilian_spelling_is_read_through_the_european_one(morphology):
    assert morphology.inflect("econômico", ADJECTIVES, "f", "s") == "econômica"
    assert morphology.noun_gender("xulambo") is None


def test_a_missing_dictionary_says_what_to_install(tmp_path):
    with pytest.raises(ValueError, match="hunspell-pt-pt"):
        load_morphology(tmp_path / "pt_PT.dic")
