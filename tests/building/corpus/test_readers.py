"""Corpus readers: the tokeniser's rule, format detection, token streams and chunk edges."""

from __future__ import annotations

import gzip
import unicodedata

import pytest

from building.counts.corpus.readers import (
    CONLL,
    TEXT,
    VERTICAL,
    CorpusError,
    check_file,
    chunk_ranges,
    conll_has_ids,
    detect_format,
    normalise,
    token_blocks,
    tokenize,
)

CONLLU = """# sent_id = 1
# text = O guarda-chuva do avô.
1\tO\to\tDET
2\tguarda-chuva\tguarda-chuva\tNOUN
3-4\tdo\t_\t_
3\tde\tde\tADP
4\to\to\tDET
5\tavô\tavô\tNOUN
6\t.\t.\tPUNCT

# sent_id = 2
1\tChove\tchover\tVERB
2\t.\t.\tPUNCT
"""

VERTICAL_XML = """<text id="doc1">
<s>
The\tDT\tthe
eager\tJJ\teager
beaver\tNN\tbeaver
<g/>
,\t,\t,
</s>
<s>
Beavers\tNNS\tbeaver
swim\tVBP\tswim
</s>
</text>
"""


def tokens_of(path, fmt, **kwargs) -> list[str]:
    return [token for block in token_blocks(path, fmt, **kwargs) for token in block.tokens]


def test_text_tokens_are_lower_case_words_and_punctuation_marks():
    assert tokenize("The Eager beaver, (again)!") == ["the", "eager", "beaver", ",", "(", "again", ")", "!"]


def test_a_hyphen_between_letters_separates_two_tokens():
    assert tokenize("alta-costura") == tokenize("alta costura") == ["alta", "costura"]
    assert normalise("Alta-Costura") == "alta costura"


def test_a_free_standing_hyphen_is_punctuation():
    assert tokenize("eager - beaver") == ["eager", "-", "beaver"]
    assert tokenize("well--known") == ["well", "-", "-", "known"]


def test_apostrophes_and_unicode_punctuation_are_tokens():
    assert tokenize("d'água") == ["d", "'", "água"]
    assert tokenize("“Olá” — disse") == ["“", "olá", "”", "—", "disse"]


def test_decomposed_accents_are_composed_first():
    assert tokenize(unicodedata.normalize("NFD", "Ação")) == ["ação"]


def test_normalise_joins_tokens_with_one_space():
    assert normalise("  Eager \t Beaver ") == "eager beaver"
    assert normalise("") == ""


@pytest.mark.parametrize(
    "name,fmt",
    [
        ("c.txt", TEXT),
        ("c.conllu", CONLL),
        ("c.conll", CONLL),
        ("c.vert", VERTICAL),
        ("c.xml", VERTICAL),
        ("c.conllu.gz", CONLL),
    ],
)
def test_the_format_comes_from_the_extension(tmp_path, name, fmt):
    path = tmp_path / name
    path.write_bytes(b"anything\n")
    assert detect_format(path) == fmt


@pytest.mark.parametrize(
    "content,fmt",
    [
        ("Just some text.\nAnd more.\n", TEXT),
        (CONLLU, CONLL),
        (VERTICAL_XML, VERTICAL),
        ("The\tDT\neager\tJJ\n\nIt\tPRP\n", CONLL),
    ],
)
def test_without_a_known_extension_the_first_lines_decide(tmp_path, content, fmt):
    path = tmp_path / "corpus.data"
    path.write_text(content)
    assert detect_format(path) == fmt


def test_an_explicit_format_wins_and_an_unknown_one_is_refused(tmp_path):
    path = tmp_path / "corpus.conllu"
    path.write_text(CONLLU)
    assert detect_format(path, "text") == TEXT
    with pytest.raises(CorpusError, match="unknown corpus format 'xml': use one of text, conll, vertical"):
        detect_format(path, "xml")


