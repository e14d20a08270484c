"""MyThes thesauri (OpenOffice/LibreOffice format) as a lexicon, for Portuguese (pure: no Django import).

A ``.dat`` file names its encoding on the first line; then each entry is a line
``word|N`` followed by N meaning lines ``(pos) gloss|syn1|syn2|...``. Debian's pt-PT file
labels meanings "(s.)", "(adj.)", "(v.)", "(adv.)" or "(-)"; its pt-BR file labels every
meaning "(Sinônimo)" and repeats the gloss word and the entry among the synonyms. The
``.idx`` file is not needed: the entry lines are found by skipping N lines at a time.
"""

from __future__ import annotations

import codecs
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
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
from building.lexicon.portuguese_morphology import FUNCTION_WORDS

DEBIAN_MYTHES = Path("/usr/share/mythes")
# pt-PT first: its meanings carry parts of speech, pt-BR's do not.
PORTUGUESE_THESAURI = [("th_pt_PT_v2.dat", "mythes-pt-pt"), ("th_pt_BR.dat", "mythes-pt-br")]

_NOUN_LABELS = {"s", "sm", "sf", "smf", "spl", "smpl", "sfpl", "n", "noun", "subst", "substantivo"}
_ADJECTIVE_LABELS = {"adj", "adjm", "adjf", "a", "adjective", "adjetivo"}
_OTHER_LABELS = {"v", "vt", "vi", "vpr", "verb", "verbo", "adv", "adverb", "advérbio", "prep", "conj", "interj", "pron"}
_LABEL = re.compile(r"^\(([^)]*)\)\s*(.*)$")
_TRAILING_NOTE = re.compile(r"\s*\([^)]*\)$")  # "motor vehicle (generic term)"
_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")
_SIMPLE_WORD = re.compile(r"[^\W\d_]+")
# Two-word thesaurus entries are often phrases ("por entre", "um pouco"), not compounds: FUNCTION_WORDS.

# Hyphenated words whose first part is a prefix ("anti-sepsia", "ex-líbris") are one word, not a compound.
PREFIXES = frozenset(
    "anti arqui auto bi co contra ex extra hiper hipo infra inter intra macro micro mini multi neo pan pós pré "
    "pró proto pseudo re recém semi sobre sota soto sub super supra tri ultra vice".split()
)


@dataclass(frozen=True)
class Meaning:
    pos: str | None  # "n", "a", another label's code, or None when the label says nothing
    synonyms: tuple[str, ...]


def pos_of_label(label: str) -> str | None:
    """ "(s.)" → "n", "(adj.)" → "a", "(v.)" → "v"; None for "(-)", "(Sinônimo)" and anything unknown."""
    key = label.casefold().replace(".", "").replace(" ", "")
    if key in _NOUN_LABELS:
        return NOUN
    if key in _ADJECTIVE_LABELS:
        return ADJECTIVE
    if key in _OTHER_LABELS:
        return key[:3]
    return None


def parse_meaning(line: str) -> Meaning:
    head, *fields = line.strip().split("|")
    match = _LABEL.match(head.strip())
    pos = pos_of_label(match.group(1)) if match else None
    synonyms = []
    for field in fields:
        lemma = _TRAILING_NOTE.sub("", field).strip()
        if lemma:
            synonyms.append(lemma)
    return Meaning(pos, tuple(synonyms))


# An infinitive, maybe with its clitic ("lutar", "combater", "atrever-se").
_INFINITIVE = re.compile(r"\w+(?:ar|er|ir|por)(?:-se)?")


def meaning_pos(meaning: Meaning) -> str | None:
    """The meaning's part of speech: its label, else "v" when most of its synonyms are infinitives.

    The pt-BR thesaurus labels no meaning, and "militar" has verb meanings ("lutar",
    "combater") beside the adjective: without this, "campo militar" became "campo lutar".
    """
    if meaning.pos is not None or not meaning.synonyms:
        return meaning.pos
    verbs = sum(bool(_INFINITIVE.fullmatch(lemma)) for lemma in meaning.synonyms)
    return "v" if verbs * 2 > len(meaning.synonyms) else None


def allows(meaning: Meaning, pos: str) -> bool:
    found = meaning_pos(meaning)
    return found is None or found == pos


def is_single_word(text: str) -> bool:
    return bool(_WORD.fullmatch(text))


def two_words(text: str) -> str | None:
    """``text`` when it is two words ("cerca viva", "água-furtada") and neither a function word, else None."""
    parts = text.split()
    if len(parts) == 1:
        # Hyphenated compounds are two words; verbs with a clitic ("perturbar-se") fall to FUNCTION_WORDS.
        parts = parts[0].split("-")
        joined = "-".join(parts)
    else:
        joined = " ".join(parts)
    if len(parts) != 2 or not all(_SIMPLE_WORD.fullmatch(part) for part in parts):
        return None
    folded = [part.casefold() for part in parts]
    if any(part in FUNCTION_WORDS for part in folded) or folded[0] in PREFIXES or folded[0] == folded[1]:
        return None
    return joined


