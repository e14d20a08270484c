"""Synonyms a model proposed for compounds: recorded as candidates (``record_proposals``) and read by the generator.

A model's answer for one compound (asked by ``annotators.proposing``) arrives as a ``ModelAnswer``;
``record_proposals`` keeps its outcome as a ``SynonymRequest`` and each word it may keep as a
``ProposedSynonym`` (source "model", status "proposed": never approved here). A word is left out,
with the reason kept in ``SynonymRequest.filtered``, when it is on the language's offensive list
(``building.rules.synonyms.offensive``, as every candidate), when it is the word it replaces, or
when a head or modifier synonym is more than one word. Words a curator approved or rejected survive
a new answer; the proposals still pending are replaced by it. ``proposals_for`` is what the
generator reads: a compound's proposed words by side, best first, rejected ones left out;
``nc_proposals_for`` the compound-level ones with the model and template that proposed each (NC_Syn
candidates after the gold synonym: ``building.rules.synonyms.nc_syn``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from building.models import ProposedSynonym, SynonymRequest
from building.rules.synonyms.nc_syn import ModelNcProposal
from building.rules.synonyms.offensive import word_list
from datasets.models import Compound

SIDES = tuple(ProposedSynonym.Side.values)


@dataclass(frozen=True)
class ModelAnswer:
    """One model's answer about one compound: who answered, with which template, and the words by side."""

    model_name: str
    model_identity: dict
    template_name: str
    template_version: int
    template_text: str
    settings: dict
    valid: bool
    words: dict[str, list[str]] = field(default_factory=dict)
    error: str = ""
    raw_text: str = ""
    attempts: int = 0
    response_key: str = ""


def _words_of(compound: Compound) -> dict[str, str]:
    words = compound.text.split()
    return {
        "nc": compound.text,
        "head": compound.head or (words[-1] if words else compound.text),
        "modifier": compound.modifier or (" ".join(words[:-1]) or compound.text),
    }


def kept_words(compound: Compound, words: dict[str, list[str]]) -> tuple[dict[str, list[str]], list[dict]]:
    """The proposals a compound may take, by side, and those left out with the reason."""
    offensive = word_list(compound.language)
    replaced = _words_of(compound)
    kept: dict[str, list[str]] = {side: [] for side in SIDES}
    left_out: list[dict] = []
    for side in SIDES:
        for word in words.get(side, []):
            reason = ""
            if offensive.blocks(word):
                reason = "offensive"
            elif word.casefold() == replaced[side].casefold():
                reason = "the word it replaces"
            elif side != "nc" and len(word.split()) > 1:
                reason = "not one word"
            elif word.casefold() in {k.casefold() for k in kept[side]}:
                reason = "repeated"
            if reason:
                left_out.append({"side": side, "word": word, "reason": reason})
            else:
                kept[side].append(word)
    return kept, left_out


def record_proposals(compound: Compound, answer: ModelAnswer, user=None) -> SynonymRequest:
    """Keep ``answer`` for ``compound``: its outcome, and its words as proposals a curator has not decided yet."""
    kept, left_out = kept_words(compound, answer.words if answer.valid else {})
    with transaction.atomic():
        request, _ = SynonymRequest.objects.update_or_create(
            compound=compound,
            model_name=answer.model_name,
            template_name=answer.template_name,
            template_version=answer.template_version,
            defaults={
                "model_identity": answer.model_identity,
                "template_text": answer.template_text,
                "request_settings": answer.settings,
                "valid": answer.valid,
                "error": answer.error[:300],
                "raw_text": answer.raw_text[:20000],
                "attempts": answer.attempts,
                "response_key": answer.response_key,
                "filtered": left_out,
                "requested_by": user if getattr(user, "is_authenticated", False) else None,
            },
        )
        request.proposals.filter(status=ProposedSynonym.Status.PROPOSED).delete()
        ProposedSynonym.objects.bulk_create(
            [
                ProposedSynonym(request=request, compound=compound, side=side, word=word, rank=rank)
                for side in SIDES
                for rank, word in enumerate(kept[side], 1)
            ],
            ignore_conflicts=True,  # a word a curator already decided on keeps its row and decision
        )
    return request


def proposals_for(compound_id: int) -> dict[str, list[str]]:
    """The words models proposed for the compound, by side ("nc", "head", "modifier"), best first; never rejected
    ones. Several models' proposals are merged by rank, the first model asked first among equals."""
    found: dict[str, list[str]] = {side: [] for side in SIDES}
    rows = (
        ProposedSynonym.objects.filter(compound_id=compound_id)
        .exclude(status=ProposedSynonym.Status.REJECTED)
        .order_by("side", "rank", "request_id", "pk")
        .values_list("side", "word")
    )
    for side, word in rows:
        if word.casefold() not in {w.casefold() for w in found[side]}:
            found[side].append(word)
    return found


def nc_proposals_for(compound_id: int) -> list[ModelNcProposal]:
    """The models' synonyms of the whole compound, merged by rank as ``proposals_for`` merges them, each with the
    model and template that proposed it; never rejected ones. A word several models proposed is listed once per
    model: the NC_Syn candidates record every model that supports one."""
    rows = (
        ProposedSynonym.objects.filter(compound_id=compound_id, side=ProposedSynonym.Side.NC)
        .exclude(status=ProposedSynonym.Status.REJECTED)
        .order_by("rank", "request_id", "pk")
        .values_list("word", "request__model_name", "request__template_name", "request__template_version", "rank")
    )
    return [ModelNcProposal(*row) for row in rows]
