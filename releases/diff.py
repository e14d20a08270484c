"""What changed between two releases (pure: no Django import).

``diff_snapshots(old, new)`` compares two ``Snapshot`` row by row, by the keys the snapshot
defines: compounds by (language, normalised text), sentences by (compound, kind, slot),
variants by (compound, sentence kind and slot, variant kind, rank, isolated), paraphrases by
(compound, level, slot, text). Rows of an added compound count as added too (and likewise for
removed ones), so that ``new = old + added - removed`` holds for every count.

The result is plain JSON (lists, dicts, strings, numbers, booleans and None) in a fixed
order, so the same two snapshots always give the same bytes::

    {
      "summary": {"languages": {"added": [...], "removed": [...]},
                  "compounds" | "sentences" | "variants" | "paraphrases" | "agreement":
                      {"old": n, "new": n, "added": n, "removed": n, "changed": n},
                  "type_scores_changed": n, "classes_changed": n, "score_source_changed": bool,
                  "machine_ratings_changed": bool, "identical": bool},
      "compounds": {"added": [row], "removed": [row], "changed": [{...identity, "changes": {field: {"old", "new"}}}]},
      "sentences": {...}, "variants": {...}, "paraphrases": {...}, "agreement": {...},
      "scores": {"type_score" | "token_score" | "head_score" | "modifier_score":
                     {"compared": n, "changed": n, "mean_absolute_change": x, "mean_absolute_change_of_changed": x,
                      "max_absolute_change": x, "largest": [{"language", "compound", "old", "new", "change"}]}},
      "classes": [{"old": class, "new": class, "count": n}],
      "score_source": {"old": {...}, "new": {...}, "changed": bool},
      "machine_ratings": {"old": n or None, "new": n or None, "changed": bool},
    }

``machine_ratings`` counts the machine-made ratings each release carries (None: it did not opt in);
they are not data rows of the dataset, only whether they differ is said.

A row is its identity (``language``, ``compound`` and the rest of its key) followed by its
compared fields; spans are ``[start, end]`` lists or None.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from releases.snapshot import COMPOUND_DATA_FIELDS, ScoreInfo, Snapshot

COMPOUND_FIELDS = ("text", *COMPOUND_DATA_FIELDS)
SENTENCE_FIELDS = ("text", "span", "plural", "token_score", "length")
VARIANT_FIELDS = ("text", "span", "status")
PARAPHRASE_FIELDS = ("frequency",)
AGREEMENT_FIELDS = ("level", "alpha", "low", "high", "n_items", "n_ratings")
SCORE_FIELDS = ("type_score", "token_score", "head_score", "modifier_score")
PARTS = ("compounds", "sentences", "variants", "paraphrases", "agreement")
LARGEST_CHANGES = 10
# Scores and frequencies go through text files between releases: a difference below this is rounding.
TOLERANCE = 1e-9
DIGITS = 6

Rows = dict[tuple, tuple[dict, dict]]  # key -> (identity, compared fields)


def diff_snapshots(old: Snapshot, new: Snapshot, largest: int = LARGEST_CHANGES) -> dict:
    """Everything added, removed or changed from ``old`` to ``new``, with a summary (see the module)."""
    old_rows, new_rows = _index(old), _index(new)
    parts = {part: _diff_rows(old_rows[part], new_rows[part]) for part in PARTS}
    old_compounds = {c.key: c for c in old.compounds}
    new_compounds = {c.key: c for c in new.compounds}
    common = sorted(old_compounds.keys() & new_compounds.keys())
    pairs = [(old_compounds[key], new_compounds[key]) for key in common]
    scores = {field: _score_changes(pairs, field, largest) for field in SCORE_FIELDS}
    classes = Counter(
        (a.compositionality_class, b.compositionality_class)
        for a, b in pairs
        if a.compositionality_class != b.compositionality_class
    )
    source = {"old": _score_info(old.scores), "new": _score_info(new.scores)}
    source["changed"] = source["old"] != source["new"]
    summary: dict = {
        "languages": {
            "added": sorted(set(new.languages) - set(old.languages)),
            "removed": sorted(set(old.languages) - set(new.languages)),
        }
    }
    for part in PARTS:
        summary[part] = {
            "old": len(old_rows[part]),
            "new": len(new_rows[part]),
            **{change: len(rows) for change, rows in parts[part].items()},
        }
    summary["type_scores_changed"] = scores["type_score"]["changed"]
    summary["classes_changed"] = sum(classes.values())
    summary["score_source_changed"] = source["changed"]
    machine = {"old": _count(old.machine_ratings), "new": _count(new.machine_ratings)}
    machine["changed"] = old.sorted().machine_ratings != new.sorted().machine_ratings
    summary["machine_ratings_changed"] = machine["changed"]
    summary["identical"] = (
        not summary["languages"]["added"]
        and not summary["languages"]["removed"]
        and not source["changed"]
        and not machine["changed"]
        and all(not rows for changes in parts.values() for rows in changes.values())
    )
    return {
        "summary": summary,
        **parts,
        "scores": scores,
        "classes": [
            {"old": a, "new": b, "count": count}
            for (a, b), count in sorted(classes.items(), key=lambda item: (-item[1], str(item[0])))
        ],
        "score_source": source,
        "machine_ratings": machine,
    }


def _count(rows: tuple | None) -> int | None:
    return None if rows is None else len(rows)


def _index(snapshot: Snapshot) -> dict[str, Rows]:
    """Every row of the snapshot by its key, per part."""
    rows: dict[str, Rows] = {part: {} for part in PARTS}
    for c in snapshot.compounds:
        compound = {"language": c.language, "compound": c.text}
        rows["compounds"][c.key] = (compound, _fields(c, COMPOUND_FIELDS))
        for s in c.sentences:
            sentence = compound | {"kind": s.kind, "slot": s.slot}
            rows["sentences"][(c.key, s.key)] = (sentence, _fields(s, SENTENCE_FIELDS))
            for x in s.variants:
                variant = compound | {
                    "sentence_kind": s.kind,
                    "sentence_slot": s.slot,
                    "kind": x.kind,
                    "rank": x.rank,
                    "isolated": x.isolated,
                }
                rows["variants"][(c.key, s.key, x.key)] = (variant, _fields(x, VARIANT_FIELDS))
        for p in c.paraphrases:
            # Type-level paraphrases have no slot; -1 sorts them before the token-level ones.
            key = (c.key, p.level, -1 if p.slot is None else p.slot, p.text)
            paraphrase = compound | {"level": p.level, "slot": p.slot, "text": p.text}
            rows["paraphrases"][key] = (paraphrase, _fields(p, PARAPHRASE_FIELDS))
    for a in snapshot.agreement:
        agreement = {"language": a.language, "question": a.question, "source": a.source}
        rows["agreement"][(a.language, a.question, a.source)] = (agreement, _fields(a, AGREEMENT_FIELDS))
    return rows


def _fields(row, names: Iterable[str]) -> dict:
    return {name: _plain(getattr(row, name)) for name in names}


def _plain(value):
    """Tuples (spans) as lists, so that a diff equals its own JSON round trip."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _diff_rows(old: Rows, new: Rows) -> dict[str, list[dict]]:
    added = [identity | fields for key, (identity, fields) in sorted(new.items()) if key not in old]
    removed = [identity | fields for key, (identity, fields) in sorted(old.items()) if key not in new]
    changed = []
    for key in sorted(old.keys() & new.keys()):
        before, (identity, after) = old[key][1], new[key]
        changes = {
            name: {"old": before[name], "new": after[name]}
            for name in after
            if not _same(before.get(name), after[name])
        }
        if changes:
            changed.append(identity | {"changes": changes})
    return {"added": added, "removed": removed, "changed": changed}


