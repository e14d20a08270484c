"""The exact headers of the public NCIMP files (He et al. 2024), as data (pure: no Django import).

Existing research scripts read the public files by column name and position, so a release
repeats the public header verbatim: same names, same order, each text column followed by its
``_tag`` column. One public quirk is kept on purpose: in ``neutral.csv`` the tag of
``neutral sentence`` is called ``original sentence_tag``.

The English naturalistic files are not public; the Portuguese header serves both languages.
A language without a public neutral file gets the English one (the larger of the two).
"""

from __future__ import annotations

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
