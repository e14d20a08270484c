"""Lexical overlap between a compound and its synonym (pure: no Django import).

The one rule behind the release's "MWE Synonym Overlap" column and the probe report's
"no_overlap" subset (He et al. 2024, appendix B): the number of distinct content words the two
share, after lower-casing; words are runs of letters and digits, so hyphens and spaces separate
them (*algodão-doce* ~ *doce* share one). Function words never count (*man of war* ~ *ship of
the line* share none); accents do not matter once a word is known not to be one (*atômico* ~
*atómico* are one word, *nó* is not *no*); inflected forms are different words (*chain
reaction* ~ *series of reactions* share none). This gives the public NCIMP table's value for
every one of its 459 compounds (tests/datasets/test_overlap.py measures it); no compound there
has a function word, so the table neither confirms nor contradicts that part.
"""

from __future__ import annotations

import re
import unicodedata

# Words too common to count as shared between a compound and its synonym (EN and PT).
FUNCTION_WORDS = frozenset(
    "a an the of in on at for to and or with by from "
    "o os as um uma uns umas de do da dos das e em no na nos nas ao aos para com por pelo pela".split()
)


def synonym_overlap(compound: str, synonym: str) -> int | None:
    """How many content words ``synonym`` shares with ``compound``; None without a synonym."""
    if not synonym.strip():
        return None
    return len(content_words(compound) & content_words(synonym))


def overlaps(compound: str, synonym: str, stored: int | None = None) -> bool | None:
    """Does the synonym share a word with the compound? ``stored`` (a published value) wins over the rule."""
    count = stored if stored is not None else synonym_overlap(compound, synonym)
    return None if count is None else count > 0


def content_words(text: str) -> set[str]:
    """Lower-cased words without accents, function words left out."""
    return {_unaccented(w) for w in re.findall(r"\w+", text.casefold()) if w not in FUNCTION_WORDS}


def _unaccented(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))
