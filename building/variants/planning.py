"""Which variants a compound gets, planned from its words, the lexicon's synonyms and the NC_Rand pool.

``synonym_query`` gathers what every synonym variant is built from: the lexicon's synonyms, the
words in the crowd's paraphrases (``crowd``) and any other source's proposals, with the evidence the
ranking weighs (``building.rules.synonyms.scoring``), scored in the compound's own sentences when a
sentence model is loaded; ``nc_syn`` the NC_Syn candidates, the gold synonym first and then the
models' synonyms of the whole compound (``building.rules.synonyms.nc_syn``); ``plan_compound`` asks
the pure rules (``building.rules``) for every kind and slot. ``generation`` writes what the plan says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from building.lexicon.portuguese_morphology import default_morphology
from building.rules import plan
from building.rules.grammar.inflection import pt_agreement_flags
from building.rules.nc_rand.pools import modifier_kind, natural_for
from building.rules.synonyms.crowd import crowd_proposals
from building.rules.synonyms.generic import generic_replacements, generic_words
from building.rules.synonyms.layout import WordNotInCompound
from building.rules.synonyms.lookup import MODIFIER_POS, SynonymLookup, language_key, lookup_synonyms, without_offensive
from building.rules.synonyms.nc_syn import nc_syn_candidates
from building.rules.synonyms.scoring import MODEL, Proposal
from building.rules.synonyms.words_syn import (
    SynonymQuery,
    head_synonyms,
    lone_synonyms,
    modifier_synonyms,
    scored_in_context,
    words_syn,
)
from building.variants.proposals import nc_proposals_for, proposals_for
from building.variants.resources import Resources
from datasets import vocabulary
from datasets.formats.spans import Span
from datasets.models import Compound

IN_COMPOUND = {
    vocabulary.SYNONYM_HEAD,
    vocabulary.SYNONYM_MODIFIER,
    vocabulary.SYNONYM_BOTH,
}  # a noun and its adjective side by side


def _pairs(items: Iterable) -> list[tuple[str, dict]]:
    return [(item.text, item.details) for item in items]


def _with_agreement(details: dict, modifier: str, head: str) -> dict:
    """Portuguese: flag a new head and a kept (or new) adjective that may not agree ("líquido alcoólica")."""
    new_modifier = details.get("modifier", {}).get("synonym", modifier)
    new_head = details.get("head", {}).get("synonym", head)
    flags = pt_agreement_flags(new_head, new_modifier)
    return {**details, "flags": list(flags)} if flags else details


def compound_synonyms(compound: Compound, resources: Resources) -> tuple[str, str, SynonymLookup]:
    """The compound's modifier and head, and their synonyms from the lexicon, without offensive words."""
    words = compound.text.split()
    modifier = compound.modifier or (words[0] if len(words) > 1 else "")
    head = compound.head or words[-1]
    found = lookup_synonyms(resources.lexicon, modifier, head, compound.language, compound.text)
    return modifier, head, without_offensive(found, resources.offensive)


def model_proposals(compound: Compound) -> list[Proposal]:
    """The single words models proposed for the compound's head and modifier (``propose_synonyms``), best first;
    rejected ones left out. Their synonyms of the whole compound are NC_Syn candidates (``nc_syn``)."""
    found = proposals_for(compound.pk)
    return [Proposal(side, word, MODEL) for side in ("modifier", "head") for word in found.get(side, [])]


def nc_syn(compound: Compound, resources: Resources) -> list[tuple[str, dict]]:
    """The compound's NC_Syn candidates, best first: its gold synonym, then the models' synonyms of the whole
    compound (not rejected; an offensive word dropped whatever its source), each marked with its source."""
    return nc_syn_candidates(
        compound.gold_synonym,
        nc_proposals_for(compound.pk),
        compound.language,
        gold_synonym_source=compound.gold_synonym_source,
        blocks=resources.offensive.blocks,
        limit=plan.PER_KIND,
    )


