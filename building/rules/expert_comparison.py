"""How close generated variants come to the ones language experts made by hand (pure: no Django import).

The NCIMP release (He et al. 2024) and NCS (Garcia et al. 2021) hold variants written by
experts; ``benchmarks/variant_quality.py`` generates variants from NCTTI alone and compares
them here. Words are compared loosely: case, accents, number and leading articles aside
(``paraphrase_key``, the key gold synonyms are counted by), and for WordsSyn pairs and
single words also the Portuguese gender an expert re-inflected ("sísmicas" for "sísmico").

The compounds are split into a development half and a held-out half by a fixed seed,
before anything is tuned, so that a figure on the held-out half is not the result of
looking at it.
"""

from __future__ import annotations

import ast
import csv
import random
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from building.rules.grammar.inflection import is_portuguese
from building.rules.synonyms.gold_synonym import paraphrase_key, zipf
from datasets.formats.spans import TagError, fold, span_from_tags

SPLIT_SEED = 17  # fixed before any tuning; changing it re-opens the held-out half
DEV, HELD_OUT = "dev", "held-out"
TOP = 5
NATURALISTIC, NEUTRAL = "naturalistic", "neutral"

Frequency = Callable[[str, str], float]  # (text, language) → per million

# NCS files have no span tags: the compound follows the neutral pattern's words.
_NEUTRAL_PREFIX = re.compile(
    r"^\s*(this is (an?)?|these are|este é (um|uma)?|esta é (um|uma)?|estes são|estas são)\s+", re.IGNORECASE
)
_PLURAL_PATTERN = re.compile(r"^\s*(these are|estes são|estas são)\b", re.IGNORECASE)


# --- the split ------------------------------------------------------------------------------


def split_halves(keys: Iterable[str], seed: int = SPLIT_SEED) -> dict[str, str]:
    """Each key → ``DEV`` or ``HELD_OUT``: the sorted keys shuffled by ``seed``, the first half dev.

    The same keys give the same halves whatever their order; an odd one out goes to dev.
    """
    ordered = sorted(set(keys))
    random.Random(seed).shuffle(ordered)
    cut = (len(ordered) + 1) // 2
    return {key: DEV if i < cut else HELD_OUT for i, key in enumerate(ordered)}


def compound_key(text: str) -> str:
    return fold(" ".join(text.split()))


# --- loose keys -----------------------------------------------------------------------------


def loose(text: str, language: str, gender: bool = False) -> str:
    """``text`` with case, accents, number and a leading article aside; ``gender``: Portuguese -a as -o too."""
    key = paraphrase_key(text, language)
    if gender and is_portuguese(language):
        key = " ".join(word[:-1] + "o" if word.endswith("a") and len(word) > 2 else word for word in key.split())
    return key


def same(a: str | None, b: str | None, language: str, gender: bool = False) -> bool:
    return bool(a and b) and loose(a, language, gender) == loose(b, language, gender)


def other_words(span_text: str, kept: str, language: str) -> str | None:
    """The words of an expert's replacement other than the word kept from the compound.

    "trepidações sísmicas" less "sísmico" is "trepidações"; None when nothing is left or the
    kept word is not there (the expert changed both).
    """
    words = span_text.split()
    kept_key = loose(kept, language, gender=True)
    rest = [w for w in words if loose(w, language, gender=True) != kept_key]
    if len(rest) == len(words) or not rest:
        return None
    return " ".join(rest)


# --- what the experts wrote -----------------------------------------------------------------


@dataclass(frozen=True)
class ExpertRow:
    """One compound in one expert file: the replacements the experts chose (span texts)."""

    source: str  # "PT naturalistic", "EN neutral", "PT NCS" …
    language: str
    compound: str
    synonym: str | None = None  # NC_Syn
    modifier_synonym: str | None = None  # the new modifier alone
    head_synonym: str | None = None  # the new head alone
    both: str | None = None  # NC_WordsSyn, the whole replacement
    target: str | None = None  # the compound as it reads in the frame of the random compounds
    random_freq: tuple[str, ...] = ()  # the frequency-matched random compounds, as they read
    frame: str = NEUTRAL  # the sentence the random compounds stand in: naturalistic or neutral
    slot: int = 1  # the naturalistic sentence (1-3); neutral frames use 1
    plural: bool = False  # a neutral frame in the plural ("Estes são …")

    @property
    def frame_key(self) -> tuple[str, int, bool]:
        return (self.frame, self.slot, self.plural)

    @property
    def key(self) -> str:
        return compound_key(self.compound)


def tagged_text(text: str, raw_tags: str) -> str | None:
    """The words a ``_tag`` cell marks, or None when the cell is empty or does not fit the text."""
    if not text.strip() or not raw_tags.strip():
        return None
    try:
        tags = ast.literal_eval(raw_tags.strip())
        start, end = span_from_tags(text, [bool(t) for t in tags])
    except (ValueError, SyntaxError, TypeError, TagError):
        return None
    return text[start:end]


def neutral_span(text: str) -> str | None:
    """The compound in an untagged neutral sentence ("This is a default action" → "default action")."""
    match = _NEUTRAL_PREFIX.match(text)
    if not match:
        return None
    rest = text[match.end() :].strip().rstrip(".").strip()
    return rest or None


