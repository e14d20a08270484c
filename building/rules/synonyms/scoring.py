"""How a candidate single-word synonym of a compound's head or modifier is scored (pure: no Django import).

Every candidate for one side of one compound gets the same few features, each normalised to [0, 1],
and its score is their weighted sum. The weights are not set by hand: ``benchmarks/tune_ranking.py``
chooses them on the development half of the compounds (``expert_comparison.SPLIT_SEED``) by a seeded
coordinate ascent and records them, with the seed, the search space and the figures, in
``ranking_weights.json`` beside this module, the one place they are defined. No feature, weight or
rule names a compound or a word: a candidate is judged by its evidence only.

The features, and why each can tell a good replacement:

- ``sense``: the lexicon's sense rank, 1 for the word's most common sense falling linearly to 0 at
  rank ``SENSE_SPAN`` (He et al. 2024 rank WordNet synonyms by sense first); 0 for a word the
  lexicon did not give. Linear, so that a pair's sum orders pairs as the sum of their ranks does.
- ``frequency``: log10 of the word's frequency per million, mapped from [10⁻⁴, 10⁴] onto [0, 1]:
  a common word reads naturally in the sentence; a rare one is often an archaic or technical sense.
- ``context_fit``: how close the sentence stays to the original with the word in place
  (``context_fit``), min-max normalised over the side's scored candidates; 0 when not scored or when
  no context model is on.
- ``crowd``: how many of the crowd's paraphrases of the compound contain the word (n / (n + 1)):
  the annotators who explained the compound chose words a reader accepts for it.
- ``morphology``: Portuguese gender and number (hunspell-pt-pt): 1 when the dictionary knows the word
  in the replaced word's gender and number (the sentence's articles and adjectives still agree),
  0 when it knows it only in others, 0.5 when it does not know it (and for English).
- ``from_crowd`` and ``from_model``: 1 for a candidate the crowd's paraphrases or a model proposed
  and the lexicon did not give (``source``), so that each source's reliability is weighed by itself.
  Any other source gets no such term: a new source scores by its evidence alone until a weight for
  it is tuned.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from building.lexicon.portuguese_morphology import ADJECTIVES, BOTH, NOUNS

LEXICON, CROWD, MODEL = "lexicon", "crowd", "model"
SOURCES = (LEXICON, CROWD, MODEL)
FEATURES = ("sense", "frequency", "context_fit", "crowd", "morphology", "from_crowd", "from_model")
SOURCE_FEATURE = {CROWD: "from_crowd", MODEL: "from_model"}
SENSE_SPAN = 20
FREQUENCY_RANGE = (-4.0, 4.0)  # log10 per million
WEIGHTS_FILE = Path(__file__).with_name("ranking_weights.json")

Weights = Mapping[str, float]


@dataclass(frozen=True)
class Proposal:
    """A candidate word for one side that did not come from the lexicon, and where it came from."""

    side: str  # "modifier" or "head"
    word: str
    source: str  # CROWD, MODEL, or any other name


@dataclass(frozen=True)
class Evidence:
    """What the generator knows about one candidate word for one side of a compound."""

    word: str
    source: str = LEXICON
    sense_rank: int = 0  # the lexicon's (1: most common sense); 0 when the lexicon did not give it
    frequency: float = 0.0  # per million
    context_fit: float | None = None  # mean similarity in the compound's sentences; None: not scored
    crowd: int = 0  # the crowd's paraphrases of the compound that contain the word
    morphology: float | None = None  # 1 same gender and number as the replaced word, 0 other, None unknown


@dataclass(frozen=True)
class Score:
    """A candidate's features, each feature's contribution (weight × feature) and their total."""

    evidence: Evidence
    features: dict[str, float] = field(default_factory=dict)
    parts: dict[str, float] = field(default_factory=dict)
    total: float = 0.0

    def as_dict(self) -> dict:
        """What a variant's details keep: the source, the non-zero parts and the total (rounded)."""
        parts = {name: round(value, 4) for name, value in self.parts.items() if value}
        return {"source": self.evidence.source, "parts": parts, "total": round(self.total, 4)}


