"""Bad input: a clear error with file, line and reason, and nothing half-written."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from datasets import vocabulary
from datasets.models import Compound, ImportRun, Sentence, Variant

pytestmark = pytest.mark.django_db

DATA_HEADER = '"compound"\t"CompScale"\t"CompType"\t"MeanS1"\t"MeanS2"\t"MeanS3"\t"Synonyms"\t"SynonymsS1"\t"SynonymsS2"\t"SynonymsS3"\n'
SENT_HEADER = '"compound","sentence1","sentence2","sentence3"\n'


def nctti_dir(tmp_path: Path, data_rows: list[str], sent_rows: list[str], language: str = "en") -> Path:
    (tmp_path / f"data_{language}.tsv").write_text(DATA_HEADER + "".join(data_rows), encoding="utf-8")
    (tmp_path / f"sentids_{language}.csv").write_text(SENT_HEADER + "".join(sent_rows), encoding="utf-8")
    return tmp_path


GOOD_DATA = '"eager beaver"\t"NC"\t"0.9"\t"1.0"\t"0.8"\t"1.1"\t"keen person;keen person"\t""\t""\t""\n'
GOOD_SENTS = '"eager beaver","she is an eager beaver .","eager beavers work late .","the eager beaver left ."\n'


def import_json(*args) -> dict:
    out = StringIO()
    call_command(*args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_decimal_commas_are_read_as_decimals_and_reported(tmp_path):
    row = '"grey matter"\t"NC"\t"3,52"\t"1,5"\t"2"\t"2.5"\t""\t""\t""\t""\n'
    sents = '"grey matter","use your grey matter .","grey matter again .","more grey matter ."\n'
    summary = import_json("import_nctti", str(nctti_dir(tmp_path, [row], [sents])))
    assert summary["warnings"]["decimal comma"] == 2
    compound = Compound.objects.get(key="grey matter")
    assert compound.type_score == pytest.approx(3.52)
    assert compound.token_score == pytest.approx((1.5 + 2 + 2.5) / 3, abs=1e-4)


def test_a_bad_score_aborts_the_whole_file_with_its_line(tmp_path):
    bad = '"grey matter"\t"NC"\t"high"\t"1"\t"2"\t"2"\t""\t""\t""\t""\n'
    directory = nctti_dir(tmp_path, [GOOD_DATA, bad], [GOOD_SENTS])
    with pytest.raises(CommandError) as error:
        call_command("import_nctti", str(directory))
    assert "data_en.tsv:3" in str(error.value) and "CompType 'high' is not a number" in str(error.value)
    assert Compound.objects.count() == 0 and ImportRun.objects.count() == 0


def test_a_score_outside_the_scale_is_refused(tmp_path):
    bad = '"grey matter"\t"NC"\t"7"\t"1"\t"2"\t"2"\t""\t""\t""\t""\n'
    with pytest.raises(CommandError, match=r"data_en.tsv:2 \[CompType\]: score '7' is outside 0-5"):
        call_command("import_nctti", str(nctti_dir(tmp_path, [bad], [])))


def test_an_unknown_class_and_a_duplicate_compound_are_both_reported(tmp_path, capsys):
    rows = [GOOD_DATA, GOOD_DATA.replace('"NC"', '"XX"', 1)]
    with pytest.raises(CommandError) as error:
        call_command("import_nctti", str(nctti_dir(tmp_path, rows, [GOOD_SENTS])))
    assert "data_en.tsv:3" in str(error.value) and "already on line 2" in str(error.value)
    assert Compound.objects.count() == 0


def test_missing_columns_name_the_file_and_what_was_found(tmp_path):
    (tmp_path / "data_en.tsv").write_text('"compound"\t"CompScale"\n"x y"\t"NC"\n', encoding="utf-8")
    with pytest.raises(CommandError, match=r"data_en.tsv:1: missing column\(s\) CompType"):
        call_command("import_nctti", str(tmp_path))


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    (tmp_path / "data_en.tsv").write_bytes(
        DATA_HEADER.encode() + '"café"\t"C"\t"4"\t"4"\t"4"\t"4"\t""\t""\t""\t""\n'.encode("latin-1")
    )
    with pytest.raises(CommandError, match="data_en.tsv: not UTF-8"):
        call_command("import_nctti", str(tmp_path))


def test_corpus_pointers_are_kept_as_unavailable_sentences(tmp_path):
    sents = '"eager beaver","she is an eager beaver .","sent2: (\'""http://example.org/x""\', 140)",""\n'
    summary = import_json("import_nctti", str(nctti_dir(tmp_path, [GOOD_DATA], [sents])))
    assert summary["warnings"] == {"corpus pointer": 1, "empty sentence": 1}
    second = Sentence.objects.get(slot=2)
    assert not second.available and second.corpus_pointer == "sent2: ('\"http://example.org/x\"', 140)"
    assert second.token_score == pytest.approx(0.8)  # the score is kept even without the text


def test_a_compound_missing_from_its_sentence_is_reported_not_guessed(tmp_path):
    sents = '"eager beaver","nothing to see here .","eager beavers work late .","the eager beaver left ."\n'
    summary = import_json("import_nctti", str(nctti_dir(tmp_path, [GOOD_DATA], [sents])))
    assert summary["warnings"] == {"compound not found in sentence": 1}
    sentence = Sentence.objects.get(slot=1)
    assert sentence.available and sentence.span_start is None
    assert sentence.flags == ["compound not found in the sentence"]


NCIMP_HEADER = (
    "compound,compound noun,compound noun_tag,original sentence,original sentence_tag,"
    "synonym for compound,synonym for compound_tag\n"
)


def test_ncimp_uses_the_tag_position_when_the_compound_occurs_twice(tmp_path):
    text = "o pé frio disse que o pé frio chegou ."
    tags = "[False, False, False, False, False, False, True, True, False, False]"
    variant = "o pé frio disse que o azarado chegou ."
    variant_tags = "[False, False, False, False, False, False, True, False, False]"
    (tmp_path / "naturalistics_examplesent1.csv").write_text(
        NCIMP_HEADER + f'pé frio,pé frio,"[True, True]",{text},"{tags}",{variant},"{variant_tags}"\n', encoding="utf-8"
    )
    import_json("import_ncimp", str(tmp_path), "--language", "pt")
    sentence = Sentence.objects.get()
    assert (sentence.span_start, sentence.span_end) == (text.rindex("pé frio"), text.rindex("pé frio") + 7)
    synonym = Variant.objects.get(kind=vocabulary.SYNONYM_NC)
    assert synonym.replacement == "azarado" and synonym.span_start == variant.index("azarado")


def test_ncimp_malformed_tags_are_reported_with_file_line_and_column(tmp_path):
    text = "um pé frio chegou ."
    (tmp_path / "naturalistics_examplesent2.csv").write_text(
        NCIMP_HEADER + f'pé frio,pé frio,"[True, True]",{text},"[False, True, True, False, False]",'
        f'um azarado chegou .,"[False, True, True, False, False]"\n'
        f'pé quente,pé quente,"[True, True]",um pé quente .,"not a list",um sortudo .,"[False, True, False]"\n',
        encoding="utf-8",
    )
    summary = import_json("import_ncimp", str(tmp_path), "--language", "pt")
    assert summary["warnings"] == {"malformed tag": 2}
    azarado = Variant.objects.get(sentence__compound__key="pé frio", kind=vocabulary.SYNONYM_NC)
    assert azarado.replacement == "azarado" and azarado.span_source == vocabulary.SPAN_FROM_DIFF
    quente = Sentence.objects.get(compound__key="pé quente")
    assert quente.surface == "pé quente" and quente.span_source == vocabulary.SPAN_FROM_SEARCH
    assert quente.flags == ["malformed tag: tag cell 'not a list' is not a list of booleans"]


def test_ncimp_without_its_files_or_language_fails_in_one_line(tmp_path):
    with pytest.raises(CommandError, match="none of naturalistics_examplesent"):
        call_command("import_ncimp", str(tmp_path), "--language", "pt")
    with pytest.raises(CommandError, match="--language 'Portuguese!'"):
        call_command("import_ncimp", str(tmp_path), "--language", "Portuguese!")


def test_a_database_error_midway_leaves_nothing_behind(tmp_path, monkeypatch):
    from datasets import importing

    def explode(self, result):
        raise RuntimeError("disk full")

    monkeypatch.setattr(importing._Writer, "_paraphrases", explode)
    with pytest.raises(RuntimeError):
        call_command("import_nctti", str(nctti_dir(tmp_path, [GOOD_DATA], [GOOD_SENTS])))
    assert Compound.objects.count() == Sentence.objects.count() == ImportRun.objects.count() == 0


def test_commands_exit_non_zero_with_a_one_line_reason(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "import_nctti", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1].startswith("CommandError: ")
    assert "no such file or directory" in result.stderr
