"""English WordNet from Debian's ``wordnet-base`` files, read with NLTK (pure: no Django import).

NLTK cannot download here, refuses symlinks, and needs a ``lexnames`` file that Debian
does not ship, so the database files are copied into an NLTK data folder of our own and
``lexnames`` is written from the WordNet 3.0 specification (lexnames(5WN)).
"""

from __future__ import annotations

import shutil
import warnings
from functools import cached_property
from pathlib import Path

from building.lexicon.base import ADJECTIVE, LexiconUnavailable, Synonym, check_pos

DEBIAN_WORDNET = Path("/usr/share/wordnet")
FILES = [
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
    "cntlist.rev",
    "index.sense",
]
# lexnames(5WN): file number, name, syntactic category (1 noun, 2 verb, 3 adjective, 4 adverb).
LEXNAMES = [
    "adj.all 3",
    "adj.pert 3",
    "adv.all 4",
    "noun.Tops 1",
    "noun.act 1",
    "noun.animal 1",
    "noun.artifact 1",
    "noun.attribute 1",
    "noun.body 1",
    "noun.cognition 1",
    "noun.communication 1",
    "noun.event 1",
    "noun.feeling 1",
    "noun.food 1",
    "noun.group 1",
    "noun.location 1",
    "noun.motive 1",
    "noun.object 1",
    "noun.person 1",
    "noun.phenomenon 1",
    "noun.plant 1",
    "noun.possession 1",
    "noun.process 1",
    "noun.quantity 1",
    "noun.relation 1",
    "noun.shape 1",
    "noun.state 1",
    "noun.substance 1",
    "noun.time 1",
    "verb.body 2",
    "verb.change 2",
    "verb.cognition 2",
    "verb.communication 2",
    "verb.competition 2",
    "verb.consumption 2",
    "verb.contact 2",
    "verb.creation 2",
    "verb.emotion 2",
    "verb.motion 2",
    "verb.perception 2",
    "verb.possession 2",
    "verb.social 2",
    "verb.stative 2",
    "verb.weather 2",
    "adj.ppl 3",
]


# WordNet's usage domains (";u" pointers) that mark a sense as offensive. Slurs and
# disparagements mark the sense only ("boy" is a slur in one sense); obscenities and
# vulgarisms mark the word: "piss" reads as vulgar even in the unmarked sense "urine"
# (so "sparkling water" never becomes "starry piss").
SLUR_DOMAINS = ("ethnic_slur.n.01", "disparagement.n.01")
VULGAR_DOMAINS = ("obscenity.n.02", "vulgarism.n.01")


class WordNetUnavailable(LexiconUnavailable):
    """Debian's WordNet files are not installed."""


def lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name.split()[0]}\t{name.split()[1]}\n" for i, name in enumerate(LEXNAMES))


def prepare_nltk_data(nltk_data: Path, source: Path = DEBIAN_WORDNET) -> Path:
    """Copy WordNet into ``nltk_data/corpora/wordnet`` (idempotent); returns that folder."""
    if not (source / "data.noun").is_file():
        raise WordNetUnavailable(f"{source} has no WordNet database: install the Debian package wordnet-base")
    target = nltk_data / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        src, dst = source / name, target / name
        if src.is_file() and (not dst.is_file() or dst.stat().st_size != src.stat().st_size):
            # Real copies: NLTK refuses symlinked corpus files.
            shutil.copyfile(src, dst)
    lexnames = target / "lexnames"
    if not lexnames.is_file() or lexnames.read_text() != lexnames_text():
        lexnames.write_text(lexnames_text())
    return target