def synonym_query(
    compound: Compound,
    resources: Resources,
    contexts: Sequence[tuple[str, Span]] | None = (),
    proposals: Sequence[Proposal] = (),
) -> SynonymQuery:
    """What the compound's synonym variants are built from, with the candidates scored in ``contexts`` (the
    compound's sentences; none: the compound alone) when ``resources`` has a sentence similarity and
    ``contexts`` is not None. ``proposals``: candidates from another source (a model's), ranked with the
    lexicon's and the crowd's; an offensive word is dropped whatever its source."""
    modifier, head, found = compound_synonyms(compound, resources)
    paraphrases = [(p.text, p.frequency) for p in compound.paraphrases.all()]
    extra = [*crowd_proposals(paraphrases, modifier, head, compound.language), *model_proposals(compound), *proposals]
    query = SynonymQuery(
        compound=compound.text,
        modifier=modifier,
        head=head,
        modifier_synonyms=found.modifier,
        head_synonyms=found.head,
        frequency=resources.frequency,
        resource=found.resource,
        language=compound.language,
        crowd=paraphrases,
        proposals=[p for p in extra if not resources.offensive.blocks(p.word)],
        morphology=default_morphology(compound.language),
    )
    if resources.similarity is not None and contexts is not None:
        try:
            fit = scored_in_context(query, contexts, resources.similarity, resources.similarity_source)
            query = query.with_fit(fit)
        except WordNotInCompound:
            pass  # noted by the variants that need the words
    return query


def plan_compound(
    compound: Compound,
    resources: Resources,
    slots: Iterable[int],
    contexts: Sequence[tuple[str, Span]] = (),
    proposals: Sequence[Proposal] = (),
) -> plan.CompoundPlan:
    """``contexts``: the compound's sentences (text, span), where synonyms are ranked by fit when
    ``resources`` has a sentence similarity; ``proposals``: candidates from another source (a model's)."""
    lexicon, frequency = resources.lexicon, resources.frequency
    words = compound.text.split()
    query = synonym_query(compound, resources, contexts, proposals)
    modifier, head = query.modifier, query.head
    notes: list[str] = []

    # Without the morphology (hunspell-pt-pt not installed) agreement can only be flagged.
    flag_agreement = compound.language.split("-")[0] == "pt" and default_morphology(compound.language) is None

    def attempt(build, *extra) -> list[tuple[str, dict]]:
        try:
            found = build(query, *extra)
            if flag_agreement:
                return [
                    (r.text, _with_agreement(r.details, modifier, head) if r.kind in IN_COMPOUND else r.details)
                    for r in found
                ]
            return _pairs(found)
        except WordNotInCompound as exc:
            if str(exc) not in notes:
                notes.append(str(exc))
            return []

    f_avg = (frequency(compound.text) + frequency(modifier) + frequency(head)) / 3
    target_words = [w for w in (modifier, head) if w] or words
    choices = MODIFIER_POS.get(language_key(compound.language), MODIFIER_POS["en"])
    natural = natural_for(compound.text, modifier_kind(lexicon, modifier, choices), lexicon, choices)
    random_by_slot = {
        slot: [
            (c.text, {"f_avg": round(c.f_avg, 4), "target_f_avg": round(f_avg, 4), "source": resources.pool_source})
            for c in resources.pool.frequency_matched(
                compound.text, target_words, f_avg, n=plan.PER_KIND, skip=plan.PER_KIND * (slot - 1), accept=natural
            )
        ]
        for slot in slots
    }
    unmatched = [
        (c.text, {"source": resources.pool_source})
        for c in resources.pool.unmatched(
            compound.text, target_words, n=plan.PER_KIND, seed=compound.key, accept=natural
        )
    ]
    try:
        generic = generic_replacements(compound.text, modifier, head, compound.language)
    except WordNotInCompound:
        generic = {}

    compound_plan = plan.compound_plan(
        compound=compound.text,
        modifier=modifier,
        head=head,
        nc_syn=nc_syn(compound, resources),
        words_syn=attempt(words_syn),
        modifier_syn=attempt(modifier_synonyms),
        head_syn=attempt(head_synonyms),
        modifier_alone=attempt(lone_synonyms, "modifier"),
        head_alone=attempt(lone_synonyms, "head"),
        generic=generic,
        random_by_slot=random_by_slot,
        unmatched=unmatched,
    )
    compound_plan.notes[:0] = notes
    if flag_agreement:  # "coisa" (f) with a masculine adjective: "coisa elétrico"
        flags = list(pt_agreement_flags(generic_words(compound.language).head, modifier))
        compound_plan.shared = [
            dataclasses.replace(r, details={**r.details, "flags": flags})
            if r.kind == vocabulary.GENERIC_HEAD and flags
            else r
            for r in compound_plan.shared
        ]
    return compound_plan
