"""A registered causal or masked language model, opened for scoring under the rules of this machine.

The same rules as the embedding models (``probing.embedding.sources``): a folder inside
``WORKBENCH_MODEL_DIRS``, never the uploads, safetensors only unless an administrator trusts a
pickle by its sha256, no remote code, nothing fetched from the hub. The identity names the
model's weights by their sha256 (or its pinned revision), as an embedding model's does, so that
what a run computed can be traced to the files it read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from probing.embedding.base import EmbedConfig, TextSpan, Tokens, Vectors, model_identity, safetensors_only
from probing.embedding.sources import LoadRules, check_model
from probing.likelihood.completions import KIND as COMPLETIONS
from probing.likelihood.completions import CompletionsScorer
from probing.likelihood.items import TEMPLATE_VERSION
from probing.likelihood.scores import CAUSAL, MASKED, SCORE_FORMAT, TextScore

LIKELIHOOD_KINDS = (CAUSAL, MASKED, COMPLETIONS)
# What each kind is scored by, as reports and the score_text command say it.
MEASURES = {
    CAUSAL: "log-probability of each token given the tokens before it",
    MASKED: "pseudo-log-likelihood of each token (masked, with the later pieces of its word; Kauf & Ivanova 2023)",
    COMPLETIONS: "log-probability of each token given the tokens before it, as the server computes it",
}


# What a likelihood run may set (the model's config, then the run's overrides); anything else is refused.
# dtype changes the scores (part of the score cache's key); device changes only where they are computed.
# share_prefixes: a causal LM runs the common beginning of texts once (probing.likelihood.prefixes); the
# same scores, off by default: on a CPU it measured no faster (docs/probing.md).
SETTINGS = {"batch_size": 16, "dtype": "float32", "device": "cpu", "share_prefixes": False, "similarity": None}
MAX_BATCH_SIZE = 1024
DTYPES = ("float32", "bfloat16", "float16")


def likelihood_config(kind: str, *layers: dict | None) -> dict:
    """A likelihood run's resolved settings: ``SETTINGS`` under each dict of ``layers`` (model, then run).

    The template and scoring format versions are part of it, so a run asked with another template
    or scored another way never counts as the same config. ValueError naming a key or value that is wrong.
    """
    resolved = dict(SETTINGS)
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, dict):
            raise ValueError('the config is a JSON object such as {"batch_size": 16}')
        if unknown := sorted(set(layer) - set(SETTINGS)):
            raise ValueError(
                f"unknown setting(s) {', '.join(unknown)} for a {kind} model: it takes {', '.join(SETTINGS)}"
            )
        resolved.update(layer)
    size = resolved["batch_size"]
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_BATCH_SIZE:
        raise ValueError(f"batch_size must be a whole number from 1 to {MAX_BATCH_SIZE}, not {size!r}")
    if resolved["dtype"] not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, not {resolved['dtype']!r}")
    device = resolved["device"]
    if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d{1,2})?", device):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', not {device!r}")
    if not isinstance(resolved["share_prefixes"], bool):
        raise ValueError(f"share_prefixes must be true or false, not {resolved['share_prefixes']!r}")
    if kind == COMPLETIONS and (resolved["dtype"], device) != ("float32", "cpu"):
        raise ValueError("a completions server computes where and how it is served: dtype and device are not set here")
    similarity = similarity_config(kind, resolved)
    del resolved["similarity"]  # a run without it keeps the config (and config hash) it always had
    return {
        "family": "likelihood",
        **resolved,
        **({"similarity": similarity} if similarity is not None else {}),
        "template_version": TEMPLATE_VERSION,
        "score_format": SCORE_FORMAT,
        "measure": MEASURES[kind],
    }


# What the scoring pass fixes for the vectors it also gives: one pass, one batch size, dtype and device.
SHARED_PASS = ("batch_size", "dtype", "device")


def similarity_config(kind: str, resolved: dict) -> dict | None:
    """The EmbedConfig (as a dict) of the similarity measures a likelihood run also computes, or None.

    ``"similarity": true`` asks for the embedding defaults, an object for some of them changed
    (layers, pooling, sweep...): the scoring pass's hidden states are pooled as the ``transformer``
    backend pools them, so a causal LM runs each text once for both families. ValueError naming the
    setting for anything else.
    """
    asked = resolved["similarity"]
    if asked is None or asked is False:
        return None
    if asked is True:
        asked = {}
    if not isinstance(asked, dict):
        raise ValueError(
            f'similarity must be true, false or an embedding config such as {{"layers": [-1]}}, not {asked!r}'
        )
    if kind != CAUSAL:
        raise ValueError(
            f"similarity: only a causal LM's scoring pass gives the hidden states to pool; a {kind} model's does not "
            "(a masked LM masks each token; a completions server returns no hidden states)"
        )
    if resolved["share_prefixes"]:
        raise ValueError("similarity: share_prefixes scores texts in pieces, which gives no text's hidden states")
    if fixed := sorted(set(asked) & set(SHARED_PASS)):
        raise ValueError(f"similarity: {', '.join(fixed)} come from the run's own settings (one pass computes both)")
    try:
        return EmbedConfig.from_dict({**asked, **{key: resolved[key] for key in SHARED_PASS}}).as_dict()
    except (TypeError, ValueError) as error:
        raise ValueError(f"similarity: {error}") from None


@dataclass
class LanguageModel:
    """An opened causal or masked LM: ``score(texts)`` gives each text's per-token log-probabilities.

    A run's lazy backend (``probing.embedding.lazy``) opens it as it opens an embedding model: it
    has the ``identity()`` and ``supports_span`` every backend has, as ``CompletionsScorer`` does.
    The network itself is read from its files when first needed, straight in the dtype the run
    computes in, then moved to its device (``place``): a 1B model read in float32 and then converted
    to bfloat16 for a GPU cost seconds of every cold run there. ``model`` reads it in float32 on the CPU.
    """

    kind: str
    network: Any  # the transformers model, or None until ``open_network`` has read it
    tokenizer: Any
    facts: dict  # what identity() gives: the kind, the name, the weights' sha256 or revision, the vocabulary
    open_network: Callable[[str, str], Any] | None = None  # (dtype, device) -> the model there, in evaluation mode
    model_config: Any = None  # the transformers config (positions and layers, for vectors)
    supports_span = True

    def identity(self) -> dict:
        return dict(self.facts)

    # Vectors: the hidden states of the same network, pooled as the ``transformer`` backend pools them. torch
    # and the pooling are imported where vectors are made: a run that only reads its caches needs neither.

    def layer_count(self) -> int:
        """Hidden states the network gives (the embeddings and each layer)."""
        from probing.embedding.pooling import hidden_state_count

        return hidden_state_count(self.model_config)

    def max_length(self, config: EmbedConfig) -> int:
        from probing.embedding.pooling import max_length_of

        return max_length_of(self.model_config, config)

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(ids) for ids in self.tokenizer(list(texts))["input_ids"]]

    def tokens(self, item: TextSpan, config: EmbedConfig) -> Tokens:
        from probing.embedding.pooling import read_tokens

        return read_tokens(self.tokenizer, item, self.max_length(config))

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        """Vectors of ``items`` from their texts' own pass (what a scoring pass did not give: ``shared_pass``)."""
        from probing.embedding.pooling import in_text_batches
        from probing.likelihood.shared_pass import embed_texts

        self.place(config.dtype, config.device)
        length, count = self.max_length(config), self.layer_count()
        embed = partial(embed_texts, self.network, self.tokenizer, config=config, max_length=length, layer_count=count)
        return in_text_batches(items, config.batch_size, embed)

    def score_and_embed(
        self,
        texts: Sequence[str],
        items: Sequence[TextSpan],
        config: EmbedConfig,
        batch_size: int | None = None,
        dtype: str = "float32",
        device: str = "cpu",
    ) -> tuple[list[TextScore], dict[TextSpan, Vectors]]:
        """Each text's scores and the vectors of ``items`` (whose texts are among ``texts``) from one pass per batch.

        Causal LMs only: a masked LM's scoring pass masks each token, so it gives no text's hidden states.
        """
        from probing.likelihood.scoring import score_texts
        from probing.likelihood.shared_pass import PooledVectors

        if self.kind != CAUSAL:
            raise ValueError(f"only a causal LM scores and embeds in one pass, not a {self.kind} model")
        self.place(dtype, device)
        pooled = PooledVectors(texts, items, config, self.max_length(config), self.layer_count())
        scores = score_texts(self.kind, self.network, self.tokenizer, texts, batch_size, hidden=pooled)
        if pooled.left:
            pooled.vectors.update(zip(pooled.left, self.embed_batch(pooled.left, config), strict=True))
        return scores, pooled.vectors

    @property
    def model(self):
        """The network where it is (float32 on the CPU if nothing placed it yet)."""
        if self.network is None:
            self.place()
        return self.network

    def score(
        self,
        texts: Sequence[str],
        batch_size: int | None = None,
        start_token: bool = False,
        dtype: str = "float32",
        device: str = "cpu",
        share_prefixes: bool = False,
    ) -> list[TextScore]:
        """``start_token``: a causal LM whose tokenizer adds no start token scores each text after one.
        ``dtype``, ``device``: where the model computes (read or moved there once); ``share_prefixes``: causal only."""
        from probing.likelihood.scoring import score_texts  # torch: only where texts are scored

        self.place(dtype, device)
        return score_texts(self.kind, self.network, self.tokenizer, texts, batch_size, start_token, share_prefixes)

    def place(self, dtype: str = "float32", device: str = "cpu") -> None:
        """Have the network on ``device`` in ``dtype``: read there from its files the first time, else moved."""
        import torch

        if self.network is None:
            if self.open_network is None:
                raise ValueError("this language model has neither a network nor files to read one from")
            self.network = self.open_network(dtype, device)
            return
        wanted, where = getattr(torch, dtype), torch.device(device)
        first = next(self.network.parameters())
        # "cuda" names the current GPU, where the network says "cuda:0": the same place, no move (a move
        # walks every parameter: 11 ms a call for a 1B model, each chunk of a run).
        there = first.device.type == where.type and where.index in (None, first.device.index)
        if first.dtype != wanted or not there:
            self.network = self.network.to(device=where, dtype=wanted)


