"""The exact headers of the public NCIMP files (He et al. 2024), as data (pure: no Django import).

The sentence files (``naturalistics_examplesent{1,2,3}.csv``, ``neutral.csv``) and the human
scores table (``human_compositionality_scores.csv``, at the end): what the importers read and
what a release writes (releases/formats/), defined once.

Existing research scripts read the public files by column name and position, so a release
repeats the public header verbatim: same names, same order, each text column followed by its
``_tag`` column. One public quirk is kept on purpose: in ``neutral.csv`` the tag of
``neutral sentence`` is called ``original sentence_tag``.

The English naturalistic files are not public; the Portuguese header serves both languages.
A language without a public neutral file gets the English one (the larger of the two).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from datasets import vocabulary

NATURALISTIC_FILES = (
    "naturalistics_examplesent1.csv",
    "naturalistics_examplesent2.csv",
    "naturalistics_examplesent3.csv",
)
NEUTRAL_FILE = "neutral.csv"

# Columns that repeat the sentence or the compound rather than hold a variant.
COMPOUND = "compound"
COMPOUND_NOUN = "compound noun"
COMPOUND_HEAD = "compound noun head"
COMPOUND_MODIFIER = "compound noun modifier"
NATURALISTIC_SENTENCE = "original sentence"
NEUTRAL_SENTENCE = "neutral sentence"
NEUTRAL_PLURAL_SENTENCE = "neutral sentence plural"
COPIES = ("entire original sentence", "entire neutral sentence")
TAG_NAMES = {NEUTRAL_SENTENCE: "original sentence_tag"}  # every other text column: "<name>_tag"


def _tagged(*names: str) -> tuple[str, ...]:
    """Each text column followed by its tag column."""
    out: list[str] = []
    for name in names:
        out += [name, TAG_NAMES.get(name, f"{name}_tag")]
    return tuple(out)


NATURALISTIC_COLUMNS: tuple[str, ...] = (
    COMPOUND,
    *_tagged(
        "compound noun",
        "original sentence",
        "entire original sentence",
        "original head only",
        "original modifier only",
        "generic modifier",
        "generic head",
        "synonym modifier",
        "synonym head",
        "synonym both",
        "synonym for compound",
        *[name for k in range(1, 6) for name in (f"nc rand freq sentence{k}", f"nc rand sentence{k}")],
    ),
)

NEUTRAL_COLUMNS_PT: tuple[str, ...] = (
    COMPOUND,
    *_tagged(
        "compound noun",
        "neutral sentence",
        "neutral sentence plural",
        "entire neutral sentence",
        "original modifier only",
        "original head only",
        "head only plural",
        "modifier hypernym",
        "head hypernym",
        "synonym for compound",
        "mwe synonym plural",
        "modifier synonym",
        "head synonym",
        "head synonym plural",
        "synonym both",
        "both synonyms plural",
        "only mwe synonym",
        # The public file has the fifth frequency-matched compound first and the fifth unmatched one last.
        "nc rand freq sentence5",
        *[name for k in range(1, 5) for name in (f"nc rand freq sentence{k}", f"nc rand sentence{k}")],
        "nc rand sentence5",
        "compound noun head",
        "compound noun modifier",
        "only both synonyms",
    ),
)

NEUTRAL_COLUMNS_EN: tuple[str, ...] = (
    COMPOUND,
    *_tagged(
        "compound noun",
        "neutral sentence",
        "neutral sentence plural",
        "entire neutral sentence",
        "original modifier only",
        "original head only",
        "head only plural",
        "modifier hypernym",
        "head hypernym",
        "neutral sentence hypernym",
        "synonym for compound",
        "only mwe synonym",
        "only synonym for compoundplural",
        "synonym for compoundplural",
        "synonym for compound2",
        "only synonym for compound2",
        "only synonym for compound2 plural",
        "synonym for compound2 plural",
        "modifier synonym",
        "head synonym",
        "head synonym plural",
        "synonym both",
        "synonym both plural",
        "compound noun head",
        "compound noun modifier",
        "only synonym both",
        "generic compound noun",
        *[
            name
            for k in range(1, 5)
            for name in (
                f"modifier synonym alt{k}",
                f"head synonym alt{k}",
                f"only modifier synonym alt{k}",
                f"only head synonym alt{k}",
                f"both synonym alt{k}",
                f"only both synonym alt{k}",
            )
        ],
        *[
            name
            for k in range(1, 6)
            for name in (
                f"nc rand sentence{k}",
                f"nc rand mod neutral sentence{k}",
                f"nc rand head neutral sentence{k}",
                f"nc rand mod{k}",
                f"nc rand head{k}",
            )
        ],
        *[
            name
            for k in range(1, 6)
            for name in (
                f"nc rand freq sentence{k}",
                f"nc rand freq mod neutral sentence{k}",
                f"nc rand freq head neutral sentence{k}",
                f"nc rand freq mod{k}",
                f"nc rand freq head{k}",
                f"nc rand freq{k}",
            )
        ],
    ),
)

NEUTRAL_COLUMNS = {"en": NEUTRAL_COLUMNS_EN, "pt": NEUTRAL_COLUMNS_PT}


def header(language: str, file_name: str) -> tuple[str, ...]:
    """The public header of ``file_name`` (a naturalistic slot file or neutral.csv) for ``language``."""
    if file_name == NEUTRAL_FILE:
        return NEUTRAL_COLUMNS.get(language[:2].lower(), NEUTRAL_COLUMNS_EN)
    if file_name in NATURALISTIC_FILES:
        return NATURALISTIC_COLUMNS
    raise ValueError(f"{file_name!r} is not an NCIMP file")


def text_columns(columns: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """(text column, its tag column or None) in header order: a tag column follows its text."""
    pairs = []
    for i, name in enumerate(columns):
        if name.endswith("_tag"):
            continue
        following = columns[i + 1] if i + 1 < len(columns) else ""
        pairs.append((name, following if following.endswith("_tag") else None))
    return pairs


# --- human_compositionality_scores.csv ------------------------------------------------------
# Written by a release (releases/formats/scores.py), read by the importer (datasets/formats/ncimp_scores.py).

SCORES_FILE = "human_compositionality_scores.csv"
DECIMALS = 4
# The public table gives a sentence's token score as computed, to 15 significant digits ("4.33333333333333").
SIGNIFICANT_DIGITS = 15
EXPERIMENT_NATURALISTIC, EXPERIMENT_NEUTRAL = "Naturalistic", "Neutral"
# The files a compound has a row for: (naturalistic slot or None for neutral, file name).
SCORES_ROW_FILES: tuple[tuple[int | None, str], ...] = (
    *((slot, name) for slot, name in enumerate(NATURALISTIC_FILES, start=1)),
    (None, NEUTRAL_FILE),
)

SCORES_COLUMNS = {
    "language": ("string", "Language code."),
    "experiment_type": ("string", "Naturalistic or Neutral: the NCIMP file the row is about."),
    "file": ("string", "Path of that NCIMP file in this release (the public table gives its own paths)."),
    "compound": ("string", "The noun compound."),
    "ClassType": (
        "string",
        "Class from CompositionalityType: NC below 1.5, PC below 3.5, C from 3.5 "
        "(the stored class when there is no type score).",
    ),
    "ClassToken": ("string", "Class from CompositionalityTokenSents with the same cut-offs; empty without it."),
    "CompositionalityType": ("number", f"Compositionality at type level (0-5), {DECIMALS} decimals."),
    "CompositionalityToken": (
        "number",
        f"Naturalistic rows: the token-level score of that sentence, {SIGNIFICANT_DIGITS} significant digits; "
        "Neutral rows: CompositionalityTokenSents.",
    ),
    "CompositionalityTokenSents": (
        "number",
        f"The compound's token-level score over its sentences (as published, else the mean of theirs), "
        f"{DECIMALS} decimals.",
    ),
    "MWE Synonym Overlap": (
        "integer",
        "How many content words the gold synonym shares with the compound (case and accents aside, function "
        "words left out: datasets/overlap.py), or the published value; empty without either.",
    ),
    "naturalistics_sentence_length": (
        "integer",
        "Naturalistic rows: words of that sentence as published, else whitespace tokens with a letter or digit "
        "(punctuation is not counted), empty without a sentence; Neutral rows: 0.",
    ),
    "Type": ("string", "<LANG>-Nat or <LANG>-Neut."),
}


def experiment(slot: int | None) -> str:
    """The experiment_type of a row: Naturalistic for a sentence slot, Neutral for None."""
    return EXPERIMENT_NEUTRAL if slot is None else EXPERIMENT_NATURALISTIC


def row_type(language: str, slot: int | None) -> str:
    return f"{language.upper()}-{'Neut' if slot is None else 'Nat'}"


def file_slot(path: str) -> tuple[bool, int | None]:
    """(known, slot) of a ``file`` cell by its file name: slot 1-3, or None for neutral.csv."""
    name = PurePosixPath(path.strip()).name
    for slot, file_name in SCORES_ROW_FILES:
        if name == file_name:
            return True, slot
    return False, None


def score_class(score: float | None) -> str:
    # The public table's classes follow its scores with datasets.vocabulary.CLASS_CUTS (all 1836 rows agree).
    cls = vocabulary.class_of_score(score)
    return vocabulary.CLASS_SHORT[cls] if cls else ""
