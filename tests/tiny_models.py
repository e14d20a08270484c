"""The one builder of tiny random models for tests: a BERT with a WordPiece vocabulary and a LLaMA with BPE.

Nothing is downloaded: each model is built from a config and saved to a folder, from which it loads like
any local model. A fixture model must know the words of the texts it is given, or every word becomes the
unknown token and every similarity 1.0: ``unknown_words`` says which words a saved tokenizer cannot read,
and the builders refuse to save a model that cannot read the texts it is meant for.

``save_tiny_bert(..., near={"hard": "eager"})`` gives a word an input embedding close to another's, so
that a synonym of a compound is nearer to it than a random compound, as in a trained model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
HIDDEN = 32
# How far a "near" word's embedding row is from its partner's, relative to the rows' own spread.
NEAR_NOISE = 0.25
LIKELY_BIAS = 4.0  # added to a likely word's logit in the masked-LM head


class FixtureModelError(AssertionError):
    """A fixture model that cannot read the texts it was built for."""


def words_of(texts: Iterable[str]) -> list[str]:
    """The lower-cased words and punctuation marks of ``texts``, sorted."""
    return sorted({w for text in texts for w in re.findall(r"\w+|[^\w\s]", text.lower())})


def unknown_words(folder: Path, texts: Iterable[str]) -> dict[str, list[str]]:
    """Each text that the tokenizer saved in ``folder`` reads with an unknown token, with the words it misses."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    unknown = tokenizer.unk_token_id
    found = {}
    for text in texts:
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        missed = [
            text[a:b]
            for token, (a, b) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True)
            if token == unknown
        ]
        if missed:
            found[text] = missed
    return found


def check_reads(folder: Path, texts: Iterable[str]) -> Path:
    """``folder``, after checking that its tokenizer reads every text without the unknown token."""
    missed = unknown_words(folder, texts)
    if missed:
        sample = "; ".join(f"{text!r}: {words}" for text, words in list(missed.items())[:5])
        raise FixtureModelError(
            f"{folder.name} maps words of {len(missed)} fixture text(s) to its unknown token: {sample}"
        )
    return folder


def save_tiny_bert(
    folder: Path,
    words: Iterable[str],
    *,
    texts: Iterable[str] = (),
    seed: int = 0,
    layers: int = 4,
    near: Mapping[str, str] | None = None,
    masked_lm: bool = False,
    likely: Iterable[str] = (),
) -> Path:
    """A random BERT (hidden size 32) whose WordPiece vocabulary is ``words``, saved in ``folder``.

    ``texts``: the model must read each without the unknown token (checked after saving).
    ``near``: word -> partner; the word's input embedding is the partner's plus a little noise.
    ``masked_lm``: with its masked-language-model head (``BertForMaskedLM``), for pseudo-log-likelihoods.
    ``likely``: words the masked-LM head predicts more readily anywhere (its output bias raised by
    ``LIKELY_BIAS``), as a trained model expects a common word: a synonym likelier than a random compound.
    """
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocabulary = [*BERT_SPECIALS, *sorted(set(words) - set(BERT_SPECIALS))]
    index = {word: i for i, word in enumerate(vocabulary)}
    # transformers 5 reads the vocabulary from ``vocab=``; ``vocab_file=`` is ignored and leaves only the specials.
    tokenizer = BertTokenizerFast(vocab=index, do_lower_case=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocabulary),
        hidden_size=HIDDEN,
        num_hidden_layers=layers,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    model = (BertForMaskedLM if masked_lm else BertModel)(config).eval()
    if near:
        table = model.get_input_embeddings().weight
        with torch.no_grad():
            spread = table.std()
            for word, partner in near.items():
                table[index[word]] = table[index[partner]] + NEAR_NOISE * spread * torch.randn(HIDDEN)
    if likely:
        with torch.no_grad():
            for word in likely:
                model.cls.predictions.bias[index[word]] += LIKELY_BIAS
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return check_reads(folder, texts)


def save_tiny_llama(
    folder: Path,
    corpus: list[str],
    *,
    seed: int = 0,
    causal_lm: bool = False,
    vocab_size: int = 60,
    shape: Mapping[str, int] | None = None,
) -> Path:
    """A random LLaMA-style decoder with a byte-pair vocabulary trained on ``corpus``, saved in ``folder``.

    Like LLaMA: Metaspace pre-tokenisation (a word's token carries the space before it), a BOS token and no
    pad token, so the backend must choose one. Every text of ``corpus`` is checked to read without ``<unk>``.
    ``causal_lm``: with its language-model head (``LlamaForCausalLM``), for log-probabilities.
    ``shape``: LlamaConfig sizes instead of the tiny ones (benchmarks build a 6-layer model this way).
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, LlamaModel, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Punctuation(behavior="isolated"), pre_tokenizers.Metaspace(replacement="▁")]
    )
    bpe.decoder = decoders.Metaspace(replacement="▁")
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<unk>", "<s>", "</s>"]))
    bpe.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(seed)
    sizes = {
        "hidden_size": HIDDEN,
        "intermediate_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": 64,
    } | dict(shape or {})
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        **sizes,
        bos_token_id=1,
        eos_token_id=2,
    )
    (LlamaForCausalLM if causal_lm else LlamaModel)(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return check_reads(folder, corpus)


def save_tiny_gpt2(folder: Path, corpus: list[str], *, seed: int = 0) -> Path:
    """A random GPT-2 with its language-model head and a byte-level BPE trained on ``corpus``, saved in ``folder``.

    Like GPT-2: byte-level pre-tokenisation (never an unknown token), no BOS added by the tokenizer (the
    first token of a text has no context) and no pad token.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(corpus, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>"
    )
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(tokenizer), n_embd=HIDDEN, n_layer=2, n_head=4, n_positions=64, bos_token_id=0, eos_token_id=0
    )
    GPT2LMHeadModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