def _cell(row: dict, name: str) -> str | None:
    text, tags = row.get(name) or ("", "")
    return tagged_text(text, tags)


def _tagged_rows(path: Path) -> list[dict[str, tuple[str, str]]]:
    """Each row as column → (text, its tags): a tag column belongs to the column before it, whatever its
    name (NCIMP's "neutral sentence" is followed by "original sentence_tag")."""
    with path.open(encoding="utf-8", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    pairs = [
        (i, i + 1 if i + 1 < len(header) and header[i + 1].endswith("_tag") else None)
        for i, name in enumerate(header)
        if not name.endswith("_tag")
    ]
    return [
        {header[i]: (row[i], row[t] if t is not None else "") for i, t in pairs}
        for row in rows
        if len(row) == len(header)
    ]


def ncimp_rows(path: Path, source: str, language: str, slot: int | None = None) -> list[ExpertRow]:
    """The experts' replacements in an NCIMP file, one row per compound.

    ``slot``: the naturalistic sentence the file holds (1-3); None for ``neutral.csv``.
    """
    found = []
    for row in _tagged_rows(path):
        compound = " ".join(row.get("compound", ("", ""))[0].split())
        if not compound:
            continue
        modifier, head = (
            row.get("compound noun modifier", ("", ""))[0].strip(),
            row.get("compound noun head", ("", ""))[0].strip(),
        )
        if not (modifier and head):
            modifier, head = split_words(compound, language)
        modifier_span = _cell(row, "synonym modifier") or _cell(row, "modifier synonym")
        head_span = _cell(row, "synonym head") or _cell(row, "head synonym")
        randoms = [_cell(row, f"nc rand freq sentence{k}") for k in range(1, 6)]
        frames = [row.get(f"nc rand freq sentence{k}", ("", ""))[0] for k in range(1, 6)]
        plural = slot is None and any(_PLURAL_PATTERN.match(frame) for frame in frames)
        target = _cell(row, "neutral sentence plural" if plural else "neutral sentence")
        if target is None:
            target = _cell(row, "original sentence") or _cell(row, "neutral sentence")
        found.append(
            ExpertRow(
                source=source,
                language=language,
                compound=compound,
                synonym=_cell(row, "synonym for compound"),
                modifier_synonym=other_words(modifier_span, head, language) if modifier_span else None,
                head_synonym=other_words(head_span, modifier, language) if head_span else None,
                both=_cell(row, "synonym both"),
                target=target,
                random_freq=tuple(text for text in randoms if text),
                frame=NEUTRAL if slot is None else NATURALISTIC,
                slot=slot or 1,
                plural=plural,
            )
        )
    return found


def ncs_rows(folder: Path, source: str, language: str) -> list[ExpertRow]:
    """NCS neutral files: P1's compound synonym and P3's pair of synonyms, per compound."""
    by_compound: dict[str, dict] = {}
    for name, column, field_name in (
        ("P1_sents.csv", "mwe synonym", "synonym"),
        ("P3_sents.csv", "both synonyms", "both"),
    ):
        path = folder / name
        if not path.is_file():
            continue
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                compound = " ".join((row.get("compound") or "").split())
                if compound:
                    by_compound.setdefault(compound, {})[field_name] = neutral_span(row.get(column) or "")
    return [ExpertRow(source=source, language=language, compound=c, **fields) for c, fields in by_compound.items()]


def split_words(compound: str, language: str) -> tuple[str, str]:
    """(modifier, head) of a two-word compound: Portuguese puts the head first."""
    words = compound.split()
    if len(words) < 2:
        return compound, compound
    return (words[-1], words[0]) if is_portuguese(language) else (words[0], words[-1])


# --- what the generator made ----------------------------------------------------------------


@dataclass(frozen=True)
class Generated:
    """A compound's generated replacements, best first."""

    language: str
    compound: str
    gold_synonym: str = ""
    modifier_top: tuple[str, ...] = ()  # the modifier synonyms of the SYNONYM_MODIFIER variants
    head_top: tuple[str, ...] = ()
    modifier_ranked: tuple[str, ...] = ()  # every modifier synonym the generator would rank
    head_ranked: tuple[str, ...] = ()
    pairs: tuple[str, ...] = ()  # the NC_WordsSyn replacements
    # (frame, slot, plural) → (target as it reads, the frequency-matched random compounds as they read)
    random_freq: dict[tuple[str, int, bool], tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    candidates: tuple[str, ...] = ()  # every replacement text proposed, of every kind

    @property
    def key(self) -> str:
        return compound_key(self.compound)


# --- the measures ---------------------------------------------------------------------------


def syn_agrees(row: ExpertRow, generated: Generated) -> bool | None:
    """NC_Syn equals the experts' (case, accents, number, articles aside); None without an expert synonym."""
    if not row.synonym:
        return None
    return same(row.synonym, generated.gold_synonym, row.language)


def word_found(expert_word: str | None, options: Sequence[str], language: str) -> bool | None:
    """The expert's word among ``options`` (gender aside); None without an expert word."""
    if not expert_word:
        return None
    return any(same(expert_word, option, language, gender=True) for option in options)


def pair_found(row: ExpertRow, generated: Generated) -> bool | None:
    """The experts' WordsSyn replacement among the generated pairs (gender and order of the words aside)."""
    if not row.both:
        return None
    expert = sorted(loose(row.both, row.language, gender=True).split())
    return any(sorted(loose(pair, row.language, gender=True).split()) == expert for pair in generated.pairs)


def f_avg(text: str, language: str, frequency: Frequency) -> float:
    """(f_NC + f_modifier + f_head) / 3 per million, for a compound as it reads."""
    modifier, head = split_words(text, language)
    return (frequency(text, language) + frequency(modifier, language) + frequency(head, language)) / 3


def zipf_gaps(target: str, candidates: Iterable[str], language: str, frequency: Frequency) -> list[float]:
    """|zipf(f_avg(candidate)) − zipf(f_avg(target))| for each candidate."""
    goal = zipf(f_avg(target, language, frequency))
    return [abs(zipf(f_avg(c, language, frequency)) - goal) for c in candidates]


def random_gaps(row: ExpertRow, generated: Generated, frequency: Frequency) -> tuple[list[float], list[float]]:
    """(generated gaps, experts' gaps) of the frequency-matched random compounds in the row's frame."""
    if not row.target or not row.random_freq:
        return [], []
    expert = zipf_gaps(row.target, row.random_freq, row.language, frequency)
    made = generated.random_freq.get(row.frame_key)
    if made is None:
        return [], expert
    return zipf_gaps(made[0], made[1], row.language, frequency), expert


def new_words(text: str, compound: str) -> str:
    """The words of a replacement that are not the compound's own ("sex dud" for "sex bomb": "dud")."""
    own = {fold(word) for word in re.split(r"[\s-]+", compound) if word}
    return " ".join(word for word in re.split(r"[\s-]+", text) if word and fold(word) not in own)


def offensive_count(generated: Iterable[Generated], blocks: Callable[[str, str], bool]) -> int:
    """How many proposed replacements bring a word ``blocks(text, language)`` says is offensive.

    A word kept from the compound ("sex" in "sex dud" for "sex bomb") is the dataset's, not a proposal.
    """
    return sum(
        1
        for g in generated
        for text in g.candidates
        if (new := new_words(text, g.compound)) and blocks(new, g.language)
    )


@dataclass
class Tally:
    """Counts of one measure: how often it held out of how many rows it applies to."""

    hits: int = 0
    rows: int = 0

    def add(self, value: bool | None) -> None:
        if value is not None:
            self.rows += 1
            self.hits += bool(value)

    @property
    def share(self) -> float | None:
        return self.hits / self.rows if self.rows else None


MEASURES = [
    ("syn", "NC_Syn equals the experts' (loose)"),
    ("modifier_top", "experts' modifier synonym among the 5"),
    ("modifier_any", "experts' modifier synonym anywhere in the ranked list"),
    ("head_top", "experts' head synonym among the 5"),
    ("head_any", "experts' head synonym anywhere in the ranked list"),
    ("pair", "NC_WordsSyn: experts' pair among the 5 (gender aside)"),
]


def compare(
    rows: Iterable[ExpertRow], generated: dict[str, Generated], frequency: Frequency
) -> dict[str, dict[str, float | int | None]]:
    """Per expert source: each measure's share and count, and NC_Rand's median zipf gaps (generated, experts')."""
    tallies: dict[str, dict[str, Tally]] = {}
    gaps: dict[str, tuple[list[float], list[float]]] = {}
    compounds: dict[str, set[str]] = {}
    for row in rows:
        made = generated.get(row.key)
        if made is None:
            continue
        tally = tallies.setdefault(row.source, {name: Tally() for name, _ in MEASURES})
        compounds.setdefault(row.source, set()).add(row.key)
        tally["syn"].add(syn_agrees(row, made))
        tally["modifier_top"].add(word_found(row.modifier_synonym, made.modifier_top, row.language))
        tally["modifier_any"].add(word_found(row.modifier_synonym, made.modifier_ranked, row.language))
        tally["head_top"].add(word_found(row.head_synonym, made.head_top, row.language))
        tally["head_any"].add(word_found(row.head_synonym, made.head_ranked, row.language))
        tally["pair"].add(pair_found(row, made))
        ours, theirs = random_gaps(row, made, frequency)
        gaps.setdefault(row.source, ([], []))
        gaps[row.source][0].extend(ours)
        gaps[row.source][1].extend(theirs)
    out: dict[str, dict[str, float | int | None]] = {}
    for source, tally in tallies.items():
        figures: dict[str, float | int | None] = {"compounds": len(compounds[source])}
        for name, t in tally.items():
            figures[name] = None if t.share is None else round(t.share, 4)
            figures[f"{name}_n"] = t.rows
        ours, theirs = gaps[source]
        figures["rand_gap"] = round(statistics.median(ours), 3) if ours else None
        figures["rand_gap_experts"] = round(statistics.median(theirs), 3) if theirs else None
        out[source] = figures
    return out