def test_missing_and_empty_files_are_refused(tmp_path):
    with pytest.raises(CorpusError, match="no corpus file"):
        check_file(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(CorpusError, match="is empty"):
        check_file(tmp_path / "empty.txt")


def test_conll_u_takes_the_word_column_and_skips_comments_and_multiword_ranges(tmp_path):
    path = tmp_path / "pt.conllu"
    path.write_text(CONLLU)
    assert conll_has_ids(path)
    # "" marks the end of a sentence; the last newline of the file is no blank line.
    assert tokens_of(path, CONLL) == ["o", "guarda", "chuva", "de", "o", "avô", ".", "", "chove", "."]


def test_conll_without_ids_takes_column_one(tmp_path):
    path = tmp_path / "en.conll"
    path.write_text("The\tDT\nEager\tJJ\nbeaver\tNN\n\n#\tSYM\nOK\tUH\n")
    assert not conll_has_ids(path)
    assert tokens_of(path, CONLL) == ["the", "eager", "beaver", "", "#", "ok"]


def test_vertical_xml_takes_the_word_and_ends_units_at_tags_but_not_at_glue(tmp_path):
    path = tmp_path / "en.vert"
    path.write_text(VERTICAL_XML)
    tokens = tokens_of(path, VERTICAL)
    assert [t for t in tokens if t] == ["the", "eager", "beaver", ",", "beavers", "swim"]
    assert "beaver" in tokens and tokens[tokens.index("beaver") + 1] == ","  # <g/> is no boundary
    assert tokens[tokens.index(",") + 1] == ""  # </s> is


def test_blocks_report_how_many_real_tokens_they_hold(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("One two.\n\nThree\n")
    assert sum(block.size for block in token_blocks(path, TEXT)) == 4


def test_windows_line_ends_read_like_unix_ones(tmp_path):
    path = tmp_path / "c.conll"
    path.write_bytes(b"The\tDT\r\neager\tJJ\r\n\r\nbeaver\tNN\r\n")
    assert tokens_of(path, CONLL) == ["the", "eager", "", "beaver"]


def test_gzip_files_are_read_as_a_stream_and_are_one_chunk(tmp_path):
    path = tmp_path / "c.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("Eager beaver.\n" * 1000)
    assert detect_format(path) == TEXT
    assert chunk_ranges(path, TEXT, 8) == [(0, path.stat().st_size)]
    assert sum(block.size for block in token_blocks(path, TEXT)) == 3000


def is_unit_start(data: bytes, fmt: str, offset: int) -> bool:
    if offset in (0, len(data)):
        return True
    if data[offset - 1 : offset] != b"\n":
        return False
    previous = data[: offset - 1].rsplit(b"\n", 1)[-1]
    if fmt == TEXT:
        return True
    if fmt == CONLL:
        return previous == b""
    return previous.startswith(b"</") and previous.endswith(b">")


@pytest.mark.parametrize(
    "fmt,unit",
    [
        (TEXT, "A line of text with several words.\n"),
        (CONLL, CONLLU),
        (VERTICAL, "<s>\nword\tNN\tword\nother\tNN\tother\n</s>\n"),
    ],
)
@pytest.mark.parametrize("chunks", [1, 2, 3, 7, 50, 1000])
def test_chunks_cover_the_file_and_start_on_unit_boundaries(tmp_path, fmt, unit, chunks):
    path = tmp_path / "corpus"
    path.write_text(unit * 40)
    data = path.read_bytes()
    ranges = chunk_ranges(path, fmt, chunks)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(end == next_start for (_, end), (next_start, _) in zip(ranges, ranges[1:], strict=False))
    assert all(start < end for start, end in ranges)
    assert len(ranges) <= chunks
    assert all(is_unit_start(data, fmt, start) for start, _ in ranges)
    if chunks <= 40:
        assert len(ranges) == chunks  # 40 units are enough to give every chunk some


def test_a_file_without_unit_boundaries_is_one_chunk(tmp_path):
    path = tmp_path / "c.conll"
    path.write_text("word\tNN\n" * 500)  # no blank line: one long sentence
    assert chunk_ranges(path, CONLL, 4) == [(0, path.stat().st_size)]


def test_chunks_must_be_at_least_one(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("x\n")
    with pytest.raises(CorpusError, match="at least 1"):
        chunk_ranges(path, TEXT, 0)
