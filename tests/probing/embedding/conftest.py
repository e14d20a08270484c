"""Tiny random models saved to disk (no download): a BERT with a WordPiece vocabulary and a LLaMA with BPE.

Built once per session; both load through load_backend like any local model folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

BERT_VOCAB = (
    "[PAD] [UNK] [CLS] [SEP] [MASK] the bank by river an a eager beaver ##s met he is hard worker police car "
    "build dams . , ( ) ! ' and of in"
).split()
LLAMA_CORPUS = [
    "the bank by the bank",
    "an eager beaver met eager beavers",
    "(eager beavers), he said.",
    "he is a hard worker.",
    "he is a police car.",
    "the river bank is steep and the beavers build dams",
]


def save_tiny_bert(folder: Path, seed: int = 0, layers: int = 4) -> Path:
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(BERT_VOCAB) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab=str(folder / "vocab.txt"))
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(BERT_VOCAB),
        hidden_size=32,
        num_hidden_layers=layers,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_tiny_llama(folder: Path, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaModel, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    # Metaspace, as in LLaMA's tokenizer: a word's token carries the space before it ("▁bank").
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Punctuation(behavior="isolated"), pre_tokenizers.Metaspace(replacement="▁")]
    )
    bpe.decoder = decoders.Metaspace(replacement="▁")
    bpe.train_from_iterator(LLAMA_CORPUS, trainers.BpeTrainer(vocab_size=60, special_tokens=["<unk>", "<s>", "</s>"]))
    bpe.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    # No pad token, like LLaMA: the backend must choose one.
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        bos_token_id=1,
        eos_token_id=2,
    )
    LlamaModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert")


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    return save_tiny_llama(tmp_path_factory.mktemp("models") / "tiny-llama")


@pytest.fixture(scope="session")
def make_tiny_bert():
    """save_tiny_bert(folder, seed=..., layers=...) for tests that need a second model."""
    return save_tiny_bert
