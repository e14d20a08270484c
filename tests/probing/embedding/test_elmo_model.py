"""The ELMo network against the original bilm-tf's outputs, and what it refuses to read."""

from __future__ import annotations

import json
import shutil

import h5py
import numpy as np
import pytest
import torch

from probing.embedding.elmo import read_options
from probing.embedding.elmo_model import ElmoFileError, ElmoOptions, batch_char_ids, load_elmo, word_char_ids
from tests.probing.elmo_reference import LISTS, PER_LIST, expected_top_layer, sentences


def fixture_model(folder):
    options = read_options(folder / "options.json")
    return options, load_elmo(options, folder / "lm_weights.hdf5")


def test_a_word_is_its_utf8_bytes_between_word_markers_shifted_by_one():
    ids = word_char_ids("né", 8)
    # begin-of-word 258, the bytes of "n" and "é" (two), end-of-word 259, padding 260; all plus one.
    assert ids == [259, 111, 196, 170, 260, 261, 261, 261]
    assert word_char_ids("x" * 60, 50)[1:49] == [ord("x") + 1] * 48 and word_char_ids("x" * 60, 50)[49] == 260


def test_a_sentence_gets_boundary_tokens_and_rows_after_its_end_are_zero():
    ids, lengths = batch_char_ids([["a"], ["a", "b", "c"]], 6)
    assert lengths.tolist() == [3, 5]
    assert ids[0, 0].tolist() == [259, 257, 260, 261, 261, 261]  # begin of sentence: 256 + 1
    assert ids[0, 2].tolist() == [259, 258, 260, 261, 261, 261]  # end of sentence: 257 + 1
    assert ids[0, 3:].eq(0).all() and ids[1].ne(0).any(dim=-1).all()


@pytest.mark.parametrize("rows", [1, 3])
def test_with_bilm_tfs_carried_state_every_token_of_the_30_sentences_matches_it(fixture_elmo, rows):
    """bilm-tf ran batch i = sentence i of each list, each row starting from the state its previous sentence left.

    Rows are independent, so one list at a time (rows=1) gives the same numbers as the three side by side.
    """
    options, model = fixture_model(fixture_elmo)
    texts, expected = sentences(fixture_elmo), expected_top_layer(fixture_elmo)
    worst = 0.0
    for group in [list(range(LISTS))[i : i + rows] for i in range(0, LISTS, rows)]:
        state = None
        for i in range(PER_LIST):
            words = [texts[k][i].split() for k in group]
            ids, lengths = batch_char_ids(words, options.max_characters_per_token)
            with torch.inference_mode():
                layers, state = model.run(ids, lengths, state)
            for row, k in enumerate(group):
                top = layers[-1, row, 1 : len(words[row]) + 1].numpy()
                assert top.shape == expected[k][i].shape
                worst = max(worst, float(np.abs(top - expected[k][i]).max()))
    assert worst < 1e-5


def test_layer_0_is_the_token_layer_twice(fixture_elmo):
    options, model = fixture_model(fixture_elmo)
    ids, lengths = batch_char_ids([sentences(fixture_elmo)[0][0].split()], options.max_characters_per_token)
    with torch.inference_mode():
        layers = model(ids, lengths)
    assert layers.shape[:2] == (3, 1) and layers.shape[-1] == 32
    torch.testing.assert_close(layers[0, ..., :16], layers[0, ..., 16:])
    torch.testing.assert_close(layers[0, ..., :16], model.char_cnn(ids))


def test_weights_that_do_not_fit_the_options_are_refused_with_the_dataset_at_fault(fixture_elmo):
    data = json.loads((fixture_elmo / "options.json").read_text())
    data["lstm"]["dim"] = 32
    with pytest.raises(ElmoFileError, match=r"RNN_0/RNN/MultiRNNCell/Cell0/LSTMCell/W_0 has shape \(32, 256\)"):
        load_elmo(ElmoOptions.from_json(data), fixture_elmo / "lm_weights.hdf5")
    with pytest.raises(ElmoFileError, match="not an ELMo options file"):
        ElmoOptions.from_json({"lstm": {}})


def test_a_character_table_too_small_for_the_byte_ids_is_refused(fixture_elmo, tmp_path):
    weights = tmp_path / "weights.hdf5"
    shutil.copy(fixture_elmo / "lm_weights.hdf5", weights)
    with h5py.File(weights, "a") as handle:
        table = handle["char_embed"][:100]
        del handle["char_embed"]
        handle["char_embed"] = table

    with pytest.raises(ElmoFileError, match="char_embed has 100 rows; byte-level ELMo needs 261"):
        load_elmo(read_options(fixture_elmo / "options.json"), weights)


def external_link(handle) -> None:
    handle["elsewhere"] = h5py.ExternalLink("/etc/secret.hdf5", "/data")


def external_storage(handle) -> None:
    handle.create_dataset("elsewhere", shape=(4,), dtype="f4", external=[("/etc/passwd", 0, 16)])


@pytest.mark.parametrize(
    ("add", "message"), [(external_link, "links to another file"), (external_storage, "reads its data from other")]
)
def test_a_weight_file_that_reads_another_file_is_refused(fixture_elmo, tmp_path, add, message):
    weights = tmp_path / "weights.hdf5"
    shutil.copy(fixture_elmo / "lm_weights.hdf5", weights)
    with h5py.File(weights, "a") as handle:
        add(handle)

    with pytest.raises(ElmoFileError, match=message):
        load_elmo(read_options(fixture_elmo / "options.json"), weights)
