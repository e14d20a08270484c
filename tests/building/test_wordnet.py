"""English WordNet read by NLTK from Debian's files, with no download."""

from building.lexicon.wordnet import lexnames_text, open_wordnet, prepare_nltk_data, synonyms


def test_lexnames_follow_the_wordnet_specification():
    lines = lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[18] == "18\tnoun.person\t1" and lines[44] == "44\tadj.ppl\t3"


def test_nltk_reads_debian_wordnet_from_real_copies(debian_wordnet, tmp_path):
    folder = prepare_nltk_data(tmp_path, debian_wordnet)
    assert not any(path.is_symlink() for path in folder.iterdir())
    wordnet = open_wordnet(tmp_path, debian_wordnet)
    assert wordnet.get_version() == "3.0"
    assert "noun.animal" in {synset.lexname() for synset in wordnet.synsets("beaver", pos="n")}
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    prepare_nltk_data(tmp_path, debian_wordnet)  # idempotent: nothing copied again
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before


def test_synonyms_come_most_common_sense_first_without_the_word_itself(debian_wordnet, tmp_path):
    wordnet = open_wordnet(tmp_path, debian_wordnet)
    found = synonyms(wordnet, "car")
    names = [s.lemma for s in found]
    assert names[:2] == ["automobile", "auto"] and {"machine", "motorcar"} <= set(names[:4]) and "car" not in names
    assert [s.sense_rank for s in found] == sorted(s.sense_rank for s in found)
    assert all("_" not in name for name in names)
    beaver = [s.lemma for s in synonyms(wordnet, "beaver")]
    assert beaver and "beaver" not in beaver
