"""OpenWordNet-PT from a file the user supplies, as a lexicon (pure: no Django import).

Two formats are read:

- the Open Multilingual Wordnet tab file (``wn-data-por.tab``): ``#`` comments, then lines
  ``08641944-n<TAB>por:lemma<TAB>água``; other relations (``por:def``, ``por:exe``) are skipped;
- WN-LMF XML: ``LexicalEntry`` with a ``Lemma`` (writtenForm, partOfSpeech) and ``Sense``
  elements naming a ``synset``; words sharing a synset are synonyms.

In both, a word's sense rank is the order in which its synsets appear in the file, and a
synset's lemmas keep their file order: OpenWordNet-PT has no sense counts.
"""

from __future__ import annotations

import gzip
import re
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from functools import cached_property
from pathlib import Path

from building.lexicon.base import (
    ADJECTIVE,
    NOUN,
    LexiconFormatError,
    LexiconUnavailable,
    Synonym,
    check_pos,
)
from building.lexicon.mythes import is_single_word, two_words

_SYNSET_ID = re.compile(r"^\d+-([nvasr])$")
# Satellite adjectives ("s") are adjectives for a compound's modifier.
_POS = {"n": NOUN, "a": ADJECTIVE, "s": ADJECTIVE, "v": "v", "r": "r"}


class OpenWordNetLexicon:
    """Synonyms from OpenWordNet-PT (tab or WN-LMF XML), read in full when built so bad files fail at once."""

    def __init__(self, path: Path | str, name: str | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise LexiconUnavailable(f"OpenWordNet-PT file {self.path} does not exist")
        self.name = name or f"OpenWordNet-PT ({self.path.name})"
        # (case-folded lemma, pos) → synset ids in file order; synset id → lemmas in file order.
        self.senses: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.members: dict[str, list[str]] = defaultdict(list)
        if is_xml(self.path):
            self._read_lmf()
        else:
            self._read_tab()
        if not self.members:
            raise LexiconFormatError(f"{self.path}: no lemmas found")

    def _add(self, lemma: str, pos: str, synset: str) -> None:
        key = (lemma.casefold(), pos)
        if synset not in self.senses[key]:
            self.senses[key].append(synset)
        if lemma not in self.members[synset]:
            self.members[synset].append(lemma)

    def _read_tab(self) -> None:
        with open_maybe_gzipped(self.path) as stream:
            for number, raw in enumerate(stream, start=1):
                try:
                    line = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError:
                    raise LexiconFormatError(f"{self.path}:{number}: bytes that are not UTF-8") from None
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.split("\t")
                if len(fields) < 3:
                    raise LexiconFormatError(
                        f"{self.path}:{number}: expected 'synset<TAB>relation<TAB>lemma', got {line[:80]!r}"
                    )
                synset, relation, value = fields[0].strip(), fields[1].strip(), fields[2].strip()
                match = _SYNSET_ID.match(synset)
                if not match:
                    raise LexiconFormatError(f"{self.path}:{number}: {synset!r} is not a synset id like 08641944-n")
                if relation.rpartition(":")[2] != "lemma":
                    continue
                if not value:
                    raise LexiconFormatError(f"{self.path}:{number}: empty lemma for synset {synset}")
                self._add(value, _POS[match.group(1)], synset)

    def _read_lmf(self) -> None:
        try:
            with open_maybe_gzipped(self.path) as stream:
                for _, element in ElementTree.iterparse(stream, events=("end",)):
                    if local_name(element.tag) != "LexicalEntry":
                        continue
                    self._read_entry(element)
                    element.clear()
        except ElementTree.ParseError as error:
            line, column = error.position
            raise LexiconFormatError(f"{self.path}:{line}: not well-formed XML (column {column})") from None

    def _read_entry(self, entry: ElementTree.Element) -> None:
        name = entry.get("id", "?")
        lemma = next((child for child in entry if local_name(child.tag) == "Lemma"), None)
        if lemma is None or not (lemma.get("writtenForm") or "").strip():
            raise LexiconFormatError(f"{self.path}: LexicalEntry {name!r} has no Lemma with a writtenForm")
        pos = lemma.get("partOfSpeech", "")
        if pos not in _POS:
            raise LexiconFormatError(f"{self.path}: LexicalEntry {name!r} has partOfSpeech {pos!r}, not n/v/a/s/r")
        for sense in entry:
            if local_name(sense.tag) != "Sense":
                continue
            synset = sense.get("synset")
            if not synset:
                raise LexiconFormatError(f"{self.path}: a Sense of LexicalEntry {name!r} names no synset")
            self._add(lemma.get("writtenForm").strip(), _POS[pos], synset)

    def synonyms(self, word: str, pos: str) -> list[Synonym]:
        """Single-word lemmas sharing a synset with ``word``, its first-listed synset first; count is 0."""
        check_pos(pos)
        seen = {word.casefold()}
        found = []
        for rank, synset in enumerate(self.senses.get((word.casefold(), pos), ()), start=1):
            for lemma in self.members[synset]:
                if lemma.casefold() in seen or not is_single_word(lemma):
                    continue
                seen.add(lemma.casefold())
                found.append(Synonym(lemma, rank, 0))
        return found

    def usage(self, word: str, pos: str) -> int:
        """Number of synsets of ``word`` as ``pos``."""
        check_pos(pos)
        return len(self.senses.get((word.casefold(), pos), ()))

    def two_word_entries(self) -> list[str]:
        return list(self._two_word_nouns)

    @cached_property
    def _two_word_nouns(self) -> tuple[str, ...]:
        nominal = {synset for (_, pos), synsets in self.senses.items() if pos == NOUN for synset in synsets}
        found: dict[str, str] = {}
        for synset in nominal:
            for lemma in self.members[synset]:
                if pair := two_words(lemma.replace("_", " ")):
                    found.setdefault(pair.casefold(), pair)
        return tuple(sorted(found.values(), key=lambda pair: (pair.casefold(), pair)))


def local_name(tag: str) -> str:
    return tag.rpartition("}")[2]


def is_xml(path: Path) -> bool:
    name = path.name.removesuffix(".gz")
    if name.endswith(".xml"):
        return True
    if name.endswith((".tab", ".tsv")):
        return False
    with open_maybe_gzipped(path) as stream:
        return stream.read(512).lstrip().startswith(b"<")


def open_maybe_gzipped(path: Path):
    return gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb")
