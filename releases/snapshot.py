"""What a release holds, as plain frozen data (pure: no Django import).

A ``Snapshot`` is collected from the database (``releases.collect``), written to
files (``releases.formats``) and read back from them (``read_release``); the same
snapshot always gives the same bytes. Everything is sorted in one canonical order, so two
snapshots of the same data compare equal and two releases can be diffed row by row.

Scores are those the release was built with (the reference scores stored on the
compounds, or a campaign's aggregates under a filtering policy); ``ScoreInfo`` says which.
A curator may ask for the campaigns' machine-made ratings too (``MachineRating``): they travel
beside the scores, in a table of their own, and never enter them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields

from datasets import vocabulary

Span = tuple[int, int]


@dataclass(frozen=True)
class ReleaseVariant:
    """A minimal-pair partner of a sentence (``datasets.vocabulary`` kinds)."""

    kind: str
    rank: int
    isolated: bool
    text: str
    span: Span | None
    status: str  # approved, edited, or generated for imported rows

    @property
    def key(self) -> tuple:
        return (self.kind, self.rank, self.isolated)

    @property
    def replacement(self) -> str:
        return self.text[self.span[0] : self.span[1]] if self.span else ""


@dataclass(frozen=True)
class ReleaseSentence:
    """A naturalistic sentence (slot 1-3) or a neutral one (short/long, slot 1 singular, 2 plural)."""

    kind: str
    slot: int
    text: str
    span: Span | None
    plural: bool
    token_score: float | None
    variants: tuple[ReleaseVariant, ...] = ()
    length: int | None = None  # words, as a published scores table counts them; None: count the text

    @property
    def key(self) -> tuple:
        return (self.kind, self.slot)

    @property
    def surface(self) -> str:
        return self.text[self.span[0] : self.span[1]] if self.span else ""

    @property
    def words(self) -> int:
        """The sentence's length in words: the published one when stored, else ``word_count`` of its text."""
        return self.length if self.length is not None else word_count(self.text)


def word_count(text: str) -> int:
    """Words of a sentence: whitespace tokens with a letter or digit (punctuation tokens are not counted).

    The public NCIMP lengths agree with this on 417 of the 540 Portuguese sentences, and with a plain
    whitespace count on only 46. No rule we tried gets them all, so imported lengths are stored
    (``Sentence.length``) and ``ReleaseSentence.words`` prefers them.
    """
    return sum(1 for token in text.split() if re.search(r"\w", token))


@dataclass(frozen=True)
class ReleaseParaphrase:
    level: str  # type or token
    slot: int | None  # token level: the naturalistic sentence's slot
    text: str
    frequency: int


@dataclass(frozen=True)
class ReleaseCompound:
    language: str
    text: str
    modifier: str
    head: str
    compositionality_class: str | None  # datasets.vocabulary class names
    type_score: float | None  # compound compositionality at type level (0-5)
    token_score: float | None  # mean over its sentences
    head_score: float | None  # literality of the head (0-5), when rated
    modifier_score: float | None  # literality of the modifier (0-5), when rated
    gold_synonym: str
    frequency: float | None  # per million
    modifier_frequency: float | None
    head_frequency: float | None
    frequency_source: str
    pmi: float | None
    ppmi: float | None
    sentences: tuple[ReleaseSentence, ...] = ()
    paraphrases: tuple[ReleaseParaphrase, ...] = ()
    synonym_overlap: int | None = None  # a published value; None: datasets.overlap's rule on gold_synonym

    @property
    def key(self) -> tuple:
        return (self.language, " ".join(self.text.casefold().split()))


# A compound's own values (no identity, no children), in declaration order.
COMPOUND_DATA_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(ReleaseCompound) if f.name not in ("language", "text", "sentences", "paraphrases")
)


@dataclass(frozen=True)
class Agreement:
    """Krippendorff's alpha of one question in one language, with its bootstrap interval."""

    language: str
    question: str
    level: str  # interval, ordinal …
    alpha: float | None
    low: float | None
    high: float | None
    n_items: int
    n_ratings: int
    source: str  # e.g. "campaign demo-token"


@dataclass(frozen=True)
class CampaignSource:
    """One campaign's part in a release's scores: whose ratings count, who was left out and why."""

    slug: str
    level: str  # token or type
    people: int  # people whose ratings count
    simulated: int  # simulated annotators (demo data) whose ratings count
    ratings: int  # ratings that count (of the whole-compound question)
    excluded: tuple[tuple[str, str], ...] = ()  # (pseudonym, why), as the filtering policy said
    # How the ratings were collected (the card's and Croissant's responsible-AI facts; empty in older releases):
    platforms: tuple[str, ...] = ()  # where the people whose ratings count came from (prolific, mturk, local)
    pay_per_rating: str = ""  # what one rating cost, in the study's currency, when the campaign says
    consent: bool = False  # every person whose ratings count agreed to the campaign's consent text
    allocation: str = ""  # fixed (ratings_per_item each) or adaptive (until an item's interval is narrow)
    ratings_per_item: int = 0

    @property
    def contributed(self) -> bool:
        return self.people + self.simulated > 0 and self.ratings > 0


