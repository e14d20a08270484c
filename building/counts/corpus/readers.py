"""Corpus files as streams of tokens, and their division into chunks (pure: no Django import).

Files are UTF-8 (a bad byte becomes U+FFFD), plain or gzip. Three formats:

- ``text``: plain text. A line is a unit: n-grams never cross a line end.
- ``conll``: one token per line, tab-separated columns. With an integer id in column 1
  (CoNLL-U, CoNLL-X; decided from the file's first lines) the word is column 2, otherwise
  column 1; multiword ranges (``1-2``), empty nodes (``8.1``) and ``#`` comment lines are
  skipped. A blank line ends a sentence.
- ``vertical``: ukWaC-style vertical XML: tag lines (``<text id=…>``, ``<s>``, ``</s>``) and
  token lines ``word<TAB>POS<TAB>lemma``. A line whose first column is ``<…>`` is a tag and a
  boundary, except ``<g/>`` (glue, "no space here"); so n-grams never cross ``</s>``.

Tokens, one rule for every format and for the compounds looked up in them:

- text is put in Unicode NFC and lower-cased;
- in ``text``, a token is a run of word characters (``\\w``: letters, digits, ``_``) or a single
  punctuation mark or symbol; in ``conll`` and ``vertical`` the corpus's own tokens are kept;
- a hyphen between two word characters separates two tokens, everywhere: "alta-costura" and
  "alta costura" are both the bigram ``alta costura``; any other hyphen is punctuation
  ("eager - beaver" is three tokens, so not the bigram);
- punctuation marks are tokens: they count in the corpus size (as they do in CoNLL corpora)
  and keep "eager, beaver" from counting as ``eager beaver``; an apostrophe is one too
  ("d'água" is ``d ' água``, "don't" is ``don ' t``).

Speed comes from working on blocks of about a megabyte with C-level primitives (``str.replace``
and ``str.split``, regular expressions that jump from line to line, and in the counter ``filter``
with set membership and ``Counter``): no Python code runs per token.

A file is cut into chunks of bytes whose edges fall on unit boundaries (:func:`chunk_ranges`),
so counting each chunk and adding the counts gives exactly the counts of one pass. Gzip files
(``.gz``) are read as a stream, but a compressed stream cannot be entered at a byte offset:
a ``.gz`` file is always one chunk.

Every function takes a path or a :class:`CorpusSource`: anything with a ``name``, a ``size()`` and
an ``open()`` giving a seekable binary file. ``building.storage.StoredFile`` is one over Django's
storage API, so that workers on other machines read an upload from a shared store.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import string
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple, Protocol

TEXT, CONLL, VERTICAL = "text", "conll", "vertical"
FORMATS = (TEXT, CONLL, VERTICAL)
BLOCK_SIZE = 1 << 20
SNIFF_BYTES = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"

EXTENSIONS = {
    ".txt": TEXT,
    ".text": TEXT,
    ".conll": CONLL,
    ".conllu": CONLL,
    ".conllx": CONLL,
    ".vert": VERTICAL,
    ".vrt": VERTICAL,
    ".xml": VERTICAL,
}

TEXT_BOUNDARY = "\x00"  # a line end in the text format (NUL bytes of the input become spaces)
# ``-`` with a word character on each side (starting with the literal lets the engine skip to hyphens).
INTRA_WORD_HYPHEN = re.compile(r"-(?<=\w-)(?=\w)")
ASCII_PUNCTUATION = [c for c in string.punctuation if c != "_"]  # "_" is a word character
# Any other character that is neither a word character nor white space: non-ASCII punctuation and symbols.
OTHER_PUNCTUATION = re.compile(r"[^\w\s!-/:-@\[-^`{-~]")
# The line-based formats are read with patterns that start with a literal newline (the block gets
# one in front), which lets the regex engine jump from line to line instead of trying every character.
# CoNLL with ids: the word of each line whose column 1 is an integer; a blank line gives "".
CONLL_ID_WORD = re.compile(r"\n(?:\d+\t([^\t\n]*)|(?=\n))")
# CoNLL without ids: column 1 of each line but comments; a blank line gives "".
CONLL_FIRST_COLUMN = re.compile(r"\n(?!#[^\t\n]*(?:\n|\Z))([^\t\n]*)")
CONLL_ID_LINE = re.compile(r"^\d+(?:[-.]\d+)?\t")
FIRST_COLUMN = re.compile(r"\n([^\t\n]*)")
VERTICAL_GLUE = re.compile(r"\n<g */>(?=\n)")
VERTICAL_TAG = re.compile(r"\n<[^\n]*>(?=\n)")
TAG_LINE = re.compile(r"^<[^\t\n]*>$")
CLOSING_TAG_LINE = re.compile(rb"</[^\t\n]*>\r?\n?$")  # where a chunk of vertical XML may end


class CorpusError(ValueError):
    """A corpus file that cannot be read as asked (unknown format, no such file)."""


class CorpusSource(Protocol):
    """Where a corpus's bytes come from: a name for messages, its size, and a seekable binary file."""

    name: str

    def size(self) -> int: ...

    def open(self) -> BinaryIO: ...


