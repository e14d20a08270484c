"""OpenWordNet-PT read from a user's file: the OMW tab format and WN-LMF XML."""

import gzip

import pytest

from building.lexicon.base import LexiconFormatError, LexiconUnavailable
from building.lexicon.openwordnet import OpenWordNetLexicon

TAB = """# Open Multilingual Wordnet: Portuguese\tpor\thttp://example.org\tCC BY
08641944-n\tpor:lemma\tágua
08641944-n\tpor:lemma\tlíquido
08641944-n\tpor:def\t0\tum líquido transparente
14845743-n\tpor:lemma\tchuva
14845743-n\tpor:lemma\tágua
14845743-n\tpor:lemma\tpluviosidade
07935504-n\tpor:lemma\tágua doce
07935504-n\tpor:lemma\tÁgua
01068306-s\tpor:lemma\tdoce
01068306-s\tpor:lemma\taçucarado
01068306-s\tpor:lemma\tadocicado
01073707-a\tpor:lemma\tsuave
01073707-a\tpor:lemma\tdoce
"""

LMF = """<?xml version="1.0" encoding="UTF-8"?>
<LexicalResource xmlns:dc="https://globalwordnet.github.io/schemas/dc/">
  <Lexicon id="own-pt" label="OpenWordNet-PT" language="pt" email="x@example.org" license="CC BY" version="1.0">
    <LexicalEntry id="own-pt-água-n">
      <Lemma writtenForm="água" partOfSpeech="n"/>
      <Sense id="own-pt-água-n-1" synset="own-pt-08641944-n"/>
      <Sense id="own-pt-água-n-2" synset="own-pt-14845743-n"/>
    </LexicalEntry>
    <LexicalEntry id="own-pt-líquido-n">
      <Lemma writtenForm="líquido" partOfSpeech="n"/>
      <Sense id="own-pt-líquido-n-1" synset="own-pt-08641944-n"/>
    </LexicalEntry>
    <LexicalEntry id="own-pt-chuva-n">
      <Lemma writtenForm="chuva" partOfSpeech="n"/>
      <Sense id="own-pt-chuva-n-1" synset="own-pt-14845743-n"/>
    </LexicalEntry>
    <LexicalEntry id="own-pt-cerca_viva-n">
      <Lemma writtenForm="cerca viva" partOfSpeech="n"/>
      <Sense id="own-pt-cerca_viva-n-1" synset="own-pt-03544360-n"/>
    </LexicalEntry>
    <LexicalEntry id="own-pt-sebe-n">
      <Lemma writtenForm="sebe" partOfSpeech="n"/>
      <Sense id="own-pt-sebe-n-1" synset="own-pt-03544360-n"/>
    </LexicalEntry>
    <LexicalEntry id="own-pt-doce-s">
      <Lemma writtenForm="doce" partOfSpeech="s"/>
      <Sense id="own-pt-doce-s-1" synset="own-pt-01068306-s"/>
    </LexicalEntry>
    <LexicalEntry id="own-pt-açucarado-s">
      <Lemma writtenForm="açucarado" partOfSpeech="s"/>
      <Sense id="own-pt-açucarado-s-1" synset="own-pt-01068306-s"/>
    </LexicalEntry>
    <Synset id="own-pt-08641944-n" ili="i1" partOfSpeech="n"/>
  </Lexicon>
</LexicalResource>
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_tab_synonyms_follow_the_words_synsets_in_file_order(tmp_path):
    lexicon = OpenWordNetLexicon(write(tmp_path, "wn-data-por.tab", TAB))
    assert [(s.lemma, s.sense_rank, s.count) for s in lexicon.synonyms("água", "n")] == [
        ("líquido", 1, 0),
        ("chuva", 2, 0),
        ("pluviosidade", 2, 0),
    ]
    assert lexicon.usage("água", "n") == 3 and lexicon.name == "OpenWordNet-PT (wn-data-por.tab)"


def test_tab_satellites_count_as_adjectives(tmp_path):
    lexicon = OpenWordNetLexicon(write(tmp_path, "wn-data-por.tab", TAB))
    assert [(s.lemma, s.sense_rank) for s in lexicon.synonyms("Doce", "a")] == [
        ("açucarado", 1),
        ("adocicado", 1),
        ("suave", 2),
    ]
    assert lexicon.synonyms("doce", "n") == []


def test_tab_two_word_entries_are_nominal_pairs(tmp_path):
    lexicon = OpenWordNetLexicon(write(tmp_path, "wn-data-por.tab", TAB))
    assert lexicon.two_word_entries() == ["água doce"]


def test_lmf_synonyms_are_the_other_entries_of_each_synset(tmp_path):
    lexicon = OpenWordNetLexicon(write(tmp_path, "own-pt.xml", LMF))
    assert [(s.lemma, s.sense_rank) for s in lexicon.synonyms("água", "n")] == [("líquido", 1), ("chuva", 2)]
    assert [s.lemma for s in lexicon.synonyms("doce", "a")] == ["açucarado"]
    assert lexicon.two_word_entries() == ["cerca viva"]


def test_a_gzipped_file_reads_the_same(tmp_path):
    path = tmp_path / "own-pt.xml.gz"
    path.write_bytes(gzip.compress(LMF.encode()))
    assert [s.lemma for s in OpenWordNetLexicon(path).synonyms("água", "n")] == ["líquido", "chuva"]


def test_the_format_is_recognised_without_a_telling_suffix(tmp_path):
    assert OpenWordNetLexicon(write(tmp_path, "own.txt", LMF)).synonyms("chuva", "n")[0].lemma == "água"
    assert OpenWordNetLexicon(write(tmp_path, "own.data", TAB)).synonyms("chuva", "n")[0].lemma == "água"


@pytest.mark.parametrize(
    "line, message",
    [
        ("08641944-n por:lemma água", r"bad\.tab:3: expected 'synset<TAB>relation<TAB>lemma'"),
        ("08641944\tpor:lemma\tágua", r"bad\.tab:3: '08641944' is not a synset id like 08641944-n"),
        ("08641944-n\tpor:lemma\t  ", r"bad\.tab:3: empty lemma for synset 08641944-n"),
    ],
)
def test_a_bad_tab_line_is_reported_with_file_line_and_reason(tmp_path, line, message):
    path = write(tmp_path, "bad.tab", f"# header\n08641944-n\tpor:lemma\tágua\n{line}\n")
    with pytest.raises(LexiconFormatError, match=message):
        OpenWordNetLexicon(path)


def test_tab_bytes_that_are_not_utf8_are_reported_with_their_line(tmp_path):
    path = tmp_path / "latin.tab"
    path.write_bytes(b"# header\n08641944-n\tpor:lemma\t\xe1gua\n")
    with pytest.raises(LexiconFormatError, match=r"latin\.tab:2: bytes that are not UTF-8"):
        OpenWordNetLexicon(path)


def test_broken_xml_is_reported_with_its_line(tmp_path):
    path = write(tmp_path, "broken.xml", LMF.replace("</LexicalEntry>", "", 1))
    with pytest.raises(LexiconFormatError, match=r"broken\.xml:\d+: not well-formed XML"):
        OpenWordNetLexicon(path)


def test_an_entry_without_a_written_form_is_named(tmp_path):
    path = write(tmp_path, "own.xml", LMF.replace('writtenForm="chuva" ', ""))
    with pytest.raises(LexiconFormatError, match="LexicalEntry 'own-pt-chuva-n' has no Lemma with a writtenForm"):
        OpenWordNetLexicon(path)


def test_a_file_without_lemmas_or_a_missing_file_is_refused(tmp_path):
    with pytest.raises(LexiconFormatError, match="no lemmas found"):
        OpenWordNetLexicon(write(tmp_path, "empty.tab", "# nothing here\n"))
    with pytest.raises(LexiconUnavailable, match="does not exist"):
        OpenWordNetLexicon(tmp_path / "nowhere.tab")
