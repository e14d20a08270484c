"""Which shard embeds which text (pure: no Django): every text of a run once, whatever the shards share.

A run's shards are slices of its compounds, and compounds share texts (the same random compound in
the same neutral pattern; an isolated compound that is another's random replacement). Each text
is owned by the first shard that needs it: that shard embeds, in the same forward pass, every span
of the text that any shard needs (its "lent" items). A later shard needing the text "borrows" its
items: it reads them from the cache once their owner has stored them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from probing.embedding.base import TextSpan


@dataclass
class ShardPlan:
    """What one shard embeds (its own items and those it lends) and what it borrows from earlier shards."""

    borrowed: list[tuple[int, int]] = field(default_factory=list)  # (index in the shard's items, owner shard)
    lent: list[TextSpan] = field(default_factory=list)  # items of its texts that only later shards need

    def as_dict(self) -> dict:
        return {
            "borrowed": [list(pair) for pair in self.borrowed],
            "lent": [[item.text, *(item.span or (None, None))] for item in self.lent],
        }

    @classmethod
    def from_dict(cls, data: dict | None) -> ShardPlan:
        data = data or {}
        lent = [TextSpan(text, None if start is None else (start, end)) for text, start, end in data.get("lent", [])]
        return cls([(int(i), int(owner)) for i, owner in data.get("borrowed", [])], lent)

    def split(self, items: Sequence[TextSpan]) -> tuple[list[TextSpan], list[tuple[TextSpan, int]]]:
        """(items to embed here, [(item, owner shard)] to read from the cache) of a shard's ``items``."""
        borrowed = dict(self.borrowed)
        own = [item for i, item in enumerate(items) if i not in borrowed]
        return own + list(self.lent), [(items[i], owner) for i, owner in sorted(borrowed.items())]


def plan_shards(shard_items: Sequence[Sequence[TextSpan]]) -> list[ShardPlan]:
    """One plan per shard, given each shard's distinct items in order: each text is embedded by one shard."""
    owner: dict[str, int] = {}
    for index, items in enumerate(shard_items):
        for item in items:
            owner.setdefault(item.text, index)
    plans = [ShardPlan() for _ in shard_items]
    wanted: dict[int, dict[TextSpan, None]] = {}
    for index, items in enumerate(shard_items):
        for position, item in enumerate(items):
            first = owner[item.text]
            if first != index:
                plans[index].borrowed.append((position, first))
                wanted.setdefault(first, {})[item] = None
    for first, items in wanted.items():
        own = set(shard_items[first])
        plans[first].lent = [item for item in items if item not in own]
    return plans
