"""Which minimal pairs a compound gets, and where each goes (pure: no Django import).

The plan follows the NCIMP release (He et al. 2024, section 3.1 and table 1): every
sentence that holds the compound, naturalistic or neutral, is paired with

- NC_Syn: the gold synonym;
- NC_Comp: the head alone and the modifier alone (both kept; the probe picks one);
- NC_WordsSyn: five two-word replacements made of synonyms of both words;
- the single-side variants of the public release (a synonym of the modifier or of the
  head, in the compound or alone) and its "generic" ones (thing, normal);
- NC_Rand: five frequency-matched random compounds per sentence, and five unmatched ones.

Out-of-context ("isolated") variants, the replacement with no sentence around it, go with
the short singular neutral sentence, as the public neutral file keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from building.rules.synonyms.scoring import MODEL
from datasets import vocabulary

PER_KIND = 5  # replacements of each ranked kind, as in the release

# Kinds that also get an out-of-context variant (the replacement alone).
ISOLATED_KINDS = frozenset(
    {
        vocabulary.ORIGINAL,
        vocabulary.SYNONYM_NC,
        vocabulary.HEAD_ONLY,
        vocabulary.MODIFIER_ONLY,
        vocabulary.SYNONYM_BOTH,
        vocabulary.RANDOM_FREQ,
    }
)

# The command's JSON groups kinds under the names researchers use for the probes.
OUTPUT_GROUPS: dict[str, tuple[str, ...]] = {
    "syn": (vocabulary.SYNONYM_NC,),
    "head": (vocabulary.HEAD_ONLY,),
    "modifier": (vocabulary.MODIFIER_ONLY,),
    "words_syn": (vocabulary.SYNONYM_BOTH,),
    "rand": (vocabulary.RANDOM_FREQ,),
    "modifier_syn": (vocabulary.SYNONYM_MODIFIER, vocabulary.MODIFIER_SYNONYM_ONLY),
    "head_syn": (vocabulary.SYNONYM_HEAD, vocabulary.HEAD_SYNONYM_ONLY),
    "generic": (
        vocabulary.GENERIC_MODIFIER,
        vocabulary.GENERIC_HEAD,
        vocabulary.GENERIC_BOTH,
        vocabulary.GENERIC_COMPOUND,
    ),
    "rand_unmatched": (vocabulary.RANDOM,),
    "original": (vocabulary.ORIGINAL,),
}
KIND_GROUP = {kind: group for group, kinds in OUTPUT_GROUPS.items() for kind in kinds}

# The probe kinds curators filter on, in review order.
PROBE_ORDER = [kind for kinds in OUTPUT_GROUPS.values() for kind in kinds]


@dataclass(frozen=True)
class Replacement:
    """What replaces the compound (lemma form), for one kind and rank."""

    kind: str
    rank: int
    text: str
    details: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass
class CompoundPlan:
    """Every replacement of one compound; the random ones per naturalistic slot."""

    shared: list[Replacement]
    random_by_slot: dict[int, list[Replacement]]
    notes: list[str] = field(default_factory=list)

    def for_sentence(self, slot: int | None) -> list[Replacement]:
        """The replacements of a naturalistic slot (``None``: a neutral sentence takes slot 1's)."""
        if slot is None:
            return self.shared + self.neutral_random()
        return self.shared + self.random_by_slot.get(slot, [])

    def neutral_random(self) -> list[Replacement]:
        """NC_Rand of the neutral sentences: slot 1's, else the lowest planned slot's (never none)."""
        if 1 in self.random_by_slot:
            return self.random_by_slot[1]
        return self.random_by_slot[min(self.random_by_slot)] if self.random_by_slot else []

    def isolated(self) -> list[Replacement]:
        return [r for r in self.for_sentence(None) if r.kind in ISOLATED_KINDS]


def ranked(kind: str, texts: list[tuple[str, dict]], limit: int = PER_KIND) -> list[Replacement]:
    """Replacements of one kind ranked 1.. in the order given, duplicates dropped."""
    seen: set[str] = set()
    out: list[Replacement] = []
    for text, details in texts:
        key = text.casefold()
        if not text or key in seen:
            continue
        seen.add(key)
        out.append(Replacement(kind, len(out) + 1, text, details))
        if len(out) == limit:
            break
    return out


def compound_plan(
    *,
    compound: str,
    modifier: str,
    head: str,
    nc_syn: list[tuple[str, dict]],
    words_syn: list[tuple[str, dict]],
    modifier_syn: list[tuple[str, dict]],
    head_syn: list[tuple[str, dict]],
    modifier_alone: list[tuple[str, dict]],
    head_alone: list[tuple[str, dict]],
    generic: dict[str, str],
    random_by_slot: dict[int, list[tuple[str, dict]]],
    unmatched: list[tuple[str, dict]],
) -> CompoundPlan:
    """The full plan; an empty resource leaves its kind out and says so in ``notes``.

    ``nc_syn``: the NC_Syn candidates best first (``synonyms.nc_syn.nc_syn_candidates``: the gold synonym,
    then models' proposals for the whole compound)."""
    notes: list[str] = []
    shared = [Replacement(vocabulary.ORIGINAL, 1, compound, {"source": "compound"})]
    shared.extend(ranked(vocabulary.SYNONYM_NC, nc_syn))
    if not nc_syn:
        notes.append("no gold synonym yet: NC_Syn left out (derive or pick one)")
    elif nc_syn[0][1].get("source") == MODEL:
        notes.append(
            "no gold synonym yet: NC_Syn from a model's proposals, for a curator to check (derive or pick one)"
        )
    if head:
        shared.append(Replacement(vocabulary.HEAD_ONLY, 1, head, {"source": "head"}))
    if modifier:
        shared.append(Replacement(vocabulary.MODIFIER_ONLY, 1, modifier, {"source": "modifier"}))
    for kind, texts, label in [
        (vocabulary.SYNONYM_BOTH, words_syn, "NC_WordsSyn"),
        (vocabulary.SYNONYM_MODIFIER, modifier_syn, "modifier synonyms"),
        (vocabulary.SYNONYM_HEAD, head_syn, "head synonyms"),
        (vocabulary.MODIFIER_SYNONYM_ONLY, modifier_alone, "modifier synonyms alone"),
        (vocabulary.HEAD_SYNONYM_ONLY, head_alone, "head synonyms alone"),
    ]:
        found = ranked(kind, texts)
        shared.extend(found)
        if len(found) < PER_KIND:
            notes.append(f"{label}: {len(found)} of {PER_KIND} found in the lexicon")
    for kind in (
        vocabulary.GENERIC_MODIFIER,
        vocabulary.GENERIC_HEAD,
        vocabulary.GENERIC_BOTH,
        vocabulary.GENERIC_COMPOUND,
    ):
        if generic.get(kind):
            shared.append(Replacement(kind, 1, generic[kind], {"source": "generic words"}))
    shared.extend(ranked(vocabulary.RANDOM, unmatched))
    by_slot = {slot: ranked(vocabulary.RANDOM_FREQ, texts) for slot, texts in random_by_slot.items()}
    if any(len(found) < PER_KIND for found in by_slot.values()):
        notes.append("NC_Rand: fewer than 5 frequency-matched candidates in the pool")
    return CompoundPlan(shared, by_slot, notes)
