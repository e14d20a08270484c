"""Comparing generated variants with the experts': the split and each measure, on tiny hand-made inputs."""

from pathlib import Path

from building.rules.expert_comparison import (
    DEV,
    HELD_OUT,
    NATURALISTIC,
    NEUTRAL,
    ExpertRow,
    Generated,
    compare,
    ncimp_rows,
    ncs_rows,
    neutral_span,
    offensive_count,
    other_words,
    pair_found,
    random_gaps,
    split_halves,
    syn_agrees,
    tagged_text,
    word_found,
)

KEYS = [f"compound {i}" for i in range(41)]


# --- the split ------------------------------------------------------------------------------


def test_the_split_is_the_same_whatever_the_order_of_the_keys():
    assert split_halves(KEYS) == split_halves(list(reversed(KEYS))) == split_halves(KEYS + KEYS[:5])


def test_the_split_covers_every_key_once_in_two_halves_of_equal_size():
    halves = split_halves(KEYS)
    dev = {k for k, h in halves.items() if h == DEV}
    held_out = {k for k, h in halves.items() if h == HELD_OUT}
    assert dev | held_out == set(KEYS)
    assert not dev & held_out
    assert (len(dev), len(held_out)) == (21, 20)


def test_the_split_is_shuffled_not_alphabetical_and_depends_on_the_seed():
    halves = split_halves(KEYS)
    dev = sorted(k for k, h in halves.items() if h == DEV)
    assert dev != sorted(KEYS)[:21]
    assert split_halves(KEYS, seed=18) != halves


# --- reading the experts' files -------------------------------------------------------------


def test_tagged_text_takes_the_marked_words_and_refuses_a_bad_cell():
    text = "São incomuns os grandes abalos sísmicos ou terremotos ."
    assert tagged_text(text, "[False, False, False, False, True, True, False, False, False]") == "abalos sísmicos"
    assert tagged_text(text, "[True]") is None
    assert tagged_text(text, "") is None


def test_neutral_span_strips_the_pattern():
    assert neutral_span("This is a default action") == "default action"
    assert neutral_span("Esta é uma trepidação enérgica .") == "trepidação enérgica"
    assert neutral_span("Estes são índios aculturados .") == "índios aculturados"
    assert neutral_span("Something else") is None


def test_other_words_removes_the_kept_word_in_any_gender_and_number():
    assert other_words("trepidações sísmicas", "sísmico", "pt") == "trepidações"
    assert other_words("abalos enérgicos", "abalo", "pt") == "enérgicos"
    assert other_words("tremor de terra", "sísmico", "pt") is None  # the kept word is not there


def _write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    import csv

    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_ncimp_rows_read_a_neutral_file_with_its_misnamed_tag_column(tmp_path):
    header = ["compound", "neutral sentence", "original sentence_tag", "synonym head", "synonym head_tag"]
    header += ["nc rand freq sentence1", "nc rand freq sentence1_tag"]
    row = ["front man", "This is a front man", "[False, False, False, True, True]"]
    row += ["This is a front leader", "[False, False, False, True, True]"]
    row += ["This is a speed limit", "[False, False, False, True, True]"]
    path = _write(tmp_path / "neutral.csv", header, [row])
    (found,) = ncimp_rows(path, "EN neutral", "en")
    assert found.head_synonym == "leader"
    assert found.target == "front man"
    assert found.random_freq == ("speed limit",)
    assert (found.frame, found.slot, found.plural) == (NEUTRAL, 1, False)


def test_ncs_rows_join_p1_and_p3(tmp_path):
    _write(
        tmp_path / "P1_sents.csv",
        ["compound", "neutral sentence", "mwe synonym"],
        [["front man", "x", "This is a leader"]],
    )
    _write(
        tmp_path / "P3_sents.csv",
        ["compound", "neutral sentence", "both synonyms"],
        [["front man", "x", "This is a forepart serviceman"]],
    )
    (found,) = ncs_rows(tmp_path, "EN NCS", "en")
    assert (found.synonym, found.both) == ("leader", "forepart serviceman")