def open_wordnet(nltk_data: Path, source: Path = DEBIAN_WORDNET):
    """A ready NLTK WordNet reader over the copied files."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    folder = prepare_nltk_data(nltk_data, source)
    # NLTK reads corpora only below a folder on its data path: ours is one, by our own choice.
    root = str(nltk_data.resolve())
    if root not in nltk.data.path:
        nltk.data.path.append(root)
    with warnings.catch_warnings():
        # Without the Open Multilingual Wordnet NLTK warns on every open; we only read English.
        warnings.filterwarnings("ignore", message="The multilingual functions are not available")
        return WordNetCorpusReader(str(folder), None)


def synonyms(wordnet, word: str, pos: str = "n", limit: int = 10) -> list[Synonym]:
    """Synonyms of ``word``, most common sense first, never the word itself; multi-word lemmas skipped."""
    seen: set[str] = {word.casefold()}
    found: list[Synonym] = []
    for rank, synset in enumerate(wordnet.synsets(word, pos=pos), start=1):
        lemmas = sorted(synset.lemmas(), key=lambda lemma: -lemma.count())
        for lemma in lemmas:
            name = lemma.name()
            if "_" in name or name.casefold() in seen:
                continue
            seen.add(name.casefold())
            found.append(Synonym(name, rank, lemma.count()))
    return found[:limit]


class WordNetLexicon:
    """English WordNet as a :class:`~building.lexicon.base.Lexicon` (give it ``open_wordnet(...)``)."""

    def __init__(self, wordnet) -> None:
        self.wordnet = wordnet
        self.name = f"WordNet {wordnet.get_version()}"

    def synonyms(self, word: str, pos: str) -> list[Synonym]:
        """Nouns: sense order, then cntlist count. Adjectives also take their similar_tos' lemmas.

        An adjective's synset often holds the word alone ("eager"): its near-synonyms sit in
        the satellites linked by similar_to ("anxious", "impatient"), so they count as the
        same sense, after the synset's own lemmas.
        """
        check_pos(pos)
        seen = {word.casefold()}
        found: list[Synonym] = []
        # NLTK answers pos="a" with heads and satellites together, in index.adj's sense order.
        for rank, synset in enumerate(self.wordnet.synsets(word, pos=pos), start=1):
            if self.is_offensive_sense(synset):
                continue
            groups = [synset.lemmas()]
            if pos == ADJECTIVE:
                groups.append(
                    [
                        lemma
                        for similar in synset.similar_tos()
                        if not self.is_offensive_sense(similar)
                        for lemma in similar.lemmas()
                    ]
                )
            for lemmas in groups:
                for lemma in sorted(lemmas, key=lambda lemma: -lemma.count()):
                    name = lemma.name()
                    if "_" in name or name.casefold() in seen or name.casefold() in self.vulgar_words:
                        continue
                    seen.add(name.casefold())
                    found.append(Synonym(name, rank, lemma.count()))
        return found

    @cached_property
    def _offensive_domains(self) -> tuple[frozenset, frozenset]:
        slur = frozenset(self.wordnet.synset(name) for name in SLUR_DOMAINS)
        vulgar = frozenset(self.wordnet.synset(name) for name in VULGAR_DOMAINS)
        return slur, vulgar

    def is_offensive_sense(self, synset) -> bool:
        """A sense WordNet files under a slur, disparagement, obscenity or vulgarism usage domain."""
        slur, vulgar = self._offensive_domains
        domains = set(synset.usage_domains())
        return bool(domains & (slur | vulgar))

    @cached_property
    def vulgar_words(self) -> frozenset[str]:
        """Every lemma (lower-cased, "_" for spaces) of an obscene or vulgar sense."""
        _, vulgar = self._offensive_domains
        return frozenset(
            lemma.name().casefold()
            for domain in vulgar
            for synset in domain.in_usage_domains()
            for lemma in synset.lemmas()
        )

    def offensive_words(self) -> frozenset[str]:
        """Words never to propose whatever their sense: the vulgar ones and the lemmas of slur senses."""
        slur, _ = self._offensive_domains
        slurs = {
            lemma.name().casefold()
            for domain in slur
            for synset in domain.in_usage_domains()
            for lemma in synset.lemmas()
            # A slur sense of a common word ("boy", "queen") leaves the word's other senses usable.
            if not any(not self.is_offensive_sense(other) for other in self.wordnet.synsets(lemma.name()))
        }
        return self.vulgar_words | slurs

    def usage(self, word: str, pos: str) -> int:
        """Tagged count of ``word`` as ``pos`` over its senses, plus one per sense (so rare words still count)."""
        check_pos(pos)
        key = word.casefold()
        total = 0
        for synset in self.wordnet.synsets(word, pos=pos):
            total += 1 + sum(lemma.count() for lemma in synset.lemmas() if lemma.name().casefold() == key)
        return total

    def two_word_entries(self) -> list[str]:
        return list(self._two_word_nouns)

    @cached_property
    def _offensive_offsets(self) -> frozenset[str]:
        # The usage-domain pointers of data.noun lines: ";u <offset> n 0000".
        slur, vulgar = self._offensive_domains
        return frozenset(f";u {synset.offset():08d} n" for synset in slur | vulgar)

    @cached_property
    def _two_word_nouns(self) -> tuple[str, ...]:
        # Read data.noun itself: it keeps each lemma's case, so proper names ("James Cook",
        # "Alfred Eisenstaedt") can be left out; NLTK's lemma index is lower-cased. A raw
        # scan takes a fraction of a second, where walking NLTK's synsets takes seconds.
        found = set()
        with open(Path(self.wordnet.root.path) / "data.noun", encoding="utf-8") as data:
            for line in data:
                if line.startswith(" "):
                    continue  # the licence header
                if any(pointer in line for pointer in self._offensive_offsets):
                    continue  # "white trash", "red man"
                fields = line.split(" ", 4 + 2 * 255)
                count = int(fields[3], 16)
                for word in fields[4 : 4 + 2 * count : 2]:
                    parts = word.split("_")
                    if len(parts) == 2 and all(part.isalpha() and part.islower() for part in parts):
                        found.add(" ".join(parts))
        return tuple(sorted(found))
