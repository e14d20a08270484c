"""Asking a registered model for compounds' synonyms, for a curator to review as variant candidates.

The model is opened as a machine annotator is (``actions.open_annotator``: the administrator's hosts,
key variables and model folders, no redirects, the endpoint's rate limits shared by every worker),
each compound is asked once per template (``synonym_prompts``) through the same response cache and
bounded re-asks (``asking.ask_item`` with the ``PROPOSALS`` format), and what it answered is kept by
``building.variants.proposals.record_proposals``: offensive words filtered, nothing approved.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from annotators import config, synonym_prompts
from annotators.actions import AnnotatorError, cache_get, cache_put, check_answers, open_annotator
from annotators.asking import ask_item
from annotators.local import LocalAnnotator, LocalProposer
from building.variants.proposals import ModelAnswer, record_proposals
from datasets.models import Compound
from probing.embedding.network import RefusedRequest
from probing.embedding.sources import RefusedSource
from probing.models import EmbeddingModel

SENTENCES = 3  # the compound's sentences shown, as the papers' type-level items
# A proposal's answer is longer than a rating's: three lists of up to five texts. No digits to read.
PROPOSAL_DEFAULTS = {"max_tokens": 400, "logprobs": False, "concurrency": 1}


@dataclass
class ProposalRun:
    """What one call asked and kept."""

    asked: int = 0
    valid: int = 0
    invalid: int = 0
    sent: int = 0
    cached: int = 0
    proposals: int = 0
    filtered: int = 0


def open_proposer(model: EmbeddingModel):
    """The model as something that proposes synonyms (``ask`` under an answer format), checked against the rules."""
    check_answers(model)
    try:
        opened = open_annotator(model)
    except (RefusedSource, RefusedRequest) as error:
        raise AnnotatorError(str(error)) from None
    return LocalProposer(opened.language_model) if isinstance(opened, LocalAnnotator) else opened


def _sentences(compound: Compound) -> list[str]:
    rows = compound.sentences.filter(available=True).exclude(text="").order_by("kind", "slot", "pk")
    return list(rows.values_list("text", flat=True)[:SENTENCES])


def propose_synonyms(
    model: EmbeddingModel,
    compounds: Iterable[Compound],
    template_name: str | None = None,
    settings: dict | None = None,
    user=None,
    proposer=None,
) -> ProposalRun:
    """Ask ``model`` for the synonyms of each compound (in its language's template unless ``template_name``)."""
    if template_name is not None and template_name not in synonym_prompts.TEMPLATES:
        known = ", ".join(synonym_prompts.TEMPLATES)
        raise AnnotatorError(f"no template {template_name!r}: the templates are {known}", "template")
    try:
        resolved = config.resolve(PROPOSAL_DEFAULTS, settings)
    except ValueError as error:
        raise AnnotatorError(str(error), "settings") from None
    proposer = proposer or open_proposer(model)
    identity, put, run = proposer.identity(), cache_put(model.name), ProposalRun()
    for compound in compounds:
        template = synonym_prompts.TEMPLATES.get(template_name or "") or synonym_prompts.default_template(
            compound.language
        )
        words = compound.text.split()
        head = compound.head or words[-1]
        modifier = compound.modifier or " ".join(words[:-1])
        chat = synonym_prompts.messages(template, compound.text, head, modifier, _sentences(compound))
        try:
            outcome = ask_item(
                proposer, chat, resolved, int(resolved["seed"]), cache_get, put, synonym_prompts.PROPOSALS
            )
        except RefusedRequest as error:
            raise AnnotatorError(str(error)) from None
        answer = ModelAnswer(
            model_name=model.name,
            model_identity=identity,
            template_name=template.name,
            template_version=template.version,
            template_text=template.text,
            settings=resolved,
            valid=outcome.valid,
            words=outcome.answer.words if outcome.valid else {},
            error=outcome.error,
            raw_text=outcome.raw_text,
            attempts=outcome.attempts,
            response_key=outcome.key,
        )
        request = record_proposals(compound, answer, user)
        run.asked += 1
        run.valid += outcome.valid
        run.invalid += not outcome.valid
        run.sent += outcome.sent
        run.cached += outcome.cached
        run.proposals += request.proposals.count()
        run.filtered += len(request.filtered)
    return run
