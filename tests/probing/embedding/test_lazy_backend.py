"""The lazy backend answers from its record while the model's files are the recorded ones, and opens the model otherwise."""

from __future__ import annotations

import pytest

from probing.embedding.base import EmbedConfig, TextSpan, check_sweep, layer_count, weights_sha256
from probing.embedding.lazy import ChangedWhileRunning, LazyBackend, Recorded, backend_key, weights_check
from probing.embedding.transformer import TransformerBackend
from tests.tiny_models import save_tiny_bert

TEXTS = ["an eager beaver", "a research lab"]


@pytest.fixture(scope="module")
def bert_folder(tmp_path_factory):
    return save_tiny_bert(tmp_path_factory.mktemp("lazy") / "bert", TEXTS[0].split() + TEXTS[1].split(), seed=3)


def touch_config(folder) -> None:
    """Change a byte of meaning-free formatting in config.json: the same model, other files (so another identity)."""
    config = folder / "config.json"
    config.write_text(config.read_text() + "\n")


class Opener:
    """Opens the tiny BERT and counts how often it was asked to."""

    def __init__(self, folder, fail: bool = False) -> None:
        self.folder, self.fail, self.count, self.records = folder, fail, 0, []

    def __call__(self):
        if self.fail:
            raise AssertionError("the model was opened")
        self.count += 1
        return TransformerBackend(str(self.folder), {})

    def lazy(self, recorded: Recorded | None = None) -> LazyBackend:
        source = str(self.folder)
        return LazyBackend(
            "transformer",
            backend_key("transformer", source, {}),
            open_backend=self,
            check=lambda: weights_check("transformer", source, {}),
            recorded=recorded,
            on_open=self.records.append,
        )


def test_without_a_record_the_first_question_opens_the_model_and_records_what_a_run_needs(bert_folder):
    opener = Opener(bert_folder)
    lazy = opener.lazy()
    assert not lazy.loaded and opener.count == 0
    identity = lazy.identity()
    assert lazy.loaded and opener.count == 1
    real = TransformerBackend(str(bert_folder), {})
    assert identity == real.identity()
    [record] = opener.records
    assert record.identity == identity
    assert record.layer_count == real.layer_count() == 5  # tiny BERT: the embeddings and four layers
    assert record.supports_span is True
    assert record.check == {"weights_sha256": weights_sha256(bert_folder)}
    assert Recorded.from_dict(record.as_dict()) == record


def test_with_a_matching_record_identity_spans_and_layers_come_without_opening_the_model(bert_folder):
    learner = Opener(bert_folder)
    learner.lazy().identity()
    [record] = learner.records

    lazy = Opener(bert_folder, fail=True).lazy(Recorded.from_dict(record.as_dict()))
    assert lazy.identity() == record.identity
    assert lazy.supports_span is True
    assert layer_count(lazy) == 5
    assert check_sweep(lazy, EmbedConfig(sweep="all")) == (0, 1, 2, 3, 4)
    assert not lazy.loaded


def test_embedding_opens_the_model_and_gives_the_same_vectors(bert_folder):
    learner = Opener(bert_folder)
    learner.lazy().identity()
    opener = Opener(bert_folder)
    lazy = opener.lazy(learner.records[0])
    items = [TextSpan(TEXTS[0], (3, 15))]
    vectors = lazy.embed_batch(items, EmbedConfig())
    assert opener.count == 1 and lazy.loaded
    expected = TransformerBackend(str(bert_folder), {}).embed_batch(items, EmbedConfig())
    assert (vectors[0].sentence == expected[0].sentence).all()
    assert (vectors[0].span == expected[0].span).all()
    lazy.token_lengths(TEXTS)
    assert opener.count == 1  # opened once


def test_a_changed_file_on_disk_opens_the_model_and_gives_its_new_identity(tmp_path):
    folder = save_tiny_bert(tmp_path / "bert", TEXTS[0].split(), seed=3)
    learner = Opener(folder)
    learner.lazy().identity()
    [record] = learner.records
    touch_config(folder)  # a file the model reads changed since the record

    opener = Opener(folder)
    lazy = opener.lazy(record)
    identity = lazy.identity()
    assert opener.count == 1
    assert identity != record.identity
    assert identity["weights_sha256"] == weights_sha256(folder)
    assert opener.records[0].identity == identity


def test_a_record_of_another_source_or_options_or_version_is_not_trusted(bert_folder):
    learner = Opener(bert_folder)
    learner.lazy().identity()
    record = learner.records[0]
    other = Recorded(**{**record.as_dict(), "key": backend_key("transformer", str(bert_folder), {"name": "x"})})
    opener = Opener(bert_folder)
    opener.lazy(other).identity()
    assert opener.count == 1
    assert Recorded.from_dict({**record.as_dict(), "version": 0}) is None
    assert Recorded.from_dict({"identity": {}}) is None
    assert Recorded.from_dict({}) is None


def test_a_model_whose_files_change_after_its_record_was_used_is_refused_when_opened(tmp_path):
    folder = save_tiny_bert(tmp_path / "bert", TEXTS[0].split(), seed=3)
    learner = Opener(folder)
    learner.lazy().identity()
    opener = Opener(folder)
    lazy = opener.lazy(learner.records[0])
    lazy.identity()  # cache keys made from the record
    touch_config(folder)
    with pytest.raises(ChangedWhileRunning, match="changed while it was in use"):
        lazy.embed_batch([TextSpan(TEXTS[0])], EmbedConfig())


def test_the_check_of_a_backend_without_files_and_of_a_pinned_hub_id():
    assert weights_check("openai", "text-embedding-3-small", {}) == {}
    assert weights_check("transformer", "org/not-a-folder", {"revision": "abc123"}) == {"revision": "abc123"}
    assert weights_check("elmo", "/no/such/elmo", {}) == {"missing": "/no/such/elmo"}
