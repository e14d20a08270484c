"""Single-word synonyms of a compound's head and modifier read from the crowd's paraphrases (pure: no Django import).

Annotators who paraphrase a compound often keep its structure and change a word: those words are
ones a reader accepts in the compound's. A paraphrase is read by where words stand, not by a list of
words: in Portuguese the head comes first ("X com Y": X), in English last ("Y X": X), or first before
a preposition ("X for Y": X); a two-word paraphrase's other word stands in the modifier's place. Each word is counted by how many proposals contain it
(``support_index``), which is also the ``crowd`` feature of every candidate, whatever its source.
"""

from __future__ import annotations

from collections.abc import Sequence

from building.lexicon.portuguese_morphology import FUNCTION_WORDS
from building.rules.grammar.inflection import is_portuguese, singular_word
from building.rules.synonyms.scoring import CROWD, Proposal
from datasets.formats.spans import fold

Paraphrases = Sequence[tuple[str, int]]  # (text, how many annotators proposed it)
EN_FUNCTION_WORDS = frozenset(
    "a an the of for with in on at by to from that which who is are be used made as and or its their".split()
)


def _words(text: str) -> list[str]:
    return [w.strip(".,;:!?()\"'").casefold() for w in text.split() if w.strip(".,;:!?()\"'")]


def _function_words(language: str) -> frozenset[str]:
    return FUNCTION_WORDS if is_portuguese(language) else EN_FUNCTION_WORDS


def word_key(word: str, language: str) -> str:
    """Case, accents and number aside."""
    return fold(singular_word(word.casefold(), language)) if language else fold(word)


def places(text: str, language: str) -> dict[str, str]:
    """The words of one paraphrase in the head's and the modifier's place ({} for a single word)."""
    words = _words(text)
    if len(words) < 2 or any(not w.replace("-", "").isalpha() for w in words):
        return {}
    function = _function_words(language)
    with_function = any(w in function for w in words[1:-1])
    if is_portuguese(language) or with_function:
        found = {"head": words[0]}
        if len(words) == 2:
            found["modifier"] = words[1]
    else:
        found = {"head": words[-1]}
        if len(words) == 2:
            found["modifier"] = words[0]
    return {side: word for side, word in found.items() if word not in function}


def crowd_proposals(paraphrases: Paraphrases, modifier: str, head: str, language: str) -> list[Proposal]:
    """The words in the head's and the modifier's place, most proposed first, in the singular, never the
    compound's own words (nor, in Portuguese, their other gender: "voadora" for "voador")."""
    own = {_gender_aside(word_key(w, language), language) for w in (modifier, head)}
    counts: dict[tuple[str, str], list] = {}
    for text, proposals in paraphrases:
        for side, word in places(text, language).items():
            singular = singular_word(word, language)
            key = (side, word_key(singular, language))
            if _gender_aside(key[1], language) in own:
                continue
            counts.setdefault(key, [singular, 0, len(counts)])[1] += proposals
    ordered = sorted(counts.items(), key=lambda item: (-item[1][1], item[1][2]))
    return [Proposal(side, word, CROWD) for (side, _), (word, _, _) in ordered]


def _gender_aside(key: str, language: str) -> str:
    return key[:-1] if is_portuguese(language) and key[-1:] in ("a", "o") and len(key) > 2 else key


def support_index(paraphrases: Paraphrases, language: str) -> dict[str, int]:
    """Each word key (``word_key``) → how many proposals contain the word: a candidate's ``crowd`` feature."""
    index: dict[str, int] = {}
    for text, proposals in paraphrases:
        for key in {word_key(w, language) for w in _words(text)}:
            index[key] = index.get(key, 0) + proposals
    return index
