"""EmbedConfig, TextSpan, load_backend and the bundled model path."""

from __future__ import annotations

import pytest

from probing.embedding import EmbedConfig, TextSpan, bundled_minilm_path, load_backend
from probing.embedding.base import weights_sha256


def test_config_round_trips_through_a_dict():
    config = EmbedConfig(layers=(-1,), include_special_tokens=True, dtype="bfloat16", max_length=128)
    data = config.as_dict()
    assert data["layers"] == [-1]
    assert EmbedConfig.from_dict(data) == config
    assert EmbedConfig.from_dict({}) == EmbedConfig()
    assert EmbedConfig.from_dict({"layers": [-2, -1]}).layers == (-2, -1)


def test_vector_key_leaves_out_batch_size_and_device():
    assert set(EmbedConfig().vector_key()) == {
        "layers",
        "subword_pooling",
        "include_special_tokens",
        "dtype",
        "max_length",
    }


@pytest.mark.parametrize(
    "data",
    [
        {"layers": []},
        {"layers": ["last"]},
        {"dtype": "float64"},
        {"subword_pooling": "max"},
        {"batch_size": 0},
        {"max_length": -1},
        {"include_special_tokens": "yes"},
        {"colour": "blue"},
    ],
)
def test_bad_config_values_are_refused(data):
    with pytest.raises(ValueError):
        EmbedConfig.from_dict(data)


def test_a_span_must_lie_inside_its_text():
    assert TextSpan("eager beaver", [0, 5]).span == (0, 5)
    for span in [(0, 13), (5, 5), (-1, 3)]:
        with pytest.raises(ValueError):
            TextSpan("eager beaver", span)


def test_unknown_backend_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown backend kind"):
        load_backend("word2vec", "x")


def test_the_bundled_model_is_a_local_folder():
    path = bundled_minilm_path()
    assert (path / "config.json").is_file() and (path / "modules.json").is_file()


def test_the_weights_hash_covers_every_model_file(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"a" * 3_000_000)
    (tmp_path / "README.md").write_text("about")
    before = weights_sha256(tmp_path)
    (tmp_path / "README.md").write_text("about it")
    assert weights_sha256(tmp_path) == before
    # Same size, same first and last megabyte: only a full hash sees the change.
    (tmp_path / "new").write_bytes(b"a" * 1_500_000 + b"b" + b"a" * 1_499_999)
    (tmp_path / "new").replace(tmp_path / "model.safetensors")
    assert weights_sha256(tmp_path) != before


def test_an_item_is_hashed_once_and_pickles_without_its_hash():
    import pickle

    item = TextSpan("an eager beaver", [3, 15])
    assert {item: 1}[TextSpan("an eager beaver", (3, 15))] == 1
    data = pickle.dumps(item)
    assert b"_hash" not in data  # str hashes are salted per process: a pickled hash would be stale
    again = pickle.loads(data)
    assert again == item and hash(again) == hash(item) and again.span == (3, 15)
