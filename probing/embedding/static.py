"""Static word vectors: gensim files (word2vec binary or text, GloVe) and a transformer's input embeddings.

A text is split into \\w+ words (optionally lower-cased); the sentence vector averages the vectors of
its words and the span vector those of the words overlapping the span. Out-of-vocabulary words are
skipped and counted in Vectors.oov; when no word is known the vector is all zeros.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from probing.embedding.base import (
    EmbedConfig,
    TextSpan,
    Tokens,
    Vectors,
    default_model_name,
    model_identity,
    safetensors_only,
    weights_sha256,
)

WORD = re.compile(r"\w+")
FORMATS = ("word2vec", "word2vec_binary", "glove", "gensim")


def words(text: str) -> list[tuple[str, int, int]]:
    """The \\w+ words of a text with their character ranges."""
    return [(match.group(), match.start(), match.end()) for match in WORD.finditer(text)]


def average_words(item: TextSpan, lookup: Callable[[str], np.ndarray | None], dim: int, lowercase: bool) -> Vectors:
    """Mean word vector of the text and of the words overlapping its span; OOV words skipped and counted."""
    sentence, span, oov = [], [], 0
    found = words(item.text)
    for word, start, end in found:
        vector = lookup(word.lower() if lowercase else word)
        if vector is None:
            oov += 1
            continue
        sentence.append(vector)
        if item.span is not None and start < item.span[1] and end > item.span[0]:
            span.append(vector)
    return Vectors(
        sentence=_mean(sentence, dim),
        span=_mean(span, dim) if item.span is not None else None,
        tokens=len(found),
        oov=oov,
    )


def word_tokens(item: TextSpan) -> Tokens:
    """The words a static model reads and those overlapping the span."""
    found = words(item.text)
    span = item.span
    inside = [w for w, start, end in found if span is not None and start < span[1] and end > span[0]]
    return Tokens([w for w, _, _ in found], inside)


def _mean(vectors: list[np.ndarray], dim: int) -> np.ndarray:
    if not vectors:
        return np.zeros(dim, dtype=np.float32)
    return np.mean(np.stack(vectors).astype(np.float64), axis=0).astype(np.float32)


def guess_format(path: Path) -> str:
    if path.suffix in {".kv", ".model"}:
        return "gensim"
    if path.suffix == ".bin":
        return "word2vec_binary"
    with path.open("rb") as handle:
        first = handle.readline().split()
    # word2vec text starts with "<count> <dim>"; GloVe starts with a word and its numbers.
    return "word2vec" if len(first) == 2 and all(part.isdigit() for part in first) else "glove"


class StaticVectorsBackend:
    """gensim KeyedVectors from a word2vec (text or binary), GloVe (text, no header) or gensim file.

    Options: format (one of FORMATS; guessed from the file otherwise), lowercase (default false).
    The gensim format is a pickle: it is read only when ``allow_pickle`` (a file trusted by its sha256).
    """

    kind = "static_vectors"
    supports_span = True

    def __init__(self, source: str, options: dict, allow_pickle: bool = False) -> None:
        from gensim.models import KeyedVectors

        self.source = str(source)
        self.options = options
        path = Path(source)
        self.format = options.get("format") or guess_format(path)
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, not {self.format!r}")
        if self.format == "gensim":
            if not allow_pickle:
                raise ValueError(
                    f"{path} is in gensim's native format, a pickle that can run code when loaded: "
                    "save it with KeyedVectors.save_word2vec_format, or have its sha256 trusted"
                )
            self.vectors = KeyedVectors.load(str(path))
        else:
            self.vectors = KeyedVectors.load_word2vec_format(
                str(path), binary=self.format == "word2vec_binary", no_header=self.format == "glove"
            )
        self.lowercase = bool(options.get("lowercase", False))

    def identity(self) -> dict:
        return {
            "kind": self.kind,
            "name": self.options.get("name") or default_model_name(self.source),
            "weights_sha256": weights_sha256(self.source),
            "dim": int(self.vectors.vector_size),
            "lowercase": self.lowercase,
        }

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(words(text)) for text in texts]

    def tokens(self, item: TextSpan, config: EmbedConfig) -> Tokens:
        return word_tokens(item)

    def _lookup(self, word: str) -> np.ndarray | None:
        index = self.vectors.key_to_index.get(word)
        return None if index is None else self.vectors.vectors[index]

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        return [average_words(item, self._lookup, self.vectors.vector_size, self.lowercase) for item in items]


class InputEmbeddingsBackend:
    """A transformer's input embedding table as static vectors: a word is the mean of its subword rows.

    A word whose subwords are all unknown (the tokenizer's unk token) counts as out of vocabulary.
    Options: lowercase (default false), name, revision, local_files_only (default true).
    """

    kind = "input_embeddings"
    supports_span = True

    def __init__(self, source: str, options: dict, allow_pickle: bool = False) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.source = str(source)
        self.options = options
        local = bool(options.get("local_files_only", True))
        self.tokenizer = AutoTokenizer.from_pretrained(self.source, local_files_only=local)
        model = AutoModel.from_pretrained(
            self.source,
            local_files_only=local,
            revision=options.get("revision"),
            use_safetensors=safetensors_only(allow_pickle),
        )
        self.table = model.get_input_embeddings().weight.detach().float().cpu().numpy()
        del model
        self.lowercase = bool(options.get("lowercase", False))
        self._words: dict[str, np.ndarray | None] = {}
        self._identity: dict | None = None

    def identity(self) -> dict:
        if self._identity is None:
            identity = model_identity(self.kind, self.source, self.options, self.table.shape[1])
            self._identity = {**identity, "lowercase": self.lowercase}
        return self._identity

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(words(text)) for text in texts]

    def tokens(self, item: TextSpan, config: EmbedConfig) -> Tokens:
        return word_tokens(item)

    def _lookup(self, word: str) -> np.ndarray | None:
        if word not in self._words:
            ids = self.tokenizer(word, add_special_tokens=False)["input_ids"]
            ids = [i for i in ids if i != self.tokenizer.unk_token_id]
            self._words[word] = self.table[ids].mean(axis=0) if ids else None
        return self._words[word]

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        return [average_words(item, self._lookup, self.table.shape[1], self.lowercase) for item in items]