def sense_feature(rank: int) -> float:
    return max(0.0, 1.0 - (rank - 1) / SENSE_SPAN) if rank >= 1 else 0.0


def frequency_feature(per_million: float) -> float:
    low, high = FREQUENCY_RANGE
    value = math.log10(max(per_million, 10**low))
    return min(1.0, max(0.0, (value - low) / (high - low)))


def features(evidence: Evidence, fit_range: tuple[float, float] | None = None) -> dict[str, float]:
    """The candidate's normalised features; ``fit_range``: (min, max) context fit over its side's candidates."""
    fit = 0.0
    if evidence.context_fit is not None and fit_range is not None:
        low, high = fit_range
        fit = 1.0 if high <= low else (evidence.context_fit - low) / (high - low)
    found = {
        "sense": sense_feature(evidence.sense_rank),
        "frequency": frequency_feature(evidence.frequency),
        "context_fit": fit,
        "crowd": evidence.crowd / (evidence.crowd + 1),
        "morphology": 0.5 if evidence.morphology is None else evidence.morphology,
        "from_crowd": 0.0,
        "from_model": 0.0,
    }
    if evidence.source in SOURCE_FEATURE:
        found[SOURCE_FEATURE[evidence.source]] = 1.0
    return found


def score_all(candidates: Sequence[Evidence], weights: Weights | None = None) -> list[Score]:
    """Every candidate of one side scored, in the given order (context fit normalised over them)."""
    weights = recorded_weights() if weights is None else weights
    fits = [c.context_fit for c in candidates if c.context_fit is not None]
    fit_range = (min(fits), max(fits)) if fits else None
    out = []
    for candidate in candidates:
        values = features(candidate, fit_range)
        parts = {name: weights.get(name, 0.0) * value for name, value in values.items()}
        out.append(Score(candidate, values, parts, sum(parts.values())))
    return out


def ranked(candidates: Sequence[Evidence], weights: Weights | None = None) -> list[Score]:
    """Best total first; a tie keeps the given order (the lexicon's, then the crowd's, then a model's)."""
    scored = score_all(candidates, weights)
    order = sorted(range(len(scored)), key=lambda i: (-round(scored[i].total, 9), i))
    return [scored[i] for i in order]


def morphology_fit(morphology, original: str, candidate: str, side: str) -> float | None:
    """1 when ``morphology`` (``PortugueseMorphology``; None: not known) reads ``candidate`` in ``original``'s
    gender and number, as a noun for the head or an adjective for the modifier; 0 when it reads it only
    otherwise; None when it does not know either word."""
    if morphology is None:
        return None
    categories = NOUNS if side == "head" else ADJECTIVES | NOUNS
    wanted = morphology.analyse(original, categories)
    found = morphology.analyse(candidate, categories)
    if not wanted or not found:
        return None

    def agrees(a, b) -> bool:
        return BOTH in (a.gender, b.gender) or a.gender == b.gender

    same_number = lambda a, b: BOTH in (a.number, b.number) or a.number == b.number  # noqa: E731
    return float(any(agrees(a, b) and same_number(a, b) for a in wanted for b in found))


@lru_cache(maxsize=4)
def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def recorded(path: Path = WEIGHTS_FILE) -> dict:
    """The tuning's record: the weights, the seed, the search space and the figures."""
    return _read(path)


def recorded_weights(path: Path = WEIGHTS_FILE) -> dict[str, float]:
    """The tuned weights (``benchmarks/tune_ranking.py``), read once per process."""
    weights = _read(path)["weights"]
    unknown = set(weights) - set(FEATURES)
    if unknown:
        raise ValueError(f"{path}: unknown features {sorted(unknown)}; known: {', '.join(FEATURES)}")
    return dict(weights)