def _same(a, b) -> bool:
    numbers = (float, int)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE)
    return a == b


def _score_changes(pairs: list, field: str, largest: int) -> dict:
    """How many compounds' ``field`` changed, and by how much where both releases have a value."""
    changed = 0
    deltas = []
    for a, b in pairs:
        before, after = getattr(a, field), getattr(b, field)
        if _same(before, after):
            if before is not None:
                deltas.append((0.0, a.key, b, before, after))
            continue
        changed += 1
        if before is not None and after is not None:
            deltas.append((after - before, a.key, b, before, after))
    sizes = [abs(delta) for delta, *_ in deltas]
    moved = [size for size in sizes if size > TOLERANCE]
    top = sorted((row for row in deltas if abs(row[0]) > TOLERANCE), key=lambda row: (-abs(row[0]), row[1]))
    return {
        "compared": len(deltas),
        "changed": changed,
        "mean_absolute_change": _round(sum(sizes) / len(sizes)) if sizes else None,
        "mean_absolute_change_of_changed": _round(sum(moved) / len(moved)) if moved else None,
        "max_absolute_change": _round(max(moved)) if moved else None,
        "largest": [
            {"language": c.language, "compound": c.text, "old": before, "new": after, "change": _round(delta)}
            for delta, _, c, before, after in top[:largest]
        ],
    }


def _round(value: float) -> float:
    # round() alone leaves -0.0, which prints oddly.
    return round(value, DIGITS) + 0.0


def _score_info(info: ScoreInfo) -> dict:
    return {
        "source": info.source,
        "campaigns": list(info.campaigns),
        "policy": _plain(dict(info.policy)),
        "aggregation": info.aggregation,
    }