class LocalFile:
    """A corpus file on this machine's disk."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = self.path.name

    def size(self) -> int:
        return os.path.getsize(self.path)

    def open(self) -> BinaryIO:
        return open(self.path, "rb")

    def __str__(self) -> str:
        return str(self.path)


def as_source(corpus: str | Path | CorpusSource) -> CorpusSource:
    return LocalFile(corpus) if isinstance(corpus, str | Path) else corpus


class Block(NamedTuple):
    """Consecutive tokens of a corpus with unit boundaries among them, and how many real tokens."""

    tokens: list[str]  # a string that is no token (``""`` or ``"\x00"``) stands for a unit boundary
    size: int


def is_gzip(corpus: str | Path | CorpusSource) -> bool:
    with as_source(corpus).open() as f:
        return f.read(2) == GZIP_MAGIC


def open_binary(corpus: str | Path | CorpusSource) -> BinaryIO:
    """The corpus's bytes, decompressed when gzip (a stream then: it cannot seek)."""
    source = as_source(corpus)
    raw = source.open()
    if raw.read(2) == GZIP_MAGIC:
        raw.seek(0)
        return _GzipOwningFile(raw)
    raw.seek(0)
    return raw


class _GzipOwningFile(gzip.GzipFile):
    """A gzip stream over a file object it closes with itself (GzipFile leaves a given file open)."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def open_text(corpus: str | Path | CorpusSource) -> io.TextIOBase:
    """The file as UTF-8 text, decompressed when gzip; undecodable bytes become U+FFFD."""
    return io.TextIOWrapper(open_binary(corpus), encoding="utf-8", errors="replace")


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise CorpusError(f"unknown corpus format {fmt!r}: use one of {', '.join(FORMATS)}")
    return fmt


def check_file(path: str | Path) -> Path:
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"no corpus file at {path}")
    if path.stat().st_size == 0:
        raise CorpusError(f"the corpus file {path} is empty")
    return path


def detect_format(corpus: str | Path | CorpusSource, fmt: str | None = None) -> str:
    """``fmt`` when given; else from the extension (``.gz`` aside); else from the first lines."""
    if fmt:
        return check_format(fmt)
    name = Path(as_source(corpus).name).name.lower().removesuffix(".gz")
    if found := EXTENSIONS.get(Path(name).suffix):
        return found
    with open_text(corpus) as f:
        head = f.read(SNIFF_BYTES)
    lines = [line.rstrip("\r") for line in head.split("\n")[:200] if line.strip()]
    if any(TAG_LINE.match(line) for line in lines[:20]):
        return VERTICAL
    token_lines = [line for line in lines if not line.startswith("#")]
    if token_lines and sum("\t" in line for line in token_lines) >= 0.8 * len(token_lines):
        return CONLL
    return TEXT


def conll_has_ids(corpus: str | Path | CorpusSource) -> bool:
    """True when column 1 of the first token lines is an integer id (CoNLL-U, CoNLL-X)."""
    with open_text(corpus) as f:
        head = f.read(SNIFF_BYTES)
    lines = [line for line in head.split("\n")[:-1] if line.strip() and not line.startswith("#")][:50]
    return bool(lines) and all(CONLL_ID_LINE.match(line) for line in lines)


def text_tokens(block: str) -> list[str]:
    """Tokens of whole lines of plain text, ``TEXT_BOUNDARY`` for each line end."""
    if not block.isascii():
        if not unicodedata.is_normalized("NFC", block):
            block = unicodedata.normalize("NFC", block)
        block = OTHER_PUNCTUATION.sub(r" \g<0> ", block)
    block = block.lower()
    if "-" in block:
        block = INTRA_WORD_HYPHEN.sub(" ", block)
    # One C-level pass per punctuation mark present beats a tokenising regex by a factor of two.
    for mark in ASCII_PUNCTUATION:
        if mark in block:
            block = block.replace(mark, f" {mark} ")
    return block.replace("\n", f" {TEXT_BOUNDARY} ").split()


def tokenize(text: str) -> list[str]:
    """Tokens of a piece of text under the ``text`` rule; also how a compound is looked up."""
    return text_tokens(text.replace("\x00", " ").replace("\n", " "))


def normalise(text: str) -> str:
    """The key under which a word or compound is counted: its tokens joined by one space."""
    return " ".join(tokenize(text))


def corpus_words(words: str) -> list[str]:
    """A corpus's own tokens, one a line, lower-cased and split at hyphens between word characters."""
    if not words.isascii() and not unicodedata.is_normalized("NFC", words):
        words = unicodedata.normalize("NFC", words)
    words = words.lower()
    if "-" in words:
        words = INTRA_WORD_HYPHEN.sub("\n", words)
    return words.split("\n")


