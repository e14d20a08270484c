"""English WordNet from Debian's ``wordnet-base`` files, read with NLTK (pure: no Django import).

NLTK cannot download here, refuses symlinks, and needs a ``lexnames`` file that Debian
does not ship, so the database files are copied into an NLTK data folder of our own and
``lexnames`` is written from the WordNet 3.0 specification (lexnames(5WN)).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

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


class WordNetUnavailable(RuntimeError):
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
    return WordNetCorpusReader(str(folder), None)


@dataclass(frozen=True)
class Synonym:
    """A single-word synonym of a noun (or adjective modifier), with its sense rank and count."""

    lemma: str
    sense_rank: int  # 1 = the word's most common sense
    count: int  # tagged-corpus frequency of this lemma in that sense (cntlist)


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
