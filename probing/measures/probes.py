"""Minimal pairs of a release, as the texts a model embeds (pure: no Django import).

He et al. (2024, section 3.3.1) probe a compound (NC) in a sentence by replacing it:

- ``syn``: its gold synonym (P_Syn, variant kind ``synonym_nc``);
- ``head`` / ``modifier``: one of its words alone (P_Comp takes, per sentence, the more similar one);
- ``words_syn``: synonyms of both words (P_WordsSyn, ``synonym_both``, several ranks);
- ``rand``: frequency-matched random compounds (P_Rand, ``random_freq``, five ranks).

A ``Pair`` is the sentence with its compound and the same sentence with the replacement, each
with the character span of the compound or of its replacement, so that one forward pass gives
both the sentence vector and the span vector (the "sentence" and "nc" levels).

A ``ContextPair`` compares the compound inside a sentence with vectors computed out of context
(Garcia et al. 2021, EACL probe P4; Garcia et al. 2021, ACL section 4.2):

- ``nc_out`` (= EACL P4 sim_in-out): the compound's span vector in the sentence vs the vector of
  the compound fed alone (the isolated ``original`` variant);
- ``nc_out_comp``: the compound's span vector in the sentence vs the composition of its head fed
  alone and its modifier fed alone (the isolated ``head_only`` and ``modifier_only`` variants).
  The ACL paper sums the two vectors; we take their mean, which has the same cosine and keeps the
  rogue-dimension standardisation linear (z(mean) = mean of z).

Out-of-context texts are the release's isolated variants: the sentence's own one first (NCIMP
gives each naturalistic sentence the compound in the form it takes there), else the compound's
from a singular sentence (the neutral one carries them), else one synthesised from the compound's
own text, which the pair says.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from datasets import vocabulary
from probing.embedding.base import TextSpan
from probing.vocabulary import NATURALISTIC, NATURALISTIC_SLOTS, NEUTRAL, PROBE_KINDS
from releases.snapshot import ReleaseCompound, ReleaseSentence, ReleaseVariant, Snapshot


@dataclass(frozen=True)
class Pair:
    """A sentence with its compound and the same sentence with one probe's replacement."""

    language: str
    compound: str
    condition: str  # "naturalistic" | "neutral"
    sentence_id: str  # "naturalistic-1", "neutral_short-1" …
    probe: str  # "syn" | "head" | "modifier" | "words_syn" | "rand"
    rank: int
    original: TextSpan
    variant: TextSpan
    length: int = 0  # words of the original sentence (ReleaseSentence.words)


@dataclass(frozen=True)
class ContextPair:
    """The compound in a sentence vs the same compound (or its words) fed to the model alone."""

    language: str
    compound: str
    condition: str
    sentence_id: str
    probe: str  # "nc_out" | "nc_out_comp"
    in_context: TextSpan  # the sentence, span on the compound
    out_of_context: tuple[TextSpan, ...]  # nc_out: (compound,); nc_out_comp: (head, modifier)
    synthesised: tuple[str, ...] = ()  # which of "original", "head", "modifier" the release lacked
    token_score: float | None = None  # the sentence's human compositionality (token level)


def pairs_from_snapshot(
    snapshot: Snapshot,
    languages: Iterable[str] | None = None,
    compounds: Iterable[str] | None = None,
    neutral_pattern: str | None = vocabulary.NEUTRAL_SHORT,
) -> list[Pair]:
    """Every minimal pair of the naturalistic sentences (slots 1-3) and the neutral singular one.

    ``neutral_pattern`` picks the neutral sentences (``neutral_short`` as in the papers,
    ``neutral_long``, or None for none). Isolated variants are never pairs. The order is the
    snapshot's canonical one, then probe order (syn, head, modifier, words_syn, rand), then rank.
    """
    pairs: list[Pair] = []
    for compound, sentence, condition in _sentences(snapshot, languages, compounds, neutral_pattern):
        original = text_span(sentence.text, sentence.span)
        for variant in _probe_variants(sentence):
            pairs.append(
                Pair(
                    language=compound.language,
                    compound=compound.text,
                    condition=condition,
                    sentence_id=sentence_id(sentence),
                    probe=PROBE_KINDS[variant.kind],
                    rank=variant.rank,
                    original=original,
                    variant=text_span(variant.text, variant.span),
                    length=sentence.words,
                )
            )
    return pairs


