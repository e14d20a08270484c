"""Corpus counting against a direct count, in one chunk and in many, in each of the three formats."""

from __future__ import annotations

import gzip
import random
import re
from collections import Counter

import pytest

from building.counts.corpus.counting import Counts, Targets, count_blocks, count_chunk, count_corpus, merge
from building.counts.corpus.readers import CONLL, TEXT, VERTICAL, token_blocks

WORDS = [
    "Eager",
    "eager",
    "beaver",
    "beavers",
    "olive",
    "Oil",
    "alta-costura",
    "alta",
    "costura",
    "guarda-chuva",
    "the",
    "of",
    "a",
    "rule",
    "thumb",
    "água",
    ",",
    ".",
    "-",
    "(",
    ")",
]
TARGETS = [
    "eager beaver",
    "eager",
    "beaver",
    "olive oil",
    "olive",
    "oil",
    "alta-costura",
    "alta",
    "costura",
    "guarda chuva",
    "rule of thumb",
    "the eager beaver",
    "água",
    "of",
    "absent word",
    "absent",
]
HYPHEN = re.compile(r"(?<=\w)-(?=\w)")


# --- a direct count, written independently of the readers ---------------------------------------


def naive_text_units(content: str) -> list[list[str]]:
    return [re.findall(r"\w+|[^\w\s]", HYPHEN.sub(" ", line.lower())) for line in content.split("\n")]


def naive_word(word: str) -> list[str]:
    return HYPHEN.sub(" ", word.lower()).split(" ")


def naive_conll_units(content: str, with_ids: bool) -> list[list[str]]:
    units, unit = [], []
    for line in content.split("\n"):
        if not line:
            units.append(unit)
            unit = []
            continue
        columns = line.split("\t")
        if with_ids:
            if columns[0].isdigit():
                unit += naive_word(columns[1])
        elif not (line.startswith("#") and len(columns) == 1):
            unit += naive_word(columns[0])
    return [*units, unit]


def naive_vertical_units(content: str) -> list[list[str]]:
    units, unit = [], []
    for line in content.split("\n"):
        if line == "<g/>":
            continue
        if not line or (line.startswith("<") and line.endswith(">")):
            units.append(unit)
            unit = []
        else:
            unit += naive_word(line.split("\t")[0])
    return [*units, unit]


def naive_count(units: list[list[str]], targets: list[str]) -> Counts:
    """Every target's occurrences inside units, by sliding a window over each unit."""
    keys = {" ".join(re.findall(r"\w+|[^\w\s]", HYPHEN.sub(" ", t.lower()))) for t in targets}
    counts: Counter = Counter()
    for unit in units:
        for n in range(1, 4):
            for i in range(len(unit) - n + 1):
                key = " ".join(unit[i : i + n])
                if key in keys:
                    counts[key] += 1
    return Counts(sum(len(unit) for unit in units), dict(counts))


# --- corpora ---------------------------------------------------------------------------------------


def random_sentences(seed: int, sentences: int = 300) -> list[list[str]]:
    rng = random.Random(seed)
    phrases = [["eager", "beaver"], ["Eager", "beaver"], ["olive", "Oil"], ["rule", "of", "thumb"], ["the"]]
    out = []
    for _ in range(sentences):
        sentence = []
        for _ in range(rng.randint(1, 14)):
            sentence += rng.choice(phrases) if rng.random() < 0.3 else [rng.choice(WORDS)]
        out.append(sentence)
    return out


def text_corpus(seed: int) -> str:
    lines = [" ".join(sentence) for sentence in random_sentences(seed)]
    lines[3] = "Alta-costura, eager\t beaver (olive oil) ÁGUA-viva"
    lines[4] = ""  # an empty line
    lines[5] = "eager"  # ... and a compound split over two lines: no bigram
    lines[6] = "beaver"
    return "\n".join(lines) + "\n"


def conll_corpus(seed: int, with_ids: bool) -> str:
    out = []
    for number, sentence in enumerate(random_sentences(seed)):
        out.append(f"# sent_id = {number}")
        for i, word in enumerate(sentence, start=1):
            if with_ids and word == "of" and i == 1:
                out.append(f"{i}-{i + 1}\tdo\t_\t_")  # a multiword range: skipped
            out.append(f"{i}\t{word}\t{word.lower()}\tX" if with_ids else f"{word}\tX\t{word.lower()}")
        out.append("")
    return "\n".join(out) + "\n"


def vertical_corpus(seed: int) -> str:
    out = ['<text id="t1">']
    for number, sentence in enumerate(random_sentences(seed)):
        out.append("<s>")
        for i, word in enumerate(sentence):
            if word in {",", "."} and i:
                out.append("<g/>")
            out.append(f"{word}\tPOS\t{word.lower()}")
        out.append("</s>")
        if number % 50 == 49:
            out += ["</text>", f'<text id="t{number}">']
    out.append("</text>")
    return "\n".join(out) + "\n"