def open_language_model(kind: str, source: str, options: dict | None = None, *, allow_pickle: bool = False):
    """A local ``causal_lm`` or ``masked_lm`` folder with its fast tokenizer; its network is read when first used."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    if kind not in (CAUSAL, MASKED):
        raise ValueError(f"{kind!r} is not a local language model: causal_lm or masked_lm folders only")
    options = dict(options or {})
    revision = options.get("revision")
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True, revision=revision)
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"{source}: a fast tokenizer (tokenizer.json) is needed, for the tokens' character offsets")
    head = AutoModelForCausalLM if kind == CAUSAL else AutoModelForMaskedLM
    config = AutoConfig.from_pretrained(source, local_files_only=True, revision=revision)

    def open_network(dtype: str, device: str):
        network = head.from_pretrained(
            source,
            local_files_only=True,
            revision=revision,
            use_safetensors=safetensors_only(allow_pickle),
            dtype=dtype,
        )
        return network.to(device).eval()

    # As an embedding model's: the pinned revision or the weights' sha256; "dim" is what it outputs, the vocabulary.
    identity = model_identity(kind, source, options, dim=config.vocab_size)
    return LanguageModel(kind, None, tokenizer, identity, open_network, config)


def load_checked_language_model(kind: str, source: str, options: dict, rules: LoadRules):
    """A registered language model, checked against the rules on this machine, then opened.

    A local folder gives a ``LanguageModel``; an ``openai_completions`` server a ``CompletionsScorer``
    (its host and key checked again before each first request). Both score texts alike.
    """
    permit = check_model(kind, source, options, rules, on_worker=True)
    if kind == COMPLETIONS:
        return CompletionsScorer(source, options, rules=rules.api)
    return open_language_model(kind, permit.path, options, allow_pickle=permit.allow_pickle)