@dataclass(frozen=True)
class LanguageSource:
    """Where one language's scores come from: the datasets its reference scores came with, and its campaigns."""

    language: str
    imported: tuple[str, ...] = ()  # datasets (``datasets.vocabulary.IMPORTED_FROM``) of its reference scores
    campaigns: tuple[CampaignSource, ...] = ()


@dataclass(frozen=True)
class ScoreInfo:
    """Where the scores come from: which campaign(s), which filtering policy, which aggregation, per language."""

    source: str  # "reference" (stored on the compounds) or "campaign"
    campaigns: tuple[str, ...] = ()
    policy: dict = field(default_factory=dict, hash=False, compare=False)  # name + parameters
    aggregation: str = "mean"
    languages: tuple[LanguageSource, ...] = ()

    @property
    def simulated(self) -> bool:
        """Whether ratings of simulated annotators (demo data, not people) count in the scores."""
        return any(c.simulated and c.contributed for language in self.languages for c in language.campaigns)


@dataclass(frozen=True)
class MachineRating:
    """One answer of a machine annotator (a language model asked a campaign's questions), valid or not.

    Machine-made: it never counts in a release's scores or agreement, which average annotators' ratings alone.
    """

    language: str
    compound: str
    campaign: str
    level: str  # token or type
    sentence: tuple[str, int] | None  # (kind, slot) of the rated sentence at token level; None at type level
    annotator: str  # the machine annotator's label: model · template · sample
    model: str
    model_kind: str
    model_identity: dict = field(hash=False)  # kind, name, revision or weights_sha256 … (no address, no key)
    template: str = ""
    template_version: int = 0
    settings: dict = field(default_factory=dict, hash=False)  # temperature, seed, max_tokens …
    sample: int = 1
    valid: bool = True
    error: str = ""  # why an invalid answer is invalid
    head_score: int | None = None  # 0-5; None when invalid
    modifier_score: int | None = None
    compound_score: int | None = None
    expected: tuple[float | None, float | None, float | None] = (None, None, None)  # head, modifier, compound
    paraphrases: tuple[str, ...] = ()

    @property
    def key(self) -> tuple:
        identity = (self.model, _canonical(self.model_identity), self.template, self.template_version)
        where = (self.language, " ".join(self.compound.casefold().split()), self.campaign, self.sentence or ("", 0))
        answer = (self.valid, self.error, self.head_score, self.modifier_score, self.compound_score)
        # The answer itself breaks a tie only between two annotators nothing else tells apart.
        return (
            *where,
            *identity,
            _canonical(self.settings),
            self.sample,
            self.annotator,
            repr(answer),
            self.paraphrases,
        )


def _canonical(value: dict) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Snapshot:
    languages: tuple[str, ...]
    compounds: tuple[ReleaseCompound, ...]
    scores: ScoreInfo
    agreement: tuple[Agreement, ...] = ()
    # None: the release does not carry machine-made ratings (the default); a tuple, maybe empty: it does.
    machine_ratings: tuple[MachineRating, ...] | None = None

    def sorted(self) -> Snapshot:
        """The canonical order: compounds by (language, key), sentences by (kind, slot), variants by key."""
        compounds = tuple(
            sorted(
                (
                    _replace(
                        c,
                        sentences=tuple(
                            sorted(
                                (
                                    _replace(s, variants=tuple(sorted(s.variants, key=lambda x: x.key)))
                                    for s in c.sentences
                                ),
                                key=lambda s: s.key,
                            )
                        ),
                        paraphrases=tuple(
                            sorted(c.paraphrases, key=lambda p: (p.level, p.slot or 0, -p.frequency, p.text))
                        ),
                    )
                    for c in self.compounds
                ),
                key=lambda c: c.key,
            )
        )
        agreement = tuple(sorted(self.agreement, key=lambda a: (a.language, a.question, a.source)))
        machine = None if self.machine_ratings is None else tuple(sorted(self.machine_ratings, key=lambda m: m.key))
        return Snapshot(tuple(sorted(self.languages)), compounds, self.scores, agreement, machine)

    def counts(self) -> dict:
        """Per language: compounds, by class, sentences, and variants by probe kind."""
        out: dict[str, dict] = {}
        for c in self.compounds:
            lang = out.setdefault(c.language, {"compounds": 0, "classes": {}, "sentences": 0, "variants": {}})
            lang["compounds"] += 1
            cls = c.compositionality_class or vocabulary.UNCLASSIFIED
            lang["classes"][cls] = lang["classes"].get(cls, 0) + 1
            for s in c.sentences:
                lang["sentences"] += 1
                for x in s.variants:
                    lang["variants"][x.kind] = lang["variants"].get(x.kind, 0) + 1
        return out


def _replace(obj, **changes):
    from dataclasses import replace

    return replace(obj, **changes)