CORPORA = {
    "text": (TEXT, "corpus.txt", lambda seed: text_corpus(seed), naive_text_units),
    "conllu": (CONLL, "corpus.conllu", lambda seed: conll_corpus(seed, True), lambda c: naive_conll_units(c, True)),
    "conll": (CONLL, "corpus.conll", lambda seed: conll_corpus(seed, False), lambda c: naive_conll_units(c, False)),
    "vertical": (VERTICAL, "corpus.vert", vertical_corpus, naive_vertical_units),
}


@pytest.fixture(params=sorted(CORPORA))
def corpus(request, tmp_path):
    fmt, name, make, units = CORPORA[request.param]
    content = make(7)
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path, fmt, naive_count(units(content), TARGETS)


def test_one_pass_equals_a_direct_count(corpus):
    path, fmt, expected = corpus
    counted = count_chunk(path, fmt, Targets.from_texts(TARGETS))
    assert counted == expected
    assert counted.counts["eager beaver"] > 0 and "absent word" not in counted.counts


@pytest.mark.parametrize("chunks", [1, 2, 7, 50])
def test_any_number_of_chunks_gives_the_same_counts(corpus, chunks):
    path, fmt, expected = corpus
    assert count_corpus(path, fmt, Targets.from_texts(TARGETS), chunks=chunks) == expected


@pytest.mark.parametrize("block_size", [1, 5, 64, 1000])
def test_units_running_over_a_block_edge_are_counted_once(corpus, block_size):
    path, fmt, expected = corpus
    blocks = token_blocks(path, fmt, block_size=block_size)
    assert count_blocks(blocks, Targets.from_texts(TARGETS)) == expected


def test_n_grams_never_cross_a_line_in_text(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("an eager\nbeaver\neager beaver, eager - beaver\n")
    counts = count_chunk(path, TEXT, Targets.from_texts(["eager beaver", "eager"]))
    assert counts.counts == {"eager beaver": 1, "eager": 3}
    assert counts.tokens == 9


def test_n_grams_never_cross_a_sentence_in_conll_or_vertical(tmp_path):
    conll = tmp_path / "c.conllu"
    conll.write_text("1\tolive\n\n1\toil\n2\tolive\n3\toil\n")
    vertical = tmp_path / "c.vert"
    vertical.write_text("<s>\nolive\tJJ\n</s>\n<s>\noil\tNN\n<g/>\nolive\tJJ\noil\tNN\n</s>\n")
    targets = Targets.from_texts(["olive oil"])
    assert count_chunk(conll, CONLL, targets).counts == {"olive oil": 1}
    assert count_chunk(vertical, VERTICAL, targets).counts == {"olive oil": 1}


@pytest.mark.parametrize("block_size", [1, 4, 1000])
def test_glue_joins_tokens_even_across_a_block_edge(tmp_path, block_size):
    path = tmp_path / "c.vert"
    path.write_text("<s>\nolive\tJJ\n<g/>\noil\tNN\n</s>\n<g/>\n<s>\noil\tNN\n</s>\n")
    blocks = token_blocks(path, VERTICAL, block_size=block_size)
    assert count_blocks(blocks, Targets.from_texts(["olive oil", "oil"])) == Counts(3, {"olive oil": 1, "oil": 2})


def test_hyphenated_and_spaced_compounds_are_one_target(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("Alta-costura e alta costura; alta - costura\n")
    counts = count_chunk(path, TEXT, Targets.from_texts(["alta-costura", "alta costura"]))
    assert counts.counts == {"alta costura": 2}


def test_targets_split_into_words_and_n_grams():
    targets = Targets.from_texts(["Eager", "eager beaver", "alta-costura", "  ", "rule of thumb"])
    assert targets.words == {"eager"}
    assert targets.ngrams == {("eager", "beaver"), ("alta", "costura"), ("rule", "of", "thumb")}
    assert targets.keys() == ["alta costura", "eager", "eager beaver", "rule of thumb"]


def test_merge_adds_tokens_and_counts():
    merged = merge([Counts(10, {"a": 1, "a b": 2}), Counts(5, {"a": 3}), Counts()])
    assert merged == Counts(15, {"a": 4, "a b": 2})
    assert Counts.from_dict(merged.as_dict()) == merged


def test_a_gzip_corpus_counts_like_the_plain_file(tmp_path):
    content = text_corpus(3)
    plain = tmp_path / "c.txt"
    plain.write_text(content)
    packed = tmp_path / "c.txt.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as f:
        f.write(content)
    targets = Targets.from_texts(TARGETS)
    assert count_corpus(packed, TEXT, targets, chunks=4) == count_corpus(plain, TEXT, targets, chunks=4)


def test_no_targets_still_counts_tokens(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("one two three\n")
    assert count_chunk(path, TEXT, Targets()) == Counts(3, {})