def conll_tokens(block: str, with_ids: bool) -> list[str]:
    """Tokens of whole lines of CoNLL, "" for each blank line."""
    if with_ids:
        words = CONLL_ID_WORD.findall("\n" + block)
    else:
        # Without its last newline a block does not end in an empty line, which would be a boundary.
        words = CONLL_FIRST_COLUMN.findall("\n" + block.removesuffix("\n"))
    return corpus_words("\n".join(words)) if words else []


def vertical_tokens(block: str) -> list[str]:
    """Tokens of whole lines of vertical XML, "" for each line whose first column is a tag (glue aside)."""
    columns = "\n" + "\n".join(FIRST_COLUMN.findall("\n" + block.removesuffix("\n"))) + "\n"
    if "\n<" in columns:
        columns = VERTICAL_GLUE.sub("", columns)
        if columns == "\n":
            return []  # nothing but glue
        columns = VERTICAL_TAG.sub("\n", columns)  # a tag line becomes an empty line
    return corpus_words(columns[1:-1])


def read_blocks(
    corpus: str | Path | CorpusSource, start: int = 0, end: int | None = None, block_size: int = BLOCK_SIZE
) -> Iterator[str]:
    """Whole lines of bytes ``start`` to ``end`` (the whole stream of a gzip file), about ``block_size`` at a time."""
    with open_binary(corpus) as f:
        gz = isinstance(f, gzip.GzipFile)
        if not gz:
            f.seek(start)
        remaining = None if gz or end is None else end - start
        carry = b""
        while True:
            size = block_size if remaining is None else min(block_size, remaining)
            data = f.read(size) if size else b""
            if remaining is not None:
                remaining -= len(data)
            if not data:
                if carry:
                    yield carry.decode("utf-8", errors="replace").replace("\r", "")
                return
            data = carry + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # a line longer than a block: keep reading
                carry = data
                continue
            carry = data[cut:]
            text = data[:cut].decode("utf-8", errors="replace")
            yield text.replace("\r", "") if "\r" in text else text


def token_blocks(
    corpus: str | Path | CorpusSource, fmt: str, start: int = 0, end: int | None = None, block_size: int = BLOCK_SIZE
) -> Iterator[Block]:
    """The tokens of bytes ``start`` to ``end`` of a corpus file, a block at a time.

    A unit (line, sentence) may continue from one block into the next: only a boundary
    token inside a block ends it.
    """
    check_format(fmt)
    with_ids = conll_has_ids(corpus) if fmt == CONLL else False
    for text in read_blocks(corpus, start, end, block_size):
        if fmt == TEXT:
            if "\x00" in text:
                text = text.replace("\x00", " ")
            tokens = text_tokens(text)
            yield Block(tokens, len(tokens) - text.count("\n"))
            continue
        tokens = conll_tokens(text, with_ids) if fmt == CONLL else vertical_tokens(text)
        yield Block(tokens, len(tokens) - tokens.count(""))


def is_unit_end(fmt: str, line: bytes) -> bool:
    """True when a unit boundary follows ``line`` (one line of the file, with its newline)."""
    if fmt == TEXT:
        return True
    if fmt == CONLL:
        return not line.rstrip(b"\r\n")
    return bool(CLOSING_TAG_LINE.match(line))


def next_unit_start(f, fmt: str, offset: int, size: int) -> int:
    """The first offset >= ``offset`` at which a unit starts (``size`` when none does)."""
    if offset <= 0:
        return 0
    # Read from the start of the line holding byte offset - 1: a unit starts at ``offset``
    # exactly when that line ends there and ends a unit.
    back = max(0, offset - 1 - SNIFF_BYTES)
    f.seek(back)
    before = f.read(offset - 1 - back)
    newline = before.rfind(b"\n")
    partial = newline < 0 and back > 0  # a line longer than the look-back: not a blank or tag line
    position = back + newline + 1
    f.seek(position)
    while True:
        line = f.readline()
        if not line:
            return size
        position += len(line)
        if position >= offset and (fmt == TEXT or not partial) and is_unit_end(fmt, line):
            return position
        partial = False


def chunk_ranges(corpus: str | Path | CorpusSource, fmt: str, chunks: int) -> list[tuple[int, int]]:
    """At most ``chunks`` byte ranges covering the file, each starting and ending on a unit boundary.

    A gzip file is one range (0, size): it can only be read from the start. Finding the edges
    seeks and reads a few kilobytes around each, through the source (a storage backend too).
    """
    check_format(fmt)
    if chunks < 1:
        raise CorpusError("the number of chunks must be at least 1")
    source = as_source(corpus)
    size = source.size()
    if chunks == 1 or size == 0 or is_gzip(source):
        return [(0, size)]
    edges = [0]
    with source.open() as f:
        for i in range(1, chunks):
            edge = next_unit_start(f, fmt, max(i * size // chunks, edges[-1]), size)
            if edge >= size:
                break  # no unit starts after this point: the rest is one chunk
            if edge > edges[-1]:
                edges.append(edge)
    edges.append(size)
    return list(zip(edges, edges[1:], strict=False))
