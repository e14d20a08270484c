"""Where a compound's modifier and head stand in its text, and what a variant replaces them with (pure: no Django).

Each word is replaced where it stands in the compound's text, so English keeps modifier-head
order ("front man" → "forepart serviceman") and Portuguese head-modifier order ("água doce" →
"líquido açucarado"), and longer compounds keep their other words ("pé de moleque").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from datasets.formats.spans import Span, fold


class WordNotInCompound(ValueError):
    """The modifier or head is not a word of the compound's text, so it cannot be replaced in place."""


@dataclass(frozen=True)
class Replacement:
    """A variant's text, its kind (``datasets.vocabulary``) and where it came from."""

    kind: str
    text: str
    details: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Layout:
    """Where the modifier and the head stand in the compound's text."""

    compound: str
    modifier: Span
    head: Span

    def replace(self, modifier: str | None = None, head: str | None = None) -> str:
        changes = sorted(
            [(span, word) for span, word in ((self.modifier, modifier), (self.head, head)) if word is not None]
        )
        parts, end = [], 0
        for (start, stop), word in changes:
            parts += [self.compound[end:start], word]
            end = stop
        return "".join(parts) + self.compound[end:]


def _occurrences(compound: str, word: str) -> list[Span]:
    tokens = list(re.finditer(r"\w+", compound))
    wanted = [fold(part) for part in re.findall(r"\w+", word)]
    if not wanted:
        return []
    found = []
    for i in range(len(tokens) - len(wanted) + 1):
        if [fold(token.group()) for token in tokens[i : i + len(wanted)]] == wanted:
            found.append((tokens[i].start(), tokens[i + len(wanted) - 1].end()))
    return found


def locate(compound: str, modifier: str, head: str) -> Layout:
    """Find both words in ``compound`` (case- and accent-insensitive); raises WordNotInCompound."""
    modifiers, heads = _occurrences(compound, modifier), _occurrences(compound, head)
    if not modifiers:
        raise WordNotInCompound(f"the modifier {modifier!r} is not a word of {compound!r}")
    if not heads:
        raise WordNotInCompound(f"the head {head!r} is not a word of {compound!r}")
    first_modifier = modifiers[0]
    # A repeated word ("bye bye"): the head is its last other occurrence.
    apart = [span for span in heads if span[1] <= first_modifier[0] or span[0] >= first_modifier[1]]
    if not apart:
        raise WordNotInCompound(f"the modifier {modifier!r} and the head {head!r} overlap in {compound!r}")
    return Layout(compound, first_modifier, apart[-1])
