"""How far the crowd's paraphrases can take NC_Syn towards the experts' (pure: no Django import).

NC_Syn is picked from the crowd's paraphrases of a compound (``gold_synonym``). Whatever rule picks
it, it can only equal the experts' NC_Syn when the experts' phrase is among those paraphrases. This
module measures that ceiling: for each compound with an expert NC_Syn, where the experts' phrase
stands in the crowd's ranked paraphrases (``gold_synonym.candidates`` order), and, when it is not
there at all, what the experts wrote instead (a phrase of several words, one that keeps a word of the
compound, a single word). ``benchmarks/nc_syn_reach.py`` prints it for NCTTI against NCIMP and NCS.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Same = Callable[[str, str], bool]


@dataclass(frozen=True)
class Reach:
    """One compound: the experts' NC_Syn and its 1-based rank among the crowd's paraphrases (None: absent)."""

    compound: str
    expert: str
    rank: int | None
    paraphrases: int  # distinct paraphrase groups the crowd gave
    shape: str  # "several words", "keeps a word of the compound", "one word"


def shape_of(expert: str, compound: str, same: Same) -> str:
    """What kind of phrase the experts wrote: it keeps a compound word, has several words, or is one word."""
    words = compound.split()
    if any(same(word, theirs) for word in words for theirs in expert.split()):
        return "keeps a word of the compound"
    return "several words" if len(expert.split()) > 1 else "one word"


def reach(compound: str, expert: str, ranked: Sequence[str], same: Same) -> Reach:
    """Where ``expert`` stands in ``ranked`` (the crowd's paraphrase groups, best first)."""
    rank = next((i for i, text in enumerate(ranked, 1) if same(text, expert)), None)
    return Reach(compound, expert, rank, len(ranked), shape_of(expert, compound, same))


def summary(found: Sequence[Reach], tops: Sequence[int] = (1, 3, 5)) -> dict:
    """Shares of compounds whose expert NC_Syn the crowd gave at rank 1, within ``tops``, at all; and the
    shapes of the experts' phrases the crowd never gave."""
    n = len(found)
    share = lambda count: round(count / n, 4) if n else None  # noqa: E731
    out: dict = {"compounds": n}
    for top in tops:
        out[f"rank_le_{top}"] = share(sum(1 for r in found if r.rank is not None and r.rank <= top))
    out["anywhere"] = share(sum(1 for r in found if r.rank is not None))
    absent = [r for r in found if r.rank is None]
    out["absent"] = len(absent)
    out["absent_shapes"] = dict(sorted(Counter(r.shape for r in absent).items()))
    out["median_paraphrases"] = sorted(r.paraphrases for r in found)[n // 2] if n else None
    return out
