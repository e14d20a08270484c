"""NC_Syn candidates: the crowd's gold synonym first, then the compound-level synonyms models proposed (pure: no Django).

The experts' NC_Syn is the crowd's most frequent paraphrase, so the gold synonym
(``gold_synonym.pick_gold_synonym``, or a file's or a curator's) keeps rank 1 whenever there is one.
A model's proposals for the whole compound (``building.variants.proposals.nc_proposals_for``: not
rejected, offensive words already left out when recorded) come after it as further ranked NC_Syn
candidates, as the NCIMP release keeps a second NC_Syn; without a gold synonym the first of them is
rank 1. Each candidate's details say where it came from (``source`` "crowd", "curator" or "file" for
the gold synonym, "model" with the model and its template's name and version), so a curator reviewing it knows; nothing here is approved.

A proposal that is the gold synonym, or another proposal, once case, accents, number and leading
articles are set aside (``gold_synonym.paraphrase_key``) is not a candidate of its own: it is
recorded as supporting the one it repeats (``supported_by``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from annotation.analysis.paraphrases import normalise
from building.rules.synonyms.gold_synonym import paraphrase_key, without_article
from building.rules.synonyms.scoring import CROWD, MODEL  # the source names every candidate shares
from datasets import vocabulary

LIMIT = 5  # NC_Syn candidates in all, gold synonym included: as many as each ranked kind has


@dataclass(frozen=True)
class ModelNcProposal:
    """One word a model proposed for the whole compound, with who proposed it and with which template."""

    text: str
    model_name: str
    template_name: str
    template_version: int
    rank: int = 1  # 1: the model's first proposal for the compound

    def as_dict(self) -> dict:
        return {
            "text": self.text,
            "model": self.model_name,
            "template": self.template_name,
            "template_version": self.template_version,
            "rank": self.rank,
        }


def _reads_as(text: str, language: str) -> str:
    """The proposal as it stands in the sentence, like a gold synonym: normalised, no leading article."""
    return without_article(normalise(text), language)


def nc_syn_candidates(
    gold_synonym: str,
    proposals: Sequence[ModelNcProposal],
    language: str,
    gold_synonym_source: str = "",
    blocks: Callable[[str], bool] | None = None,
    limit: int = LIMIT,
) -> list[tuple[str, dict]]:
    """The compound's NC_Syn candidates, best first, each (text, details): the gold synonym (``source``
    "crowd") when there is one, then ``proposals`` in the order given (``source`` "model").

    ``gold_synonym_source``: where the gold synonym came from (paraphrases, file, curator), kept in its
    details. ``blocks``: proposals it refuses (the language's offensive words), never a candidate
    whatever their source. At most ``limit`` candidates.
    """
    found: list[tuple[str, dict]] = []
    by_key: dict[str, dict] = {}
    if gold_synonym:
        # The crowd's when picked from its paraphrases; a curator's pick or a file's value says so instead.
        source = CROWD if gold_synonym_source in ("", vocabulary.GOLD_FROM_PARAPHRASES) else gold_synonym_source
        details = {"source": source, "gold_synonym_source": gold_synonym_source}
        found.append((gold_synonym, details))
        by_key[paraphrase_key(gold_synonym, language)] = details
    for proposal in proposals:
        text = _reads_as(proposal.text, language)
        key = paraphrase_key(text, language)
        if not key or (blocks is not None and (blocks(proposal.text) or blocks(text))):
            continue
        if key in by_key:
            by_key[key].setdefault("supported_by", []).append(proposal.as_dict())
            continue
        if len(found) == limit:
            continue  # still read: a later proposal may support a candidate already in
        details = {
            "source": MODEL,
            "model": proposal.model_name,
            "template": proposal.template_name,
            "template_version": proposal.template_version,
            "model_rank": proposal.rank,
        }
        found.append((text, details))
        by_key[key] = details
    return found
