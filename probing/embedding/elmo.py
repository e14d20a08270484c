"""ELMo from its published files: whitespace tokens, all layers from one pass, sentence and span vectors.

A text's tokens are its whitespace-separated words (the NCIMP convention: punctuation in the
public files is already separated), each with its character range, so the noun compound's span
maps to the words it overlaps. One forward pass gives the three layers (``elmo_model``: 0 the
character-CNN token layer, 1 and 2 the LSTM layers); the configured layers are averaged (by
default all three: ``KIND_CONFIG_DEFAULTS``) and a layer sweep pools each one alone as well. The
sentence vector is the mean over the words (the boundary tokens only when ``include_special_tokens``),
the span vector the mean over the span's words. ``max_length`` counts the two boundary tokens, as
it counts a transformer's special tokens. Every sentence starts from a zero LSTM state, so its
vectors do not depend on the batch.

Source: see ``elmo_files``. Options: ``name``, ``options_file``. The identity is the weights
file's sha256 and the architecture the options file describes.
"""

from __future__ import annotations

import json
import re

import torch

from probing.embedding.base import (
    EmbedConfig,
    TextSpan,
    Tokens,
    Vectors,
    default_model_name,
    file_sha256,
    tokens_in_span,
)
from probing.embedding.elmo_files import elmo_files
from probing.embedding.elmo_model import Elmo, ElmoFileError, ElmoOptions, batch_char_ids, load_elmo
from probing.embedding.pooling import in_text_batches, pool_hidden_states, torch_dtype, unique_texts

WORD = re.compile(r"\S+")
BOUNDARIES = ("<S>", "</S>")  # bilm-tf's names for the begin- and end-of-sentence tokens


def whitespace_tokens(text: str) -> list[tuple[str, int, int]]:
    """The whitespace-separated words of a text with their character ranges."""
    return [(match.group(), match.start(), match.end()) for match in WORD.finditer(text)]


def read_options(path) -> ElmoOptions:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as error:
        raise ElmoFileError(f"cannot read the ELMo options {path}: {error}") from None
    if not isinstance(data, dict):
        raise ElmoFileError(f"{path} is not an ELMo options file (a JSON object with char_cnn and lstm)")
    return ElmoOptions.from_json(data)


class ElmoBackend:
    """An ELMo bidirectional language model (options.json + weights.hdf5), run by ``elmo_model``."""

    kind = "elmo"
    supports_span = True

    def __init__(self, source: str, options: dict) -> None:
        self.source = str(source)
        self.options = options
        self.files = elmo_files(self.source, options.get("options_file"))
        self.elmo_options = read_options(self.files.options)
        self._model: Elmo | None = None
        self._model_key: tuple[str, str] | None = None
        self._identity: dict | None = None

    def identity(self) -> dict:
        if self._identity is None:
            self._identity = {
                "kind": self.kind,
                "name": self.options.get("name") or default_model_name(self.source),
                "weights_sha256": file_sha256(self.files.weights),
                "elmo_options": self.elmo_options.as_dict(),
                "dim": self.elmo_options.dim,
            }
        return self._identity

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(whitespace_tokens(text)) + 2 for text in texts]

    def layer_count(self) -> int:
        return self.elmo_options.n_layers + 1

    def tokens(self, item: TextSpan, config: EmbedConfig) -> Tokens:
        words = kept_words(item.text, config)
        read = [BOUNDARIES[0], *(word for word, _, _ in words), BOUNDARIES[1]]
        if item.span is None:
            return Tokens(read, [])
        selected = tokens_in_span([(start, end) for _, start, end in words], item.span, item.text)
        return Tokens(read, [words[i][0] for i in selected])

    def model(self, config: EmbedConfig) -> Elmo:
        key = (config.dtype, config.device)
        if self._model_key != key:
            self._model = None
            model = load_elmo(self.elmo_options, self.files.weights)
            self._model = model.to(device=config.device, dtype=torch_dtype(config.dtype))
            self._model_key = key
        return self._model

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        return in_text_batches(items, config.batch_size, lambda chunk: self._embed(chunk, config))

    def _embed(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        model = self.model(config)
        texts = unique_texts(items)
        tokens = [kept_words(text, config) for text in texts]
        char_ids, lengths = batch_char_ids(
            [[word for word, _, _ in words] for words in tokens], self.elmo_options.max_characters_per_token
        )
        steps = char_ids.shape[1]
        positions = torch.arange(steps).unsqueeze(0)
        attention = (positions < lengths.unsqueeze(1)).long()
        boundary = ((positions == 0) | (positions == lengths.unsqueeze(1) - 1)).long() * attention
        offsets = torch.zeros((len(texts), steps, 2), dtype=torch.long)
        for row, words in enumerate(tokens):
            if words:
                offsets[row, 1 : len(words) + 1] = torch.tensor([(start, end) for _, start, end in words])
        with torch.inference_mode():
            layers = tuple(model(char_ids.to(config.device), lengths))
            return pool_hidden_states(
                items,
                texts,
                layers,
                attention,
                boundary,
                offsets,
                config,
                max_length=config.max_length,
                sweep=config.sweep_layers(len(layers)),
            )


def kept_words(text: str, config: EmbedConfig) -> list[tuple[str, int, int]]:
    """The words the model reads: max_length counts the two boundary tokens."""
    return whitespace_tokens(text)[: max(config.max_length - 2, 0)]