def context_pairs(
    snapshot: Snapshot,
    languages: Iterable[str] | None = None,
    compounds: Iterable[str] | None = None,
    neutral_pattern: str | None = vocabulary.NEUTRAL_SHORT,
) -> list[ContextPair]:
    """An ``nc_out`` and an ``nc_out_comp`` pair for every sentence whose compound span is known.

    Same sentences as ``pairs_from_snapshot``. A sentence without a span has no compound vector
    to compare and is left out; a compound without head or modifier text gets no ``nc_out_comp``.
    """
    out: list[ContextPair] = []
    for compound, sentence, condition in _sentences(snapshot, languages, compounds, neutral_pattern):
        if text_span(sentence.text, sentence.span).span is None:
            continue
        isolated = _isolated(compound, sentence)
        nc, nc_made = _alone(isolated, vocabulary.ORIGINAL, compound.text)
        common = {
            "language": compound.language,
            "compound": compound.text,
            "condition": condition,
            "sentence_id": sentence_id(sentence),
            "in_context": text_span(sentence.text, sentence.span),
            "token_score": sentence.token_score,
        }
        if nc is not None:
            out.append(ContextPair(probe="nc_out", out_of_context=(nc,), synthesised=nc_made, **common))
        head, head_made = _alone(isolated, vocabulary.HEAD_ONLY, compound.head)
        modifier, modifier_made = _alone(isolated, vocabulary.MODIFIER_ONLY, compound.modifier)
        if head is not None and modifier is not None:
            out.append(
                ContextPair(
                    probe="nc_out_comp",
                    out_of_context=(head, modifier),
                    synthesised=head_made + modifier_made,
                    **common,
                )
            )
    return out


def unique_items(pairs: Iterable[Pair]) -> list[TextSpan]:
    """The distinct texts (with spans) to embed, in first-seen order."""
    return list(dict.fromkeys(item for p in pairs for item in (p.original, p.variant)))


def context_items(pairs: Iterable[ContextPair]) -> list[TextSpan]:
    """The distinct texts (with spans) the context pairs need, in first-seen order."""
    return list(dict.fromkeys(item for p in pairs for item in (p.in_context, *p.out_of_context)))


def text_span(text: str, span: tuple[int, int] | None) -> TextSpan:
    """The text with its span; a span that does not fit the text is dropped (no "nc" level for it)."""
    try:
        return TextSpan(text, span)
    except ValueError:
        return TextSpan(text, None)


def sentence_id(sentence: ReleaseSentence) -> str:
    return f"{sentence.kind}-{sentence.slot}"


def _sentences(snapshot: Snapshot, languages, compounds, neutral_pattern):
    """(compound, sentence, condition) of the selected compounds, in canonical order."""
    wanted_languages = set(languages) if languages is not None else None
    wanted = {vocabulary.compound_key(c) for c in compounds} if compounds is not None else None
    for compound in snapshot.sorted().compounds:
        if wanted_languages is not None and compound.language not in wanted_languages:
            continue
        if wanted is not None and vocabulary.compound_key(compound.text) not in wanted:
            continue
        for sentence in compound.sentences:
            if sentence.kind == vocabulary.NATURALISTIC and sentence.slot in NATURALISTIC_SLOTS:
                yield compound, sentence, NATURALISTIC
            elif (
                neutral_pattern
                and sentence.kind == neutral_pattern
                and sentence.slot == vocabulary.NEUTRAL_SINGULAR_SLOT
            ):
                yield compound, sentence, NEUTRAL


def _probe_variants(sentence: ReleaseSentence) -> list[ReleaseVariant]:
    order = {kind: i for i, kind in enumerate(PROBE_KINDS)}
    chosen = [
        x
        for x in sentence.variants
        if x.kind in PROBE_KINDS and not x.isolated and x.text.strip() and x.status != vocabulary.REJECTED
    ]
    return sorted(chosen, key=lambda x: (order[x.kind], x.rank))


def _isolated(compound: ReleaseCompound, sentence: ReleaseSentence) -> dict[str, ReleaseVariant]:
    """The out-of-context variant of each kind: the sentence's own, else a singular neutral one, lowest rank."""
    candidates = sorted(
        (
            (s is not sentence, s.plural, s.kind == vocabulary.NATURALISTIC, x.rank, s.kind, s.slot, x)
            for s in compound.sentences
            for x in s.variants
            if x.isolated and x.text.strip() and x.status != vocabulary.REJECTED
        ),
        key=lambda t: t[:6],
    )
    found: dict[str, ReleaseVariant] = {}
    for *_, x in candidates:
        found.setdefault(x.kind, x)
    return found


def _alone(isolated: dict[str, ReleaseVariant], kind: str, fallback: str) -> tuple[TextSpan | None, tuple[str, ...]]:
    """The isolated variant of ``kind``, or one made from ``fallback`` (None when that is empty too)."""
    x = isolated.get(kind)
    if x is not None:
        return text_span(x.text, x.span or (0, len(x.text))), ()
    text = " ".join(fallback.split())
    if not text:
        return None, ()
    name = {vocabulary.ORIGINAL: "original", vocabulary.HEAD_ONLY: "head", vocabulary.MODIFIER_ONLY: "modifier"}[kind]
    return TextSpan(text, (0, len(text))), (name,)