class ThesaurusFile:
    """One ``.dat`` file: its lines in memory and where each entry starts (built once, on first use)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @cached_property
    def lines(self) -> list[str]:
        data = self.path.read_bytes()
        first, _, rest = data.partition(b"\n")
        encoding = first.decode("ascii", errors="replace").strip() or "UTF-8"
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise LexiconFormatError(f"{self.path}:1: unknown encoding {encoding!r} on the first line") from None
        try:
            text = rest.decode(encoding)
        except UnicodeDecodeError as error:
            line = rest[: error.start].count(b"\n") + 2
            raise LexiconFormatError(f"{self.path}:{line}: bytes that are not {encoding}") from None
        return [first.decode("ascii", errors="replace"), *text.split("\n")]

    @cached_property
    def index(self) -> dict[str, list[tuple[str, int, int]]]:
        """Case-folded entry → [(entry as written, first meaning line, number of meanings)]."""
        lines = self.lines
        index: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
        last = len(lines) - 1 - (lines[-1] == "")
        i = 1
        while i < len(lines):
            line = lines[i].rstrip("\r")
            if not line.strip():
                i += 1
                continue
            word, sep, count = line.rpartition("|")
            if not sep or not count.isdigit() or not word:
                raise LexiconFormatError(
                    f"{self.path}:{i + 1}: expected an entry line 'word|number of meanings', got {line[:80]!r}"
                )
            n = int(count)
            if i + n > last:
                raise LexiconFormatError(f"{self.path}:{i + 1}: entry {word!r} announces {n} meanings past the end")
            index[word.casefold()].append((word, i + 1, n))
            i += 1 + n
        return dict(index)

    def meanings(self, word: str) -> list[Meaning]:
        return [
            parse_meaning(self.lines[j])
            for _, start, n in self.index.get(word.casefold(), ())
            for j in range(start, start + n)
        ]

    def entries(self) -> Iterator[tuple[str, list[Meaning]]]:
        """(entry as written, its meanings) for every entry, in file order."""
        for occurrences in self.index.values():
            for word, start, n in occurrences:
                yield word, [parse_meaning(self.lines[j]) for j in range(start, start + n)]


class MyThesLexicon:
    """One or more MyThes thesauri merged: earlier files win ties of sense rank."""

    def __init__(self, *paths: Path | str | Iterable[Path | str], name: str | None = None) -> None:
        """``MyThesLexicon(pt_pt, pt_br)`` or ``MyThesLexicon([pt_pt, pt_br])``."""
        flat = [p for path in paths for p in ([path] if isinstance(path, str | Path) else path)]
        if not flat:
            raise ValueError("MyThesLexicon needs at least one .dat file")
        self.files = [ThesaurusFile(Path(path)) for path in flat]
        for thesaurus in self.files:
            if not thesaurus.path.is_file():
                raise LexiconUnavailable(f"MyThes thesaurus {thesaurus.path} does not exist")
        self.name = name or "MyThes " + " + ".join(thesaurus.path.stem for thesaurus in self.files)

    def load(self) -> MyThesLexicon:
        """Read every file and index its entries now rather than at the first lookup."""
        for thesaurus in self.files:
            thesaurus.index  # noqa: B018 (cached_property: reading it builds it)
        return self

    def synonyms(self, word: str, pos: str) -> list[Synonym]:
        """Single-word synonyms, rank = order among the meanings allowed for ``pos``; count is always 0."""
        check_pos(pos)
        ranked = []
        for file_order, thesaurus in enumerate(self.files):
            allowed = [meaning for meaning in thesaurus.meanings(word) if allows(meaning, pos)]
            for rank, meaning in enumerate(allowed, start=1):
                for position, lemma in enumerate(meaning.synonyms):
                    ranked.append((rank, file_order, position, lemma))
        seen = {word.casefold()}
        found = []
        for rank, _, _, lemma in sorted(ranked, key=lambda item: item[:3]):
            if lemma.casefold() in seen or not is_single_word(lemma):
                continue
            seen.add(lemma.casefold())
            found.append(Synonym(lemma, rank, 0))
        return found

    def usage(self, word: str, pos: str) -> int:
        """Number of meanings of ``word`` that may be ``pos`` (unlabelled meanings count for every pos)."""
        check_pos(pos)
        return sum(allows(meaning, pos) for thesaurus in self.files for meaning in thesaurus.meanings(word))

    def two_word_entries(self) -> list[str]:
        return list(self._two_word_entries)

    @cached_property
    def _two_word_entries(self) -> tuple[str, ...]:
        found: dict[str, str] = {}
        for thesaurus in self.files:
            for word, meanings in thesaurus.entries():
                nominal = [meaning for meaning in meanings if allows(meaning, NOUN)]
                for text in [word] * bool(nominal) + [lemma for meaning in nominal for lemma in meaning.synonyms]:
                    if pair := two_words(text):
                        found.setdefault(pair.casefold(), pair)
        return tuple(sorted(found.values(), key=lambda pair: (pair.casefold(), pair)))


def default_portuguese_thesauri(folder: Path = DEBIAN_MYTHES) -> list[Path]:
    """Debian's Portuguese thesauri that are installed, pt-PT first."""
    found = [folder / name for name, _ in PORTUGUESE_THESAURI if (folder / name).is_file()]
    if not found:
        packages = " or ".join(package for _, package in PORTUGUESE_THESAURI)
        raise LexiconUnavailable(f"no Portuguese MyThes thesaurus in {folder}: install the Debian package {packages}")
    return found
