"""Synthetic data for ``benchmarks/scale.py`` (pure: no Django): a larger NCIMP release and a campaign's ratings.

``write_ncimp_copies`` writes the public NCIMP folders again with ``copies`` times their rows:
copy 0 is the public data, each further copy replaces every word by another word of the same
language's files through a seeded permutation of that vocabulary. The permutation is applied to
every text cell (compound, sentences, variants) and to the scores table's compounds, so a copy is
as consistent as the original (the tags, booleans over whitespace tokens, still fit: a word stays
one token) while every text and compound is new; texts keep the corpus's own word lengths, so a
text costs a model about what a public one does.

``rating_plan`` draws the ratings of a campaign: annotators each rate ``items_per_annotator``
distinct items, items have a seeded true score, and every answer is that score plus noise.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

SCORES_FILE = "human_compositionality_scores.csv"
LANGUAGES = {"PT": "pt", "EN": "en"}


WORD = re.compile(r"[^\W\d_]+")  # a run of letters: "guarda-chuva" is two, and stays one whitespace token


def _words(text: str) -> list[str]:
    return [word.lower() for word in WORD.findall(text)]


def permutation(vocabulary: set[str], seed: int) -> dict[str, str]:
    """A seeded one-to-one map of ``vocabulary`` onto itself (sorted first, so a seed always gives the same map)."""
    words = sorted(vocabulary)
    shuffled = words[:]
    random.Random(seed).shuffle(shuffled)
    return dict(zip(words, shuffled, strict=True))


def perturb(text: str, mapping: dict[str, str]) -> str:
    """``text`` with each run of letters replaced through ``mapping``, keeping an initial capital."""

    def swap(match: re.Match) -> str:
        word = match.group(0)
        new = mapping.get(word.lower(), word)
        return new[:1].upper() + new[1:] if word[:1].isupper() else new

    return WORD.sub(swap, text)


def _read(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def _write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _text_columns(header: list[str]) -> list[int]:
    return [i for i, name in enumerate(header) if name and not name.endswith("_tag")]


def write_ncimp_copies(source: Path, target: Path, copies: int, seed: int = 0) -> dict[str, int]:
    """Write ``target/{PT,EN}/*.csv`` and the scores table with ``copies`` times the rows of ``source``.

    Returns the number of compounds written per language. A copy's compound that collides with one
    already written is left out of that copy (rare: two words both mapped onto another pair).
    """
    files = {folder: sorted((source / folder).glob("*.csv")) for folder in LANGUAGES if (source / folder).is_dir()}
    tables = {(folder, path.name): _read(path) for folder, paths in files.items() for path in paths}
    mappings: dict[str, list[Callable[[str], str]]] = {}
    for folder in files:
        vocabulary = {
            word
            for (f, _), (header, rows) in tables.items()
            if f == folder
            for row in rows
            for i in _text_columns(header)
            for word in _words(row[i]) if i < len(row)
        }  # fmt: skip
        maps = [permutation(vocabulary, seed * 1000 + copy) for copy in range(1, copies)]
        mappings[folder] = [lambda text: text] + [lambda text, m=m: perturb(text, m) for m in maps]
    kept: dict[tuple[str, int], set[str]] = {}  # (folder, copy) → the compounds that copy keeps
    for folder in files:
        seen: set[str] = set()
        originals = {row[0] for (f, _), (_, rows) in tables.items() if f == folder for row in rows if row}
        for copy, change in enumerate(mappings[folder]):
            names = {change(name) for name in originals}
            kept[folder, copy] = {n for n in names if n not in seen}
            seen |= names
    written: dict[str, int] = {}
    for (folder, name), (header, rows) in tables.items():
        columns = _text_columns(header)
        out = []
        for copy, change in enumerate(mappings[folder]):
            for row in rows:
                new = [change(cell) if i in columns else cell for i, cell in enumerate(row)]
                if row and new[0] in kept[folder, copy]:
                    out.append(new)
        _write(target / folder / name, header, out)
        written[LANGUAGES[folder]] = max(written.get(LANGUAGES[folder], 0), len({r[0] for r in out}))
    if (source / SCORES_FILE).is_file():
        header, rows = _read(source / SCORES_FILE)
        language, compound = header.index("language"), header.index("compound")
        folders = {code: folder for folder, code in LANGUAGES.items() if folder in files}
        out = []
        for copy in range(copies):
            for row in rows:
                folder = folders.get(row[language].lower())
                if folder is None:
                    continue
                new = row[:]
                new[compound] = mappings[folder][copy](row[compound])
                if new[compound] in kept[folder, copy]:
                    out.append(new)
        _write(target / SCORES_FILE, header, out)
    return written


def rating_plan(n_ratings: int, n_items: int, items_per_annotator: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Columns of ``n_ratings`` ratings: annotator, item (indices from 0), head, modifier and compound scores 0-5.

    Each annotator rates ``items_per_annotator`` distinct items drawn at random (the last one fewer
    when it does not divide); an item's three answers are its seeded true scores plus noise of
    standard deviation 1, rounded and clipped, so agreement is moderate, as in crowd data.
    """
    if items_per_annotator > n_items:
        raise ValueError(f"{items_per_annotator} items per annotator, but only {n_items} items")
    rng = np.random.default_rng(seed)
    n_annotators = -(-n_ratings // items_per_annotator)
    annotator = np.repeat(np.arange(n_annotators), items_per_annotator)[:n_ratings]
    # Distinct items per annotator: the first k of a random ranking of all items, one ranking per annotator,
    # drawn in blocks so that memory stays bounded at any size.
    item = np.empty(n_annotators * items_per_annotator, dtype=np.int64)
    block = max(1, 2_000_000 // n_items)
    for start in range(0, n_annotators, block):
        stop = min(start + block, n_annotators)
        ranks = rng.random((stop - start, n_items)).argsort(axis=1)[:, :items_per_annotator]
        item[start * items_per_annotator : stop * items_per_annotator] = ranks.ravel()
    item = item[:n_ratings]
    columns: dict[str, np.ndarray] = {"annotator": annotator, "item": item}
    for question in ("head", "modifier", "compound"):
        truth = rng.uniform(0, 5, n_items)
        noisy = truth[item] + rng.normal(0, 1, n_ratings)
        columns[question] = np.clip(np.rint(noisy), 0, 5).astype(np.int16)
    return columns
