"""The tiny ELMo in ../shared/fixtures/elmo and what the original bilm-tf computed with it (see its README).

bilm-tf ran the 30 sentences as 10 batches of 3, batch i holding sentence i of each of the three
lists, and carried each row's LSTM state into the next batch: only sentence 0 of each list started
from the zero state that the workbench's backend always starts from.
"""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np

from probing.embedding.elmo import whitespace_tokens

LISTS, PER_LIST = 3, 10
ZERO_STATE = [(k, 0) for k in range(LISTS)]  # (list, index) of the sentences bilm-tf began from a zero state


def sentences(folder: Path) -> list[list[str]]:
    return json.loads((folder / "sentences.json").read_text(encoding="utf-8"))


def expected_top_layer(folder: Path) -> list[list[np.ndarray]]:
    """[list][index] -> (tokens, 32): forward and backward top-layer halves concatenated."""
    out = []
    for k in range(LISTS):
        with h5py.File(folder / f"lm_embeddings_{k}.hdf5", "r") as handle:
            out.append([np.concatenate(list(handle[str(i)][...]), axis=-1) for i in range(PER_LIST)])
    return out


def word_spans(text: str) -> list[tuple[int, int]]:
    return [(start, end) for _, start, end in whitespace_tokens(text)]