# --- the measures ---------------------------------------------------------------------------


ABALO = Generated(
    language="pt",
    compound="abalo sísmico",
    gold_synonym="terremoto",
    modifier_top=("enérgico", "violento"),
    head_top=("tremor",),
    modifier_ranked=("enérgico", "violento", "forte"),
    head_ranked=("tremor", "trepidação"),
    pairs=("tremor enérgico", "trepidação violenta"),
    random_freq={(NATURALISTIC, 1, False): ("abalos sísmicos", ("cães pretos",))},
    candidates=("terremoto", "tremor enérgico", "merda seca"),
)


def row(**fields) -> ExpertRow:
    base = dict(source="PT naturalistic", language="pt", compound="abalo sísmico")
    return ExpertRow(**{**base, **fields})


def test_syn_agreement_ignores_case_number_and_articles():
    assert syn_agrees(row(synonym="Os Terremotos"), ABALO) is True
    assert syn_agrees(row(synonym="tremor de terra"), ABALO) is False
    assert syn_agrees(row(synonym=None), ABALO) is None


def test_a_word_is_found_in_any_gender_and_number():
    assert word_found("trepidações", ABALO.head_top, "pt") is False
    assert word_found("trepidações", ABALO.head_ranked, "pt") is True
    assert word_found("enérgicas", ABALO.modifier_top, "pt") is True
    assert word_found(None, ABALO.modifier_top, "pt") is None


def test_a_pair_is_found_with_gender_aside():
    assert pair_found(row(both="trepidações violentas"), ABALO) is True
    assert pair_found(row(both="trepidações enérgicas"), ABALO) is False


def test_random_gaps_compare_both_in_the_same_frame():
    frequency = {"abalos sísmicos": 1.0, "abalos": 10.0, "sísmicos": 1.0, "cães pretos": 1.0, "cães": 100.0}
    frequency |= {"pretos": 10.0, "índios aculturados": 1.0, "índios": 10.0, "aculturados": 1.0}
    expert = row(target="abalos sísmicos", random_freq=("índios aculturados",), frame=NATURALISTIC, slot=1)
    ours, theirs = random_gaps(expert, ABALO, lambda text, language: frequency.get(text, 0.0))
    assert theirs == [0.0]  # the same frequencies, word for word
    assert round(ours[0], 3) == 0.966  # f_avg 37 against 4: log10(37 / 4)
    elsewhere = row(target="abalos sísmicos", random_freq=("índios aculturados",), frame=NATURALISTIC, slot=2)
    assert random_gaps(elsewhere, ABALO, lambda text, language: frequency.get(text, 0.0))[0] == []


def test_offensive_count_counts_each_blocked_candidate():
    assert offensive_count([ABALO], lambda text, language: "merda" in text) == 1


def test_a_word_kept_from_the_compound_is_not_counted_offensive():
    sex_bomb = Generated(language="en", compound="sex bomb", candidates=("sex dud", "sex", "slut", "sex-slut"))
    assert offensive_count([sex_bomb], lambda text, language: "sex" in text or "slut" in text) == 2


def test_compare_gives_shares_and_counts_per_source_and_skips_compounds_not_generated():
    rows = [
        row(synonym="terremotos", head_synonym="trepidação", both="trepidação violenta"),
        row(synonym="sismo", head_synonym="tremores", slot=2),
        row(compound="água doce", synonym="água potável"),
    ]
    figures = compare(rows, {"abalo sismico": ABALO}, lambda text, language: 1.0)["PT naturalistic"]
    assert figures["compounds"] == 1
    assert (figures["syn"], figures["syn_n"]) == (0.5, 2)
    assert (figures["head_top"], figures["head_any"], figures["head_top_n"]) == (0.5, 1.0, 2)
    assert (figures["pair"], figures["pair_n"]) == (1.0, 1)
    assert figures["modifier_top"] is None and figures["modifier_top_n"] == 0
